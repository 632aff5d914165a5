"""coupler's benchmarks, run from the repository root:

    python -m perf.rtt          round-trip time, every client x transport x receive mode, against its floors
    python -m perf.frequency    control frequency held against simulation step size
    python -m perf.soak         a million round trips: memory growth, no round trip lost or duplicated
    python -m perf.report       every result in perf/results as one markdown report

Each tool writes JSON, a markdown table and a PNG plot to perf/results/
(--out), prints its table on stdout and its progress on stderr, and exits
non-zero when a benchmark is broken (a process dies, a client fails, a
timeout passes), never because of a timing figure. perf.soak's memory and
round-trip checks are correctness checks and fail it too.
"""
