"""What a lesson cell tagged ``package:<dotted name>`` must hold: that object's source in
the package. tools/sync_drift.py copies it into the cells; tests/test_drift.py checks them."""

from __future__ import annotations

import importlib
import inspect
import textwrap

TAG = "package:"


def package_source(dotted: str) -> str:
    """The source of a module-level object, or of a class's method (``module.Class.method``)."""
    module_name, _, name = dotted.rpartition(".")
    path: list[str] = [name]
    while True:
        try:
            obj = importlib.import_module(module_name)
            break
        except ModuleNotFoundError:
            module_name, _, outer = module_name.rpartition(".")
            path.insert(0, outer)
    for part in path:
        obj = getattr(obj, part)
    return textwrap.dedent(inspect.getsource(obj)).strip()
