"""One world of a recording of a batched server (`coupler serve --worlds N --record`), read as if that world
had been served alone, for `coupler plot` and `coupler render` (`--world K`), and the comparison of one
world's answers for `coupler replay --world K`.

A batched server records each Control for every world, its answer with every
world's readings, and a MuJoCo state per world after each step (its `world`
field). `WorldRecording` yields, in their place, world K's own: the Control
its row of the Control for every world makes (none when the world was reset
instead of stepped), the SensorMessage its row of readings makes, and its
states only, and its camera images (`/coupler/world/K/camera/...`) on the topics
a server of one world writes them on (`/coupler/camera/...`). Ordinary
Controls and reads, which a batched server serves on world 0, and their
images, stay for world 0 and are left out for the others. A recording of one
server of one world is its world 0.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from google.protobuf.message import DecodeError

from coupler import _native
from coupler._proto.coupler_record_pb2 import MujocoState
from coupler.record.divergence import Difference, first_difference
from coupler.record.recorded_images import CAMERA_TOPIC, WORLD_TOPIC
from coupler.record.recording import Recorded, Recording, RecordingError
from coupler.wire.codec import decode, encode
from coupler.wire.errors import Error, ProtocolError
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import ControlMessage, HandshakeMessage, ObjectControl
from coupler.wire.world_frames import carries_worlds, read_world_control


def recorded_handshake_worlds(recording: Recording) -> int:
    """The worlds the first handshake answer of `recording` announces: N for `coupler serve --worlds N`, 0 for a
    server without --worlds (or a recording without a handshake)."""
    for message in recording:
        if message.kind == "Handshake" and message.answer:
            handshake = decode(message.data)
            return handshake.worlds if isinstance(handshake, HandshakeMessage) else 0
    return 0


def check_world(recording: str | os.PathLike[str], world: int) -> int:
    """The number of worlds `recording` holds; coupler.Error naming the valid range when `world` is not one."""
    worlds = max(1, recorded_handshake_worlds(Recording(recording)))
    if not 0 <= world < worlds:
        holds = "one world, 0" if worlds == 1 else f"worlds 0 to {worlds - 1}"
        raise Error(f"--world {world}: {os.fspath(recording)} holds {holds}")
    return worlds


class WorldLayout:
    """A batched handshake's rows: world K's Control and SensorMessage frames from the frames for every world."""

    def __init__(self, handshake: HandshakeMessage) -> None:
        self.flat = FlatLayout(handshake)
        self._value_count = self.flat.controls.values.size

    def control(self, frame: bytes, world: int) -> bytes | None:
        """World `world`'s Control in a Control for every world (None when it was reset, or nothing stepped), or
        None when `frame` is not one; RecordingError for a frame whose rows do not fit the handshake."""
        try:
            control = read_world_control(frame)
        except ProtocolError as error:
            raise RecordingError(f"a recorded Control is not one the server took: {error}") from None
        if control.worlds == 0 or not control.controls.size or world in control.resets.tolist():
            return None
        width = self._value_count + self.flat.controls.events_on.size
        row = control.controls[world * width : (world + 1) * width]
        if control.controls.size != control.worlds * width or row.size != width:
            raise RecordingError(f"a recorded Control for every world holds {control.controls.size} numbers; the "
                                 f"handshake's {control.worlds} worlds of {width} take {control.worlds * width}")
        objects = {}
        for described in self.flat.controls.objects:
            values = row[described.offset : described.offset + described.size].tolist()
            events = {event: bool(row[self._value_count + described.event_offset + i])
                      for i, event in enumerate(described.events)}
            objects[described.name] = ObjectControl(values=values, events=events)
        return encode(ControlMessage(objects=objects, steps=control.steps))

    def sensors(self, frame: bytes, world: int) -> bytes | None:
        """World `world`'s SensorMessage in an answer for every world, or None when `frame` is not one."""
        try:
            read = _native.read_world_sensors(frame)
        except ProtocolError as error:
            raise RecordingError(f"a recorded answer is not one a server sends: {error}") from None
        if read is None or not read[1].size:
            return None  # every SensorMessage reads so; only an answer for every world has the worlds' times
        sensors, times = read[0], read[1]  # the world data some tasks ask for, and images, are no readings
        width = self.flat.sensors.values.size
        if sensors.size != times.size * width or world >= times.size:
            raise RecordingError(f"a recorded answer for every world holds {sensors.size} readings for "
                                 f"{times.size} worlds; the handshake's take {width} each")
        self.flat.sensors.values[:] = sensors[world * width : (world + 1) * width]
        return self.flat.sensors.encode(float(times[world]))

    def difference(self, recorded: bytes, replayed: bytes, world: int) -> Difference | None:
        """Where world `world`'s answers in two answers for every world differ (None: its part is the same);
        the frames' first difference when they are not both answers for every world."""
        mine = self.sensors(recorded, world)
        theirs = self.sensors(replayed, world) if mine is not None else None
        if mine is None or theirs is None:
            return first_difference(recorded, replayed)
        return first_difference(mine, theirs)


class WorldRecording(Recording):
    """World `world` of the recording at `path`, read as a recording of that world alone (see the module)."""

    def __init__(self, path: str | os.PathLike[str], world: int = 0) -> None:
        super().__init__(path)
        self.world = world
        self.worlds = 0  # the worlds the recorded handshake announces, once read (0: a server without --worlds)

    def __iter__(self) -> Iterator[Recorded]:
        layout: WorldLayout | None = None  # set once a batched server's handshake is read
        for message in super().__iter__():
            if message.kind == "Handshake" and message.answer:
                handshake = decode(message.data)
                if isinstance(handshake, HandshakeMessage) and handshake.worlds:
                    layout = WorldLayout(handshake)
                    self.worlds = handshake.worlds
                yield message
            elif layout is None:
                yield message
            elif message.state:
                if self._state_world(message) == self.world:
                    yield message
            elif message.request and message.kind == "Control":
                yield from self._control(message, layout)
            elif message.answer and message.kind == "Sensor":
                yield from self._sensors(message, layout)
            elif message.topic.startswith((CAMERA_TOPIC, WORLD_TOPIC)):
                yield from self._image(message)
            else:
                yield message

    def _state_world(self, message: Recorded) -> int:
        try:
            return MujocoState.FromString(message.data).world
        except DecodeError:
            raise RecordingError(f"a message on {message.topic} is not a MuJoCo state") from None

    def _control(self, message: Recorded, layout: WorldLayout) -> Iterator[Recorded]:
        if not carries_worlds(message.data):
            if self.world == 0:
                yield message  # an ordinary Control: world 0's
            return
        row = layout.control(message.data, self.world)
        if row is not None:
            yield Recorded(message.topic, row, message.log_time, message.publish_time)

    def _image(self, message: Recorded) -> Iterator[Recorded]:
        if message.topic.startswith(CAMERA_TOPIC):
            if self.world == 0:
                yield message  # an image of an ordinary answer: world 0's
            return
        world, _, rest = message.topic[len(WORLD_TOPIC):].partition("/")
        if world == str(self.world) and rest.startswith("camera/"):
            yield Recorded(CAMERA_TOPIC + rest[len("camera/"):], message.data, message.log_time, message.publish_time)

    def _sensors(self, message: Recorded, layout: WorldLayout) -> Iterator[Recorded]:
        row = layout.sensors(message.data, self.world)
        if row is not None:
            yield Recorded(message.topic, row, message.log_time, message.publish_time)
        elif self.world == 0:
            yield message  # an answer to an ordinary Control or read: world 0's
