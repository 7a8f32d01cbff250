"""The one printer: every check prints its verdict the same way, and hands it over as data.

In a notebook a check prints ``Correct: ...`` or ``Not attempted yet: ...``, or
raises :class:`~.verdict.CheckFailed` whose message is the whole bug report.
When the progress report runs the notebook it sets :data:`TOKEN_VARIABLE` in
the kernel's environment; each verdict is then also displayed as data
(:data:`MIMETYPE`, carrying that token), which is what the report grades: never
printed text, and never an output the report's own run did not produce.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

from .verdict import CheckFailed, NotAttempted, Status, Verdict

MIMETYPE = "application/vnd.sse-course.verdict+json"
TOKEN_VARIABLE = "SSE_COURSE_VERDICT_TOKEN"


def emit(verdict: Verdict) -> None:
    """Display the verdict as data, only inside a kernel the progress report started."""
    token = os.environ.get(TOKEN_VARIABLE)
    if not token:
        return
    from IPython import get_ipython
    from IPython.display import display

    if get_ipython() is not None:
        display({MIMETYPE: {**verdict.as_data(), "token": token}}, raw=True)


def show(verdict: Verdict) -> None:
    """Print a passing or not-attempted verdict (a failure is raised, not printed)."""
    print(verdict.message)
    emit(verdict)


def not_attempted(check: str, what: str, then: str = "this check again", detail: str = "") -> Verdict:
    more = f" ({detail})" if detail else ""
    return Verdict(
        check,
        Status.NOT_ATTEMPTED,
        f"Not attempted yet: {what} still raises NotImplementedError{more}.\n"
        f"Write it in the cell above, run that cell, then run {then}.",
    )


def exercise(what: str) -> Callable[[Callable[..., str]], Callable[..., None]]:
    """Turn a function returning what it verified into a check: it prints
    ``Correct: {what} {verified}.``, or that the code is not attempted yet, or
    raises the failure; each verdict is also emitted as data."""

    def wrap(check: Callable[..., str]) -> Callable[..., None]:
        @functools.wraps(check)
        def checked(*args: Any, **kwargs: Any) -> None:
            name = check.__name__
            try:
                verified = check(*args, **kwargs)
            except NotAttempted as err:
                show(not_attempted(name, what, detail=str(err)))
                return
            except CheckFailed as err:
                err.name_check(name)
                emit(err.verdict)
                raise
            joined = "" if verified.startswith(",") else " "
            show(Verdict(name, Status.PASSED, f"Correct: {what}{joined}{verified}."))

        return checked

    return wrap


def try_it(call: Callable[[], Any]) -> Any:
    """Return ``call()``; if the learner's code it runs is still a stub, say so
    and return None, so a cell that tries the code runs in an exercise too."""
    try:
        return call()
    except NotImplementedError:
        print("Not attempted yet: this cell runs code that still raises NotImplementedError.")
        return None
