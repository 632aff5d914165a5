"""One version, CMakeLists.txt's project(VERSION): the C++ library's coupler::version(), coupler.__version__,
the package's metadata, `coupler --version` and the ServerInfo of a served handshake all say it."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import metadata

import coupler
from coupler import _native
from coupler.serve.server_info import server_info
from coupler.wire.schema import proto_path
from peers import REPO


def _cmake_project_version() -> str:
    found = re.search(r"^project\(coupler VERSION ([0-9.]+)", (REPO / "CMakeLists.txt").read_text(), re.MULTILINE)
    assert found is not None, "CMakeLists.txt has no project(coupler VERSION ...)"
    return found.group(1)


def test_the_cpp_librarys_version_is_the_cmake_projects():
    assert _native.version() == _cmake_project_version()


def test_the_python_packages_version_is_the_cpp_librarys():
    assert coupler.__version__ == _native.version()


def test_the_installed_metadata_names_the_same_version():
    assert metadata.version("coupler") == coupler.__version__


def test_coupler_version_prints_it():
    result = subprocess.run([sys.executable, "-m", "coupler.cli", "--version"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=60)
    assert result.stdout.strip() == f"coupler {coupler.__version__}"


def test_the_handshakes_server_info_names_it():
    assert (server_info().name, server_info().version) == ("coupler", coupler.__version__)


def test_the_packaged_schema_is_the_repositorys_coupler_proto():
    assert proto_path().read_bytes() == (REPO / "proto" / "coupler.proto").read_bytes()
