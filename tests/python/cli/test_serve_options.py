"""`coupler serve`'s flags and ServeOptions: one default for each, written in ServeOptions."""

from __future__ import annotations

import argparse
import dataclasses

from coupler.cli import serve as serve_cli
from coupler.serve.app import ServeOptions


def _parsed(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    serve_cli.add_arguments(parser)
    return parser.parse_args(argv)


def test_no_flags_give_the_default_serve_options():
    options, warning = serve_cli.options_from(_parsed([]))
    assert options == ServeOptions()
    assert warning is None


def test_every_serve_option_has_its_flag():
    flags = vars(_parsed([]))
    # transport: the server flags
    renamed = {"address": "addr", "time_step": "step", "robots": "robot", "cameras": "camera", "transport": None}
    missing = [f.name for f in dataclasses.fields(ServeOptions)
               if renamed.get(f.name, f.name) is not None and renamed.get(f.name, f.name) not in flags]
    assert missing == []


def test_each_flag_lands_in_its_option():
    options, _ = serve_cli.options_from(_parsed([
        "--scene", "static", "--step", "0.01", "--mode", "free", "--speed", "max", "--publish", "ipc:///tmp/p",
        "--publish-hwm", "7", "--session-timeout", "2", "--serve-empty", "--stop-on-stdin-eof",
        "--robot", "left_base", "--robot", "right_base"]))
    assert (options.scene, options.time_step, options.mode, options.speed) == ("static", 0.01, "free", None)
    assert (options.publish, options.publish_hwm, options.session_timeout) == ("ipc:///tmp/p", 7, 2.0)
    assert options.serve_empty and options.stop_on_stdin_eof
    assert options.robots == ("left_base", "right_base")
