"""The doctor passes in the course's environment and names what is missing elsewhere.

The bare machine is real, not mocked: a ``sitecustomize`` on ``PYTHONPATH``
puts a finder in front of every import that refuses ``ipywidgets`` (and
``rfc3987_syntax``, an optional format checker of jsonschema that the doctor
never uses: importing it builds a grammar, seconds of the run), and takes
out the finder of the editable install of ``sse_course``, in the doctor's
process and in the kernel it starts (the kernel inherits the environment), as
on a machine where ipywidgets was never installed and the course was cloned but
not installed; the doctor runs from the repository root, where ``sse_course``
imports from the current folder only. Jupyter's configuration and kernelspecs
are read from temporary ``JUPYTER_CONFIG_DIR`` / ``JUPYTER_DATA_DIR`` folders,
written as ``jupyter labextension disable`` and ``jupyter kernelspec`` write them.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sse_course.classroom import doctor

BARE_MACHINE = """
import sys

class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("ipywidgets", "rfc3987_syntax"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Missing())
# not installed: the editable install's finder goes (the repository root stays importable as the current folder)
sys.meta_path[:] = [finder for finder in sys.meta_path if not getattr(finder, "__module__", "").startswith("__editable__")]
sys.path[:] = [entry for entry in sys.path if entry.rstrip("/") != ROOT]
"""  # noqa: E501
ROOT = Path(__file__).resolve().parent.parent


def run_doctor(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sse_course.classroom.doctor"],
        capture_output=True, text=True, timeout=120, env={**os.environ, **env}, cwd=ROOT,
    )  # fmt: skip


def test_the_doctor_passes_in_the_course_environment(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """In this process, from the repository root: the environment is the same as a subprocess
    would see, and Jupyter's modules are imported already (a subprocess spends seconds on them).
    The command itself runs in the test below."""
    monkeypatch.chdir(ROOT)
    code = doctor.main()
    out, err = capfd.readouterr()
    assert code == 0, out + err
    statuses = [line[:6] for line in out.splitlines() if line.startswith("[")]
    assert len(statuses) >= 8 and set(statuses) <= {"[ ok ]", "[warn]"}
    assert "[ ok ] sse_course" in out and "imports in the kernel" in out
    assert err == ""


def test_the_doctor_names_ipywidgets_missing_and_sse_course_not_installed(tmp_path: Path) -> None:
    """One run (a kernel start is the slow part) for two faults, each with its own lines."""
    (tmp_path / "sitecustomize.py").write_text(f"ROOT = {str(ROOT)!r}\n{BARE_MACHINE}", encoding="utf-8")
    result = run_doctor({"PYTHONPATH": str(tmp_path)})
    assert result.returncode == 1, result.stdout + result.stderr
    failures = [line for line in result.stdout.splitlines() if line.startswith("[FAIL]")]
    assert failures == [
        "[FAIL] ipywidgets does not import (the explorers): run `pip install -r requirements-learners.txt` "
        "in the course's virtual environment",
        "[FAIL] ipywidgets or jupyterlab_widgets is missing, so explorers cannot show: run "
        "`pip install -r requirements-learners.txt` in the course's virtual environment",
        f"[FAIL] sse_course imports here only because this folder ({ROOT}) holds it; a kernel started anywhere "
        "else cannot import it (ModuleNotFoundError: No module named 'sse_course'), and JupyterLab starts each "
        "in its notebook's folder: install it, with `pip install -r requirements-learners.txt` "
        f"(or `pip install -e .`) in {ROOT}, using the kernel's Python ({sys.executable})",
        f"[FAIL] ipywidgets does not import in the kernel (ModuleNotFoundError: No module named 'ipywidgets'): "
        f"run `pip install -r requirements-learners.txt` in the course's virtual environment, with the kernel's Python "
        f"({sys.executable})",
    ]
    assert "[ ok ] the python3 kernel starts" in result.stdout  # the rest still passes: the lines are specific


# --- each line rejects what it must, without a subprocess ------------------------------


def test_an_old_python_fails() -> None:
    assert doctor.check_python((3, 9, 18)).status == "FAIL"
    assert doctor.check_python((3, 10, 0)).status == "ok"


def test_a_missing_chromium_is_only_a_warning(tmp_path: Path) -> None:
    assert doctor.check_chromium(tmp_path / "no-chromium").status == "warn"


def test_a_kernel_that_does_not_start_fails() -> None:
    def broken(code: str) -> str:
        raise RuntimeError("Kernel died before replying to kernel_info")

    (line,) = doctor.kernel_lines(broken)
    assert line.status == "FAIL" and "does not start (RuntimeError: Kernel died" in line.text


HERE = str(Path(doctor.__file__).parent.parent / "__init__.py")
WIDGETS = {"ipywidgets": "/env/ipywidgets/__init__.py", "ipywidgets_version": "8"}
KERNEL_REPLIES = {
    "sse_course missing": (
        {"sse_course_error": "ModuleNotFoundError: No module named 'sse_course'"},
        ["ok", "FAIL", "ok"],
    ),
    "another copy": (
        {"sse_course": "/elsewhere/sse_course/__init__.py", "sse_course_version": "0"},
        ["ok", "warn", "ok"],
    ),
    "this copy": ({"sse_course": HERE, "sse_course_version": "0"}, ["ok", "ok", "ok"]),
}


@pytest.mark.parametrize("case", KERNEL_REPLIES)
def test_a_kernel_in_another_environment_is_named(case: str) -> None:
    found, expected = KERNEL_REPLIES[case]
    reply = {"python": "/other/python", **WIDGETS, **found}
    lines = list(doctor.kernel_lines(lambda code: json.dumps(reply) + "\n"))
    assert [line.status for line in lines] == expected


def test_a_widgets_extension_of_another_version_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from packaging.specifiers import SpecifierSet

    assert doctor.check_widgets_extension().status == "ok"
    monkeypatch.setattr(doctor, "required_extension_spec", lambda: SpecifierSet("~=1.0"))
    line = doctor.check_widgets_extension()
    assert line.status == "FAIL" and "does not match ipywidgets" in line.text


def test_a_widgets_extension_without_its_jupyterlab_files_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctor, "WIDGETS_EXTENSION", Path("@jupyter-widgets", "no-such-extension", "package.json"))
    line = doctor.check_widgets_extension()
    assert line.status == "FAIL" and "extension is not installed" in line.text


# --- Jupyter's own configuration, in temporary folders ----------------------------------

EXTENSION = doctor.WIDGETS_EXTENSION_NAME


@pytest.fixture
def jupyter_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user-level Jupyter configuration and data folder of the test's own, read before the
    environment's (as outside a virtual environment, where a stray user kernelspec bites)."""
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("JUPYTER_PREFER_ENV_PATH", "0")
    monkeypatch.delenv("JUPYTER_PATH", raising=False)
    return tmp_path


ENABLE = re.compile(r"`jupyter labextension enable --level=(\w+) (\S+)`")


@pytest.mark.parametrize("entry", [EXTENSION, f"{EXTENSION}:plugin"])
def test_a_disabled_widgets_extension_fails_with_the_command_that_enables_it(jupyter_dirs: Path, entry: str) -> None:
    """The advice is carried out as ``jupyter labextension enable`` carries it out (the
    function it calls), and the extension is then enabled: for a disabled plugin, enabling
    the extension's name would leave the plugin disabled."""
    from jupyterlab.commands import enable_extension
    from jupyterlab_server.config import write_page_config  # what `jupyter labextension disable` calls

    assert doctor.check_widgets_extension().status == "ok"
    write_page_config({"disabledExtensions": {entry: True}}, level="user")  # `disable --level=user`
    line = doctor.check_widgets_extension()
    assert line.status == "FAIL" and "installed but disabled (user configuration)" in line.text
    advised = ENABLE.findall(line.text)
    assert advised == [("user", entry)], line.text
    for level, name in advised:
        enable_extension(name, level=level)
    assert doctor.check_widgets_extension().status == "ok"


NO_IPYKERNEL = """#!/bin/sh
echo "ModuleNotFoundError: No module named 'ipykernel'" >&2
exit 1
"""


def test_a_kernelspec_whose_python_lacks_ipykernel_is_named_with_its_python(jupyter_dirs: Path) -> None:
    python = jupyter_dirs / "bin" / "python3"  # a Python without ipykernel, as far as the doctor can tell
    python.parent.mkdir()
    python.write_text(NO_IPYKERNEL, encoding="utf-8")
    python.chmod(0o755)
    spec = jupyter_dirs / "data" / "kernels" / "python3" / "kernel.json"
    spec.parent.mkdir(parents=True)
    argv = [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    spec.write_text(json.dumps({"argv": argv, "display_name": "Python 3", "language": "python"}), encoding="utf-8")
    line = doctor.check_kernelspec()
    assert line.status == "FAIL", line
    assert f"the python3 kernelspec {spec} runs {python}, which cannot import ipykernel" in line.text
    assert "(ModuleNotFoundError: No module named 'ipykernel')" in line.text
    assert f"`{python} -m pip install ipykernel`" in line.text and "`jupyter kernelspec remove python3`" in line.text
    assert not any(
        "kernel starts" in str(found) for found in doctor.lines()
    )  # no 60 s wait for a kernel that cannot start
    spec.unlink()  # what `jupyter kernelspec remove python3` does
    assert doctor.check_kernelspec().status == "ok"


def test_a_kernelspec_running_a_python_that_does_not_exist_fails(jupyter_dirs: Path) -> None:
    spec = jupyter_dirs / "data" / "kernels" / "python3" / "kernel.json"
    spec.parent.mkdir(parents=True)
    spec.write_text(
        json.dumps({"argv": [str(jupyter_dirs / "gone"), "-m", "ipykernel_launcher"], "language": "python"})
    )
    line = doctor.check_kernelspec()
    assert line.status == "FAIL" and "FileNotFoundError" in line.text


def test_importing_nbformat_builds_no_grammar() -> None:
    """requirements.txt keeps jsonschema below 4.25, whose Jupyter extra installs
    rfc3987-syntax: importing it builds a grammar in every process that imports
    nbformat (each pytest worker, JupyterLab, the book, this doctor)."""
    code = "import sys, nbformat; print('rfc3987_syntax' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False", (
        "jsonschema's format checker imports rfc3987_syntax: pip install 'jsonschema<4.25'"
    )


def test_no_loopback_is_found_first_and_fast_and_named_as_the_cause(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a network namespace whose loopback is down (``unshare --net``): binding 127.0.0.1
    fails. The doctor says so on its first line, within a second, and does not start a kernel
    (Jupyter would wait a minute for it, then blame the install)."""

    def unreachable(*args: object) -> None:
        raise OSError(101, "Network is unreachable")

    monkeypatch.setattr(socket.socket, "bind", unreachable)
    monkeypatch.setattr(doctor, "kernel_lines", lambda: pytest.fail("a kernel was started"))
    started = time.monotonic()
    lines = doctor.lines()
    first = next(lines)
    assert time.monotonic() - started < 1
    found = [first, *lines]
    assert found[0].status == "FAIL" and found[0].text.startswith("loopback (127.0.0.1) does not work here")
    kernel = [line for line in found if "kernel was not started" in line.text]
    assert kernel and kernel[0].status == "FAIL" and "fix loopback first" in kernel[0].text


def test_a_loopback_that_never_answers_is_given_up_on_in_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    def silent(*args: object, **kwargs: object) -> None:
        raise TimeoutError("timed out")  # what create_connection raises after its timeout

    monkeypatch.setattr(doctor.socket, "create_connection", silent)
    line = doctor.check_loopback()
    assert line.status == "FAIL" and "timed out" in line.text and doctor.LOOPBACK_SECONDS <= 2
