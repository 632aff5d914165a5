"""Session.controls() starts from the controls that hold the scene where it is."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from coupler.controller.session import Session

from peers import coupler_server, free_tcp_address

MODELS = Path(__file__).resolve().parents[1] / "mujoco" / "models"


def test_fresh_controls_hold_position_servos_at_their_joints_current_angles() -> None:
    address = free_tcp_address()
    with coupler_server(address, "--scene", "arm"), Session(address, reset=True) as session:
        readings = session.sensors()
        controls = session.controls()
        joints = [f"joint{k}" for k in range(1, 8)]
        assert [controls.get("arm", j) for j in joints] == [readings.angle("arm", j) for j in joints]
        # Holding: a hundred steps of them leave the arm where it was.
        for _ in range(100):
            after = session.step(controls)
        assert np.allclose([after.angle("arm", j) for j in joints], controls["arm"], atol=1e-2)


def test_fresh_controls_without_position_servos_are_zero_and_ask_nothing_of_the_server() -> None:
    address = free_tcp_address()
    with coupler_server(address, "--scene", "mobile"), Session(address) as session:
        exchanges = session.stats.count
        controls = session.controls()
        assert session.stats.count == exchanges
        assert not controls["cart"].any()


def test_fresh_controls_hold_a_linear_position_servo_at_its_slides_current_position() -> None:
    address = free_tcp_address()
    with coupler_server(address, "--scene", str(MODELS / "slide_cart.xml")), Session(address, reset=True) as session:
        controls = session.controls()
        assert controls.get("cart", "cart_position") == session.sensors().angle("cart", "rail") == 0.3
