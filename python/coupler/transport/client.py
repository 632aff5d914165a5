"""A controller's connection to a simulation server: the C++ `coupler::Client`, bound.

Strictly in turn: send one message, then receive its answer. A request that
timed out does not wedge the client: the next `send` starts a new request and
a late answer to the old one is discarded. An ErrorMessage from the server is
an ordinary answer: `receive` and `request` return it.

`timeout` (seconds, default `coupler.limits.REQUEST_TIMEOUT`) bounds every
send and every receive not given a timeout of its own. `linger` (seconds) is
how long closing waits to deliver messages still queued, such as a goodbye; it
bounds how long `close` can take. `heartbeat` (seconds; 0 turns it off) sends
ZMTP PINGs on a quiet tcp:// or ipc:// connection, which is dropped when
nothing comes back within `heartbeat_timeout`: a dead server is noticed while
nobody sends. Frames over `max_frame_bytes` (0: no limit) are never read:
ZeroMQ drops the connection and the request times out. With
`curve_server_key` (the server's Z85 public key) and `curve_key_pair` (this
client's Z85 public and secret keys; see coupler.transport.curve_keys), the
connection is CurveZMQ-encrypted and authenticated. The defaults are the C++
`ClientOptions`'.

An inproc:// address reaches the C++ servers of the same process
(`coupler.Server`, the serving loops), which share the client's ZeroMQ
context; pyzmq sockets have a context of their own and are reached over
ipc:// or tcp://.

    with Client("tcp://127.0.0.1:5555") as client:
        answer = client.request(HandshakeInitMessage())
"""

from __future__ import annotations

from coupler._native import Client

__all__ = ["Client"]
