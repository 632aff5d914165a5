"""Where a server may listen: loopback unless the operator says otherwise.

A simulation server accepts controls that move robots; listening on every
interface without authentication lets anyone on the network drive them. So
binding anything but a loopback TCP address (or ipc://, inproc://) needs an
explicit opt-in, and an opt-in without authentication gets a warning.
"""

from __future__ import annotations

import ipaddress

from coupler.wire.errors import Error

_LOOPBACK_NAMES = {"localhost", "ip6-localhost", "ip6-loopback"}


def tcp_host(address: str) -> str | None:
    """The host part of a tcp:// address, None for other transports."""
    if not address.startswith("tcp://"):
        return None
    rest = address[len("tcp://"):]
    host, _, _port = rest.rpartition(":")
    if ";" in host:  # tcp://source;destination form: the bind side is the last
        host = host.rsplit(";", 1)[1]
    return host.strip("[]")


def is_loopback(host: str) -> bool:
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # an interface name, a hostname, or * (every interface)


def check_bind_address(address: str, allow_remote: bool, authenticated: bool = False) -> str | None:
    """Raise coupler.Error for a non-loopback TCP bind without `allow_remote`.

    Returns a warning to show when the bind is allowed but reachable from
    other machines without authentication, else None.
    """
    host = tcp_host(address)
    if host is None or is_loopback(host):
        return None
    if not allow_remote:
        raise Error(
            f"refusing to bind {address}: it is reachable from other machines; "
            "bind tcp://127.0.0.1:PORT, or pass --allow-remote to listen there on purpose"
        )
    if not authenticated:
        return f"{address} is reachable from other machines and no authentication is configured: anyone who can reach it can drive the simulation"
    return None
