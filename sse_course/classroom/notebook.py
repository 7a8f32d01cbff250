"""Small helpers that keep lesson cells honest and their output stable under nbval."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class ErrorNotRaised(AssertionError):
    """A cell that promised an error ran cleanly: the lesson's claim is false."""


class Caught:
    """What :func:`expect_error` caught, for the cells after it."""

    error: BaseException | None = None

    def catch(self, error: BaseException) -> None:
        self.error = error


@contextmanager
def expect_error(*types: type[BaseException], message: bool = True) -> Iterator[Caught]:
    """Show an expected error as text, and fail loudly if it does not happen.

    A cell tagged ``raises-exception`` keeps passing after the error is gone;
    this helper does not::

        with expect_error(UnicodeDecodeError):
            chunk.decode("utf-8")

    ``message=False`` shows the error's type alone: for Python's own messages,
    whose wording changes between versions (the lessons also run on the
    browser's Python), where the stored output must not.
    """
    caught = Caught()
    try:
        yield caught
    except types as err:
        caught.catch(err)
        print(f"{type(err).__name__}: {err}" if message else type(err).__name__)
        return
    names = " or ".join(t.__name__ for t in types)
    raise ErrorNotRaised(f"expected {names}, but the code ran without it")
