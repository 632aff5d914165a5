"""Debian's chromium, headless, driven over its DevTools protocol: open a page, take screenshots.

WebGL runs on SwiftShader, chromium's software renderer, so pages that draw in 3D work on a machine
without a GPU. The protocol is spoken over the WebSocket chromium opens (the `websockets` package), with
no driver to download."""

from __future__ import annotations

import base64
import io
import itertools
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np
from PIL import Image
from websockets.sync.client import connect

START_TIMEOUT = 20.0  # seconds for chromium to open its DevTools port
CALL_TIMEOUT = 20.0  # seconds for one DevTools call
FLAGS = ["--headless", "--no-sandbox", "--disable-dev-shm-usage", "--use-angle=swiftshader",
         "--enable-unsafe-swiftshader", "--no-first-run", "--disable-extensions", "--mute-audio",
         "--remote-debugging-port=0"]


def chromium_path() -> str:
    found = shutil.which("chromium")
    assert found, "chromium is not installed (scripts/setup installs Debian's)"
    return found


class HeadlessBrowser:
    """One headless chromium with one page of `width` x `height` pixels."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self._profile = Path(tempfile.mkdtemp(prefix="coupler-chromium-"))
        self._process = subprocess.Popen([chromium_path(), *FLAGS, f"--user-data-dir={self._profile}",
                                          f"--window-size={width},{height}", "about:blank"],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._ids = itertools.count(1)
        try:
            self._socket = connect(self._page_socket(), max_size=None, open_timeout=CALL_TIMEOUT)
        except BaseException:
            self.close()
            raise

    def _page_socket(self) -> str:
        port_file = self._profile / "DevToolsActivePort"
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            assert self._process.poll() is None, f"chromium exited with status {self._process.returncode}"
            lines = port_file.read_text().split() if port_file.exists() else []
            if lines:
                with urllib.request.urlopen(f"http://127.0.0.1:{lines[0]}/json/list", timeout=CALL_TIMEOUT) as reply:
                    pages = [t for t in json.load(reply) if t["type"] == "page"]
                if pages:
                    return pages[0]["webSocketDebuggerUrl"]
            assert time.monotonic() < deadline, f"chromium opened no DevTools port within {START_TIMEOUT:g} s"
            time.sleep(0.05)

    def call(self, method: str, **params: object) -> dict:
        number = next(self._ids)
        self._socket.send(json.dumps({"id": number, "method": method, "params": params}))
        message = self._until(lambda m: m.get("id") == number, method)
        assert "error" not in message, message["error"]
        return message["result"]

    def _until(self, wanted, what: str) -> dict:
        deadline = time.monotonic() + CALL_TIMEOUT
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"chromium: no answer to {what} within {CALL_TIMEOUT:g} s"
            message = json.loads(self._socket.recv(timeout=left))
            if wanted(message):
                return message

    def open(self, url: str) -> None:
        """Load `url` in the page, at the page's size, and wait until it has loaded."""
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=self.width, height=self.height, deviceScaleFactor=1,
                  mobile=False)
        self.call("Page.navigate", url=url)
        self._until(lambda m: m.get("method") == "Page.loadEventFired", f"loading {url}")

    def evaluate(self, expression: str) -> object:
        """The value of a JavaScript expression in the page."""
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def screenshot(self) -> np.ndarray:
        """The page as RGB pixels, height x width x 3."""
        data = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))

    def close(self) -> None:
        if getattr(self, "_socket", None) is not None:
            self._socket.close()
        self._process.terminate()
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(timeout=5)
        shutil.rmtree(self._profile, ignore_errors=True)
