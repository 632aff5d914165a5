"""An X display in memory (Debian's Xvfb) for tests of windows, and screenshots of it (xwd)."""

from __future__ import annotations

import os
import select
import shutil
import struct
import subprocess

import numpy as np

START_TIMEOUT = 10.0  # seconds for Xvfb to say which display it opened
SCREENSHOT_TIMEOUT = 10.0
_XWD_HEADER = struct.Struct(">25I")  # xwd's header: 25 big-endian 32-bit fields
_LSB_FIRST = 0


class VirtualDisplay:
    """Xvfb on a free display number, `width` x `height` in 24-bit colour; `env` runs a program on it."""

    def __init__(self, width: int, height: int) -> None:
        found = shutil.which("Xvfb")
        assert found, "Xvfb is not installed (scripts/setup installs Debian's xvfb)"
        read, write = os.pipe()
        self._process = subprocess.Popen([found, "-displayfd", str(write), "-screen", "0", f"{width}x{height}x24",
                                          "-nolisten", "tcp"], pass_fds=(write,), stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)
        os.close(write)
        try:
            number = b""
            while not number.endswith(b"\n"):
                ready, _, _ = select.select([read], [], [], START_TIMEOUT)
                assert ready, f"Xvfb opened no display within {START_TIMEOUT:g} s"
                chunk = os.read(read, 64)
                assert chunk, f"Xvfb exited ({self._process.poll()}) without opening a display"
                number += chunk
        except BaseException:
            self.close()
            raise
        finally:
            os.close(read)
        self.name = f":{number.decode().strip()}"

    def env(self) -> dict[str, str]:
        """This process's environment with the display set (and no Wayland one to prefer)."""
        env = {k: v for k, v in os.environ.items() if k != "WAYLAND_DISPLAY"}
        env["DISPLAY"] = self.name
        return env

    def screenshot(self) -> np.ndarray:
        """The whole screen as RGB pixels, height x width x 3."""
        found = shutil.which("xwd")
        assert found, "xwd is not installed (scripts/setup installs Debian's x11-apps)"
        data = subprocess.run([found, "-root", "-silent", "-display", self.name], capture_output=True, check=True,
                              timeout=SCREENSHOT_TIMEOUT).stdout
        header = _XWD_HEADER.unpack_from(data)
        header_size, width, height, byte_order = header[0], header[4], header[5], header[7]
        bits_per_pixel, bytes_per_line, colours = header[11], header[12], header[19]
        assert bits_per_pixel in (24, 32), f"an xwd of {bits_per_pixel} bits a pixel"
        size = bits_per_pixel // 8
        start = header_size + 12 * colours  # after the window's name and the colour map
        rows = np.frombuffer(data, dtype=np.uint8, count=height * bytes_per_line, offset=start)
        pixels = rows.reshape(height, bytes_per_line)[:, :width * size].reshape(height, width, size)
        # A TrueColor pixel is 0x(00)RRGGBB in the byte order the header names.
        return pixels[:, :, 2::-1].copy() if byte_order == _LSB_FIRST else pixels[:, :, size - 3:].copy()

    def close(self) -> None:
        self._process.terminate()
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(timeout=5)
