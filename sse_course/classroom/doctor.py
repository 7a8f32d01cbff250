"""Check that this machine can follow the course, line by line.

Run it in the environment you start JupyterLab from::

    python -m sse_course.classroom.doctor

Each line says ``ok``, ``FAIL`` (with what to do) or ``warn`` (maintainers
only). It exits 1 when a learner could not follow the course (any ``FAIL``), 0
otherwise. Run it when a widget does not show ("Error displaying widget",
"Loading widget..."): the usual causes are ipywidgets missing from the
kernel's environment or a JupyterLab extension of another major version.

The kernel is checked for real: the ``python3`` kernelspec's Python must have
ipykernel, and the kernel is started with jupyter_client, in an empty folder
(JupyterLab starts each kernel in its notebook's folder, not here), to import
``sse_course`` and ``ipywidgets`` itself, because the kernel may run another
Python than the one running this script, and a package found only in the
current folder is not installed.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MINIMUM_PYTHON = (3, 10)
SETUP = "run `pip install -r requirements-learners.txt` in the course's virtual environment"
REINSTALL_EXTENSION = "run `pip install --force-reinstall jupyterlab_widgets`, then restart JupyterLab"
KERNEL_NAME = "python3"
KERNEL_SECONDS = 60
LOOPBACK_SECONDS = 2
NO_LOOPBACK = (
    "Jupyter reaches its kernels through 127.0.0.1, so no notebook can run; ask whoever manages this machine "
    "to let programs use the loopback interface (or take the course in the browser, from the book's site)"
)
CHROMIUM = Path("/usr/bin/chromium")
WIDGETS_EXTENSION_NAME = "@jupyter-widgets/jupyterlab-manager"
WIDGETS_EXTENSION = Path(WIDGETS_EXTENSION_NAME, "package.json")
#: The configuration levels ``jupyter labextension disable --level=...`` writes to.
CONFIG_LEVELS = ("user", "sys_prefix", "system")
#: What the kernel reports about itself, as one JSON line on stdout.
KERNEL_PROBE = """
import json, sys
found = {"python": sys.executable}
for name in ("sse_course", "ipywidgets"):
    try:
        module = __import__(name)
        found[name] = getattr(module, "__file__", None) or "?"
        found[name + "_version"] = getattr(module, "__version__", "?")
    except Exception as err:
        found[name + "_error"] = f"{type(err).__name__}: {err}"
print(json.dumps(found))
"""


@dataclass(frozen=True)
class Line:
    """One finding: its status (ok, FAIL or warn) and what it says."""

    status: str
    text: str

    def __str__(self) -> str:
        return f"[{self.status:^4}] {self.text}"


def ok(text: str) -> Line:
    return Line("ok", text)


def fail(text: str, todo: str) -> Line:
    return Line("FAIL", f"{text}: {todo}")


def warn(text: str) -> Line:
    return Line("warn", text)


# --- this environment ----------------------------------------------------------------


def check_python(version: tuple[int, ...] = tuple(sys.version_info[:3])) -> Line:
    shown = ".".join(map(str, version))
    if version[:2] >= MINIMUM_PYTHON:
        return ok(f"Python {shown} (3.10 or newer needed)")
    return fail(
        f"Python {shown} is too old", "the course needs Python 3.10 or newer; make the venv with a newer python3"
    )


def imported(name: str) -> Any | None:
    """The module, or None when it does not import here."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def check_module(name: str, why: str) -> Line:
    module = imported(name)
    if module is None:
        return fail(f"{name} does not import ({why})", SETUP)
    return ok(f"{name} {getattr(module, '__version__', '')} ({why})")


def required_extension_spec() -> Any:
    """What ipywidgets' own metadata asks of jupyterlab_widgets (e.g. ``~=3.0.17``), or None.

    ``packaging`` comes with JupyterLab, which the course needs anyway.
    """
    from packaging.requirements import Requirement

    for text in importlib.metadata.requires("ipywidgets") or []:
        requirement = Requirement(text)
        if requirement.name.replace("-", "_").lower() == "jupyterlab_widgets" and requirement.marker is None:
            return requirement.specifier
    return None


def check_widgets_extension() -> Line:
    """jupyterlab_widgets installed, matching ipywidgets, and its extension files in place."""
    widgets = imported("ipywidgets")
    extension = imported("jupyterlab_widgets")
    if widgets is None or extension is None:
        return fail("ipywidgets or jupyterlab_widgets is missing, so explorers cannot show", SETUP)
    installed = importlib.metadata.version("jupyterlab_widgets")
    spec = required_extension_spec()
    if spec is not None and installed not in spec:
        return fail(
            f"jupyterlab_widgets {installed} does not match ipywidgets {widgets.__version__} (it needs {spec})",
            "run `pip install -U ipywidgets jupyterlab_widgets`, then restart JupyterLab",
        )
    from jupyter_core.paths import jupyter_path

    found = [Path(folder) / WIDGETS_EXTENSION for folder in jupyter_path("labextensions")]
    if not any(path.exists() for path in found):
        return fail("the JupyterLab widgets extension is not installed", REINSTALL_EXTENSION)
    disabled = widgets_disabled_at()
    if disabled is not None:
        enable = " and ".join(f"`jupyter labextension enable --level={level} {name}`" for level, name in disabled)
        levels = sorted({level for level, _ in disabled}, key=CONFIG_LEVELS.index)
        return fail(
            f"the JupyterLab widgets extension is installed but disabled ({', '.join(levels) or 'page'} configuration), "  # noqa: E501
            "so explorers show as plain text",
            f"run {enable or f'`jupyter labextension enable {WIDGETS_EXTENSION_NAME}`'}, then restart JupyterLab",
        )
    return ok(
        f"jupyterlab_widgets {installed} matches ipywidgets {widgets.__version__}; its JupyterLab extension is installed"  # noqa: E501
    )


def widgets_disabled_at() -> list[tuple[str, str]] | None:
    """None while JupyterLab's page config (all levels merged, as JupyterLab reads it) leaves the
    widgets extension and its plugins enabled; else each (level, name) that disables it or one of
    its plugins (``@jupyter-widgets/jupyterlab-manager:plugin``), as ``jupyter labextension
    disable --level=... NAME`` wrote it: enabling that same name at that level undoes it."""
    from jupyterlab_server.config import get_static_page_config

    def disabled(level: str) -> list[str]:
        found = get_static_page_config(level=level).get("disabledExtensions") or {}
        names = [name for name in found if found[name]] if isinstance(found, dict) else list(found)
        return [
            name for name in names if name == WIDGETS_EXTENSION_NAME or name.startswith(WIDGETS_EXTENSION_NAME + ":")
        ]

    if not disabled("all"):
        return None
    return [(level, name) for level in CONFIG_LEVELS for name in disabled(level)]


def check_loopback() -> Line:
    """A port on 127.0.0.1 binds and accepts a connection, within a second or two: Jupyter
    talks to every kernel over loopback, and lessons 08 and 10 serve streams there."""
    try:
        with socket.socket() as server:
            server.bind(("127.0.0.1", 0))
            server.listen(1)
            server.settimeout(LOOPBACK_SECONDS)
            port = server.getsockname()[1]
            with socket.create_connection(("127.0.0.1", port), timeout=LOOPBACK_SECONDS):
                server.accept()[0].close()
    except OSError as err:
        return fail(f"loopback (127.0.0.1) does not work here ({err})", NO_LOOPBACK)
    return ok("a loopback port binds and connects (Jupyter's kernels, lessons 08 and 10)")


def check_chromium(path: Path = CHROMIUM) -> Line:
    if path.exists():
        return ok(f"Chromium at {path} (maintainers: the browser tests)")
    return warn(f"Chromium not found at {path}: only maintainers need it, for the browser tests")


# --- the kernel ----------------------------------------------------------------------


def kernel_python(argv: list[str]) -> str:
    """The Python a kernelspec runs; jupyter_client runs its own for a bare ``python``."""
    bare = {"python", f"python{sys.version_info[0]}", "python{}.{}".format(*sys.version_info[:2])}
    return sys.executable if argv[0] in bare else argv[0]


def import_error(python: str, module: str) -> str | None:
    """Why ``python`` cannot import ``module`` (its last line of error), or None when it can."""
    try:
        run = subprocess.run([python, "-c", f"import {module}"], capture_output=True, text=True, timeout=KERNEL_SECONDS)
    except (OSError, subprocess.SubprocessError) as err:
        return f"{type(err).__name__}: {err}"
    if run.returncode == 0:
        return None
    said = run.stderr.strip().splitlines()
    return said[-1] if said else f"exit status {run.returncode}"


def check_kernelspec(name: str = KERNEL_NAME) -> Line:
    """The kernelspec JupyterLab will use, and whether its Python has ipykernel."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        spec = KernelSpecManager().get_kernel_spec(name)
    except NoSuchKernel:
        return fail(f"there is no {name} kernel", f"{SETUP}; it installs ipykernel")
    file, python = Path(spec.resource_dir) / "kernel.json", kernel_python(spec.argv)
    problem = import_error(python, "ipykernel")
    if problem is None:
        return ok(f"the {name} kernelspec ({file}) runs {python}, which has ipykernel")
    return fail(
        f"the {name} kernelspec {file} runs {python}, which cannot import ipykernel ({problem})",
        f"install it for that Python (`{python} -m pip install ipykernel`), or remove the kernelspec "
        f"(`jupyter kernelspec remove {name}`) so that this environment's Python ({sys.executable}) runs the kernel",
    )


def run_in_kernel(code: str, kernel_name: str = KERNEL_NAME) -> str:
    """Start the kernel in an empty folder, run ``code``, return its stdout; the kernel is shut down after."""
    from jupyter_client.manager import start_new_kernel

    with tempfile.TemporaryDirectory(prefix="sse-course-doctor-") as elsewhere:
        # the kernel's own start-up warnings (e.g. about TCP) are not the learner's problem
        manager, client = start_new_kernel(
            kernel_name=kernel_name, startup_timeout=KERNEL_SECONDS, stderr=subprocess.DEVNULL, cwd=elsewhere
        )
        return collect_stdout(manager, client, code)


def collect_stdout(manager: Any, client: Any, code: str) -> str:
    printed: list[str] = []

    def collect(message: dict[str, Any]) -> None:
        if message["msg_type"] == "stream" and message["content"]["name"] == "stdout":
            printed.append(message["content"]["text"])

    try:
        client.execute_interactive(code, output_hook=collect, timeout=KERNEL_SECONDS)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    return "".join(printed)


def kernel_lines(probe: Callable[[str], str] = run_in_kernel) -> Iterator[Line]:
    """The kernel starts; sse_course and ipywidgets import in it (and which copy)."""
    try:
        found = json.loads(probe(KERNEL_PROBE).strip().splitlines()[-1])
    except Exception as err:  # any failure to start or answer is the finding
        yield fail(
            f"the {KERNEL_NAME} kernel does not start ({type(err).__name__}: {err})", f"{SETUP}; it installs ipykernel"
        )
        return
    yield ok(f"the {KERNEL_NAME} kernel starts ({found['python']})")
    here = Path(str(importlib.import_module("sse_course").__file__)).parent
    for name, why in (("sse_course", "the lessons' package"), ("ipywidgets", "the explorers")):
        if f"{name}_error" in found and name == "sse_course" and here.parent == Path.cwd():
            yield fail(
                f"sse_course imports here only because this folder ({here.parent}) holds it; a kernel started "
                f"anywhere else cannot import it ({found[name + '_error']}), and JupyterLab starts each in its notebook's folder",  # noqa: E501
                "install it, with `pip install -r requirements-learners.txt` (or `pip install -e .`) "
                f"in {here.parent}, using the kernel's Python ({found['python']})",
            )
        elif f"{name}_error" in found:
            yield fail(
                f"{name} does not import in the kernel ({found[name + '_error']})",
                f"{SETUP}, with the kernel's Python ({found['python']})",
            )
        elif name == "sse_course" and Path(found[name]).parent != here:
            yield warn(f"the kernel imports another copy of sse_course ({found[name]}) than this one ({here})")
        else:
            yield ok(f"{name} {found[name + '_version']} imports in the kernel ({why})")


def lines(loopback: Callable[[], Line] = check_loopback) -> Iterator[Line]:
    """Every finding in order; loopback first, since without it no kernel can start (the kernel
    is then not started: it would wait a minute and blame the install)."""
    working = loopback()
    yield working
    yield check_python()
    yield check_module("jupyterlab", "to open the lessons")
    yield check_module("ipywidgets", "the explorers")
    yield check_widgets_extension()
    kernelspec = check_kernelspec()
    yield kernelspec
    if kernelspec.status == "ok" and working.status == "ok":
        yield from kernel_lines()
    elif kernelspec.status == "ok":
        yield fail(f"the {KERNEL_NAME} kernel was not started", "fix loopback first (the first line): kernels need it")
    yield check_chromium()


def main() -> int:
    print("sse-course doctor: what this machine needs to follow the course")
    found = []
    for line in lines():
        print(line, flush=True)
        found.append(line)
    failures = sum(line.status == "FAIL" for line in found)
    if failures:
        print(f"{failures} problem(s): fix the FAIL lines above, then run the doctor again.")
        return 1
    print("All set: open JupyterLab (`jupyter lab`) and start with notebooks/00-welcome.ipynb.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
