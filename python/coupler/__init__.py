"""coupler: robot controllers and simulations over ZeroMQ, speaking the Click protocol v1.

Controller authors start with `coupler.Session`; `Client` and `Server` send
and receive typed messages (`coupler.messages`) encoded by `coupler.codec`.
"""

from coupler.client import Client
from coupler.codec import decode, encode
from coupler.controls import Controls
from coupler.errors import Error, ProtocolError, ReconnectedError, RemoteError, SceneChangedError, TimeoutError
from coupler.messages import *  # noqa: F403  (the message types are the package's vocabulary)
from coupler.messages import __all__ as _message_names
from coupler.sensor_readings import SensorReadings
from coupler.server import Request, Server
from coupler.session import Session

__all__ = [
    "Client",
    "Controls",
    "Error",
    "ProtocolError",
    "ReconnectedError",
    "RemoteError",
    "Request",
    "SceneChangedError",
    "SensorReadings",
    "Server",
    "Session",
    "TimeoutError",
    "decode",
    "encode",
    *_message_names,
]
