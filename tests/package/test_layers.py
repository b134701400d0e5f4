"""The layer rule of docs/architecture.md, checked on the source: imports go down, never round.

Every import counts, lazy ones inside functions included; only imports under
``if TYPE_CHECKING:`` are left out, as they never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[2] / "src" / "phasetodo"

#: The layers of docs/architecture.md, top first, each a tuple of module prefixes.
#: A module may import its own layer and the layers before it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("phasetodo.errors", "phasetodo._version", "phasetodo._public"),
    ("phasetodo._core",),
    ("phasetodo._views", "phasetodo._todo", "phasetodo.todo"),
    ("phasetodo._profiles",),
    ("phasetodo._specs", "phasetodo.tool", "phasetodo.ops", "phasetodo.profiles", "phasetodo.views"),
    (
        "phasetodo.session", "phasetodo.session_changes", "phasetodo._schedule", "phasetodo._watching",
        "phasetodo.person", "phasetodo.stores", "phasetodo.transcript", "phasetodo.reminders",
        "phasetodo.gitplan", "phasetodo._planmerge", "phasetodo._planorder",
    ),
    ("phasetodo",),
    ("phasetodo.integrations",),
    ("phasetodo.cli", "phasetodo.__main__", "phasetodo.web"),
    ("phasetodo.testing",),
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE.rglob("*.py")}


MODULES = _modules()


def _layer(module: str) -> int:
    best, rank = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), index
    assert rank >= 0, f"{module} is in no layer of LAYERS"
    return rank


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _type_checking_only(node):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        yield from _import_nodes(node)


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    package = module.split(".") if MODULES[module].name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def imports_of(module: str) -> set[str]:
    """The phasetodo modules ``module`` imports when it runs (lazily or not)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            target = _resolve(module, node)
            named = [f"{target}.{alias.name}" for alias in node.names]
            targets = [name for name in named if name in MODULES] or [target]
        found.update(name for name in targets if name in MODULES and name != module)
    return found


GRAPH = {module: imports_of(module) for module in MODULES}


def _cycle_from(start: str) -> list[str] | None:
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen: set[str] = set()
    while stack:
        module, path = stack.pop()
        for target in GRAPH[module]:
            if target == start:
                return [*path, start]
            if target not in seen and not (target == "phasetodo" or start.startswith(target + ".")):
                seen.add(target)
                stack.append((target, [*path, target]))
    return None


class TestLayers:
    @pytest.mark.parametrize("module", sorted(MODULES))
    def test_imports_go_down_the_layers(self, module: str) -> None:
        """A module imports only its own layer and the layers above it in docs/architecture.md."""
        upward = sorted(target for target in GRAPH[module] if _layer(target) > _layer(module))
        assert upward == [], f"{module} imports a lower layer: {upward}"

    @pytest.mark.parametrize("module", sorted(MODULES))
    def test_no_import_cycle(self, module: str) -> None:
        """No chain of imports leads from a module back to itself (a package's own __init__ aside)."""
        assert _cycle_from(module) is None

    @pytest.mark.parametrize("module", sorted(name for name in MODULES if name != "phasetodo.errors"))
    def test_exceptions_live_in_errors(self, module: str) -> None:
        """No module but errors.py defines a public exception or warning class (the command's private
        way out, ``cli._context._Exit``, is not an error of the library)."""
        tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
        defined = [
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef)
            and not node.name.startswith("_")
            and any(isinstance(base, ast.Name) and base.id.endswith(("Error", "Exception", "Warning"))
                    for base in node.bases)
        ]
        assert defined == []
