"""What a user installs: ``import sse_course`` needs nothing beyond Python, the httpx
names come on first use (and say which extra brings httpx when it is missing), and
the extras in pyproject.toml cover what each part of the package imports."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import sse_course

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "sse_course"

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

#: Run in a fresh interpreter where httpx and ipywidgets cannot be imported, as after
#: ``pip install .`` into a venv without them (a meta-path finder refuses them).
WITHOUT_EXTRAS = """
import sys

class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {"httpx", "ipywidgets"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Missing())
import importlib
import sse_course
from sse_course import Comment, Event, JSONPayloads, SSEParser, iter_events

assert list(iter_events([b": hi\\n", b"data: {}\\n\\n"], comments=True)) == [Comment("hi"), Event("message", "{}")]
assert JSONPayloads().feed(SSEParser().feed(b"data: [1]\\n\\n")) == [[1]]
for name in ("EventSourceClient", "connect_sse", "iter_sse"):
    try:
        getattr(sse_course, name)
    except ModuleNotFoundError as err:
        print(name, err.name, err)
    else:
        print(name, "imported")
for module in ("sse_course.client", "sse_course.httpx_adapter"):  # imported by path, as users of the client do
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as err:
        print(module, err.name, err)
    else:
        print(module, "imported")
print(sorted(module for module in sys.modules if module.partition(".")[0] in {"httpx", "ipywidgets", "IPython"}))
"""


def run_python(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_parser_needs_no_extra_and_the_httpx_names_say_which_extra_brings_httpx() -> None:
    *names, imported = run_python(WITHOUT_EXTRAS)
    assert [line.split()[:2] for line in names] == [
        [name, "httpx"]
        for name in ("EventSourceClient", "connect_sse", "iter_sse", "sse_course.client", "sse_course.httpx_adapter")
    ]
    assert all(line.endswith("pip install 'sse-course[httpx]'") for line in names), names
    assert imported == "[]"


def test_import_sse_course_leaves_httpx_unimported_until_an_httpx_name_is_used() -> None:
    before, after = run_python(
        "import sys, sse_course\nprint('httpx' in sys.modules)\nsse_course.connect_sse\nprint('httpx' in sys.modules)\n"
    )
    assert (before, after) == ("False", "True")


def test_every_public_name_resolves_and_the_lazy_ones_are_the_modules_own() -> None:
    for name in sse_course.__all__:
        assert getattr(sse_course, name).__name__ == name
    for name, module in sse_course.LAZY.items():
        assert getattr(sse_course, name) is getattr(getattr(sse_course, module), name)
    assert set(sse_course.LAZY) <= set(sse_course.__all__) <= set(dir(sse_course))


def third_party_imports(paths: list[Path]) -> set[str]:
    """The top-level names of the modules outside the standard library and the package that ``paths`` import."""
    found = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name.partition(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                found.add(node.module.partition(".")[0])
    return found - set(sys.stdlib_module_names) - {"sse_course", "__future__"}


#: Import names that a distribution of an extra brings with it (ipywidgets needs
#: IPython; JupyterLab's server needs jupyter_client, jupyter_core and packaging).
BROUGHT_BY = {"IPython": "ipywidgets", "jupyter_client": "jupyterlab", "jupyter_core": "jupyterlab",
              "jupyterlab_server": "jupyterlab", "packaging": "jupyterlab"}  # fmt: skip


#: Imports the classroom tries and does without: exercise 04's check refuses sse-starlette's
#: encoder where sse-starlette is installed (checks.encoder_not_yours), and needs nothing of it.
OPTIONAL = {"sse_starlette"}


def extra(name: str) -> set[str]:
    """The distributions an extra installs, its own extras followed (``sse-course[httpx]``)."""
    found = set()
    for requirement in PYPROJECT["project"]["optional-dependencies"][name]:
        distribution = requirement.split(";")[0].split("[")[0]
        for stop in "<>=!~ ":
            distribution = distribution.split(stop)[0]
        if distribution == "sse-course":
            found |= extra(requirement.split("[")[1].split("]")[0])
        else:
            found.add(distribution)
    return found


def test_each_extra_covers_what_its_part_of_the_package_imports() -> None:
    core = [path for path in PACKAGE.glob("*.py") if path.stem not in ("client", "httpx_adapter")]
    assert PYPROJECT["project"]["dependencies"] == []
    assert third_party_imports(core) == set()
    assert third_party_imports([PACKAGE / "client.py", PACKAGE / "httpx_adapter.py"]) <= extra("httpx") == {"httpx"}
    classroom = third_party_imports(sorted((PACKAGE / "classroom").rglob("*.py"))) - OPTIONAL
    assert {BROUGHT_BY.get(name, name) for name in classroom} == extra("classroom")


def test_the_version_has_one_source_and_the_package_says_it_is_typed() -> None:
    assert "version" not in PYPROJECT["project"]
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "sse_course.__version__"}
    assert PYPROJECT["tool"]["setuptools"]["package-data"]["sse_course"] == ["py.typed"]
    assert (PACKAGE / "py.typed").is_file()
    assert PYPROJECT["project"]["license"] == "MIT"
    assert "MIT License" in (ROOT / PYPROJECT["project"]["license-files"][0]).read_text(encoding="utf-8")
