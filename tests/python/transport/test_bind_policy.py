"""A server listens on loopback unless told otherwise, and warns when told without authentication."""

import pytest

from coupler.transport.bind_policy import check_bind_address
from coupler.wire.errors import Error


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:5555", "tcp://localhost:5555", "tcp://[::1]:5555",
                                     "tcp://127.0.0.2:1", "ipc:///run/coupler.sock", "inproc://sim"])
def test_loopback_and_local_transports_bind_silently(address):
    assert check_bind_address(address, allow_remote=False) is None


@pytest.mark.parametrize("address", ["tcp://*:5555", "tcp://0.0.0.0:5555", "tcp://eth0:5555", "tcp://192.0.2.7:5555"])
def test_other_interfaces_need_an_explicit_opt_in(address):
    with pytest.raises(Error, match="--allow-remote"):
        check_bind_address(address, allow_remote=False)


def test_an_opt_in_without_authentication_gets_a_warning():
    warning = check_bind_address("tcp://*:5555", allow_remote=True)
    assert "no authentication is configured" in warning


def test_an_opt_in_with_authentication_binds_silently():
    assert check_bind_address("tcp://*:5555", allow_remote=True, authenticated=True) is None


@pytest.mark.parametrize("address", ["ws://0.0.0.0:5555", "ws://*:5555/sim", "wss://eth0:5555", "ws://192.0.2.7:80/x"])
def test_websocket_addresses_follow_the_same_loopback_rule(address):
    with pytest.raises(Error, match="--allow-remote"):
        check_bind_address(address, allow_remote=False)


@pytest.mark.parametrize("address", ["ws://127.0.0.1:5555", "ws://[::1]:5555/sim", "wss://localhost:5555"])
def test_websocket_on_loopback_binds_silently(address):
    assert check_bind_address(address, allow_remote=False) is None


@pytest.mark.parametrize("address", ["udp://127.0.0.1:5555", "pgm://eth0;239.192.1.1:5555",
                                     "epgm://eth0;239.192.1.1:5555", "norm://127.0.0.1:5555", "vmci://1:5555",
                                     "tipc://{5560,0,0}", "TCPX://127.0.0.1:1"])
def test_transports_a_session_cannot_use_are_refused_even_with_an_opt_in(address):
    with pytest.raises(Error, match="is not served"):
        check_bind_address(address, allow_remote=True, authenticated=True)


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:99999", "tcp://127.0.0.1:-1", "tcp://127.0.0.1:abc",
                                     "tcp://127.0.0.1", "ws://127.0.0.1:70000/sim"])
def test_a_port_outside_1_to_65535_is_refused(address):
    with pytest.raises(Error, match="port"):
        check_bind_address(address, allow_remote=False)


def test_an_address_without_a_transport_is_refused():
    with pytest.raises(Error, match="names no transport"):
        check_bind_address("127.0.0.1:5555", allow_remote=False)


def test_an_abstract_socket_is_refused_without_curve_even_with_an_opt_in():
    with pytest.raises(Error, match="abstract socket has no file permissions"):
        check_bind_address("ipc://@coupler", allow_remote=True)


def test_an_abstract_socket_with_curve_binds_silently():
    assert check_bind_address("ipc://@coupler", allow_remote=False, authenticated=True) is None


def test_an_address_without_a_host_is_refused_naming_the_loopback_one():
    with pytest.raises(Error, match=r"has no host: use tcp://127\.0\.0\.1:PORT"):
        check_bind_address("tcp://:5555", allow_remote=False)


def test_the_host_of_a_source_and_destination_address_is_its_last():
    assert check_bind_address("tcp://192.0.2.7;127.0.0.1:5555", allow_remote=False) is None
    with pytest.raises(Error, match="--allow-remote"):
        check_bind_address("tcp://127.0.0.1;192.0.2.7:5555", allow_remote=False)
