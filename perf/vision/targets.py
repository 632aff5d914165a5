"""The targets perf.vision, perf.vision.worlds and perf.floor.shm hold their figures to, judged as
perf.common.targets judges the round trip's: ratios of figures measured in the same run, taken round by round
where the two sides took turns, reported as the median with the lowest and highest round's, and judged on the
rounds the median rests on (perf.common.paired.middle). A ratio whose
spread crosses its limit, or whose middle rounds lie more than perf.common.paired.MOST_MIDDLE_SPREAD apart, is
"not measured: noisy"; so is coupler faster than the work it cannot avoid (the renderer alone, its bound) by
more than a measurement error allows (perf.common.paired.LOWEST_RATIO).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from perf.common import paired
from perf.common.markdown import table
from perf.common.spread import Spread
from perf.common.targets import Verdict

RENDER_LIMIT = 1.15  # coupler's cost per image over mujoco.Renderer's alone, at most
DELIVERY_SHARE = 0.05  # an image's delivery through shared memory over its render time alone, at most
SHARED_SPEEDUP = 5.0  # 640x480 rgb: through the socket over through shared memory, at least
SHARED_SPEEDUP_ROW = ("640x480", "rgb")
SHM_RATIO = 0.5  # a lone round trip through shared memory over the ZeroMQ ipc floor, at most
SHM_IDLE_PERCENT = 1.0  # the shared-memory server's CPU while nobody asks, below
WORLDS_LIMIT = 0.9  # the vector env's throughput over its bound's, at least


def _text(ratio: Spread) -> str:
    if ratio.low == ratio.high:
        return f"{ratio.median:.2f} ×"
    return f"{ratio.median:.2f} × ({ratio.low:.2f}–{ratio.high:.2f})"


def _verdict(target: str, measured: str, judgement: paired.Judgement) -> Verdict:
    if judgement is paired.Judgement.NOISY:
        return Verdict(target, measured, None, noisy=True)
    return Verdict(target, measured, judgement is paired.Judgement.MET)


def _by_rounds(ratios: list[float], judge: Callable[[Spread], paired.Judgement]) -> paired.Judgement:
    """`judge` on the rounds a median rests on (paired.middle: from five rounds on, one stray round each way is
    set aside); noisy when those spread too wide to be one measurement."""
    return paired.Judgement.NOISY if paired.spread_wide(ratios) else judge(paired.middle(ratios))


def render_cost(row: dict[str, Any]) -> Verdict:
    """A perf.vision row: coupler's cost per image over the renderer's alone, round by round."""
    target = f"{row['size']} {row['kind']}: coupler's cost per image ≤ {RENDER_LIMIT:g} × mujoco.Renderer's alone"
    ratios = row.get("rounds", {}).get("ratio")
    if not ratios:
        return Verdict(target, "not measured: this result has no rounds", None)
    ratio = Spread.of(ratios)
    assert ratio is not None
    measured = (f"{_text(ratio)} ({row['coupler_ms']['median']:.2f} ms vs {row['renderer_ms']['median']:.2f} ms, "
                f"{len(ratios)} rounds)")
    # Below the renderer alone is as impossible as below a floor: coupler renders the same image and more.
    return _verdict(target, measured, _by_rounds(ratios, lambda r: paired.ratio_to_floor(r, RENDER_LIMIT)))


def shared_speedup(row: dict[str, Any]) -> Verdict:
    """A perf.vision delivery row: the socket's time per image over shared memory's, round by round."""
    target = (f"{row['size']} {row['kind']}: delivered through shared memory ≥ {SHARED_SPEEDUP:g} × faster than "
              "through the socket")
    ratios = [socket / shared for socket, shared in zip(row["rounds"]["socket_ms"], row["rounds"]["shared_ms"])]
    speedup = Spread.of(ratios)
    assert speedup is not None
    measured = f"{_text(speedup)} ({row['socket_ms']:.3f} ms vs {row['shared_ms']:.3f} ms)"
    return _verdict(target, measured, _by_rounds(ratios, lambda r: paired.at_least(r, SHARED_SPEEDUP)))


def delivery_share(row: dict[str, Any], rendered: dict[str, Any]) -> Verdict:
    """What an image adds through shared memory (the request with it minus the same request without it, round by
    round) over the same size and kind's render time alone, measured apart: the ratio of medians with the widest
    spread the two allow. An image that makes a request cheaper by more than the rounds spread is noise."""
    target = (f"{row['size']} {row['kind']}: an image through shared memory adds ≤ {DELIVERY_SHARE:g} × its "
              "render time alone (the same request with it minus without it)")
    adds = Spread.of(row["rounds"]["shared_adds_ms"])
    assert adds is not None
    share = paired.bounds_of_ratio(adds, Spread.from_json(rendered["renderer_ms"]))
    assert share is not None
    measured = (f"{share.median:.3f} ({share.low:.3f}–{share.high:.3f}; {adds.median:.3f} ms vs "
                f"{rendered['renderer_ms']['median']:.2f} ms; the full round trip {row['shared_ms']:.3f} ms)")
    if paired.negative(adds):
        return _verdict(target, measured, paired.Judgement.NOISY)
    return _verdict(target, measured, paired.at_most(share, DELIVERY_SHARE))


def evaluate_vision(result: dict[str, Any]) -> list[Verdict]:
    rows = result.get("rows", [])
    rendered = {(row["size"], row["kind"]): row for row in rows}
    verdicts = [render_cost(row) for row in rows]
    for row in result.get("delivery", []):
        if (row["size"], row["kind"]) == SHARED_SPEEDUP_ROW:
            verdicts.append(shared_speedup(row))
    verdicts += [delivery_share(row, rendered[(row["size"], row["kind"])]) for row in result.get("delivery", [])
                 if (row["size"], row["kind"]) in rendered]
    return verdicts


def evaluate_shm(result: dict[str, Any]) -> list[Verdict]:
    target = (f"lone round trip through shared memory, C++ client, static scene: p50 ≤ {SHM_RATIO:g} × the ZeroMQ "
              f"ipc floor's, the server idle < {SHM_IDLE_PERCENT:g} % of a core")
    ratios, idle = result["ratios"], result["server_idle_cpu_percent"]
    ratio = Spread.of(ratios)
    assert ratio is not None
    measured = f"{_text(ratio)} over {len(ratios)} slices; idle {idle:.3f} %"
    if idle >= SHM_IDLE_PERCENT:
        verdicts = [Verdict(target, measured, False)]
    else:
        verdicts = [_verdict(target, measured, _by_rounds(ratios, lambda r: paired.at_most(r, SHM_RATIO)))]
    serve = result.get("serve")
    if serve is not None:
        verdicts.append(_serve_verdict(serve))
    return verdicts


def _serve_verdict(serve: dict[str, Any]) -> Verdict:
    """`coupler serve`'s own lone round trip through its shared channel against the floor (perf.floor.shm_serve)."""
    target = (f"coupler serve --scene static, C++ client through the shared channel: p50 ≤ {SHM_RATIO:g} × the "
              f"ZeroMQ ipc floor's, the server idle with the channel leased < {SHM_IDLE_PERCENT:g} % of a core")
    ratios, idle = serve["ratios"], serve["server_idle_cpu_percent"]
    ratio = Spread.of(ratios)
    assert ratio is not None
    measured = f"{_text(ratio)} over {len(ratios)} slices; idle {idle:.3f} %"
    if idle >= SHM_IDLE_PERCENT:
        return Verdict(target, measured, False)
    return _verdict(target, measured, _by_rounds(ratios, lambda r: paired.at_most(r, SHM_RATIO)))


def evaluate_worlds(result: dict[str, Any]) -> list[Verdict]:
    row = result["row"]
    target = (f"{result['worlds']} worlds × {row['size']} rgb: the vector env's throughput ≥ {WORLDS_LIMIT:g} × "
              "the bound's (mujoco.Renderer alone for the images + the step without images)")
    ratios = row.get("rounds", {}).get("ratio")
    if not ratios:
        return [Verdict(target, "not measured: this result has no rounds", None)]
    ratio = Spread.of(ratios)
    assert ratio is not None
    measured = f"{_text(ratio)} over {len(ratios)} rounds"
    # Above its bound by more than a measurement error is as impossible as below a floor: not judged.
    middle = paired.middle(ratios)
    if paired.below_floor(Spread(1 / middle.median, 1 / middle.high, 1 / middle.low)):
        return [_verdict(target, measured, paired.Judgement.NOISY)]
    return [_verdict(target, measured, _by_rounds(ratios, lambda r: paired.at_least(r, WORLDS_LIMIT)))]


def render(verdicts: list[Verdict]) -> str:
    marks = {True: "met", False: "missed", None: "–"}
    cells = [[verdict.target, verdict.measured, paired.NOISY if verdict.noisy else marks[verdict.met]]
             for verdict in verdicts]
    return table(["target", "measured in this run", "verdict"], cells, [False, False, False])
