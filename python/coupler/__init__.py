"""coupler: robot controllers and simulations over ZeroMQ, speaking the Click protocol v1.

Controller authors start with `coupler.Session`; `Client` and `Server` send
and receive typed messages (`coupler.wire.messages`) encoded by
`coupler.wire.codec`. The package is layered, each layer importing only
those before it: `wire` <- `transport` <- `controller`, `serve` <- `mujoco`
<- `scenes` <- `cli`.
"""

from coupler.controller.camera_images import CameraImages, CameraRequest
from coupler.controller.controls import Controls
from coupler.controller.sensor_readings import SensorReadings
from coupler.controller.session import Session
from coupler.transport.client import Client
from coupler.transport.options import TransportOptions
from coupler.transport.server import Request, Server
from coupler.wire.codec import decode, encode
from coupler.wire.errors import (
    Error,
    ExtensionNotSupportedError,
    ProtocolError,
    ReconnectedError,
    RemoteError,
    SceneChangedError,
    TimeoutError,
)
from coupler.wire.messages import *  # noqa: F403  (the message types are the package's vocabulary)
from coupler.wire.messages import __all__ as _message_names
from coupler.wire.version import VERSION as __version__

__all__ = [
    "__version__",
    "CameraImages",
    "CameraRequest",
    "Client",
    "Controls",
    "Error",
    "ExtensionNotSupportedError",
    "ProtocolError",
    "ReconnectedError",
    "RemoteError",
    "Request",
    "SceneChangedError",
    "SensorReadings",
    "Server",
    "Session",
    "TimeoutError",
    "TransportOptions",
    "decode",
    "encode",
    *_message_names,
]
