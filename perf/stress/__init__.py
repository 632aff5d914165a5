"""Stress test: hostile peers against a demo server on the arm scene while
one controller drives it in lockstep.

    python -m perf.stress             # 5,000 connections, 20,000 more garbage ones, 5 s phases
    python -m perf.stress --quick     # the CI form, under 90 s

Phases, in order, the controller driving throughout the first four:
solo (its step rate alone), a storm of connections (a third plain, a third
random bytes, a third a ZMTP greeting then silence) followed by a storm of
garbage connections for the memory check, 30 reader clients, Controls of
pathological shape (tens of thousands of object names) from a peer that may
not drive; then the controller leaves and another peer sends a Control of
100,000 steps while readers and newcomers time their answers; then SIGTERM
during another such Control; then a server of 16 arm worlds gets a Control
for every world of 100,000 steps (`perf.stress.worlds`), readers and
newcomers timing their answers, then SIGTERM during another; last, on a
server of its own, the recorder phases (perf/stress/recorder.py): a
`coupler record` filling a disk and the `--record` writer killed mid-run.
Checked: no step lost or duplicated; the
controller keeps at least half its solo step rate under the readers (its
rate in the other phases is reported); every reader and newcomer answered within
0.5 s; serving ended within 1 s of SIGTERM; its log under 1 MB; its
resident memory after the storms within 10 MiB of before. Then the
publisher's phases against a server publishing (`perf.stress.publisher`):
idle subscribers beyond its cap, subscribers sending 1 MiB messages and
floods that are not subscriptions, a re-subscribe loop beside a stalled
subscriber; checked: no step lost, a live subscriber lost nothing and got
the scene once, a newcomer gets the scene, memory back within 10 MiB.
"""

from __future__ import annotations

import argparse
import logging
import os
import shlex
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from collections.abc import Callable
from pathlib import Path
from typing import Any

from coupler.wire.errors import Error
from coupler.wire.messages import ErrorCode, ErrorMessage
from perf.common import host, programs, results
from perf.common.arguments import add_output_flags, add_server_args, positive
from perf.common.endpoints import free_tcp_address
from perf.common.errors import BenchmarkError
from perf.common.processes import ServerProcess
from perf.common.process_stats import rss_kib
from perf.common.spread import median_or_none
from perf.soak.memory import KIB_PER_MIB
from perf.stress import phases, publisher, recorder, storm
from perf.stress import worlds as worlds_phase
from perf.stress import render as stress_render

log = logging.getLogger("perf.stress")

MIN_RATE_RATIO = 0.5  # of the solo step rate, under the readers
MAX_ANSWER_SECONDS = phases.ANSWER_TIMEOUT
# From SIGTERM to the long Control's answer (SessionEnded): serving has ended. The process exit after it
# (summary, interpreter teardown) is reported: a few tenths of a second on an idle machine.
MAX_STOP_SECONDS = 1.0
MAX_LOG_BYTES = 1_000_000
MAX_RSS_GROWTH_MIB = 10.0
# After a storm: stalled connections dropped (--handshake-timeout, 3 s), freed memory given back (looked at every 2 s).
SETTLE_SECONDS = 5.0


@dataclass(frozen=True)
class Settings:
    connections: int = 5_000
    garbage_connections: int = 20_000
    readers: int = 30
    reader_windows: int = 5
    window_seconds: float = 2.0
    phase_seconds: float = 5.0
    names: int = 40_000
    long_steps: int = 100_000
    worlds_steps: int = 100_000  # steps of the Controls for every world (perf.stress.worlds)
    server_args: tuple[str, ...] = ()
    recorder_steps: int = 4_000
    quick: bool = False


QUICK = dict(connections=3_000, garbage_connections=6_000, reader_windows=3, window_seconds=1.0, phase_seconds=2.0,
             names=30_000, recorder_steps=1_000, worlds_steps=5_000)


@dataclass(frozen=True)
class Check:
    name: str
    measured: str
    limit: str
    passed: bool
    # A guarantee (no step lost, every step taken, every intruder refused, a bounded log) fails the run when
    # broken; the others are targets on times, rates and memory, reported as met or missed like every
    # benchmark's figures, since a loaded machine moves them without anything being broken.
    guarantee: bool = False


def broken(verdicts: list[Check]) -> list[str]:
    """The guarantees a run broke: what makes perf.stress exit 1."""
    return [check.name for check in verdicts if check.guarantee and not check.passed]


def server_command(address: str, settings: Settings) -> list[str]:
    return [programs.python(), "-m", "demo.server", "--addr", address, "--scene", "arm", *settings.server_args]


def storm_progress(name: str, total: int) -> Callable[[int], None]:
    """A progress line every 2,000 connections of a storm."""

    def progress(done: int) -> None:
        if done % 2000 == 0 or done == total:
            log.info("perf.stress: %s: %d / %d connections", name, done, total)

    return progress


def stress(settings: Settings, workdir: Path) -> dict[str, Any]:
    """Run every phase against one server; the figures of each."""
    address = free_tcp_address()
    figures: dict[str, Any] = {"address": address}
    server_log = workdir / "server.log"
    with ServerProcess(server_command(address, settings), server_log, handshake_address=address) as server:
        controller = phases.DrivingController(address)
        try:
            controller.wait_until_driving()
            started = time.monotonic()
            time.sleep(settings.phase_seconds)
            solo = controller.rate(started, time.monotonic())
            figures["solo_steps_per_s"] = solo
            log.info("perf.stress: solo: %.0f steps/s", solo)

            figures["rss_before_kib"] = rss_kib(server.pid)
            started = time.monotonic()
            counts = storm.storm(address, settings.connections, progress=storm_progress("storm", settings.connections))
            figures["storm"] = {**asdict(counts), "steps_per_s": controller.rate(started, time.monotonic())}
            log.info("perf.stress: storm: %d connections in %.1f s, controller at %.0f steps/s",
                     counts.total, counts.seconds, figures["storm"]["steps_per_s"])
            garbage = storm.storm(address, settings.garbage_connections, kinds=(storm.GARBAGE,),
                                  progress=storm_progress("garbage storm", settings.garbage_connections))
            figures["garbage_storm"] = asdict(garbage)
            time.sleep(SETTLE_SECONDS)
            figures["rss_after_kib"] = rss_kib(server.pid)
            controller.check_running()
            log.info("perf.stress: memory: %.1f MiB before the storms, %.1f MiB after",
                     figures["rss_before_kib"] / KIB_PER_MIB, figures["rss_after_kib"] / KIB_PER_MIB)

            log.info("perf.stress: %d readers, %d windows of %g s each followed by as long without them",
                     settings.readers, settings.reader_windows, settings.window_seconds)
            started = time.monotonic()
            windows = phases.read_in_windows(address, controller, settings.readers, settings.reader_windows,
                                             settings.window_seconds, settings.window_seconds)
            figures["readers"] = {**asdict(windows.answers), "reading_rates": windows.reading_rates,
                                  "quiet_rates": windows.quiet_rates, "ratios": windows.ratios,
                                  "ratio": statistics.median(windows.ratios),
                                  "steps_per_s": statistics.median(windows.reading_rates),
                                  "quiet_steps_per_s": statistics.median(windows.quiet_rates),
                                  "longest_round_trip": controller.longest_round_trip(started, time.monotonic()),
                                  "median_round_trip": median_or_none(windows.reading_round_trips),
                                  "quiet_median_round_trip": median_or_none(windows.quiet_round_trips)}
            log.info("perf.stress: readers: %d reads, controller at %.0f steps/s with them, %.0f without "
                     "(median ratio %.2f, windows %s)", windows.answers.answered, figures["readers"]["steps_per_s"],
                     figures["readers"]["quiet_steps_per_s"], figures["readers"]["ratio"],
                     ", ".join(f"{r:.2f}" for r in windows.ratios))

            log.info("perf.stress: Controls of %d object names from a peer that may not drive", settings.names)
            frame = phases.pathological_frame(settings.names)
            started = time.monotonic()
            refusals = phases.send_pathological(address, frame, settings.phase_seconds)
            figures["pathological"] = {"frame_bytes": len(frame), **asdict(refusals),
                                       "steps_per_s": controller.rate(started, time.monotonic())}
            log.info("perf.stress: pathological: %d sent, controller at %.0f steps/s",
                     refusals.sent, figures["pathological"]["steps_per_s"])
            figures["controller"] = controller.stop()
        finally:
            controller.kill()

        log.info("perf.stress: a Control of %d steps from another peer, readers and newcomers waiting",
                 settings.long_steps)
        run = phases.long_control(address, settings.long_steps)
        figures["long_control"] = asdict(run)
        log.info("perf.stress: long Control answered in %.2f s; readers waited %.3f s at most, newcomers %.3f s",
                 run.seconds, run.readers.longest, run.newcomers.longest)

        log.info("perf.stress: SIGTERM during another Control of %d steps", settings.long_steps)
        driver = phases.start_long_control(address, settings.long_steps)
        try:
            time.sleep(0.2)
            signalled = time.monotonic()
            os.kill(server.pid, signal.SIGTERM)
            answer = driver.receive()
            figures["stop_seconds"] = time.monotonic() - signalled
            figures["stop_answer"] = repr(answer)[:300]
            figures["stopped_with_session_ended"] = (isinstance(answer, ErrorMessage)
                                                     and answer.code == ErrorCode.SESSION_ENDED)
            server.finish(timeout=10.0)
            figures["exit_seconds"] = time.monotonic() - signalled
        finally:
            driver.close()
        log.info("perf.stress: the long Control was answered %.2f s after SIGTERM, the server exited after %.2f s",
                 figures["stop_seconds"], figures["exit_seconds"])
    figures["log_bytes"] = server_log.stat().st_size

    log.info("perf.stress: a Control for each of %d worlds of %d steps, readers and newcomers waiting; then SIGTERM "
             "during another", worlds_phase.WORLDS, settings.worlds_steps)
    figures["worlds"] = worlds_phase.run(settings.worlds_steps, workdir)
    log.info("perf.stress: worlds: answered in %.2f s; readers waited %.3f s at most, newcomers %.3f s; answered "
             "%.2f s after SIGTERM", figures["worlds"]["seconds"], figures["worlds"]["readers"]["longest"],
             figures["worlds"]["newcomers"]["longest"], figures["worlds"]["stop_seconds"])
    log.info("perf.stress: recording %d steps, a recorder's disk full, the --record writer killed midway",
             settings.recorder_steps)
    figures["recorder"] = recorder.recorder_phases(workdir, settings.recorder_steps)
    return figures


def checks(figures: dict[str, Any], settings: Settings) -> list[Check]:
    steps = figures["controller"]
    long = figures["long_control"]
    growth_mib = (figures["rss_after_kib"] - figures["rss_before_kib"]) / KIB_PER_MIB
    out = [
        Check("no step lost or duplicated",
              f"{steps['round_trips']:,} round trips: {steps['lost']} lost, {steps['duplicated']} duplicated, "
              f"{steps['irregular']} irregular", "0", steps["lost"] == steps["duplicated"] == steps["irregular"] == 0,
              guarantee=True),
    ]
    readers = figures["readers"]
    medians = ""
    if readers.get("median_round_trip") is not None and readers.get("quiet_median_round_trip") is not None:
        medians = (f"; round trip p50 {readers['median_round_trip'] * 1e6:,.0f} us, "
                   f"{readers['quiet_median_round_trip'] * 1e6:,.0f} us without them")
    out.append(Check(f"step rate under {settings.readers} readers",
                     f"{readers['steps_per_s']:,.0f} of {readers['quiet_steps_per_s']:,.0f} steps/s (median of "
                     f"{len(readers['ratios'])} window ratios: {readers['ratio']:.2f}){medians}",
                     f">= {MIN_RATE_RATIO:.2f}", readers["ratio"] >= MIN_RATE_RATIO))
    out.append(Check(f"{settings.readers} readers answered", f"{readers['answered']:,} reads, {readers['timeouts']} "
                     f"timeouts; longest measured {readers['longest']:.3f} s (their threads' scheduling included)",
                     f"each within {MAX_ANSWER_SECONDS} s",
                     readers["timeouts"] == 0 and readers["wrong_answers"] == 0 and readers["answered"] > 0))
    out.append(Check("pathological Controls refused busy", f"{figures['pathological']['busy']:,} of "
                     f"{figures['pathological']['sent']:,}", "all",
                     figures["pathological"]["busy"] == figures["pathological"]["sent"] > 0, guarantee=True))
    for who in ("readers", "newcomers"):
        waits = long[who]
        out.append(Check(f"{who} during a {settings.long_steps:,}-step Control",
                         f"{waits['answered']} answered, {waits['timeouts']} timeouts, longest {waits['longest']:.3f} s",
                         f"< {MAX_ANSWER_SECONDS} s", waits["timeouts"] == 0 and waits["wrong_answers"] == 0
                         and waits["answered"] > 0 and waits["longest"] < MAX_ANSWER_SECONDS))
    taken = round(long["simulated_advance"] / long["time_step"])
    out.append(Check(f"the {settings.long_steps:,}-step Control took every step", f"{taken:,} steps",
                     f"{settings.long_steps:,}", taken == settings.long_steps, guarantee=True))
    out.append(Check("serving ends after SIGTERM during a long Control",
                     f"answered {figures['stop_seconds']:.2f} s after it (SessionEnded: "
                     f"{figures['stopped_with_session_ended']}); the process exited (status 0) after "
                     f"{figures['exit_seconds']:.2f} s", f"< {MAX_STOP_SECONDS} s",
                     figures["stop_seconds"] < MAX_STOP_SECONDS and figures["stopped_with_session_ended"]))
    out.append(Check("server log for the whole run", f"{figures['log_bytes']:,} bytes", f"< {MAX_LOG_BYTES:,}",
                     figures["log_bytes"] < MAX_LOG_BYTES, guarantee=True))
    if "worlds" in figures:
        out += worlds_phase.checks(figures["worlds"], Check)
    out.append(Check("resident memory after the storms", f"{growth_mib:+.1f} MiB", f"< {MAX_RSS_GROWTH_MIB:g} MiB",
                     growth_mib < MAX_RSS_GROWTH_MIB))
    out += [Check(**fields) for fields in recorder.recorder_checks(figures["recorder"])]
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    defaults = Settings()
    parser = argparse.ArgumentParser(
        prog="python -m perf.stress",
        description=__doc__.split("\n\n")[0].replace("\n", " ") + " Progress goes to stderr; stress.json and "
        "stress.md go to --out and the table to stdout. Exits 1 when a guarantee is broken (a step lost or "
        "duplicated or not taken, an intruder's Control not refused, the log beyond its bound) or a process dies or "
        "hangs; a missed target (times, rates, memory) is reported, never fails the run.",
    )
    parser.add_argument("--quick", action="store_true",
                        help=f"CI form: {QUICK['connections']:,} connections, {QUICK['garbage_connections']:,} garbage "
                             f"ones, {QUICK['reader_windows']} reader windows of {QUICK['window_seconds']:g} s, "
                             f"{QUICK['phase_seconds']:g} s phases, {QUICK['names']:,} names, unless the flags below "
                             "say otherwise (default: off)")
    parser.add_argument("--connections", type=positive(int), default=None, metavar="N",
                        help=f"connections of the first storm, a third of each kind (default {defaults.connections:,})")
    parser.add_argument("--garbage-connections", type=positive(int), default=None, metavar="N",
                        help="connections sending random bytes, after the first storm, for the memory check "
                             f"(default {defaults.garbage_connections:,})")
    parser.add_argument("--readers", type=positive(int), default=defaults.readers, metavar="N",
                        help="reader clients of the readers phase (default: %(default)s)")
    parser.add_argument("--phase-seconds", type=positive(float), default=None, metavar="S",
                        help=f"length of the solo and pathological phases (default {defaults.phase_seconds:g})")
    parser.add_argument("--reader-windows", type=positive(int), default=None, metavar="N",
                        help="windows with the readers, each followed by one as long without them; the step rate "
                             f"ratio checked is the median over the pairs (default {defaults.reader_windows})")
    parser.add_argument("--window-seconds", type=positive(float), default=None, metavar="S",
                        help=f"length of each reader window and each quiet one (default {defaults.window_seconds:g})")
    parser.add_argument("--names", type=positive(int), default=None, metavar="N",
                        help=f"object names in each pathological Control (default {defaults.names:,}; the frame "
                             "must stay under the server's 1 MiB frame limit)")
    parser.add_argument("--long-steps", type=positive(int), default=defaults.long_steps, metavar="N",
                        help="steps of the long Controls, at most 100,000 (default: %(default)s)")
    parser.add_argument("--recorder-steps", type=positive(int), default=None, metavar="N",
                        help="steps driven in the recorder phases (default "
                             f"{defaults.recorder_steps:,}, {QUICK['recorder_steps']:,} with --quick)")
    parser.add_argument("--worlds-steps", type=positive(int), default=None, metavar="N",
                        help=f"steps of the Controls for every world of the batched-worlds phase, at most 100,000 "
                             f"(default {defaults.worlds_steps:,}; {QUICK['worlds_steps']:,} with --quick)")
    add_server_args(parser)
    add_output_flags(parser, "stress", plot=False)
    return parser.parse_args(argv)


def settings_of(args: argparse.Namespace) -> Settings:
    base = asdict(Settings())
    if args.quick:
        base.update(QUICK, quick=True)
    for name in ("connections", "garbage_connections", "reader_windows", "window_seconds", "phase_seconds", "names",
                 "recorder_steps", "worlds_steps"):
        if getattr(args, name) is not None:
            base[name] = getattr(args, name)
    base.update(readers=args.readers, long_steps=args.long_steps, server_args=tuple(shlex.split(args.server_args)))
    return Settings(**base)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    settings = settings_of(args)
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="coupler-stress-") as workdir:
            figures = stress(settings, Path(workdir))
            figures["publisher"] = publisher.run(publisher.QUICK if settings.quick else publisher.PublisherSettings(),
                                                 Path(workdir))
        verdicts = checks(figures, settings) + [Check(**check) for check in publisher.checks(figures["publisher"])]
    except (BenchmarkError, Error) as error:
        log.error("perf.stress: %s", error)
        return 1
    result = {
        "benchmark": "stress",
        "measured_at": results.measured_now(),
        "duration_s": time.monotonic() - started,
        "host": host.describe(),
        "settings": asdict(settings),
        "figures": figures,
        "checks": [asdict(check) for check in verdicts],
        "passed": all(check.passed for check in verdicts),
    }
    markdown = stress_render.render(result)
    written = results.write(args.out, "stress", result, markdown)
    print(markdown)
    log.info("perf.stress: %.0f s; wrote %s", result["duration_s"], ", ".join(str(path) for path in written))
    missed = [check.name for check in verdicts if not check.guarantee and not check.passed]
    if missed:
        log.warning("perf.stress: targets missed: %s", "; ".join(missed))
    if broken(verdicts):
        log.error("perf.stress: broken: %s", "; ".join(broken(verdicts)))
        return 1
    return 0
