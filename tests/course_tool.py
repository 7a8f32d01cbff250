"""``tools/course.py`` imported as the module ``course``, for the tests that use it."""

import importlib.util
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location("course", Path(__file__).resolve().parent.parent / "tools" / "course.py")
course = importlib.util.module_from_spec(_spec)
sys.modules["course"] = course  # dataclasses look their module up while the file runs
_spec.loader.exec_module(course)
