"""perf.common.program_output: the frame sizes of a round-trip loop, read from a server's --trace-sizes lines."""

import pytest

from coupler.wire.codec import encode
from coupler.wire.messages import (ControlMessage, HandshakeInitMessage, ObjectControl, ResetMessage,
                                   SensorRequestMessage)
from perf.common.errors import BenchmarkError
from perf.common.program_output import (BARE_REQUEST_BYTES, control_frame_sizes, frame_sizes,
                                        wait_for_frame_sizes)

CLICK_HANDSHAKE = "Received 2 from client, Sent 94 bytes to client"
CLICK_CONTROLS = "Received 44 from client, Sent 215 bytes to client"


def _log(*lines):
    return "".join(line + "\n" for line in lines)


def test_a_clients_opening_exchange_traced_after_the_controls_does_not_hide_them():
    # Click's server after a readiness probe and one slice, with the next slice's client just connected: its
    # HandshakeInit changed the sizes, so they were traced after the Controls'.
    log = _log(CLICK_HANDSHAKE, CLICK_CONTROLS, CLICK_HANDSHAKE)
    assert frame_sizes(log) == (44, 215)


def test_a_log_whose_controls_line_has_not_arrived_has_no_control_sizes_yet():
    # A probe's and a client's HandshakeInit traced, the line of the Controls still on its way to the log.
    log = _log(CLICK_HANDSHAKE)
    assert control_frame_sizes(log) is None
    with pytest.raises(BenchmarkError, match="no Control's frame sizes"):
        frame_sizes(log)


def test_the_last_controls_sizes_traced_are_the_ones_taken():
    log = _log(CLICK_HANDSHAKE, CLICK_CONTROLS, CLICK_HANDSHAKE, "Received 50 from client, Sent 230 bytes to client")
    assert frame_sizes(log) == (50, 230)


def test_coupler_servers_trace_is_read_past_its_probes_reads_resets_and_session_lines():
    prefix = "2026-11-27 17:29:16,549 coupler.serve.native_responder INFO: "
    log = _log("serving scene 'static' (arm, cart, box) on ipc:///tmp/x/perf-3.sock, mode lockstep",
               prefix + "received 2 bytes, sent 979 bytes",  # the readiness probe's SensorRequest
               prefix + "received 2 bytes, sent 888 bytes",  # the client's HandshakeInit
               prefix + "received 2 bytes, sent 2 bytes",
               prefix + "received 126 bytes, sent 990 bytes",
               "2026-11-27 17:29:16,727 coupler.serve.simulation_server INFO: controller ended its session",
               prefix + "received 2 bytes, sent 888 bytes")
    assert frame_sizes(log) == (126, 990)


def test_every_opening_request_is_bare_and_a_control_with_a_value_is_longer():
    for opening in (HandshakeInitMessage(), SensorRequestMessage(), ResetMessage()):
        assert len(encode(opening)) <= BARE_REQUEST_BYTES
    assert len(encode(ControlMessage(objects={"r": ObjectControl([0.0])}))) > BARE_REQUEST_BYTES


def test_waiting_for_the_frame_sizes_reads_the_log_until_the_controls_line_is_there():
    reads = []

    def read_log():
        reads.append(None)
        return _log(CLICK_HANDSHAKE) if len(reads) < 3 else _log(CLICK_HANDSHAKE, CLICK_CONTROLS)

    assert wait_for_frame_sizes(read_log, timeout=5.0) == (44, 215)
    assert len(reads) == 3


def test_waiting_for_the_frame_sizes_gives_up_after_its_timeout():
    with pytest.raises(BenchmarkError, match="within 0.05 s"):
        wait_for_frame_sizes(lambda: _log(CLICK_HANDSHAKE), timeout=0.05)
