"""Build the course's JupyterLite site: every lesson, exercise and solution runs in the browser.

Usage (from the repository root, in the course's venv)::

    python tools/build_lite.py                 # -> build/book/lite/ (tools/build_book.py runs it too)
    python tools/build_lite.py --out /tmp/lite

The site is static files: JupyterLite's apps, the Pyodide kernel and the Pyodide
runtime (Python compiled to WebAssembly), every wheel the kernel imports, and the
course's notebooks. A learner's browser fetches all of it from the site itself, never
from a CDN or PyPI, so the site works offline and from any static host.

Everything comes from the package registries, at pinned versions:

* JupyterLite and its Pyodide kernel from PyPI (``requirements-maintainers.txt``);
* the Pyodide runtime from npm (``npm pack pyodide@VERSION``), checked against its pinned
  checksum, and the same version the kernel was built for (checked here: the kernel
  names the version in its default CDN address, which the site replaces);
* the pure-Python wheels the kernel loads (IPython, jedi, micropip and their
  dependencies, and httpx), from PyPI at the versions Pyodide's lock file pins, plus
  ipywidgets and comm, which the lock does not hold;
* ``sse_course`` itself, as a wheel written here from the working tree.

Pyodide's lock file is rewritten to list exactly the wheels shipped, with their own
checksums, so that an ``import`` in a cell loads its package from the site. Downloads
are kept in ``build/lite-cache/``: a second build needs no network at all.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Iterable
from pathlib import Path

from course import load as load_course  # tools/course.py: course.toml, read and checked

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "build" / "book" / "lite"
CACHE = ROOT / "build" / "lite-cache"
#: The Pyodide runtime: the npm package's version and its checksum (npm's ``integrity``).
PYODIDE_VERSION = "314.0.6"
PYODIDE_INTEGRITY = "sha512-BKDTJyIqFxC4BExLqeRS3f5xvXZIjOt8C3zGLN/Cc7tFxSwvKVhVkchQQ2AGLOtR4YrVOIFxbV8poyDOOmWwxQ=="
#: The runtime's files the site serves (the rest of the npm package is types, maps and demos).
RUNTIME_FILES = (
    "pyodide.mjs",
    "pyodide.js",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "package.json",
)
#: What the site's Python needs from Pyodide's lock: the kernel's own start-up (micropip,
#: IPython, jedi) and what the course imports (httpx); the dependencies come with them.
LOCK_ROOTS = ("micropip", "packaging", "ipython", "jedi", "httpx")
#: Dependencies the lock leaves out: Pyodide loads an entry's ``depends`` with it, and an
#: import in a cell loads only the package the cell names (``sse_course``, whose modules
#: import httpx), so the chain must be complete.
MORE_DEPENDS = {"httpx": ["httpcore", "anyio", "idna", "certifi", "sniffio"]}
#: Wheels the lock does not hold: name -> (version, what it imports, what it needs from the lock).
EXTRA_WHEELS = {
    "comm": ("0.2.3", ["comm"], ["traitlets"]),
    "ipywidgets": ("8.1.9", ["ipywidgets"], ["comm", "ipython", "traitlets"]),
}
#: The JupyterLab extensions the site's front end needs, by package name: the kernel, and widgets.
EXTENSIONS = ("@jupyterlite/pyodide-kernel-extension", "@jupyter-widgets/jupyterlab-manager")
KERNEL_SETTINGS = "@jupyterlite/pyodide-kernel-extension:kernel"
APPS = ("lab", "notebooks", "tree")


class LiteError(RuntimeError):
    """The site cannot be built as pinned (a version mismatch, a checksum, a missing tool)."""


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


# --- the Pyodide runtime, from npm --------------------------------------------------------


def sri(path: Path) -> str:
    """A file's Subresource Integrity string (what npm calls ``integrity``)."""
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


def pyodide_runtime(cache: Path) -> Path:
    """The unpacked npm package ``pyodide@PYODIDE_VERSION`` (fetched once with ``npm pack``)."""
    unpacked = cache / f"pyodide-{PYODIDE_VERSION}"
    archive = cache / f"pyodide-{PYODIDE_VERSION}.tgz"
    if not (unpacked / "package" / "package.json").is_file():
        if not archive.is_file():
            if shutil.which("npm") is None:
                raise LiteError("npm not found: it fetches the Pyodide runtime once (Debian: apt-get install npm)")
            cache.mkdir(parents=True, exist_ok=True)
            command = ["npm", "pack", f"pyodide@{PYODIDE_VERSION}", "--pack-destination", str(cache)]
            subprocess.run(command, check=True, capture_output=True)
        if sri(archive) != PYODIDE_INTEGRITY:
            raise LiteError(f"{archive}: checksum {sri(archive)}, pinned {PYODIDE_INTEGRITY}")
        with tarfile.open(archive) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(unpacked, filter="data")
            else:  # Python before 3.10.12 and 3.11.4 (npm's own package, its checksum checked above)
                tar.extractall(unpacked)
    package = unpacked / "package"
    version = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    if version != PYODIDE_VERSION:
        raise LiteError(f"{package}: Pyodide {version}, pinned {PYODIDE_VERSION}")
    return package


def extension_dir(name: str) -> Path:
    """An installed JupyterLab extension's folder (``share/jupyter/labextensions/NAME``)."""
    from jupyter_core.paths import jupyter_path

    for base in jupyter_path("labextensions"):
        if (Path(base) / name / "package.json").is_file():
            return Path(base) / name
    raise LiteError(f"JupyterLab extension {name} not installed: pip install -r requirements.txt")


def kernel_pyodide_version() -> str:
    """The Pyodide version the installed kernel was built for: the one its default address names."""
    schema = extension_dir(EXTENSIONS[0]) / "static" / "schema" / "kernel.v0.schema.json"
    default = json.loads(schema.read_text(encoding="utf-8"))["properties"]["pyodideUrl"]["default"]
    found = re.search(r"/v(\d+\.\d+\.\d+)/", default)
    if found is None:
        raise LiteError(f"{schema}: no Pyodide version in {default!r}")
    return found.group(1)


# --- the wheels -----------------------------------------------------------------------------


def lock_closure(lock: dict, roots: Iterable[str]) -> dict[str, dict]:
    """The lock's entries for ``roots`` and everything they depend on, under the lock's own keys
    (a dependency may be spelled otherwise: ``prompt_toolkit`` for the key ``prompt-toolkit``)."""
    keys = {normalize(key): key for key in lock["packages"]}
    wanted: dict[str, dict] = {}
    todo = list(roots)
    while todo:
        key = keys[normalize(todo.pop())]
        if key not in wanted:
            entry = lock["packages"][key]
            wanted[key] = {**entry, "depends": [*entry["depends"], *MORE_DEPENDS.get(key, [])]}
            todo += wanted[key]["depends"]
    return wanted


def cached_wheel(folder: Path, name: str, version: str) -> Path | None:
    stem = re.sub(r"[-_.]+", "_", name).lower()
    found = [p for p in folder.glob("*.whl") if p.name.lower().startswith(f"{stem}-{version}-")]
    return found[0] if found else None


def fetch_wheels(folder: Path, pins: dict[str, str]) -> dict[str, Path]:
    """The pure-Python wheel of each ``name -> version``, from PyPI into ``folder`` (once)."""
    missing = [f"{name}=={version}" for name, version in pins.items() if not cached_wheel(folder, name, version)]
    if missing:
        folder.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                   "--python-version", "3.14", "--implementation", "py", "--abi", "none", "--platform", "any",
                   "--dest", str(folder), *missing]  # fmt: skip
        subprocess.run(command, check=True)
    wheels = {name: cached_wheel(folder, name, version) for name, version in pins.items()}
    lacking = [name for name, wheel in wheels.items() if wheel is None]
    if lacking:
        raise LiteError(f"no pure-Python wheel on PyPI for {lacking}")
    return {name: wheel for name, wheel in wheels.items() if wheel is not None}


def course_wheel(root: Path, folder: Path) -> Path:
    """``sse_course`` (its modules and data files) as a wheel, written from the working tree."""
    version = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    dist_info = f"sse_course-{version}.dist-info"
    files = {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted((root / "sse_course").rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }
    files[f"{dist_info}/METADATA"] = f"Metadata-Version: 2.1\nName: sse-course\nVersion: {version}\n".encode()
    files[f"{dist_info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: build_lite\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = [f"{name},sha256={urlsafe_digest(data)},{len(data)}" for name, data in files.items()]
    files[f"{dist_info}/RECORD"] = "\n".join([*record, f"{dist_info}/RECORD,,", ""]).encode()
    wheel = folder / f"sse_course-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
    return wheel


def urlsafe_digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def lock_entry(name: str, version: str, wheel: Path, imports: list[str], depends: list[str]) -> dict:
    return {
        "name": name,
        "version": version,
        "file_name": wheel.name,
        "install_dir": "site",
        "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
        "package_type": "package",
        "imports": imports,
        "depends": depends,
        "unvendored_tests": False,
    }


def stage_runtime(root: Path, cache: Path, target: Path) -> dict:
    """``target`` (the site's ``static/pyodide/``): the runtime, every wheel, and the lock
    listing exactly those wheels. Returns the lock written."""
    kernel = kernel_pyodide_version()
    if kernel != PYODIDE_VERSION:
        raise LiteError(f"the Pyodide kernel was built for Pyodide {kernel}; the runtime pinned is {PYODIDE_VERSION}")
    runtime = pyodide_runtime(cache)
    lock = json.loads((runtime / "pyodide-lock.json").read_text(encoding="utf-8"))
    from_lock = lock_closure(lock, LOCK_ROOTS)
    pins = {entry["name"]: entry["version"] for entry in from_lock.values()}
    pins |= {name: version for name, (version, _, _) in EXTRA_WHEELS.items()}
    wheels = fetch_wheels(cache / "wheels", pins)
    target.mkdir(parents=True, exist_ok=True)
    for name in RUNTIME_FILES:
        shutil.copy2(runtime / name, target / name)
    packages = {}
    for key, entry in from_lock.items():
        wheel = wheels[entry["name"]]
        packages[key] = lock_entry(entry["name"], entry["version"], wheel, entry["imports"], entry["depends"])
    for name, (version, imports, depends) in EXTRA_WHEELS.items():
        packages[name] = lock_entry(name, version, wheels[name], imports, depends)
    ours = course_wheel(root, target)
    depends = ["ipywidgets", "httpx"]  # the explorers, and the client (sse_course.client)
    packages["sse-course"] = lock_entry("sse-course", ours.stem.split("-")[1], ours, ["sse_course"], depends)
    for wheel in wheels.values():
        shutil.copy2(wheel, target / wheel.name)
    written = {"info": lock["info"], "packages": packages}
    (target / "pyodide-lock.json").write_text(json.dumps(written, indent=1, sort_keys=True), encoding="utf-8")
    return written


# --- the site ---------------------------------------------------------------------------------


def notebook_paths(root: Path) -> list[str]:
    """Every lesson, exercise and solution, in course order, from the top of the repository."""
    paths = []
    for lesson in load_course(root).lessons:
        paths += [path for path in (lesson.notebook, lesson.exercise, lesson.solution) if path]
    return paths


def stage_contents(root: Path, files: Path) -> None:
    """The notebooks, and the pages their headers link (cheat sheet, glossary), in the same folders."""
    for path in [*notebook_paths(root), *(p.relative_to(root).as_posix() for p in (root / "docs").glob("*.md"))]:
        (files / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / path, files / path)


def site_config() -> dict:
    """jupyter-lite.json: the kernel never falls back to PyPI (the runtime's address is set by the
    build); the app is reachable as ``window.jupyterapp`` (tests/test_lite.py drives it so)."""
    settings = {KERNEL_SETTINGS: {"disablePyPIFallback": True}}
    data = {"appName": "sse-course", "exposeAppInBrowser": True, "litePluginSettings": settings}
    return {"jupyter-lite-schema-version": 0, "jupyter-config-data": data}


def build(root: Path = ROOT, out: Path = DEFAULT_OUT, cache: Path = CACHE) -> Path:
    """Write the site under ``out`` (JupyterLite owns that folder); return ``out``."""
    out = out.resolve()
    with tempfile.TemporaryDirectory(prefix="sse-course-lite-") as work:
        lite = Path(work, "lite")
        stage_runtime(root, cache, lite / "static" / "pyodide")
        stage_contents(root, lite / "files")
        (lite / "jupyter-lite.json").write_text(json.dumps(site_config()), encoding="utf-8")
        config = {
            "LiteBuildConfig": {
                "apps": list(APPS),
                "ignore_sys_prefix": True,
                "federated_extensions": [str(extension_dir(name)) for name in EXTENSIONS],
                "no_sourcemaps": True,
                "no_unused_shared_packages": True,
                "output_dir": str(out),
            }
        }
        (lite / "jupyter_lite_config.json").write_text(json.dumps(config), encoding="utf-8")
        command = [sys.executable, "-m", "jupyterlite_core", "build", "--lite-dir", str(lite)]
        done = subprocess.run(command, cwd=lite, capture_output=True, text=True)
        if done.returncode != 0:
            raise LiteError(
                f"jupyter lite build exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
            )
    return out


def size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"where to write (default {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        build(ROOT, args.out)
    except LiteError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"site written to {args.out} ({size(args.out) / 1e6:.0f} MB) in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
