"""perf.vision's, perf.vision.worlds' and perf.floor.shm's targets, judged from their results' rounds as the
other benchmarks' are: met, missed, or not measured when the figures cannot tell."""

import json

import perf.report as report
from perf.vision import render, targets

HOST = {"cpu": "cpu", "logical_cpus": 2, "os": "os", "python": "3", "libzmq": "4", "pyzmq": "27", "mujoco": "3"}


def _spread(values):
    ordered = sorted(values)
    return {"median": ordered[(len(ordered) - 1) // 2], "low": ordered[0], "high": ordered[-1]}


def _render_row(renderer_ms, coupler_ms, size="64x64", kind="depth", channel_ms=None):
    ratios = [c / r for c, r in zip(coupler_ms, renderer_ms)]
    channel_ms = channel_ms or coupler_ms
    channel_ratios = [c / r for c, r in zip(channel_ms, renderer_ms)]
    return {"size": size, "kind": kind, "renderer_ms": _spread(renderer_ms), "coupler_ms": _spread(coupler_ms),
            "ratio": _spread(ratios), "channel_ms": _spread(channel_ms), "channel_ratio": _spread(channel_ratios),
            "rounds": {"renderer_ms": renderer_ms, "coupler_ms": coupler_ms, "ratio": ratios,
                       "channel_ms": channel_ms, "channel_ratio": channel_ratios}}


def _worlds(ratios):
    return {"benchmark": "vision_worlds", "worlds": 64, "rounds": len(ratios), "steps": 1,
            "row": {"size": "64x64", "render_ms": _spread([10.0] * len(ratios)), "step_ms": _spread([1.0] * len(ratios)),
                    "vector_env_ms": _spread([11.0 / r for r in ratios]), "ratio": _spread(ratios),
                    "rounds": {"ratio": ratios}}}


def test_a_cost_per_image_within_its_limit_in_every_round_is_met():
    assert targets.render_cost(_render_row([1.0, 1.0, 1.0], [1.05, 1.1, 1.08])).met is True


def test_a_cost_per_image_over_its_limit_in_every_round_is_missed():
    assert targets.render_cost(_render_row([1.0, 1.0, 1.0], [1.5, 1.6, 1.48])).met is False


def test_coupler_cheaper_than_the_renderer_alone_is_not_judged():
    verdict = targets.render_cost(_render_row([10.0, 10.0, 10.0], [7.0, 7.2, 6.9]))
    assert verdict.met is None and verdict.noisy


def test_a_vector_env_faster_than_its_bound_is_not_judged():
    verdict = targets.evaluate_worlds(_worlds([1.10, 1.12, 1.09]))[0]
    assert verdict.met is None and verdict.noisy


def test_a_vector_env_below_its_bound_s_share_in_every_round_is_missed():
    assert targets.evaluate_worlds(_worlds([0.8, 0.82, 0.81]))[0].met is False


def test_shared_memory_delivery_five_times_faster_than_the_socket_in_every_round_is_met():
    row = {"size": "640x480", "kind": "rgb", "shared_ms": 0.5, "socket_ms": 4.0,
           "rounds": {"shared_ms": [0.5, 0.5, 0.6], "socket_ms": [4.0, 3.9, 4.2]}}
    assert targets.shared_speedup(row).met is True


def test_a_shared_memory_server_busy_while_idle_misses_its_target_whatever_its_round_trip():
    result = {"ratios": [0.12, 0.13, 0.13], "server_idle_cpu_percent": 2.5}
    assert targets.evaluate_shm(result)[0].met is False


def test_the_report_and_the_results_page_hold_the_vector_env_s_images_under_their_heading(tmp_path):
    (tmp_path / "vision_worlds.json").write_text(json.dumps({**_worlds([0.95, 0.96, 0.97]), "host": HOST}))
    page = report.docs_page.render(tmp_path, {}, [], {}, lambda result: "host")
    section = page.split("## Images of batched worlds (perf.vision.worlds)\n\n", 1)[1]
    assert "| 64 worlds × 64x64 rgb: the vector env's throughput ≥ 0.9 × the bound's" in section
    assert "## Images of batched worlds (perf.vision.worlds)" in report.build(tmp_path, {})


def test_one_stray_slice_of_five_does_not_make_a_round_trip_target_unjudged():
    result = {"ratios": [0.13, 0.13, 0.74, 0.13, 0.14], "server_idle_cpu_percent": 0.0}
    assert targets.evaluate_shm(result)[0].met is True


def _served(ratios: list[float], idle: float) -> dict:
    return {"ratios": [0.13, 0.13, 0.13], "server_idle_cpu_percent": 0.0,
            "serve": {"ratios": ratios, "server_idle_cpu_percent": idle}}


def test_coupler_serve_s_channel_is_judged_on_its_own_slices_beside_the_channel_s_floor():
    verdicts = targets.evaluate_shm(_served([0.17, 0.18, 0.18], 0.2))
    assert [v.met for v in verdicts] == [True, True]
    assert verdicts[1].target.startswith("coupler serve --scene static")


def test_coupler_serve_busy_while_a_controller_holds_its_channel_misses_its_target():
    assert targets.evaluate_shm(_served([0.17, 0.18, 0.18], 1.5))[1].met is False


def _delivery_row(with_image_ms, without_ms, size="64x64", kind="depth"):
    adds = [a - b for a, b in zip(with_image_ms, without_ms)]
    return {"size": size, "kind": kind, "channel": True, "shared_ms": _spread(with_image_ms)["median"],
            "socket_ms": 1.0, "shared_range": [min(with_image_ms), max(with_image_ms)], "socket_range": [1.0, 1.0],
            "shared_plain_ms": _spread(without_ms), "socket_plain_ms": _spread([0.5] * len(without_ms)),
            "shared_adds_ms": _spread(adds), "socket_adds_ms": _spread([0.5] * len(adds)),
            "rounds": {"shared_ms": with_image_ms, "shared_plain_ms": without_ms, "shared_adds_ms": adds,
                       "socket_ms": [1.0] * len(adds), "socket_plain_ms": [0.5] * len(adds),
                       "socket_adds_ms": [0.5] * len(adds)}}


def test_an_image_is_judged_on_what_it_adds_to_the_same_request_without_it():
    rendered = _render_row([1.0, 1.0, 1.0], [1.1, 1.1, 1.1])
    # The full round trip is 10 % of the render, the image's own share 3 %.
    verdict = targets.delivery_share(_delivery_row([0.10, 0.10, 0.10], [0.07, 0.07, 0.07]), rendered)
    assert verdict.met is True


def test_an_image_adding_more_than_its_share_in_every_round_is_missed():
    rendered = _render_row([1.0, 1.0, 1.0], [1.1, 1.1, 1.1])
    verdict = targets.delivery_share(_delivery_row([0.20, 0.21, 0.20], [0.02, 0.02, 0.02]), rendered)
    assert verdict.met is False


def test_an_image_that_makes_its_request_cheaper_is_not_judged():
    rendered = _render_row([1.0, 1.0, 1.0], [1.1, 1.1, 1.1])
    verdict = targets.delivery_share(_delivery_row([0.05, 0.05, 0.05], [0.10, 0.10, 0.10]), rendered)
    assert verdict.met is None and verdict.noisy


def test_the_delivery_table_says_the_shared_column_leases_the_channel():
    result = {"rounds": 3, "count": 20, "rows": [_render_row([1.0, 1.0, 1.0], [1.1, 1.1, 1.1])],
              "delivery": [_delivery_row([0.10, 0.10, 0.10], [0.07, 0.07, 0.07])]}
    page = render.markdown(result)
    assert "leases the server's shared channel" in page
    assert "| 64x64 | depth | 0.100 (0.100–0.100) | 0.070 (0.070–0.070) | 0.030 (0.030–0.030) |" in page


def test_the_rendering_table_shows_the_shared_channel_beside_the_defaults():
    row = _render_row([1.0, 1.0, 1.0], [1.5, 1.5, 1.5], channel_ms=[1.2, 1.2, 1.2])
    page = render.markdown({"rounds": 3, "count": 20, "rows": [row]})
    assert "| 64x64 | depth | 1.00 (1.00–1.00) | 1.50 (1.50–1.50) | 1.50 (1.50–1.50) | 1.20 (1.20–1.20) " in page
    assert "judged on the defaults" in page
    assert "1.50 × (1.50 ms vs 1.00 ms, 3 rounds)" in page  # the verdict is on the defaults
