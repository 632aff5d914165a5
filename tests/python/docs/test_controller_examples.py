"""The Python controller the README and the controllers page show runs against a served arm scene."""

from __future__ import annotations

import contextlib
import io

import pytest

from doc_pages import DOCS, README, SHOWN_ADDRESS, blocks, shown_controllers
from peers import coupler_server, free_tcp_address


@pytest.mark.parametrize("page", [README, DOCS / "controllers.md"], ids=lambda p: p.name)
def test_the_python_controller_shown_drives_the_arm(page) -> None:
    shown = [block.text for block in shown_controllers(page, "python")]
    assert len(shown) == 1
    address = free_tcp_address()
    with coupler_server(address, "--scene", "arm"):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(shown[0].replace(SHOWN_ADDRESS, address), f"{page.name} example", "exec"), {})
    # 250 ramp steps and one with the gripper closing, of 2 ms each.
    assert printed.getvalue().startswith("t = 0.502 s, joint2 = "), printed.getvalue()


def test_the_controllers_page_shows_the_cpp_controller_the_install_test_builds() -> None:
    # ctest's installed_package_is_usable_with_find_package builds README.md's block against an install prefix.
    def shown(page) -> list[str]:
        return [b.text for b in blocks(page) if b.language == "cpp"]

    assert len(shown(README)) == 1
    assert shown(README)[0] in shown(DOCS / "controllers.md")
