"""perf.record's result as markdown."""

from __future__ import annotations

from typing import Any

from perf.common.markdown import number, table


def markdown(result: dict[str, Any]) -> str:
    latency = result["round_trips"]
    rows = [[name, number(v["p50"]), number(v["p99"]), f"{v['count']:,}", number(v["ratio"], 3)]
            for name, v in latency.items()]
    first = table(["server", "p50 µs", "p99 µs", "round trips", "p50 ratio to none"], rows,
                  [False, True, True, True, True])
    rows = [[f"{t['payload']:,}", f"{t['messages']:,}", f"{t['messages_per_s']:,.0f}", number(t["mb_per_s"]),
             number(t["hand_over_us"], 2), str(t["dropped"])] for t in result["throughput"]]
    second = table(["payload B", "messages", "messages/s", "MB/s", "hand-over µs/msg", "dropped"], rows,
                   [True, True, True, True, True, True])
    return (f"Round trip of the C++ demo controller on the arm scene (ipc, blocking receive), "
            f"{result['rounds']} rounds of {result['count']} per variant taking turns:\n\n{first}\n\n"
            f"Recorder throughput (answers handed over as fast as possible, zstd chunks):\n\n{second}")
