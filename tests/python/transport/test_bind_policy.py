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
