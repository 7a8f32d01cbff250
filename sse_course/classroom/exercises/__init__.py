"""One module per exercise: its inputs, its reference, the rules its task states, and its check.

The exercise notebooks import their checks (and the few helpers a task gives,
such as exercise 05's stages) from this package, never from the modules, so
that a reference is not within reach of the notebook that asks for it; a name
is looked up in its exercise's module only when a notebook asks for it, so
importing one check does not import the others (nor ipywidgets, nor httpx).
The engine every check is declared on is :mod:`sse_course.classroom.checking`.

    from sse_course.classroom.exercises import check_safe_cut
"""

from __future__ import annotations

import importlib
from typing import Any

from ..checking import Rule, try_it

#: Each exercise's module, by number.
MODULES = {
    "01": "ex01_chunks_are_not_events",
    "02": "ex02_bytes_to_text",
    "03": "ex03_text_to_lines",
    "04": "ex04_lines_to_events",
    "05": "ex05_limits_and_failures",
    "06": "ex06_payloads",
    "07": "ex07_evidence",
    "08": "ex08_real_streams",
    "09": "ex09_performance",
    "10": "ex10_reconnect_and_resume",
}

#: What the exercise notebooks import: the checks, and what a task hands the learner (never a reference).
GIVEN = {
    "check_json_lines": "01",
    "check_safe_cut": "02",
    "check_decoder": "02",
    "check_byte_lines": "03",
    "check_resume_state": "04",
    "check_encoder": "04",
    "check_pipeline": "05",
    "TailLines": "05",
    "JsonValues": "05",
    "check_line_limit": "05",
    "check_named_events": "06",
    "ContractError": "06",
    "ProviderError": "06",
    "check_own_mistake": "07",
    "first_failure": "07",
    "with_mistake": "07",
    "check_read_answer": "08",
    "check_block_cutter": "09",
    "check_follow": "10",
    "try_follow": "10",
}

__all__ = ["try_it", *GIVEN]


def module(number: str) -> Any:
    """Exercise ``number``'s module (``"02"``), imported on first use."""
    return importlib.import_module(f".{MODULES[number]}", __name__)


def __getattr__(name: str) -> Any:
    if name in GIVEN:
        return getattr(module(GIVEN[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_rules() -> dict[str, tuple[Rule, ...]]:
    """Every stream check's stated rules, by the name notebooks call it: tests/test_rules.py holds a mutant
    per rule (the other tasks' rules are in their modules, tests/test_tasks.py; exercise 10's in its module)."""
    from .. import checks

    return {
        "check_safe_cut": module("02").SAFE_CUT_RULES,
        "check_decoder": module("02").DECODER.rules,
        "check_byte_lines": module("03").BYTE_LINES.rules,
        "check_encoder": module("04").ENCODER_RULES,
        "check_line_limit": module("05").LINE_LIMIT.rules,
        "check_named_events": module("06").NAMED_EVENTS.rules,
        "check_json_adapter": checks.JSON_ADAPTER.rules,
        "check_payloads": checks.PAYLOADS.rules,
        "check_block_cutter": module("09").BLOCK_CUTTER.rules,
    }
