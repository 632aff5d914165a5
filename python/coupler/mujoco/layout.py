"""The handshake of a MuJoCo scene, derived from the compiled model alone.

No scene carries a hand-written list of what it serves; it follows from the
model's structure, by these rules:

Robots and objects
    A body moves when it has joints; a moving body whose parent is welded to
    the world (the world body itself, or static bodies such as a table) is a
    mount. Each mount with everything below it is one mechanism, and each
    mechanism is one served thing: bodies joined through joints belong
    together, bodies joined only through static bodies do not. So two arms
    on one static table, or on a robot's static torso (Baxter), are two
    robots, while two arms on a moving lift (Tiago) are one. A served thing
    is named after its root body: the highest static body above its mount
    that holds no other mount, else the mount itself (the highest body above
    exactly one mount whose parent is the world or holds several mounts). So
    a robot bolted to a base body directly under the world is named after
    the base, and two arms on one table after their own bases. The bodies
    given as `robots` (`coupler serve --robot BODY`) override this: each
    one's subtree is one served thing named after it, however many mechanisms
    it holds (Baxter's torso with both arms), or only part of one (the rest
    of that mechanism is served by the rule above); the rule groups the
    bodies outside them. A root whose subtree is moved by at least
    one actuator is a robot; any other root is an object (a free box, a door
    on a hinge, a cart on a slide). Bodies without joints anywhere below them
    (tables, walls) are scenery and are not served. Roots come in model
    order, so the handshake is the same on every run. An unnamed root (a
    wrapper body that only places a robot, `<body pos="0 0 1.8">`) takes
    the name of the first named body below it in model order (the robot's
    own base, say); its readings are still the root's. Names stay unique,
    since each is the name of a different body. An unnamed joint takes its
    body's name (`door`), followed by its place among the body's joints when
    the body has several (`lid_0`, `lid_1`). Robots and objects
    report their root body's world position and roll-pitch-yaw as
    objectSensors [POSITION, RPY]; a root with a free joint adds its linear
    velocity (of the body's origin) and angular velocity, both in the world
    frame: [POSITION, RPY, VELOCITY_3D, ANGULAR_VELOCITY_3D].

Controls
    A robot's controls are its actuators in model order, each named after the
    actuator (an unnamed one after its joint), each with what it drives in
    `controlTargets`: its joint, tendon, site (a slider-crank's crank site)
    or body. The type follows from what the actuator does, read from its
    gain, bias and dynamics parameters (not its name), and from what it acts on:

    ==========================================  ===================  ===============
    actuator on a joint                         hinge                slide
    ==========================================  ===================  ===============
    motor: fixed gain, no bias                  TORQUE_1D            FORCE_1D
    position servo: bias = -gain * length       ANGLE                LINEAR_POSITION
    velocity servo: bias = -gain * velocity     ANGULAR_VELOCITY_1D  LINEAR_VELOCITY
    integrated-velocity servo (intvelocity)     ANGULAR_VELOCITY_1D  LINEAR_VELOCITY
    ==========================================  ===================  ===============

    Values are in joint units: the adapter divides by the transmission gear
    (motors: ctrl = value / gear, a division, not a product with 1 / gear,
    which differs in the last bit) or multiplies by it (servos: ctrl = value
    * gear) on the way to `mjData.ctrl`. Every
    other actuator (tendon, site, slider-crank and body transmissions, ball
    joints, muscles, other gains, biases or dynamics) is an ACTUATOR_INPUT:
    the actuator's own ctrl, unscaled, since no one physical unit fits it;
    its `control_meanings` entry says what the ctrl goes through (gain,
    bias, dynamics, gear), as `coupler info` shows.

Mocap bodies
    A mocap body (`mocap="true"`, moved by setting `mjData.mocap_pos` and
    `mocap_quat` rather than by physics) is the root of its own object, and
    that object takes 7 more controls after its actuators' (the "mocap"
    extension), each with the body in `controlTargets`: x, y, z of type
    MOCAP_POSITION (m, world frame, unlimited) and qw, qx, qy, qz of type
    MOCAP_QUATERNION (its world orientation, each component in [-1, 1]).
    They set `mocap_pos` and `mocap_quat` before the step, through the
    scatter of `coupler.mujoco.flat` (C++ `coupler::ControlScatter` says
    how a quaternion that is not of unit length is taken).

Control events
    An actuator in actuator group 5 (`EVENT_GROUP`) is an on/off control
    event named after the actuator, of type ACTIVATED, and not a control.
    Activated sets its control to the top of its ctrlrange, off to the
    bottom; for a gripper, top means closed. It needs a name and a ctrlrange;
    its transmission may be anything (a tendon coupling two fingers, say).

Joint sensors
    Every hinge and slide joint of a robot or object, in model order, named after the
    joint, with the types [ANGLE, ANGULAR_VELOCITY_1D, TORQUE_1D]: position,
    velocity and the actuators' generalized force on the joint
    (`qfrc_actuator`). For a slide joint these are m, m/s and N, and the
    handshake's `joint_types` (the "value-types" extension) types them
    [LINEAR_POSITION, LINEAR_VELOCITY, FORCE_1D], while Click peers, which
    read only the object's one list, see the Click types. A ball
    joint is a named sensor after the joint: [RPY, ANGULAR_VELOCITY_3D].

Named sensors
    Every MuJoCo sensor of a robot or object. A named MuJoCo sensor is a
    named sensor of its own, under its own name. Unnamed sensors on a named
    site form one named sensor called after the site, with one reading per
    MuJoCo sensor in model order: unnamed `force` and `torque` on the site
    "wrist_ft" give "wrist_ft" with [FORCE_3D, TORQUE_3D]. A sensor has the
    Click (or linear) type of the same meaning where there is one
    (`coupler.mujoco.sensor_types`; a quaternion is sent as RPY), else one
    NUMBER per value, its unit in the handshake's `sensor_units`. Sensors of no robot or object (clock,
    energies, sensors on static bodies) belong to the served thing `world`
    (`SCENE_SENSORS`).

Everything else the model holds that cannot be served by these rules (a
robot with no named body, an actuator acting on two robots, an unnamed sensor off any
named site, ...) is listed by name in `SceneLayout.unmapped`, never
silently dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import mujoco
import numpy as np

from coupler import _native
from coupler.wire.errors import Error
from coupler.wire.messages import HandshakeMessage, ObjectDescription, Range, ValueType
from coupler.wire.name_list import valid_names
from coupler.mujoco.keyframes import keyframe_names
from coupler.mujoco.ranges import control_ranges, joint_limits
from coupler.mujoco.sensor_types import number_unit, sensor_type

EVENT_GROUP = 5
"""Actuators in this actuator group are on/off control events."""

JOINT_SENSOR_TYPES = [ValueType.ANGLE, ValueType.ANGULAR_VELOCITY_1D, ValueType.TORQUE_1D]
"""The Click types of every joint's readings (`jointSensors`), for Click peers."""
SLIDE_SENSOR_TYPES = [ValueType.LINEAR_POSITION, ValueType.LINEAR_VELOCITY, ValueType.FORCE_1D]
"""A slide joint's readings as `joint_types` types them: m, m/s, N."""
OBJECT_SENSOR_TYPES = [ValueType.POSITION, ValueType.RPY]
FREE_OBJECT_SENSOR_TYPES = [*OBJECT_SENSOR_TYPES, ValueType.VELOCITY_3D, ValueType.ANGULAR_VELOCITY_3D]

_Obj = mujoco.mjtObj
_Jnt = mujoco.mjtJoint
_Trn = mujoco.mjtTrn
_Dyn = mujoco.mjtDyn
_Wrap = mujoco.mjtWrap

_HINGE = int(_Jnt.mjJNT_HINGE)
_SLIDE = int(_Jnt.mjJNT_SLIDE)
_FREE = int(_Jnt.mjJNT_FREE)
_BALL = int(_Jnt.mjJNT_BALL)
_SCALAR_JOINTS = (_HINGE, _SLIDE)
_JOINT_TYPE_NAMES = {int(_Jnt.mjJNT_FREE): "free", int(_Jnt.mjJNT_BALL): "ball", _HINGE: "hinge", _SLIDE: "slide"}

# Control type by servo kind and joint type (see the module docstring).
_CONTROL_TYPES: dict[tuple[str, int], ValueType] = {
    ("motor", _HINGE): ValueType.TORQUE_1D,
    ("motor", _SLIDE): ValueType.FORCE_1D,
    ("position", _HINGE): ValueType.ANGLE,
    ("position", _SLIDE): ValueType.LINEAR_POSITION,
    ("velocity", _HINGE): ValueType.ANGULAR_VELOCITY_1D,
    ("velocity", _SLIDE): ValueType.LINEAR_VELOCITY,
}
# What a control of each transmission names in controlTargets: the object of actuator_trnid[0].
_TARGET_OBJECTS: dict[int, mujoco.mjtObj] = {
    int(_Trn.mjTRN_JOINT): _Obj.mjOBJ_JOINT,
    int(_Trn.mjTRN_JOINTINPARENT): _Obj.mjOBJ_JOINT,
    int(_Trn.mjTRN_SLIDERCRANK): _Obj.mjOBJ_SITE,  # the crank site
    int(_Trn.mjTRN_TENDON): _Obj.mjOBJ_TENDON,
    int(_Trn.mjTRN_SITE): _Obj.mjOBJ_SITE,
    int(_Trn.mjTRN_BODY): _Obj.mjOBJ_BODY,
}

# In the order the C++ scatter takes a pose's values, which names them in its refusals.
MOCAP_CONTROLS = [(name, ValueType.MOCAP_POSITION if k < 3 else ValueType.MOCAP_QUATERNION)
                  for k, name in enumerate(_native.ControlScatter.POSE_CONTROLS)]
"""A mocap body's controls, after its object's actuators: its world position, then its orientation (w, x, y, z)."""

SCENE_SENSORS = "world"
"""The served thing holding the MuJoCo sensors of no robot or object (clock, energies, sensors on
static bodies); MuJoCo names its world body so, so no body of the model can take the name."""


@dataclass(frozen=True)
class Reading:
    """One reading of a named sensor: `dim` numbers of `mjData.<source>` from `adr`.

    An RPY reading has dim 4: it is a quaternion, converted when read.
    """

    type: ValueType
    adr: int
    dim: int
    source: str = "sensordata"


@dataclass(frozen=True)
class Event:
    """An on/off control event: the control it sets and the values for off and activated."""

    ctrl_adr: int
    off: float
    on: float


@dataclass
class ObjectLayout:
    """Where one robot's or object's values live in `mjData`, in handshake order."""

    name: str
    body: int
    description: ObjectDescription
    # The free joint's first velocity index when the root body is free, else -1.
    free_dof: int = -1
    # One entry per control: index into mjData.ctrl, the factor and the
    # divisor taking a value in joint units to the actuator's control (ctrl =
    # value * scale / divisor: a servo's gear is a factor, a motor's a
    # divisor), and the control range (-inf, inf where the control is not limited).
    ctrl_adr: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    ctrl_scale: np.ndarray = field(default_factory=lambda: np.zeros(0))
    ctrl_divisor: np.ndarray = field(default_factory=lambda: np.zeros(0))
    ctrl_low: np.ndarray = field(default_factory=lambda: np.zeros(0))
    ctrl_high: np.ndarray = field(default_factory=lambda: np.zeros(0))
    events: dict[str, Event] = field(default_factory=dict)
    # The mocap id of the root body when it is a mocap body (its controls end with MOCAP_CONTROLS), else -1.
    mocap: int = -1
    # One entry per joint sensor.
    qpos_adr: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    dof_adr: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    joint_ids: list[int] = field(default_factory=list)  # the joint of each joint sensor, in order
    sensors: dict[str, list[Reading]] = field(default_factory=dict)


@dataclass
class SceneLayout:
    """A model's handshake, the index arrays to serve it, and what could not be mapped."""

    handshake: HandshakeMessage
    objects: dict[str, ObjectLayout]
    unmapped: list[str]


def scene_layout(model: mujoco.MjModel, robots: Sequence[str] = ()) -> SceneLayout:
    """Derive the handshake and its index arrays from a compiled model.

    `robots` names bodies whose subtrees are served as one robot (or object)
    each, named after the body. coupler.Error names a body the model does not
    have (listing those it has), the world body, or one inside another's subtree.
    """
    return _LayoutBuilder(model, _robot_bodies(model, robots)).build()


def _robot_bodies(model: mujoco.MjModel, names: Sequence[str]) -> set[int]:
    """The bodies `names` name, checked to be served as robots of their own."""
    bodies: dict[int, str] = {}
    for name in names:
        b = mujoco.mj_name2id(model, _Obj.mjOBJ_BODY, name)
        if b < 0:
            named = [mujoco.mj_id2name(model, _Obj.mjOBJ_BODY, i) for i in range(1, model.nbody)]
            raise Error(f"no body named '{name}' to serve as a robot; {valid_names([n for n in named if n])}")
        if b == 0:
            raise Error(f"the world body '{name}' cannot be served as a robot: name a body below it")
        bodies[b] = name
    for b, name in bodies.items():
        above = int(model.body_parentid[b])
        while above != 0:
            if above in bodies:
                raise Error(f"body '{name}' cannot be served as a robot of its own: it lies inside body "
                            f"'{bodies[above]}', also served as one")
            above = int(model.body_parentid[above])
    return set(bodies)


class _LayoutBuilder:
    def __init__(self, model: mujoco.MjModel, robots: set[int]) -> None:
        self.m = model
        self.unmapped: list[str] = []
        self.root_of_body = _roots_of_bodies(model, robots)

    # Names, for messages and for the handshake.

    def _name(self, obj: mujoco.mjtObj, i: int) -> str:
        return mujoco.mj_id2name(self.m, obj, i) or ""

    def _joint_name(self, j: int) -> str:
        """Joint `j`'s name; an unnamed joint takes its body's (followed by its place among the body's joints
        when the body has several: `lid_0`, `lid_1`), or "" when its body is unnamed too or another joint
        already has that name."""
        name = self._name(_Obj.mjOBJ_JOINT, j)
        if name:
            return name
        m = self.m
        body = int(m.jnt_bodyid[j])
        body_name = self._name(_Obj.mjOBJ_BODY, body)
        if not body_name:
            return ""
        derived = body_name if int(m.body_jntnum[body]) == 1 else f"{body_name}_{j - int(m.body_jntadr[body])}"
        if mujoco.mj_name2id(m, _Obj.mjOBJ_JOINT, derived) >= 0:
            return ""
        return derived

    def _label(self, what: str, obj: mujoco.mjtObj, i: int) -> str:
        name = self._name(obj, i)
        return f"{what} '{name}'" if name else f"unnamed {what} #{i}"

    def _report(self, text: str) -> None:
        self.unmapped.append(text)

    # Which top-level body an element belongs to.

    def _roots(self, bodies: Iterable[int]) -> set[int]:
        return {int(self.root_of_body[b]) for b in bodies}

    def _tendon_bodies(self, tendon: int) -> list[int]:
        m = self.m
        bodies = []
        start = int(m.tendon_adr[tendon])
        for w in range(start, start + int(m.tendon_num[tendon])):
            kind, obj = int(m.wrap_type[w]), int(m.wrap_objid[w])
            if kind == _Wrap.mjWRAP_JOINT:
                bodies.append(int(m.jnt_bodyid[obj]))
            elif kind == _Wrap.mjWRAP_SITE:
                bodies.append(int(m.site_bodyid[obj]))
            elif kind in (_Wrap.mjWRAP_SPHERE, _Wrap.mjWRAP_CYLINDER):
                bodies.append(int(m.geom_bodyid[obj]))
        return bodies

    def _actuator_bodies(self, a: int) -> list[int]:
        m = self.m
        trn = int(m.actuator_trntype[a])
        first, second = (int(x) for x in m.actuator_trnid[a])
        if trn in (_Trn.mjTRN_JOINT, _Trn.mjTRN_JOINTINPARENT):
            return [int(m.jnt_bodyid[first])]
        if trn == _Trn.mjTRN_TENDON:
            return self._tendon_bodies(first)
        if trn in (_Trn.mjTRN_SITE, _Trn.mjTRN_SLIDERCRANK):
            return [int(m.site_bodyid[s]) for s in (first, second) if s >= 0]
        if trn == _Trn.mjTRN_BODY:
            return [first]
        if trn == _Trn.mjTRN_SO3:
            # A ball joint, or a site relative to a reference site.
            if second < 0:
                return [int(m.jnt_bodyid[first])]
            return [int(m.site_bodyid[first]), int(m.site_bodyid[second])]
        return []

    def _actuator_root(self, a: int) -> int | None:
        """The top-level body an actuator moves, or None when it is not exactly one."""
        roots = self._roots(self._actuator_bodies(a)) - {0}
        return roots.pop() if len(roots) == 1 else None

    def _sensor_root(self, s: int) -> int | None:
        m = self.m
        kind, obj = int(m.sensor_objtype[s]), int(m.sensor_objid[s])
        body: int | None = None
        if kind in (_Obj.mjOBJ_BODY, _Obj.mjOBJ_XBODY):
            body = obj
        elif kind == _Obj.mjOBJ_SITE:
            body = int(m.site_bodyid[obj])
        elif kind == _Obj.mjOBJ_JOINT:
            body = int(m.jnt_bodyid[obj])
        elif kind == _Obj.mjOBJ_GEOM:
            body = int(m.geom_bodyid[obj])
        elif kind == _Obj.mjOBJ_CAMERA:
            body = int(m.cam_bodyid[obj])
        elif kind == _Obj.mjOBJ_ACTUATOR:
            return self._actuator_root(obj)
        elif kind == _Obj.mjOBJ_TENDON:
            roots = self._roots(self._tendon_bodies(obj)) - {0}
            return roots.pop() if len(roots) == 1 else None
        if body is None:
            return None
        root = int(self.root_of_body[body])
        return root if root != 0 else None

    # The layout.

    def build(self) -> SceneLayout:
        m = self.m
        actuators_of: dict[int, list[int]] = {}
        for a in range(m.nactuator):
            root = self._actuator_root(a)
            if root is None:
                roots = sorted(self._roots(self._actuator_bodies(a)) - {0})
                moved = ", ".join(self._label("body", _Obj.mjOBJ_BODY, r) for r in roots) or "nothing that moves"
                self._report(f"{self._label('actuator', _Obj.mjOBJ_ACTUATOR, a)} acts on {moved}, not within one "
                             "robot: not served")
                continue
            actuators_of.setdefault(root, []).append(a)

        joints_of: dict[int, list[int]] = {}
        for j in range(m.njnt):
            joints_of.setdefault(int(self.root_of_body[m.jnt_bodyid[j]]), []).append(j)

        objects: dict[str, ObjectLayout] = {}
        for b in range(1, m.nbody):
            if int(self.root_of_body[b]) != b:
                continue
            layout = self._top_level_body(b, actuators_of.get(b, []), joints_of.get(b, []))
            if layout is None:
                continue
            if layout.name in objects or layout.name == SCENE_SENSORS:
                self._report(f"{self._label('body', _Obj.mjOBJ_BODY, b)} would be served as '{layout.name}', "
                             "a name already taken: not served")
                continue
            objects[layout.name] = layout

        self._assign_sensors(objects)
        for layout in objects.values():
            layout.description.control_ranges = control_ranges(layout.ctrl_scale, layout.ctrl_divisor,
                                                                 layout.ctrl_low, layout.ctrl_high)
            if layout.mocap >= 0:
                for i in range(len(layout.description.controls) - 4, len(layout.description.controls)):
                    layout.description.control_ranges[i] = Range(-1.0, 1.0, True)
            layout.description.joint_limits = joint_limits(m, layout.joint_ids)
        handshake = HandshakeMessage(
            objects={name: layout.description for name, layout in objects.items()},
            time_step=float(m.opt.timestep),
            keyframes=keyframe_names(m),
        )
        return SceneLayout(handshake=handshake, objects=objects, unmapped=self.unmapped)

    def _top_level_body(self, b: int, actuators: list[int], joints: list[int]) -> ObjectLayout | None:
        m = self.m
        name = self._name(_Obj.mjOBJ_BODY, b) or self._first_named_below(b)
        is_free = bool(joints) and int(m.jnt_type[joints[0]]) == _FREE and int(m.jnt_bodyid[joints[0]]) == b
        if not name:
            if actuators:
                names = ", ".join(self._label("actuator", _Obj.mjOBJ_ACTUATOR, a) for a in actuators)
                self._report(f"unnamed body #{b} is the root of a robot, with {names}, and no body of it has a "
                             "name: not served")
            else:
                self._report(f"unnamed body #{b} is the root of an object with joints, and no body of it has a "
                             "name: not served")
            return None

        sensors = FREE_OBJECT_SENSOR_TYPES if is_free else OBJECT_SENSOR_TYPES
        layout = ObjectLayout(name=name, body=b, description=ObjectDescription(object_sensors=list(sensors)))
        if is_free:
            layout.free_dof = int(m.jnt_dofadr[joints[0]])
        self._controls(layout, actuators)
        if int(m.body_mocapid[b]) >= 0:
            self._mocap_controls(layout, int(m.body_mocapid[b]))
        self._joint_sensors(layout, joints[1:] if is_free else joints)
        return layout

    def _first_named_below(self, root: int) -> str:
        """The name of the first named body of `root`'s robot or object in model order, or ""."""
        # Bodies come in depth-first order: a subtree is the run of bodies after its root.
        for b in range(root + 1, self.m.nbody):
            if int(self.root_of_body[b]) == root and (name := self._name(_Obj.mjOBJ_BODY, b)):
                return name
        return ""

    def _mocap_controls(self, layout: ObjectLayout, mocap: int) -> None:
        """The mocap body's pose as controls after the actuators'; none (reported) when a name is taken."""
        description = layout.description
        taken = [name for name, _ in MOCAP_CONTROLS if name in description.controls]
        if taken:
            self._report(f"mocap body '{layout.name}' has actuators named {', '.join(taken)}, the names of its pose "
                         "controls: its pose is not a control")
            return
        layout.mocap = mocap
        for name, value_type in MOCAP_CONTROLS:
            description.controls.append(name)
            description.control_types.append(value_type)
            description.control_targets.append(layout.name)
        # Not in mjData.ctrl (-1): the scatter writes them as a pose (coupler.mujoco.flat). The quaternion's range is
        # told in the handshake, not clamped: a quaternion of another length is normalised.
        count = len(MOCAP_CONTROLS)
        layout.ctrl_adr = np.concatenate([layout.ctrl_adr, np.full(count, -1, dtype=np.intp)])
        layout.ctrl_scale = np.concatenate([layout.ctrl_scale, np.ones(count)])
        layout.ctrl_divisor = np.concatenate([layout.ctrl_divisor, np.ones(count)])
        layout.ctrl_low = np.concatenate([layout.ctrl_low, np.full(count, -np.inf)])
        layout.ctrl_high = np.concatenate([layout.ctrl_high, np.full(count, np.inf)])

    def _controls(self, layout: ObjectLayout, actuators: list[int]) -> None:
        m = self.m
        description = layout.description
        adrs, scales, divisors, lows, highs, meanings = [], [], [], [], [], []
        for a in actuators:
            label = self._label("actuator", _Obj.mjOBJ_ACTUATOR, a)
            if int(m.actuator_ctrlnum[a]) != 1:
                self._report(f"{label} takes {int(m.actuator_ctrlnum[a])} controls; Click controls are scalars")
                continue
            ctrl = int(m.actuator_ctrladr[a])
            limited = bool(m.actuator_ctrllimited[ctrl])
            low, high = (float(v) for v in m.actuator_ctrlrange[ctrl])
            if int(m.actuator_group[a]) == EVENT_GROUP:
                name = self._name(_Obj.mjOBJ_ACTUATOR, a)
                if not name:
                    self._report(f"{label} is in the event group but has no name: not served")
                elif not limited:
                    self._report(f"{label} is in the event group but has no ctrlrange for off and activated")
                else:
                    description.control_events[name] = ValueType.ACTIVATED
                    layout.events[name] = Event(ctrl_adr=ctrl, off=low, on=high)
                continue
            mapped = self._control(a, label)
            if mapped is None:
                continue
            name, value_type, scale, divisor, target = mapped
            if name in description.controls:
                self._report(f"{label}: a control named '{name}' already exists in '{layout.name}'")
                continue
            description.controls.append(name)
            description.control_types.append(value_type)
            description.control_targets.append(target)
            meanings.append(_actuator_meaning(m, a) if value_type == ValueType.ACTUATOR_INPUT else "")
            adrs.append(ctrl)
            scales.append(scale)
            divisors.append(divisor)
            lows.append(low if limited else -np.inf)
            highs.append(high if limited else np.inf)
        if any(meanings):
            description.control_meanings = meanings
        layout.ctrl_adr = np.array(adrs, dtype=np.intp)
        layout.ctrl_scale = np.array(scales, dtype=float)
        layout.ctrl_divisor = np.array(divisors, dtype=float)
        layout.ctrl_low = np.array(lows, dtype=float)
        layout.ctrl_high = np.array(highs, dtype=float)

    def _control(self, a: int, label: str) -> tuple[str, ValueType, float, float, str] | None:
        """Name, type, value-to-control factor and divisor, and target of a scalar actuator, or None (reported).

        A motor or servo on a hinge or slide takes values in joint units;
        every other actuator (tendon, site, slider-crank or body transmission,
        a ball joint, muscles and other gains, biases or dynamics) takes
        ACTUATOR_INPUT: its own ctrl, unscaled.
        """
        m = self.m
        trn = int(m.actuator_trntype[a])
        first = int(m.actuator_trnid[a][0])
        target_object = _TARGET_OBJECTS.get(trn)
        if target_object == _Obj.mjOBJ_JOINT and first >= 0:
            target = self._joint_name(first)
        else:
            target = self._name(target_object, first) if target_object is not None and first >= 0 else ""
        joint_trn = trn in (_Trn.mjTRN_JOINT, _Trn.mjTRN_JOINTINPARENT)
        kind = _servo_kind(m, a)
        gear = float(m.actuator_gear[m.actuator_outadr[a]][0])
        value_type = ValueType.ACTUATOR_INPUT
        scale = divisor = 1.0
        if joint_trn and kind is not None and gear != 0.0:
            joint_value_type = _CONTROL_TYPES.get((kind, int(m.jnt_type[first])))
            if joint_value_type is not None:
                # Servo setpoints are in actuator length (gear * joint position); motor
                # forces are multiplied by the gear on the way to the joint.
                value_type = joint_value_type
                scale, divisor = (1.0, gear) if kind == "motor" else (gear, 1.0)
        name = self._name(_Obj.mjOBJ_ACTUATOR, a) or (target if joint_trn else "")
        if not name:
            on = ""  # what it drives, which says which actuator of the model it is
            if target_object is not None and first >= 0:
                on = f" on {self._label(target_object.name.removeprefix('mjOBJ_').lower(), target_object, first)}"
            self._report(f"{label}{on}: a control needs a name")
            return None
        return name, value_type, scale, divisor, target

    def _joint_sensors(self, layout: ObjectLayout, joints: list[int]) -> None:
        m = self.m
        qpos, dofs = [], []
        for j in joints:
            joint_type = int(m.jnt_type[j])
            label = self._label("joint", _Obj.mjOBJ_JOINT, j)
            name = self._joint_name(j)
            if not name:
                self._report(f"{label} of '{layout.name}' needs a name for its joint sensors (its body is unnamed, "
                             "or its body's name is another joint's)")
                continue
            if joint_type == _BALL:
                # Click joint sensors are scalars: a ball joint is a named sensor of its own.
                layout.sensors[name] = [Reading(ValueType.RPY, int(m.jnt_qposadr[j]), 4, "qpos"),
                                        Reading(ValueType.ANGULAR_VELOCITY_3D, int(m.jnt_dofadr[j]), 3, "qvel")]
                layout.description.sensors[name] = [ValueType.RPY, ValueType.ANGULAR_VELOCITY_3D]
                continue
            if joint_type not in _SCALAR_JOINTS:
                self._report(f"{_JOINT_TYPE_NAMES[joint_type]} {label} of '{layout.name}' has no Click joint sensor")
                continue
            layout.description.joint_sensors.append(name)
            layout.joint_ids.append(j)
            layout.description.joint_types += SLIDE_SENSOR_TYPES if joint_type == _SLIDE else JOINT_SENSOR_TYPES
            qpos.append(int(m.jnt_qposadr[j]))
            dofs.append(int(m.jnt_dofadr[j]))
        if qpos:
            layout.description.joint_sensor_types = list(JOINT_SENSOR_TYPES)
        layout.qpos_adr = np.array(qpos, dtype=np.intp)
        layout.dof_adr = np.array(dofs, dtype=np.intp)

    def _assign_sensors(self, objects: dict[str, ObjectLayout]) -> None:
        m = self.m
        by_body = {layout.body: layout for layout in objects.values()}
        scene = ObjectLayout(name=SCENE_SENSORS, body=0, description=ObjectDescription())
        for s in range(m.nsensor):
            label = self._label("sensor", _Obj.mjOBJ_SENSOR, s)
            root = self._sensor_root(s)
            layout = scene if root is None else by_body.get(root)
            if layout is None:
                self._report(f"{label} is on {self._label('body', _Obj.mjOBJ_BODY, root)}, which is not served")
                continue
            group = self._sensor_group(s)
            if not group:
                self._report(f"{label} is neither named nor on a named site")
                continue
            new = self._sensor_readings(s)
            readings = layout.sensors.setdefault(group, [])
            if any(r.type == new[0].type for r in readings):
                self._report(f"{label}: sensor '{group}' of '{layout.name}' already has a reading of type "
                             f"{new[0].type.name}")
                continue
            readings += new
            layout.description.sensors.setdefault(group, []).extend(r.type for r in new)
            if new[0].type == ValueType.NUMBER:
                layout.description.sensor_units[group] = number_unit(m, s)
        if scene.sensors:
            objects[SCENE_SENSORS] = scene

    def _sensor_readings(self, s: int) -> list[Reading]:
        """The sensor's reading of its own type, or one NUMBER per value when no type fits."""
        m = self.m
        adr, dim = int(m.sensor_adr[s]), int(m.sensor_dim[s])
        value_type = sensor_type(m, s)
        if value_type is not None and dim == (4 if value_type == ValueType.RPY else value_type.width):
            return [Reading(type=value_type, adr=adr, dim=dim)]
        return [Reading(type=ValueType.NUMBER, adr=adr + k, dim=1) for k in range(dim)]

    def _sensor_group(self, s: int) -> str:
        m = self.m
        own = self._name(_Obj.mjOBJ_SENSOR, s)
        if own or int(m.sensor_objtype[s]) != _Obj.mjOBJ_SITE:
            return own
        return self._name(_Obj.mjOBJ_SITE, int(m.sensor_objid[s]))


def _roots_of_bodies(model: mujoco.MjModel, robots: set[int]) -> np.ndarray:
    """Per body, the root body of the robot or object it belongs to; 0 for the world and scenery.

    See "Robots and objects" in the module docstring: each body of `robots`
    roots its own subtree, and the mounts inside those subtrees count for no
    other root. Bodies come in model order, so every parent comes before its children.
    """
    parent = np.asarray(model.body_parentid)
    weld = np.asarray(model.body_weldid)
    given = np.zeros(model.nbody, dtype=bool)
    for b in range(1, model.nbody):
        given[b] = b in robots or given[parent[b]]
    mounts_below = np.zeros(model.nbody, dtype=int)
    for b in range(model.nbody - 1, 0, -1):
        if given[b]:
            continue
        if weld[b] != 0 and weld[parent[b]] == 0:
            mounts_below[b] += 1
        mounts_below[parent[b]] += mounts_below[b]
    roots = np.zeros(model.nbody, dtype=np.intp)
    for b in range(1, model.nbody):
        p = int(parent[b])
        if b in robots:
            roots[b] = b
        elif roots[p] != 0:
            roots[b] = roots[p]
        elif mounts_below[b] == 1 and (p == 0 or mounts_below[p] >= 2):
            roots[b] = b
    return roots


def _terms(parameters: np.ndarray, first: str) -> list[tuple[float, str]]:
    """The nonzero terms of an affine gain or bias: (coefficient, what it multiplies)."""
    return [(float(c), x) for c, x in zip(parameters[:3], (first, "length", "velocity")) if float(c) != 0.0]


def _sum(terms: list[tuple[float, str]]) -> str:
    parts = [f"{c:g}" if not x else f"{c:g} * {x}" for c, x in terms]
    return " + ".join(parts).replace("+ -", "- ") or "0"


_INPUTS = {
    int(_Dyn.mjDYN_NONE): "ctrl",
    int(_Dyn.mjDYN_INTEGRATOR): "act (the integral of ctrl)",
    int(_Dyn.mjDYN_FILTER): "act (ctrl through a first-order filter)",
    int(_Dyn.mjDYN_FILTEREXACT): "act (ctrl through a first-order filter)",
}


def _actuator_meaning(model: mujoco.MjModel, a: int) -> str:
    """What an ACTUATOR_INPUT value goes through, in one line: its gain and bias, its dynamics, its gear."""
    gain_type, bias_type = int(model.actuator_gaintype[a]), int(model.actuator_biastype[a])
    dyn = int(model.actuator_dyntype[a])
    gear = float(model.actuator_gear[model.actuator_outadr[a]][0])
    geared = f", times gear {gear:g} on its transmission" if gear != 1.0 else ""
    if gain_type == mujoco.mjtGain.mjGAIN_MUSCLE or dyn == _Dyn.mjDYN_MUSCLE:
        return f"muscle: ctrl is the excitation, force from MuJoCo's muscle model{geared}"
    affine = (int(mujoco.mjtGain.mjGAIN_FIXED), int(mujoco.mjtGain.mjGAIN_AFFINE))
    biases = (int(mujoco.mjtBias.mjBIAS_NONE), int(mujoco.mjtBias.mjBIAS_AFFINE))
    if gain_type not in affine or bias_type not in biases or dyn not in _INPUTS:
        names = (mujoco.mjtGain(gain_type).name, mujoco.mjtBias(bias_type).name, mujoco.mjtDyn(dyn).name)
        return f"ctrl through {', '.join(names)}{geared}"
    gainprm = model.actuator_gainprm[a]
    gain = _terms(gainprm[:1] if gain_type == mujoco.mjtGain.mjGAIN_FIXED else gainprm, "")
    gain_text = _sum(gain) if len(gain) <= 1 else f"({_sum(gain)})"
    force = f"{gain_text} * {_INPUTS[dyn]}"
    bias = _terms(model.actuator_biasprm[a], "") if bias_type == mujoco.mjtBias.mjBIAS_AFFINE else []
    if bias:
        force = f"{force} + {_sum(bias)}".replace("+ -", "- ")
    return f"force = {force}{geared}"


def _servo_kind(model: mujoco.MjModel, a: int) -> str | None:
    """'motor', 'position' or 'velocity' from the actuator's parameters; None for anything else.

    force = gain * input + bias0 + bias1 * length + bias2 * velocity, where the
    input is the control, or with integrator dynamics its integral.
    """
    if int(model.actuator_gaintype[a]) != mujoco.mjtGain.mjGAIN_FIXED:
        return None
    gain = float(model.actuator_gainprm[a][0])
    if gain == 0.0:
        return None
    dyn = int(model.actuator_dyntype[a])
    filtered = dyn in (_Dyn.mjDYN_NONE, _Dyn.mjDYN_FILTER, _Dyn.mjDYN_FILTEREXACT)
    bias_type = int(model.actuator_biastype[a])
    if bias_type == mujoco.mjtBias.mjBIAS_NONE:
        return "motor" if filtered else None
    if bias_type != mujoco.mjtBias.mjBIAS_AFFINE:
        return None
    offset, stiffness, damping = (float(v) for v in model.actuator_biasprm[a][:3])
    if offset != 0.0:
        return None
    if stiffness == -gain and damping <= 0.0:
        if dyn == _Dyn.mjDYN_INTEGRATOR:
            return "velocity"  # the control is the rate of the position setpoint
        return "position" if filtered else None
    if stiffness == 0.0 and damping == -gain and filtered:
        return "velocity"
    return None
