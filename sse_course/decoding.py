"""bytes -> text: one incremental UTF-8 decoder for the whole stream.

A chunk may end inside a multi-byte character, so the decoder keeps the
unfinished bytes until the next chunk completes them (``codecs`` incremental
decoder, ``final=False``). The BOM (U+FEFF) is dropped once, at stream start,
however its three bytes were split.
"""

from __future__ import annotations

import codecs

from .errors import DecodeError

BOM = "\ufeff"
BOM_BYTES = BOM.encode()


class Utf8Decoder:
    """Turns chunks of bytes into text, keeping a split character's bytes.

    ``errors="strict"`` raises :class:`DecodeError` with the absolute byte
    offset; ``errors="replace"`` substitutes U+FFFD as the WHATWG Encoding
    standard does (Python's UTF-8 decoder uses the same maximal-subpart rule).
    """

    def __init__(self, errors: str = "strict") -> None:
        if errors not in ("strict", "replace"):
            raise ValueError(f"errors must be 'strict' or 'replace', got {errors!r}")
        self.errors = errors
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors)
        self._consumed = 0  # bytes fed so far, pending ones included
        self._at_start = True  # no character has been produced yet

    @property
    def pending(self) -> bytes:
        """The bytes of an unfinished character, waiting for the next chunk."""
        return self._decoder.getstate()[0]

    @property
    def at_start(self) -> bool:
        """True until the stream's first character is known (a BOM may still come)."""
        return self._at_start

    @property
    def offset(self) -> int:
        """The stream offset of the next byte to decode (pending bytes not counted)."""
        return self._consumed - len(self.pending)

    def feed(self, chunk: bytes) -> str:
        """Return the text of every character this chunk completes."""
        return self._decode(chunk, final=False)

    def close(self) -> str:
        """End of stream: unfinished bytes are an error (or U+FFFD)."""
        return self._decode(b"", final=True)

    def begin(self, chunk: bytes) -> int | None:
        """The stream starts with ``chunk``, to be decoded elsewhere: how many of its
        bytes are the BOM to skip (0 or 3), or None while it may still be one.
        The decoder then counts the BOM as decoded and the stream as started."""
        if not self._at_start or self.pending:
            raise ValueError("begin() is for the stream's first bytes")
        if BOM_BYTES.startswith(chunk[: len(BOM_BYTES)]) and len(chunk) < len(BOM_BYTES):
            return None
        skip = len(BOM_BYTES) if chunk.startswith(BOM_BYTES) else 0
        self._at_start = False
        self._consumed += skip
        return skip

    def advance(self, nbytes: int) -> None:
        """Account for ``nbytes`` of whole characters decoded elsewhere, after the
        stream's first character and with no character pending, so that a later
        error's offset stays exact."""
        if self._at_start:
            raise ValueError("advance() needs the stream's first character seen (a BOM is this decoder's to drop)")
        self._consumed += nbytes

    def _decode(self, chunk: bytes, final: bool) -> str:
        start = self.offset
        try:
            text = self._decoder.decode(chunk, final)
        except UnicodeDecodeError as err:
            valid = err.object[: err.start].decode("utf-8")
            raise DecodeError(
                start + err.start, err.object[err.start : err.end], err.reason, self._drop_bom(valid)
            ) from None
        finally:
            self._consumed += len(chunk)
        return self._drop_bom(text)

    def _drop_bom(self, text: str) -> str:
        """Drop U+FEFF if it is the stream's first character, and only then."""
        if self._at_start and text:
            self._at_start = False
            if text.startswith(BOM):
                return text[1:]
        return text
