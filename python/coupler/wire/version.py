"""coupler's version, read from the C++ library it binds (coupler/wire/version.hpp). Both are configured
from CMakeLists.txt's project(VERSION), which the package's metadata reads too: the one source of
`coupler.__version__`, `coupler --version` and the version a server's handshake names."""

from __future__ import annotations

from coupler._native import version as _native_version

__all__ = ["VERSION"]

VERSION: str = _native_version()
