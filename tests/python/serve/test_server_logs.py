"""What peers can make the server log: escaped, cut, and bounded in number."""

from __future__ import annotations

import logging

from coupler.serve import native_responder
from coupler.serve.native_responder import NativeResponder
from coupler.serve.rate_limited_log import RateLimitedLog
from coupler.serve.simulation_server import SimulationServer
from coupler.scenes.static import StaticScene
from coupler.wire.messages import ControlMessage, ErrorCode, ErrorMessage, HandshakeInitMessage, ObjectControl

HOLDER = b"\x00holder"


def unknown(name: str) -> ControlMessage:
    return ControlMessage(objects={name: ObjectControl([0.0])})


def test_a_control_naming_a_huge_unknown_object_is_refused_with_the_name_cut(caplog):
    sim = SimulationServer(StaticScene())
    with caplog.at_level(logging.INFO):
        answer = sim.handle(unknown("x" * 1_000_000), HOLDER)
    assert answer.code == ErrorCode.CONTROL_MISMATCH
    assert len(answer.text) < 1000 and "(1000000 characters)" in answer.text
    assert sum(len(record.getMessage()) for record in caplog.records) < 1000


def test_an_object_name_with_a_newline_cannot_forge_a_log_line(caplog):
    sim = SimulationServer(StaticScene())
    with caplog.at_level(logging.INFO):
        sim.handle(unknown("arm\nCRITICAL server compromised"), HOLDER)
    assert caplog.records and all("\n" not in record.getMessage() for record in caplog.records)


def test_a_goodbye_text_with_control_characters_is_logged_escaped(caplog):
    sim = SimulationServer(StaticScene())
    sim.handle(HandshakeInitMessage(), HOLDER)
    with caplog.at_level(logging.INFO):
        sim.handle(ErrorMessage(code=ErrorCode.SESSION_ENDED, text="bye\r\nWARNING forged\x1b[2J"), HOLDER)
    assert [r.getMessage() for r in caplog.records] == [
        "controller ended its session: error 106: bye\\r\\nWARNING forged\\x1b[2J"
    ]


def test_a_flood_of_refused_controls_logs_a_bounded_number_of_lines(caplog):
    sim = SimulationServer(StaticScene())
    with caplog.at_level(logging.INFO):
        for k in range(1000):
            sim.handle(unknown(f"robot{k}"), HOLDER)
    assert sim.stats.errors_sent == 1000
    assert len(caplog.records) <= 10


class Reporter(NativeResponder):
    """Only the callbacks the C++ server calls, without a server."""

    def __init__(self) -> None:
        self._peer_log = RateLimitedLog(native_responder.log)


def test_an_answer_dropped_because_its_peer_left_is_not_logged_as_a_bad_frame(caplog):
    with caplog.at_level(logging.INFO):
        Reporter()._bad_frame("answer dropped: Host unreachable")
    assert [r.getMessage() for r in caplog.records] == ["answer dropped: Host unreachable"]
    assert caplog.records[0].levelno == logging.INFO


def test_bad_frames_reported_by_the_native_server_are_logged_at_a_bounded_rate(caplog):
    reporter = Reporter()
    with caplog.at_level(logging.INFO):
        for _ in range(1000):
            reporter._bad_frame("malformed frame: truncated")
    assert len(caplog.records) <= 10
