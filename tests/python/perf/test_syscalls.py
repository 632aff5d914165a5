"""perf.syscalls: each client's system calls per round trip, counted with strace against the recorded server."""

import shutil
import subprocess

import pytest

import perf.syscalls as syscalls

SUMMARY = """\
% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- -------------------
 65.08    7.085562         138     51179           epoll_wait
 18.07    1.967115          12    154640           poll
  1.30    0.141679           6     23035         2 recvfrom
------ ----------- ----------- --------- --------- -------------------
100.00   10.887651          20    228854         2 total
"""


def test_the_summary_gives_every_calls_count_by_name_and_leaves_out_the_total():
    assert syscalls.parse_summary(SUMMARY) == {"epoll_wait": 51179, "poll": 154640, "recvfrom": 23035}


def test_calls_are_counted_per_request_the_server_answered():
    counted = syscalls.Counted("C++ democlient", 1000, {"poll": 4500, "sendto": 1000, "futex": 20})
    assert counted.per_request("poll") == 4.5
    assert counted.other_per_request() == 0.02
    assert counted.total_per_request() == 5.52


def _strace_can_trace() -> bool:
    """strace is there and may trace a child here (a container may forbid ptrace)."""
    strace = shutil.which("strace")
    return strace is not None and subprocess.run([strace, "-f", "-c", "-o", "/dev/null", "true"],
                                                 capture_output=True, timeout=30).returncode == 0


@pytest.mark.skipif(not _strace_can_trace(), reason="needs strace, allowed to trace a child")
def test_the_democlients_blocking_receive_makes_no_more_calls_than_a_plain_req_socket(tmp_path):
    floor, democlient = syscalls.measure(300, ("C++ REQ floor", "C++ democlient"), tmp_path)
    assert democlient.per_request("sendto") == pytest.approx(1.0, abs=0.05)  # one request, one write to the peer
    # A poll before each receive would add about two calls per round trip.
    assert democlient.total_per_request() < floor.total_per_request() + 0.5
