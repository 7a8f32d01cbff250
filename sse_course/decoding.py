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

#: What a parser's ``feed`` takes: bytes, or a bytes-like object (copied as ``bytes``).
Chunk = bytes | bytearray | memoryview


def bom_length(start: bytes | bytearray) -> int | None:
    """How many of the stream's first bytes are the BOM: 3 or 0, or None while
    ``start`` is too short to tell. U+FEFF has one UTF-8 form, so the first
    character is U+FEFF exactly when the bytes start with BOM_BYTES."""
    if start.startswith(BOM_BYTES):
        return len(BOM_BYTES)
    return None if BOM_BYTES.startswith(start) else 0


class Utf8Decoder:
    """Turns chunks of bytes into text, keeping a split character's bytes.

    ``errors="strict"`` raises :class:`DecodeError` with the absolute byte
    offset; ``errors="replace"`` substitutes U+FFFD as the WHATWG Encoding
    standard does (Python's UTF-8 decoder uses the same maximal-subpart rule).
    """

    def __init__(self, errors: str = "strict") -> None:
        if errors not in ("strict", "replace"):
            raise ValueError(f"errors must be 'strict' or 'replace', got {errors!r}")
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors)
        self._consumed = 0  # bytes fed so far, pending ones included
        self._at_start = True  # no character has been produced yet

    @property
    def pending(self) -> bytes:
        """The bytes of an unfinished character, waiting for the next chunk."""
        return self._decoder.getstate()[0]

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
