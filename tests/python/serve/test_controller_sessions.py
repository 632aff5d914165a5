"""Who may drive: SimulationServer.handle with requests from several peers, over the static scene."""

import pytest

from coupler.serve.controller_sessions import ControllerSessions
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    ObjectControl,
    ResetMessage,
    SensorMessage,
    SensorRequestMessage,
)
from coupler.serve.simulation_server import HELD, SimulationServer
from coupler.scenes.static import StaticScene

FIRST, SECOND, THIRD = b"\x00first", b"\x00second", b"\x00third"
GOODBYE = ErrorMessage(code=ErrorCode.SESSION_ENDED, text="leaving")


class FakeClock:
    """Monotonic seconds that move only when a test says so."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def arm(joint1: float = 0.0) -> ControlMessage:
    return ControlMessage(objects={"arm": ObjectControl([joint1] + [0.0] * 6)})


def cart() -> ControlMessage:
    return ControlMessage(objects={"cart": ObjectControl([0.0] * 4)})


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def server(clock: FakeClock, controllers: int = 1, session_timeout: float = 5.0) -> SimulationServer:
    return SimulationServer(StaticScene(), controllers=controllers, session_timeout=session_timeout, clock=clock)


@pytest.mark.parametrize("request_kind", [HandshakeInitMessage(), arm(), ResetMessage()], ids=["handshake", "control", "reset"])
def test_a_second_controller_is_refused_as_busy_while_the_first_drives(clock, request_kind):
    sim = server(clock)
    sim.handle(HandshakeInitMessage(), FIRST)
    answer = sim.handle(request_kind, SECOND)
    assert isinstance(answer, ErrorMessage)
    assert answer.code == ErrorCode.SERVER_BUSY
    assert "busy" in answer.text and "retry after its lease lapses (5 s" in answer.text
    assert sim.stats.refused_busy == 1


def test_the_first_controller_is_undisturbed_by_a_refused_second(clock):
    sim = server(clock)
    sim.handle(HandshakeInitMessage(), FIRST)
    first = sim.handle(arm(0.3), FIRST)
    for message in (HandshakeInitMessage(), arm(0.9), ResetMessage(), GOODBYE):
        sim.handle(message, SECOND)
    second = sim.handle(arm(0.3), FIRST)
    assert second.simulated_time == pytest.approx(first.simulated_time + sim.handshake.time_step)
    assert second.objects["arm"].angles[0] == 0.3
    assert sim.session_active and not sim.session_ended.is_set()


def test_a_control_without_a_handshake_takes_a_free_simulation(clock):
    sim = server(clock)
    assert isinstance(sim.handle(arm(), FIRST), SensorMessage)
    assert sim.handle(HandshakeInitMessage(), SECOND).code == ErrorCode.SERVER_BUSY


def test_a_control_that_does_not_match_the_handshake_does_not_take_the_simulation(clock):
    sim = server(clock)
    assert sim.handle(ControlMessage(objects={"robot9": ObjectControl([0.0])}), FIRST).code == ErrorCode.CONTROL_MISMATCH
    assert isinstance(sim.handle(HandshakeInitMessage(), SECOND), HandshakeMessage)


def test_a_sensor_request_from_anyone_is_served_while_busy_and_changes_nothing(clock):
    sim = server(clock)
    sim.handle(arm(0.2), FIRST)
    before = sim.handle(SensorRequestMessage(), FIRST)
    assert sim.handle(SensorRequestMessage(), SECOND) == before
    assert sim.handle(arm(0.2), FIRST).simulated_time == pytest.approx(2 * sim.handshake.time_step)
    assert sim.stats.refused_busy == 0


def test_a_lapsed_lease_lets_a_second_controller_take_over(clock):
    sim = server(clock, session_timeout=0.5)
    sim.handle(arm(), FIRST)
    clock.now += 0.4
    assert sim.handle(HandshakeInitMessage(), SECOND).code == ErrorCode.SERVER_BUSY
    clock.now += 0.6
    assert isinstance(sim.handle(HandshakeInitMessage(), SECOND), HandshakeMessage)
    assert sim.handle(arm(), FIRST).code == ErrorCode.SERVER_BUSY
    assert sim.sessions.lapsed == 1


def test_controls_renew_the_lease(clock):
    sim = server(clock, session_timeout=0.5)
    sim.handle(arm(), FIRST)
    for _ in range(4):
        clock.now += 0.3
        sim.handle(arm(), FIRST)
    assert sim.handle(HandshakeInitMessage(), SECOND).code == ErrorCode.SERVER_BUSY


def test_reads_do_not_renew_the_lease_so_a_monitor_that_handshook_lets_a_controller_in(clock):
    sim = server(clock, session_timeout=0.5)
    sim.handle(HandshakeInitMessage(), FIRST)
    for _ in range(4):
        clock.now += 0.3
        assert isinstance(sim.handle(SensorRequestMessage(), FIRST), SensorMessage)
    assert isinstance(sim.handle(HandshakeInitMessage(), SECOND), HandshakeMessage)


def test_with_several_controllers_a_monitor_that_only_reads_stops_holding_the_others_back(clock):
    sim = server(clock, controllers=2, session_timeout=0.5)
    sim.handle(HandshakeInitMessage(), FIRST)
    sim.handle(HandshakeInitMessage(), SECOND)
    assert sim.handle(arm(), FIRST) is HELD
    for _ in range(4):
        clock.now += 0.3
        sim.handle(SensorRequestMessage(), SECOND)
        sim.lapse_leases()
    assert sim.round_complete()
    assert sim.step_round()[:2] == ([FIRST], 1)


def second_left_behind(clock: FakeClock) -> SimulationServer:
    """Two controllers; the second froze, its lease lapsed and the first stepped on without it."""
    sim = server(clock, controllers=2, session_timeout=0.5)
    sim.handle(HandshakeInitMessage(), FIRST)
    sim.handle(HandshakeInitMessage(), SECOND)
    sim.handle(arm(), FIRST)
    clock.now += 1.0
    sim.lapse_leases()
    sim.step_round()
    return sim


def test_with_several_controllers_a_lapsed_controller_is_told_it_was_dropped_instead_of_getting_a_jumped_state(clock):
    sim = second_left_behind(clock)
    answer = sim.handle(cart(), SECOND)
    assert isinstance(answer, ErrorMessage)
    assert answer.code == ErrorCode.SESSION_ENDED
    assert "lease lapsed" in answer.text and "HandshakeInit" in answer.text


def test_a_lapsed_controller_drives_again_after_a_new_handshake(clock):
    sim = second_left_behind(clock)
    assert isinstance(sim.handle(HandshakeInitMessage(), SECOND), HandshakeMessage)
    assert sim.handle(cart(), SECOND) is HELD


def test_a_lone_controller_taken_over_and_freed_again_is_told_it_was_dropped(clock):
    sim = server(clock, session_timeout=0.5)
    sim.handle(arm(), FIRST)
    clock.now += 1.0
    sim.handle(HandshakeInitMessage(), SECOND)
    sim.handle(GOODBYE, SECOND)
    assert sim.handle(arm(), FIRST).code == ErrorCode.SESSION_ENDED


def test_a_session_timeout_of_zero_never_lapses(clock):
    sim = server(clock, session_timeout=0)
    sim.handle(arm(), FIRST)
    clock.now += 1e6
    answer = sim.handle(HandshakeInitMessage(), SECOND)
    assert answer.code == ErrorCode.SERVER_BUSY
    assert "once it ends its session" in answer.text


def test_an_error_from_the_controller_frees_the_simulation_at_once(clock):
    sim = server(clock)
    sim.handle(arm(), FIRST)
    sim.handle(GOODBYE, FIRST)
    assert isinstance(sim.handle(HandshakeInitMessage(), SECOND), HandshakeMessage)


def test_a_goodbye_from_a_peer_that_drives_nothing_ends_no_session(clock):
    sim = server(clock)
    sim.handle(arm(), FIRST)
    assert sim.handle(GOODBYE, SECOND) is None
    assert not sim.session_ended.is_set()
    assert sim.stats.sessions_ended == 0
    assert sim.handle(HandshakeInitMessage(), THIRD).code == ErrorCode.SERVER_BUSY


def test_peer_left_frees_the_simulation_at_once(clock):
    sim = server(clock, session_timeout=0)
    sim.handle(arm(), FIRST)
    sim.peer_left(FIRST)
    assert not sim.session_active
    assert isinstance(sim.handle(HandshakeInitMessage(), SECOND), HandshakeMessage)
    assert sim.stats.peers_left == 1


def test_peer_left_of_a_peer_that_drives_nothing_changes_nothing(clock):
    sim = server(clock)
    sim.handle(arm(), FIRST)
    sim.peer_left(SECOND)
    assert sim.session_active
    assert sim.handle(HandshakeInitMessage(), SECOND).code == ErrorCode.SERVER_BUSY
    assert sim.stats.peers_left == 0


def test_a_controller_taking_over_starts_afresh(clock):
    sim = server(clock, session_timeout=0.5)
    sim.handle(arm(), FIRST)
    assert sim.running
    clock.now += 1.0
    sim.handle(HandshakeInitMessage(), SECOND)
    assert not sim.running


# ---- several controllers, each its own robots, in lockstep


def test_with_several_controllers_a_control_waits_until_every_controller_sent_one(clock):
    sim = server(clock, controllers=2)
    sim.handle(HandshakeInitMessage(), FIRST)
    sim.handle(HandshakeInitMessage(), SECOND)
    assert sim.handle(arm(0.1), FIRST) is HELD
    assert not sim.round_complete()
    assert sim.handle(cart(), SECOND) is HELD
    assert sim.round_complete()
    peers, steps, _ = sim.step_round()
    assert sorted(peers) == sorted([FIRST, SECOND]) and steps == 1
    assert sim.handle(SensorRequestMessage(), THIRD).simulated_time == pytest.approx(sim.handshake.time_step)
    assert sim.stats.steps == 1 and sim.stats.controls == 2


def test_with_several_controllers_a_robot_another_drives_is_refused_by_name(clock):
    sim = server(clock, controllers=2)
    sim.handle(arm(), FIRST)
    sim.step_round()
    answer = sim.handle(arm(), SECOND)
    assert answer.code == ErrorCode.SERVER_BUSY
    assert "robot 'arm' is driven by another controller" in answer.text


def test_with_several_controllers_one_more_is_refused_as_busy(clock):
    sim = server(clock, controllers=2)
    sim.handle(HandshakeInitMessage(), FIRST)
    sim.handle(HandshakeInitMessage(), SECOND)
    answer = sim.handle(HandshakeInitMessage(), THIRD)
    assert answer.code == ErrorCode.SERVER_BUSY
    assert "2 controllers already drive" in answer.text


@pytest.mark.parametrize("leaving", ["error", "peer_left", "lease"])
def test_with_several_controllers_one_that_leaves_no_longer_holds_the_others_back(clock, leaving):
    sim = server(clock, controllers=2, session_timeout=0.5)
    sim.handle(HandshakeInitMessage(), FIRST)
    sim.handle(HandshakeInitMessage(), SECOND)
    assert sim.handle(arm(), FIRST) is HELD
    if leaving == "error":
        sim.handle(GOODBYE, SECOND)
    elif leaving == "peer_left":
        sim.peer_left(SECOND)
    else:
        clock.now += 1.0
        sim.lapse_leases()
    assert sim.round_complete()
    assert sim.step_round()[:2] == ([FIRST], 1)


def test_with_several_controllers_a_waiting_control_never_lapses(clock):
    sim = server(clock, controllers=2, session_timeout=0.5)
    sim.handle(HandshakeInitMessage(), FIRST)
    sim.handle(HandshakeInitMessage(), SECOND)
    sim.handle(arm(), FIRST)
    clock.now += 0.4
    sim.handle(HandshakeInitMessage(), SECOND)
    clock.now += 0.4
    sim.lapse_leases()
    assert FIRST in sim.sessions.active and SECOND in sim.sessions.active


def test_with_several_controllers_an_idle_controller_keeps_its_place_while_no_one_waits_for_it(clock):
    sim = server(clock, controllers=2, session_timeout=0.5)
    sim.handle(HandshakeInitMessage(), FIRST)
    sim.handle(HandshakeInitMessage(), SECOND)
    clock.now += 1.0
    sim.lapse_leases()
    assert sim.sessions.next_lapse_in() is None
    assert FIRST in sim.sessions.active and SECOND in sim.sessions.active


def test_with_several_controllers_a_reset_is_refused_while_others_drive(clock):
    sim = server(clock, controllers=2)
    sim.handle(HandshakeInitMessage(), FIRST)
    sim.handle(HandshakeInitMessage(), SECOND)
    answer = sim.handle(ResetMessage(), FIRST)
    assert answer.code == ErrorCode.SERVER_BUSY
    assert "Reset would move them too" in answer.text


def test_with_several_controllers_the_step_takes_the_fewest_steps_any_control_asked_for(clock):
    sim = server(clock, controllers=2)
    sim.handle(ControlMessage(objects={"arm": ObjectControl([0.0] * 7)}, steps=3), FIRST)
    sim.handle(ControlMessage(objects={"cart": ObjectControl([0.0] * 4)}, steps=5), SECOND)
    assert sim.step_round()[1] == 3


def test_with_several_controllers_a_huge_steps_never_makes_a_click_peer_jump(clock):
    sim = server(clock, controllers=2)
    sim.handle(ControlMessage(objects={"arm": ObjectControl([0.0] * 7)}, steps=100_000), FIRST)
    sim.handle(cart(), SECOND)
    assert sim.step_round()[1] == 1


def test_several_controllers_are_refused_in_free_mode():
    with pytest.raises(ValueError, match="lockstep"):
        SimulationServer(StaticScene(), lockstep=False, controllers=2)


def test_the_busy_text_says_when_to_retry():
    sessions = ControllerSessions(capacity=1, lease=2.5)
    sessions.admit(FIRST)
    with pytest.raises(Exception, match=r"retry after its lease lapses \(2.5 s without a Control, Reset or HandshakeInit from it\)"):
        sessions.admit(SECOND)
