"""A free-running server with --publish publishes the MuJoCo state as it steps, so `coupler view` follows it."""

from __future__ import annotations

from coupler.controller.session import Session
from coupler.serve.serve_process import ServeProcess
from coupler.view.live_stream import LiveStream
from pendulum_recording import PENDULUM

TIMEOUT = 5.0


def test_a_free_running_server_publishes_states_whose_time_advances(tmp_path):
    published = f"ipc://{tmp_path}/published"
    scene = tmp_path / "pendulum.xml"
    scene.write_text(PENDULUM)
    with ServeProcess(["--scene", str(scene), "--mode", "free", "--publish", published]) as server:
        stream = LiveStream(published)
        try:
            stream.wait_for_scene(TIMEOUT)
            with Session(server.endpoint, timeout=TIMEOUT) as session:
                session.step(session.controls())  # the first Control starts the run
                times = []
                for _ in range(int(TIMEOUT / 0.05)):
                    state = stream.poll(0.05)
                    if state is not None:
                        times.append(state.time)
                    if len(times) == 3:
                        break
        finally:
            stream.close()
    assert len(times) == 3, f"{len(times)} states within {TIMEOUT:g} s: {stream.status}"
    assert times[0] < times[1] < times[2]
