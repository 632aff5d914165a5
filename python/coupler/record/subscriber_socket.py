"""The SUB socket every reader of a publishing server's stream opens (the recorder, the view): the same frame
limit and CURVE keys as the client side of `--addr`, no lingering, and a bounded queue so a slow reader drops
frames instead of holding the server's memory."""

from __future__ import annotations

import zmq

from coupler.transport.options import TransportOptions

DEFAULT_RCVHWM = 100_000  # messages a recorder's socket holds while the file is being written

# a frame of max_frame_bytes plus its topic and header, never the limit itself
_TOPIC_AND_HEADER_BYTES = 4096


def subscriber_socket(context: zmq.Context, rcvhwm: int, transport: TransportOptions | None = None) -> zmq.Socket:
    """A SUB socket, not yet connected nor subscribed, set up for the stream of a server `transport` reaches."""
    # No ZMTP heartbeats: libzmq 4.3.5 aborts (stream_engine_base.cpp: _input_stopped) when one arrives while
    # a subscriber's queue is full, which is when a reader falls behind; the end message or a stop condition
    # ends a reading instead.
    socket = context.socket(zmq.SUB)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RCVHWM, rcvhwm)
    options = transport or TransportOptions()
    if options.max_frame_bytes:
        socket.setsockopt(zmq.MAXMSGSIZE, options.max_frame_bytes + _TOPIC_AND_HEADER_BYTES)
    if options.curve_server_key is not None and options.curve_key_pair is not None:
        socket.curve_serverkey = options.curve_server_key
        socket.curve_publickey, socket.curve_secretkey = options.curve_key_pair
    return socket
