"""perf.record's result as markdown."""

from __future__ import annotations

from typing import Any

from perf.common.markdown import number, table


def _throughput(rows: list[dict[str, Any]]) -> str:
    cells = [[f"{t['payload']:,}", f"{t['messages']:,}", f"{t['messages_per_s']:,.0f}", number(t["mb_per_s"]),
              number(t["hand_over_us"], 2), f"{t['dropped']:,}"] for t in rows]
    return table(["payload B", "messages", "messages/s", "MB/s", "hand-over µs/msg", "lost"], cells,
                 [True] * 6)


def markdown(result: dict[str, Any]) -> str:
    latency = result["round_trips"]
    rows = [[name, number(v["p50"]), number(v["p99"]), f"{v['count']:,}",
             f"{number(v['ratio'], 3)} ({number(v['ratio_min'], 3)}–{number(v['ratio_max'], 3)})",
             number(v["server_cpu_us"]), number(v["subscriber_cpu_us"]), f"{v['lost']:,}"]
            for name, v in latency.items()]
    first = table(["server", "p50 µs", "p99 µs", "round trips", "p50 ratio to none, median (range)",
                   "server CPU µs/step", "subscribers CPU µs/step", "lost"], rows,
                  [False, True, True, True, True, True, True, True])
    return (f"Round trip of the C++ demo controller on the arm scene (ipc, blocking receive), "
            f"{result['rounds']} rounds of {result['count']} per variant taking turns; the ratio is each round's "
            f"p50 over the same round's p50 without observers; CPU per step over the whole run (one round trip a step, the "
            f"pick approach included), the server's with --record's writer process:\n\n"
            f"{first}\n\n"
            f"Recorder throughput (--record: answers handed over as fast as possible, written by the writer "
            f"process, zstd chunks; until the file is finished):\n\n{_throughput(result['recorder'])}\n\n"
            f"Publisher throughput (one subscriber, queue of 1000; what it received, until the last):\n\n"
            f"{_throughput(result['publisher'])}")


def long_markdown(long: dict[str, Any]) -> str:
    rows = [[f"{long['steps']:,}", f"{long['messages']:,}", f"{long['dropped']:,}", f"{long['messages_in_file']:,}",
             number(long["file_bytes"] / 1e6), f"{long['messages_per_s']:,.0f}", f"{long['steps_per_s']:,.0f}",
             number(long["open_s"], 2), number(long["replay_s"]), long["replay"]]]
    return "Long recording (arm scene, C++ demo controller, --record):\n\n" + table(
        ["steps", "messages", "dropped", "in the file", "file MB", "messages/s", "steps/s", "open s", "replay s",
         "replay"], rows, [True] * 9 + [False])
