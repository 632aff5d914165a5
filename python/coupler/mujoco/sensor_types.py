"""What a MuJoCo sensor's reading is in the handshake: a Click (or linear) type of the same
meaning where there is one, else NUMBER readings in a unit that follows from the sensor.

docs/models.md's sensor table says the same for users; `coupler.mujoco.layout` applies it.
"""

from __future__ import annotations

import mujoco

from coupler.wire.messages import ValueType

__all__ = ["number_unit", "sensor_type"]

_Sens = mujoco.mjtSensor
_Trn = mujoco.mjtTrn
_HINGE = int(mujoco.mjtJoint.mjJNT_HINGE)
_SLIDE = int(mujoco.mjtJoint.mjJNT_SLIDE)

# Sensor types whose reading means the same whatever they are attached to.
_TYPES: dict[int, ValueType] = {
    int(_Sens.mjSENS_TOUCH): ValueType.FORCE_1D,
    int(_Sens.mjSENS_ACCELEROMETER): ValueType.ACCELERATION_3D,
    int(_Sens.mjSENS_VELOCIMETER): ValueType.VELOCITY_3D,
    int(_Sens.mjSENS_GYRO): ValueType.ANGULAR_VELOCITY_3D,
    int(_Sens.mjSENS_FORCE): ValueType.FORCE_3D,
    int(_Sens.mjSENS_TORQUE): ValueType.TORQUE_3D,
    int(_Sens.mjSENS_BALLANGVEL): ValueType.ANGULAR_VELOCITY_3D,
    int(_Sens.mjSENS_BALLQUAT): ValueType.RPY,
    int(_Sens.mjSENS_FRAMEPOS): ValueType.POSITION,
    int(_Sens.mjSENS_FRAMEQUAT): ValueType.RPY,
    int(_Sens.mjSENS_FRAMELINVEL): ValueType.VELOCITY_3D,
    int(_Sens.mjSENS_FRAMEANGVEL): ValueType.ANGULAR_VELOCITY_3D,
    int(_Sens.mjSENS_FRAMELINACC): ValueType.ACCELERATION_3D,
    int(_Sens.mjSENS_FRAMEANGACC): ValueType.ANGULAR_ACCELERATION_3D,
    int(_Sens.mjSENS_SUBTREECOM): ValueType.POSITION,
    int(_Sens.mjSENS_SUBTREELINVEL): ValueType.VELOCITY_3D,
}
# Sensor types on a scalar joint, whose reading's type depends on the joint type.
_JOINT_TYPES: dict[int, dict[int, ValueType]] = {
    int(_Sens.mjSENS_JOINTPOS): {_HINGE: ValueType.ANGLE, _SLIDE: ValueType.LINEAR_POSITION},
    int(_Sens.mjSENS_JOINTVEL): {_HINGE: ValueType.ANGULAR_VELOCITY_1D, _SLIDE: ValueType.LINEAR_VELOCITY},
    int(_Sens.mjSENS_JOINTACTFRC): {_HINGE: ValueType.TORQUE_1D, _SLIDE: ValueType.FORCE_1D},
}

# The unit of NUMBER readings whatever the sensor is attached to; "" for none
# (unit vectors, flags) or the model's own (user, plugin, magnetometer, contact).
_UNITS: dict[int, str] = {
    int(_Sens.mjSENS_RANGEFINDER): "m",
    int(_Sens.mjSENS_CAMPROJECTION): "px",
    int(_Sens.mjSENS_SUBTREEANGMOM): "kg m^2/s",
    int(_Sens.mjSENS_GEOMDIST): "m",
    int(_Sens.mjSENS_GEOMFROMTO): "m",
    int(_Sens.mjSENS_E_POTENTIAL): "J",
    int(_Sens.mjSENS_E_KINETIC): "J",
    int(_Sens.mjSENS_CLOCK): "s",
}
# Units of readings of a joint's limit, by joint type.
_JOINT_UNITS: dict[int, dict[int, str]] = {
    int(_Sens.mjSENS_JOINTLIMITPOS): {_HINGE: "rad", _SLIDE: "m"},
    int(_Sens.mjSENS_JOINTLIMITVEL): {_HINGE: "rad/s", _SLIDE: "m/s"},
    int(_Sens.mjSENS_JOINTLIMITFRC): {_HINGE: "N m", _SLIDE: "N"},
}
# Units of a spatial tendon's readings; a fixed tendon's are those of its coefficients.
_SPATIAL_TENDON_UNITS: dict[int, str] = {
    int(_Sens.mjSENS_TENDONPOS): "m",
    int(_Sens.mjSENS_TENDONVEL): "m/s",
    int(_Sens.mjSENS_TENDONACTFRC): "N",
    int(_Sens.mjSENS_TENDONLIMITPOS): "m",
    int(_Sens.mjSENS_TENDONLIMITVEL): "m/s",
    int(_Sens.mjSENS_TENDONLIMITFRC): "N",
}


def sensor_type(model: mujoco.MjModel, s: int) -> ValueType | None:
    """The one typed reading of sensor `s`, or None when it is NUMBER readings."""
    kind = int(model.sensor_type[s])
    if kind in _TYPES:
        return _TYPES[kind]
    obj = int(model.sensor_objid[s])
    if kind in _JOINT_TYPES:
        return _JOINT_TYPES[kind].get(int(model.jnt_type[obj]))
    if kind == _Sens.mjSENS_ACTUATORFRC:
        # The actuator's scalar force is a joint torque or force only on a
        # joint transmission with unit gear.
        if int(model.actuator_trntype[obj]) not in (_Trn.mjTRN_JOINT, _Trn.mjTRN_JOINTINPARENT):
            return None
        if float(model.actuator_gear[model.actuator_outadr[obj]][0]) != 1.0:
            return None
        joint_type = int(model.jnt_type[model.actuator_trnid[obj][0]])
        return {_HINGE: ValueType.TORQUE_1D, _SLIDE: ValueType.FORCE_1D}.get(joint_type)
    return None


def number_unit(model: mujoco.MjModel, s: int) -> str:
    """The unit of sensor `s`'s NUMBER readings ("" for none, or the model's own)."""
    kind = int(model.sensor_type[s])
    obj = int(model.sensor_objid[s])
    if kind in _UNITS:
        return _UNITS[kind]
    if kind in _JOINT_UNITS:
        return _JOINT_UNITS[kind].get(int(model.jnt_type[obj]), "")
    if kind in _SPATIAL_TENDON_UNITS and _is_spatial(model, obj):
        return _SPATIAL_TENDON_UNITS[kind]
    return ""


def _is_spatial(model: mujoco.MjModel, tendon: int) -> bool:
    return int(model.wrap_type[model.tendon_adr[tendon]]) != mujoco.mjtWrap.mjWRAP_JOINT
