"""text -> lines: CR, LF and CRLF, and nothing else.

A CR ends its line at once: a parser that waits for the next chunk to see
whether an LF follows delays the event. It remembers instead to skip one LF
if the next text starts with one, however many empty chunks come between.
U+2028, U+0085, VT, FF and U+001C-U+001E are ordinary characters here, which
is why ``str.splitlines()`` is wrong for this job.
"""

from __future__ import annotations

import re

from .errors import DEFAULT_MAX_LINE_CHARS, IncompleteStream, LineTooLong, check_limit

LINE_END = re.compile(r"\r\n|\r|\n")


class LineSplitter:
    """Splits text into lines across chunk boundaries, within a length limit.

    The partial line is kept as a list of fragments, so a long line that
    arrives in many small pieces costs linear, not quadratic, time.
    """

    def __init__(self, max_line_chars: int = DEFAULT_MAX_LINE_CHARS, strict: bool = True) -> None:
        self.max_line_chars = check_limit("max_line_chars", max_line_chars)
        self.strict = strict
        self._fragments: list[str] = []
        self._partial_chars = 0
        self.skip_lf = False  # the last text ended with a CR

    @property
    def partial(self) -> str:
        """The unfinished line so far (joined on demand, for display)."""
        return "".join(self._fragments)

    @property
    def room(self) -> int:
        """How many more characters the partial line may take before it is too long."""
        return self.max_line_chars - self._partial_chars

    def feed(self, text: str) -> list[str]:
        """Return the lines this text completes, without their line ends."""
        if not text:
            return []
        pos = 1 if self.skip_lf and text[0] == "\n" else 0
        lines: list[str] = []
        for match in LINE_END.finditer(text, pos):
            self._extend(text, pos, match.start(), lines)
            lines.append("".join(self._fragments))
            self._fragments.clear()
            self._partial_chars = 0
            pos = match.end()
        self._extend(text, pos, len(text), lines)
        self.skip_lf = text[-1] == "\r"
        return lines

    def close(self) -> list[str]:
        """End of stream: an unfinished line is an error (strict) or dropped."""
        if self._fragments and self.strict:
            raise IncompleteStream(
                f"stream ended inside a line ({self._partial_chars} characters after the last line end)",
                [],
            )
        self._fragments.clear()
        return []

    # A parser that finds line ends elsewhere (on the bytes) hands work over here.

    def extend(self, text: str) -> None:
        """Add text that holds no line end to the partial line, within the limit."""
        if text:
            self._extend(text, 0, len(text), [])
            self.skip_lf = False

    def starts_with(self, prefix: str) -> bool:
        """Whether the partial line's first fragment starts with ``prefix``."""
        return bool(self._fragments) and self._fragments[0].startswith(prefix)

    def take_partial(self, rest: str = "", skip: int = 0) -> str:
        """Take the partial line out, less its first ``skip`` characters and with
        ``rest`` joined to it, in one copy (the line's end was found elsewhere)."""
        fragments = self._fragments
        if skip:
            fragments[0] = fragments[0][skip:]
        if rest:
            fragments.append(rest)
        line = "".join(fragments)
        self._fragments.clear()
        self._partial_chars = 0
        return line

    def lines_cut(self, cr: bool) -> None:
        """Lines were cut elsewhere, through a line end that was a CR (``cr``) or not:
        after a CR, an LF that starts the next text belongs to it."""
        self.skip_lf = cr

    def _extend(self, text: str, start: int, end: int, lines: list[str]) -> None:
        """Add text[start:end] to the partial line, refusing to pass the limit."""
        if start == end:
            return
        if self._partial_chars + end - start > self.max_line_chars:
            raise LineTooLong(self.max_line_chars, lines)
        self._fragments.append(text[start:end])
        self._partial_chars += end - start
