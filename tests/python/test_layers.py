"""The package's import graph points one way: no module imports a layer above its own.

wire < transport < controller, serve < mujoco < scenes < gym, record < ray, view < cli;
controller and serve (and gym and record, ray and view) are siblings that do not import each
other. `coupler._native` and `coupler._proto` (generated and compiled code),
and `coupler.limits` (which reads only `coupler._native`),
sit below everything; the package's own `__init__` (the public facade) above
every layer, so no layer imports it either. The binding imports two leaves at
run time, the message and error classes (`BINDING_LEAVES`), which import nothing of the package but each
other and the binding (the protocol's constants). Every import counts, those inside
functions included: a lazy import is still an edge.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "coupler"

RANKS = {
    "_native": -2,
    "_proto": -2,
    "limits": -1,
    "wire": 0,
    "transport": 1,
    "controller": 2,
    "serve": 2,
    "mujoco": 3,
    "scenes": 4,
    "gym": 5,
    "record": 5,
    "ray": 6,
    "view": 6,
    "cli": 7,
}
FACADE = "coupler"


def _layer(module: str) -> str:
    """The layer of a dotted module name inside the package: its first part below `coupler`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else FACADE


def _module_name(path: Path, package: Path) -> str:
    relative = path.relative_to(package.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(tree: ast.AST, module: str, is_package: bool) -> list[str]:
    """Every coupler module the tree imports, relative imports resolved; `from coupler import x` names coupler.x."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target == FACADE:
                found.extend(f"{FACADE}.{alias.name}" for alias in node.names)
            else:
                found.append(target)
    return [name for name in found if name == FACADE or name.startswith(FACADE + ".")]


def upward_imports(package: Path) -> list[str]:
    """Each import of a higher (or sibling) layer, as 'module imports target'."""
    problems = []
    for path in sorted(package.rglob("*.py")):
        module = _module_name(path, package)
        layer = _layer(module)
        if layer == FACADE:
            continue  # the facade may import any layer
        rank = RANKS.get(layer)
        if rank is None:
            problems.append(f"{module}: layer '{layer}' has no place in RANKS")
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        for target in _imported(tree, module, path.name == "__init__.py"):
            target_layer = _layer(target)
            if target_layer == layer:
                continue
            target_rank = RANKS.get(target_layer, RANKS["cli"] + 1)  # the facade and unknowns rank above all
            if target_rank >= rank:
                problems.append(f"{module} imports {target}")
    return problems


def test_no_module_imports_a_higher_or_sibling_layer():
    assert upward_imports(PACKAGE) == []


def test_the_check_finds_an_upward_import(tmp_path):
    fake = tmp_path / "coupler"
    (fake / "wire").mkdir(parents=True)
    (fake / "wire" / "codec.py").write_text("def f():\n    from coupler.serve import app\n")
    assert upward_imports(fake) == ["coupler.wire.codec imports coupler.serve"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from coupler import Session\n", "coupler.transport.x imports coupler.Session"),
        ("from ..controller import session\n", "coupler.transport.x imports coupler.controller"),
    ],
)
def test_the_check_finds_imports_of_the_facade_and_relative_ones(tmp_path, source, expected):
    fake = tmp_path / "coupler"
    (fake / "transport").mkdir(parents=True)
    (fake / "transport" / "x.py").write_text(source)
    assert upward_imports(fake) == [expected]


# The C++ library has the same layers, as folders of cpp/include/coupler and
# cpp/src: wire < transport < controller, serve (siblings).
CPP = PACKAGE.parents[1] / "cpp"
CPP_RANKS = {"wire": 0, "transport": 1, "controller": 2, "serve": 2}
_CPP_INCLUDE = re.compile(r'#include\s+(?:<coupler/|")(\w+)/')


def upward_includes(cpp: Path) -> list[str]:
    """Each include of a higher (or sibling) layer's header, as 'file includes layer/...'."""
    problems = []
    files = [*cpp.glob("include/coupler/*/*.hpp"), *cpp.glob("src/*/*.[ch]pp")]
    for path in sorted(files):
        layer = path.parent.name
        rank = CPP_RANKS.get(layer)
        if rank is None:
            problems.append(f"{path.relative_to(cpp)}: layer '{layer}' has no place in CPP_RANKS")
            continue
        for match in _CPP_INCLUDE.finditer(path.read_text()):
            target = match[1]
            if target != layer and CPP_RANKS.get(target, 99) >= rank:
                problems.append(f"{path.relative_to(cpp)} includes {target}/")
    return problems


def test_no_cpp_file_includes_a_higher_or_sibling_layer():
    assert upward_includes(CPP) == []


def test_every_cpp_source_and_public_header_sits_in_a_layer_folder():
    loose = [p.name for p in [*CPP.glob("src/*.[ch]pp"), *CPP.glob("include/coupler/*.hpp")]]
    assert loose == ["coupler.hpp"]  # the umbrella header alone stays above the layers


def test_the_cpp_check_finds_an_upward_include(tmp_path):
    (tmp_path / "src" / "wire").mkdir(parents=True)
    (tmp_path / "src" / "wire" / "codec.cpp").write_text('#include <coupler/transport/server.hpp>\n')
    (tmp_path / "src" / "serve").mkdir(parents=True)
    (tmp_path / "src" / "serve" / "loop.cpp").write_text('#include "controller/session.hpp"\n')
    assert upward_includes(tmp_path) == ["src/serve/loop.cpp includes controller/", "src/wire/codec.cpp includes transport/"]


# coupler._native sits below every layer, yet turns C++ messages and errors
# into the package's own Python classes, so it imports those at run time.
# That is sound only while they are leaves: modules that import nothing of
# coupler but each other, so loading them never loads a layer above the binding.
BINDING_LEAVES = {"coupler.wire.messages", "coupler.wire.errors"}
NATIVE = PACKAGE.parents[1] / "python" / "native"
_RUNTIME_IMPORT = re.compile(r'module_::import\("(coupler[\w.]*)"\)')


def binding_imports(native: Path) -> set[str]:
    """The coupler modules the binding's C++ sources import at run time."""
    return {m[1] for path in native.glob("*.[ch]pp") for m in _RUNTIME_IMPORT.finditer(path.read_text())}


def test_the_binding_imports_only_the_declared_leaves():
    assert binding_imports(NATIVE) <= BINDING_LEAVES


@pytest.mark.parametrize("leaf", sorted(BINDING_LEAVES))
def test_each_module_the_binding_imports_is_a_leaf(leaf):
    path = PACKAGE.parent.joinpath(*leaf.split(".")).with_suffix(".py")
    tree = ast.parse(path.read_text(), filename=str(path))
    assert set(_imported(tree, leaf, False)) <= BINDING_LEAVES | {"coupler._native"}


def test_the_binding_check_finds_a_runtime_import_of_a_layer(tmp_path):
    (tmp_path / "x.cpp").write_text('py::module_::import("coupler.serve.app").attr("serve");\n')
    assert binding_imports(tmp_path) == {"coupler.serve.app"}
