"""The package's shape, as docs/architecture.md draws it: each object owns its state,
and the modules import each other without a cycle.

Every module of ``sse_course`` (the classroom included) is read as source: an
attribute ``x._name`` may be read or written only on ``self``, ``cls`` or
``super()``; another object's state is reached through its public methods; and
no attribute of another object is assigned (``x.name = ...``, ``self.part.name = ...``):
its owner's method changes it. The only exceptions are the third-party objects
whose public API is assignment (a widget's trait), listed in :data:`THEIR_API`.
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


def assigned_attributes(node: ast.AST) -> list[ast.Attribute]:
    """The attributes a statement assigns (``=``, ``+=``, annotated) or deletes, tuples unpacked."""
    if isinstance(node, (ast.Assign, ast.Delete)):
        targets = list(node.targets)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    else:
        return []
    found = []
    while targets:
        target = targets.pop()
        if isinstance(target, (ast.Tuple, ast.List)):
            targets.extend(target.elts)
        elif isinstance(target, ast.Starred):
            targets.append(target.value)
        elif isinstance(target, ast.Attribute):
            found.append(target)
    return found


def foreign_writes(source: str) -> list[str]:
    """``line: target`` for every assignment to an attribute of anything but ``self`` or ``cls``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        for target in assigned_attributes(node):
            if not (isinstance(target.value, ast.Name) and target.value.id in OWNERS):
                found.append(f"{target.lineno}: {ast.unparse(target)}")
    return sorted(found, key=lambda line: int(line.split(":")[0]))


#: Assignments to a third-party object whose public API is assignment, with why:
#: module -> the targets written there.
THEIR_API = {
    # ipywidgets: a widget's trait (here an HTML widget's ``value``) is set by assigning it.
    "classroom/ask.py": {"self.feedback.value"},
    "classroom/resume_explorer.py": {"self.view.value"},
    "classroom/widgets.py": {"self.view.value"},
    # nbclient: the time a cell may take is the client's ``timeout`` trait, read by execute_cell().
    "classroom/progress.py": {"client.timeout"},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """The package modules that ``path`` imports (relative imports resolved)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = type_checking_only(tree)
    for node in [node for node in ast.walk(tree) if node not in skipped]:
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


def type_checking_only(tree: ast.AST) -> set[ast.AST]:
    """The nodes under ``if TYPE_CHECKING:``: imports for annotations only, never run."""
    return {
        inner
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for statement in node.body
        for inner in ast.walk(statement)
    }


GRAPH_NODES = {module_name(path) for path in MODULES}


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle in ``graph`` (module -> modules it imports), or None."""
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        stack.append(node)
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


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_assigns_another_objects_attributes(path: Path) -> None:
    allowed = THEIR_API.get(path.relative_to(PACKAGE).as_posix(), set())
    writes = foreign_writes(path.read_text(encoding="utf-8"))
    assert [line for line in writes if line.split(": ", 1)[1] not in allowed] == []
    assert allowed <= {line.split(": ", 1)[1] for line in writes}, "an exception that no longer occurs: drop it"


def test_the_write_scan_rejects_what_it_must() -> None:
    source = (
        "def f(self, other, err):\n"
        "    self.a = other.b\n"
        "    self._life.spent_because = 'x'\n"
        "    err.events, self.c = [], 1\n"
        "    other.count += 1\n"
        "    other.items[0] = 2\n"
        "    del other.d\n"
        "    cls.e: int = 3\n"
    )
    assert foreign_writes(source) == [
        "3: self._life.spent_because",
        "4: err.events",
        "5: other.count",
        "7: other.d",
    ]


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
    assert "sse_course.errors" in graph["sse_course.events"]
    assert "sse_course.events" not in graph["sse_course.errors"]  # only under TYPE_CHECKING


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
