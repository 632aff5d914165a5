"""The files an MJCF model names, checked before MuJoCo opens any of them.

MuJoCo reads a mesh, texture, height field, skin or included file with a
plain open and read: a FIFO blocks it forever, a character device such as
/dev/zero feeds it without end. Every file the model names (`file`
attributes and a texture's `file*` faces, in the model and in every file it
includes, looked for where MuJoCo looks: beside the model, and in the
compiler's meshdir, texturedir and assetdir) that exists must be a regular
file; `os.stat` tells without opening it. Files that do not exist are left
to MuJoCo, which names them.
"""

from __future__ import annotations

import os
import stat
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from coupler.wire.errors import Error
from coupler.wire.peer_text import shown

# Includes nest: a model that includes itself, directly or not, must not loop.
_MOST_INCLUDES = 100
_FOLDER_ATTRIBUTES = ("meshdir", "texturedir", "assetdir")


def _named_files(root: ElementTree.Element) -> tuple[list[str], list[str], list[str]]:
    """(every file named but includes, the included files, the compiler's asset folders) of one MJCF tree."""
    files: list[str] = []
    includes: list[str] = []
    folders: list[str] = []
    for element in root.iter():
        for attribute, value in element.attrib.items():
            if not value.strip():
                continue
            if element.tag == "include" and attribute == "file":
                includes.append(value)
            elif attribute.startswith("file"):
                files.append(value)
            elif element.tag == "compiler" and attribute in _FOLDER_ATTRIBUTES:
                folders.append(value)
    return files, includes, folders


def _check_regular(path: Path, model: Path) -> None:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # missing or unreadable: MuJoCo names it
    if not stat.S_ISREG(mode):
        raise Error(f"scene file '{shown(str(model))}' names '{shown(str(path))}', which is not a regular file "
                    "(a FIFO, a device or a folder): refused before loading")


def check_model_files(model: Path) -> None:
    """Error naming the first file `model` (an MJCF file) names that exists but is not a regular file.

    A model that does not parse as XML is left to MuJoCo, which says where.
    """
    base = model.parent
    _check_regular(model, model)
    pending = [model]
    seen: set[Path] = set()
    files: list[str] = []
    folders: list[str] = []
    while pending:
        path = pending.pop()
        if path in seen or len(seen) >= _MOST_INCLUDES:
            continue
        seen.add(path)
        try:
            root = ElementTree.parse(path).getroot()
        except (ElementTree.ParseError, OSError, ValueError):
            continue
        named, includes, named_folders = _named_files(root)
        files += named
        folders += named_folders
        for include in includes:
            included = base / include
            _check_regular(included, model)
            pending.append(included)
    places = [base] + [base / folder for folder in folders]
    for name in files:
        for place in places:
            _check_regular(place / name, model)
