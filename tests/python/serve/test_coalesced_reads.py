"""Reads of one state share one encoded frame; a step, a Control or a reset makes the next read encode afresh."""

from __future__ import annotations

from coupler.scenes import load_scene
from coupler.serve.coalesced_reads import CoalescedReads
from coupler.serve.simulation_server import SimulationServer
from coupler.wire.codec import decode, encode
from coupler.wire.messages import ControlMessage, HandshakeInitMessage, ObjectControl, ResetMessage

ARM_ZEROS = ControlMessage(objects={"arm": ObjectControl([0.0] * 7)})


def reads_of_static() -> tuple[SimulationServer, CoalescedReads]:
    sim = SimulationServer(load_scene("static"))
    return sim, CoalescedReads(sim, lambda: encode(sim.simulation.sensors()))


def test_reads_of_one_state_are_encoded_once():
    sim, reads = reads_of_static()
    frames = {reads.answer() for _ in range(30)}
    assert len(frames) == 1 and reads.encoded == 1


def test_a_read_after_a_step_carries_the_new_state():
    sim, reads = reads_of_static()
    before = decode(reads.answer()).simulated_time
    sim.handle(HandshakeInitMessage(), b"c")
    sim.handle(ARM_ZEROS, b"c")
    assert decode(reads.answer()).simulated_time == before + sim.handshake.time_step


def test_a_read_after_a_reset_carries_the_reset_state():
    sim, reads = reads_of_static()
    sim.handle(HandshakeInitMessage(), b"c")
    sim.handle(ARM_ZEROS, b"c")
    stepped = reads.answer()
    sim.handle(ResetMessage(), b"c")
    assert reads.answer() != stepped and decode(reads.answer()).simulated_time == 0.0


def test_every_coalesced_read_is_counted_as_a_read():
    sim, reads = reads_of_static()
    for _ in range(5):
        reads.answer()
    assert sim.stats.sensor_requests == 5 and sim.stats.requests == 5
