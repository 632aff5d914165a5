"""Defaults and limits are defined once, in the C++ library, and every Python
default is that one value."""

from __future__ import annotations

from coupler import _native, limits
from coupler.transport.client import Client
from coupler.transport.options import TransportOptions


def test_limits_are_the_cpp_library_s_values():
    assert limits.DEFAULT_ADDRESS == "tcp://127.0.0.1:5555"
    assert limits.HEARTBEAT_TIMEOUT == limits.HEARTBEAT * limits.HEARTBEAT_TIMEOUT_INTERVALS
    assert limits.MAX_FRAME_BYTES == 1 << 20
    assert limits.MAX_STEPS_PER_CONTROL == 100_000


def test_transport_options_default_to_the_limits():
    options = TransportOptions()
    assert (options.heartbeat, options.heartbeat_timeout, options.max_frame_bytes, options.handshake_timeout) == (
        limits.HEARTBEAT, limits.HEARTBEAT_TIMEOUT, limits.MAX_FRAME_BYTES, limits.HANDSHAKE_TIMEOUT)


def test_the_client_defaults_to_the_limits():
    doc = Client.__init__.__doc__
    assert f"timeout: float = {limits.REQUEST_TIMEOUT}" in doc
    assert f"heartbeat: float = {limits.HEARTBEAT}" in doc
    assert f"heartbeat_timeout: float = {limits.HEARTBEAT_TIMEOUT}" in doc
    assert f"max_frame_bytes: int = {limits.MAX_FRAME_BYTES}" in doc


def test_the_native_server_defaults_to_the_limits():
    doc = _native.Server.__init__.__doc__
    assert f"heartbeat: float = {limits.HEARTBEAT}" in doc
    assert f"heartbeat_timeout: float = {limits.HEARTBEAT_TIMEOUT}" in doc
    assert f"max_frame_bytes: int = {limits.MAX_FRAME_BYTES}" in doc
    assert f"handshake_timeout: float = {limits.HANDSHAKE_TIMEOUT}" in doc
