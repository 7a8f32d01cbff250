"""The package's shape, as architecture.md draws it: each stage owns its state,
and the modules import each other without a cycle.

Every module of ``sse_course`` (the classroom included) is read as source: an
attribute ``x._name`` may be read or written only on ``self``, ``cls`` or
``super()``; another object's state is reached through its public methods.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "sse_course"
MODULES = sorted(PACKAGE.rglob("*.py"))
OWNERS = {"self", "cls"}


def private_accesses(source: str) -> list[str]:
    """``line: expression`` for every ``x._name`` whose ``x`` is not self, cls or super()."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") or node.attr.endswith("__"):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id in OWNERS:
            continue
        if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
            continue
        found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """The package modules that ``path`` imports (relative imports resolved)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            continue
        found |= {target for target in targets if target in GRAPH_NODES and target != name}
    return found


GRAPH_NODES = {module_name(path) for path in MODULES}


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle in ``graph`` (module -> modules it imports), or None."""
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node], _ = "open", stack.append(node)
        for other in sorted(graph.get(node, ())):
            if state.get(other) == "open":
                return stack[stack.index(other) :] + [other]
            if other not in state and (found := visit(other)):
                return found
        state[node], _ = "done", stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def import_graph() -> dict[str, set[str]]:
    """Each module's imports of other package modules; a package's ``__init__`` is
    left out as an importer of its own submodules (importing ``a.b`` runs ``a`` first)."""
    graph = {}
    for path in MODULES:
        name = module_name(path)
        graph[name] = {other for other in imports(path) if not other.startswith(name + ".")}
    return graph


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_touches_another_objects_private_names(path: Path) -> None:
    assert private_accesses(path.read_text(encoding="utf-8")) == []


def test_the_package_has_no_import_cycle() -> None:
    assert cycle(import_graph()) is None


def test_the_private_name_scan_rejects_what_it_must() -> None:
    source = "def f(self, other):\n    self._a = other._b\n    super()._c()\n    cls._d\n    x.__dict__\n"
    assert private_accesses(source) == ["2: other._b"]
    assert private_accesses("decoder._consumed += 1") == ["1: decoder._consumed"]


def test_the_cycle_check_rejects_a_cycle() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
    graph = import_graph()
    assert "sse_course.feeding" in graph["sse_course.parser"]  # the scan sees relative imports


def test_the_package_parser_does_not_import_the_teaching_parser() -> None:
    """SSEParser shares rules with LayeredSSEParser through neutral modules, never through
    layered.py, the module lesson 05 builds (so the lesson can change without touching it)."""
    assert "sse_course.layered" not in graph_closure(import_graph(), "sse_course.parser")


def graph_closure(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module ``start`` imports, directly or through others."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for other in graph.get(todo.pop(), set()) - seen:
            seen.add(other)
            todo.append(other)
    return seen
