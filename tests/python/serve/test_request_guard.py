"""Every request is answered: a refusal is told its one line, a failure while handling it its first line only."""

from __future__ import annotations

import logging

from coupler.serve.rate_limited_log import RateLimitedLog
from coupler.serve.request_guard import RequestGuard, internal_error
from coupler.serve.server_stats import ServerStats
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import ErrorCode, ErrorMessage


def _guard() -> RequestGuard:
    return RequestGuard(ServerStats(), RateLimitedLog(logging.getLogger("test_request_guard")))


def _fail(error: Exception):
    def handle():
        raise error
    return handle


def test_a_failure_is_answered_internal_error_with_its_first_line_only_and_logged_whole(caplog) -> None:
    guard = _guard()
    with caplog.at_level(logging.ERROR):
        answer = guard.answer("ControlMessage", _fail(ValueError("the solver diverged\n  at step 12\n  in mj_step")))
    assert answer == ErrorMessage(code=ErrorCode.INTERNAL_ERROR, text="internal error: the solver diverged")
    assert "in mj_step" in caplog.text
    assert (guard.stats.requests, guard.stats.errors_sent) == (1, 1)


def test_a_failure_without_text_is_answered_with_its_kind() -> None:
    assert internal_error(RuntimeError()).text == "internal error: RuntimeError"


def test_what_failed_leads_the_answer() -> None:
    answer = internal_error(RuntimeError("no EGL display"), "images could not be rendered")
    assert answer.text == "images could not be rendered: no EGL display"


def test_a_refusal_is_answered_with_its_code_and_text_and_counted() -> None:
    guard = _guard()
    answer = guard.answer("ResetMessage", _fail(ProtocolError("Reset qpos has 2 numbers", ErrorCode.CONTROL_MISMATCH)))
    assert answer == ErrorMessage(code=ErrorCode.CONTROL_MISMATCH, text="Reset qpos has 2 numbers")
    assert (guard.stats.requests, guard.stats.errors_sent, guard.stats.refused_busy) == (1, 1, 0)


def test_a_busy_refusal_is_counted_as_busy() -> None:
    guard = _guard()
    answer = guard.answer("ControlMessage", _fail(ProtocolError("the server is busy", ErrorCode.SERVER_BUSY)))
    assert answer.code == ErrorCode.SERVER_BUSY
    assert guard.stats.refused_busy == 1


def test_an_answer_is_counted_and_passed_on() -> None:
    guard = _guard()
    assert guard.answer("SensorRequestMessage", lambda: "state") == "state"
    assert (guard.stats.requests, guard.stats.errors_sent) == (1, 0)
