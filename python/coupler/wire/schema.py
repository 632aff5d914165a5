"""The protocol's schema, coupler.proto, as the package ships it: for generating a client in another
language (protoc --python_out, --cpp_out, ...) from the exact schema this package speaks."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["proto_path"]

_NAME = "coupler.proto"


def proto_path() -> Path:
    """The path of coupler.proto: inside the installed package, or in a source checkout's proto/ folder when
    the package runs from there; FileNotFoundError naming both when neither has it."""
    packaged = Path(str(resources.files("coupler._proto").joinpath(_NAME)))
    if packaged.is_file():
        return packaged
    checkout = Path(__file__).resolve().parents[3] / "proto" / _NAME
    if checkout.is_file():
        return checkout
    raise FileNotFoundError(f"{_NAME} is neither in the installed package ({packaged}) nor in a checkout ({checkout})")
