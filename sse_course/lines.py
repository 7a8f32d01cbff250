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
            raise IncompleteStream.inside_line(self._partial_chars)
        self._fragments.clear()
        return []

    def _extend(self, text: str, start: int, end: int, lines: list[str]) -> None:
        """Add text[start:end] to the partial line, refusing to pass the limit."""
        if start == end:
            return
        if self._partial_chars + end - start > self.max_line_chars:
            raise LineTooLong(self.max_line_chars, lines)
        self._fragments.append(text[start:end])
        self._partial_chars += end - start
