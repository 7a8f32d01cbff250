"""The doctor passes in the course's environment and names what is missing elsewhere.

The environment without ipywidgets is real, not mocked: a ``sitecustomize`` on
``PYTHONPATH`` puts a finder in front of every import that refuses
``ipywidgets``, in the doctor's process and in the kernel it starts (the kernel
inherits the environment), as on a machine where it was never installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sse_course.classroom import doctor

BLOCK_IPYWIDGETS = """
import sys

class NoIpywidgets:
    def find_spec(self, name, path=None, target=None):
        if name == "ipywidgets" or name.startswith("ipywidgets."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoIpywidgets())
"""


def run_doctor(env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sse_course.classroom.doctor"],
        capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})},
    )  # fmt: skip


def test_the_doctor_passes_in_the_course_environment() -> None:
    result = run_doctor()
    assert result.returncode == 0, result.stdout + result.stderr
    statuses = [line[:6] for line in result.stdout.splitlines() if line.startswith("[")]
    assert len(statuses) >= 8 and set(statuses) <= {"[ ok ]", "[warn]"}
    assert "[ ok ] sse_course" in result.stdout and "imports in the kernel" in result.stdout
    assert result.stderr == ""


def test_the_doctor_fails_on_the_ipywidgets_lines_without_ipywidgets(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(BLOCK_IPYWIDGETS, encoding="utf-8")
    result = run_doctor({"PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])})
    assert result.returncode == 1, result.stdout + result.stderr
    failures = [line for line in result.stdout.splitlines() if line.startswith("[FAIL]")]
    assert failures == [
        "[FAIL] ipywidgets does not import (the explorers): run `pip install -r requirements.txt` "
        "in the course's virtual environment",
        "[FAIL] ipywidgets or jupyterlab_widgets is missing, so explorers cannot show: run "
        "`pip install -r requirements.txt` in the course's virtual environment",
        f"[FAIL] ipywidgets does not import in the kernel (ModuleNotFoundError: No module named 'ipywidgets'): "
        f"run `pip install -r requirements.txt` in the course's virtual environment, with the kernel's Python "
        f"({sys.executable})",
    ]
    assert "[ ok ] sse_course" in result.stdout  # the rest still passes: the lines are specific


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
    "sse_course missing": ({"sse_course_error": "ModuleNotFoundError: No module named 'sse_course'"}, ["ok", "FAIL", "ok"]),
    "another copy": ({"sse_course": "/elsewhere/sse_course/__init__.py", "sse_course_version": "0"}, ["ok", "warn", "ok"]),
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
