"""Where a server may listen: loopback unless the operator says otherwise.

A simulation server accepts controls that move robots; listening on every
interface without authentication lets anyone on the network drive them. So
binding anything but a loopback address (or ipc://, inproc://) needs an
explicit opt-in, and an opt-in without authentication gets a warning.

ZeroMQ offers more transports than tcp://; each one that reaches other
machines either goes through the same loopback rule (ws://, wss://, which
name a host and port like tcp://) or is refused outright (udp://, pgm://,
epgm://, norm://, vmci://, tipc://: they are multicast, datagram or
hypervisor transports a request/reply session cannot use, and a host rule
would not describe who can reach them). Linux's abstract sockets
(ipc://@name) are local but have no file, so no permissions: any local user
can connect to them, and they are bound only with CURVE on.
"""

from __future__ import annotations

import ipaddress

from coupler.wire.errors import Error

_LOOPBACK_NAMES = {"localhost", "ip6-localhost", "ip6-loopback"}
_LOCAL_TRANSPORTS = {"ipc", "inproc"}
_HOST_PORT_TRANSPORTS = {"tcp", "ws", "wss"}
_HIGHEST_PORT = 65535


def transport_of(address: str) -> str:
    """The transport name of an address (`tcp` of tcp://...); coupler.Error when there is none."""
    scheme, separator, _rest = address.partition("://")
    if not separator or not scheme:
        raise Error(f"address '{address[:200]}' names no transport: use tcp://HOST:PORT, ipc://PATH or inproc://NAME")
    return scheme.lower()


def _host_and_port(address: str) -> tuple[str, str]:
    rest = address.partition("://")[2]
    rest = rest.split("/", 1)[0]  # ws://host:port/path: the path is not part of the endpoint
    host, _, port = rest.rpartition(":")
    if ";" in host:  # tcp://source;destination form: the bind side is the last
        host = host.rsplit(";", 1)[1]
    return host.strip("[]"), port


def tcp_host(address: str) -> str | None:
    """The host part of a tcp://, ws:// or wss:// address, None for other transports."""
    if transport_of(address) not in _HOST_PORT_TRANSPORTS:
        return None
    return _host_and_port(address)[0]


def check_port(address: str) -> None:
    """coupler.Error when a host:port address has no port, or one outside 1..65535 (`*` and 0 pick a free one)."""
    if transport_of(address) not in _HOST_PORT_TRANSPORTS:
        return
    host, port = _host_and_port(address)
    if ":" not in address.partition("://")[2]:
        raise Error(f"address '{address[:200]}' has no port: use {transport_of(address)}://HOST:PORT")
    if not host:
        raise Error(f"address '{address[:200]}' has no host: use {transport_of(address)}://127.0.0.1:PORT")
    if port == "*":
        return
    if not port.isdigit() or int(port) > _HIGHEST_PORT:
        raise Error(f"address '{address[:200]}' has port '{port[:20]}': a port is a number from 1 to {_HIGHEST_PORT} "
                    "(or * for any free one)")


def is_loopback(host: str) -> bool:
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # an interface name, a hostname, or * (every interface)


def check_bind_address(address: str, allow_remote: bool, authenticated: bool = False) -> str | None:
    """Raise coupler.Error for a bind the policy refuses: a transport a session cannot use,
    a port out of range, or a non-loopback host without `allow_remote`.

    Returns a warning to show when the bind is allowed but reachable from
    other machines without authentication, else None.
    """
    transport = transport_of(address)
    if transport == "ipc" and address.partition("://")[2].startswith("@") and not authenticated:
        raise Error(f"refusing to bind {address[:200]}: an abstract socket has no file permissions, so any local user "
                    "could connect; use ipc://PATH, or turn CURVE on (--curve-secret with --curve-allow)")
    if transport in _LOCAL_TRANSPORTS:
        return None
    if transport not in _HOST_PORT_TRANSPORTS:
        raise Error(f"refusing to bind {address[:200]}: transport {transport[:20]}:// is not served; "
                    "use tcp://, ws://, wss://, ipc:// or inproc://")
    check_port(address)
    host = tcp_host(address)
    if host is None or is_loopback(host):
        return None
    if not allow_remote:
        raise Error(
            f"refusing to bind {address[:200]}: it is reachable from other machines; "
            f"bind {transport}://127.0.0.1:PORT, or pass --allow-remote to listen there on purpose"
        )
    if not authenticated:
        return f"{address} is reachable from other machines and no authentication is configured: anyone who can reach it can drive the simulation"
    return None
