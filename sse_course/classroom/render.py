"""Pure HTML renderings of one split of a stream, for the lessons' explorers.

Every function here takes the input bytes and the cut positions and returns an
HTML string (inline CSS, no JavaScript), so a widget only has to put the string
into an ``ipywidgets.HTML`` value, and tests can check the drawing without a
browser. All text is escaped, and control characters are drawn visibly: an
invisible CR is exactly the kind of byte these lessons are about.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..decoding import Utf8Decoder
from ..events import Event, EventAssembler
from ..layered import LayeredSSEParser
from ..lines import LineSplitter
from ..parser import SSEParser
from .blocks import BlockCutter
from .fixtures import Expected
from .harness import Factory, Outcome, agrees, chunks_of, run

#: Background colour of each byte role, named in the legend.
ROLE_COLOURS = {
    "ascii": "#e3e9f2",
    "lead": "#ffb347",
    "continuation": "#ffe3b0",
    "invalid": "#ff6b6b",
    "cr": "#c3a6f0",
    "lf": "#4fb35a",
}
ROLE_NAMES = {
    "ascii": "ASCII",
    "lead": "lead byte",
    "continuation": "continuation byte",
    "invalid": "invalid byte",
    "cr": "CR",
    "lf": "LF",
}
CUT_COLOUR = "#c00000"
ERROR_COLOUR = "#b00020"
ESCAPED_BYTE = range(0xDC80, 0xDD00)  # how surrogateescape stands for one invalid byte

#: The layers whose state the table can show, and its columns for each.
LAYER_COLUMNS = {
    "decoder": ("text out", "pending bytes"),
    "lines": ("lines out", "skip_lf", "partial line"),
    "events": ("data_lines", "event_type", "id_buffer", "last_event_id", "retry"),
}
LAYERS = tuple(LAYER_COLUMNS)


# --- bytes ----------------------------------------------------------------


def byte_roles(raw: bytes) -> list[str]:
    """The UTF-8 role of every byte, as the strict decoder sees the whole input.

    ``surrogateescape`` turns each byte that is not part of a valid character
    into one lone surrogate, so valid characters and invalid bytes can be told
    apart without re-implementing UTF-8's rules here.
    """
    roles: list[str] = []
    for char in raw.decode("utf-8", "surrogateescape"):
        if ord(char) in ESCAPED_BYTE:
            roles.append("invalid")
        elif char in "\r\n":
            roles.append("cr" if char == "\r" else "lf")
        else:
            size = len(char.encode("utf-8"))
            roles += ["ascii"] if size == 1 else ["lead"] + ["continuation"] * (size - 1)
    return roles


def visible(char: str) -> str:
    """One character drawn visibly: CR as \\r, LF as \\n, a space as "sp"."""
    if char == " ":
        return "sp"
    return char if char.isprintable() else repr(char)[1:-1]


def byte_glyph(raw: bytes, index: int, role: str) -> str:
    """What a byte cell shows under its hex: the character a lead byte starts."""
    if role in ("ascii", "cr", "lf"):
        return visible(chr(raw[index]))
    if role == "lead":
        text = raw[index : index + 4].decode("utf-8", "ignore")[:1]
        return text if text.isprintable() else f"U+{ord(text):04X}"
    return "·" if role == "continuation" else "✗"


def _cell(raw: bytes, index: int, role: str) -> str:
    title = f"byte {index}: 0x{raw[index]:02X}, {ROLE_NAMES[role]}"
    return (
        f'<span title="{html.escape(title)}" style="display:inline-block;min-width:2.2em;'
        f"margin:1px;padding:1px 2px;text-align:center;border:1px solid #888;border-radius:3px;"
        f'background:{ROLE_COLOURS[role]};font-family:monospace;line-height:1.25">'
        f'<span style="font-size:0.7em;color:#555">{index}</span><br>'
        f"<b>{raw[index]:02X}</b><br>{html.escape(byte_glyph(raw, index, role))}</span>"
    )


def _cut(position: int) -> str:
    return (
        f'<span class="cut" data-cut="{position}" title="cut before byte {position}" '
        f'style="display:inline-block;align-self:stretch;border-left:3px solid {CUT_COLOUR};'
        f'margin:0 3px;padding-left:2px;color:{CUT_COLOUR};font:bold 0.8em monospace">{position}</span>'
    )


def _chunk_box(number: int, start: int, cells: list[str]) -> str:
    size = len(cells)
    label = (
        f"chunk {number} · {size} byte{'s' if size != 1 else ''} from {start}" if size else f"chunk {number} · empty"
    )
    return (
        '<span style="display:inline-block;vertical-align:top;border:1px dashed #999;'
        f'padding:2px;margin:2px 0"><span style="font-size:0.75em;color:#333">{html.escape(label)}</span><br>'
        f"{''.join(cells)}</span>"
    )


def legend() -> str:
    """The colour key for the byte roles."""
    swatches = "".join(
        f'<span style="background:{ROLE_COLOURS[role]};border:1px solid #888;padding:0 4px;'
        f'margin-right:6px">{html.escape(name)}</span>'
        for role, name in ROLE_NAMES.items()
    )
    return f'<div style="font-size:0.8em;margin:4px 0">{swatches}</div>'


def render_split(raw: bytes, cuts: Iterable[int]) -> str:
    """The bytes as cells coloured by UTF-8 role, grouped in chunks, cuts drawn."""
    cuts = sorted(cuts)
    roles = byte_roles(raw)
    bounds = [0, *cuts, len(raw)]
    parts = []
    for number, (start, end) in enumerate(zip(bounds, bounds[1:], strict=False), 1):
        if number > 1:
            parts.append(_cut(start))
        parts.append(_chunk_box(number, start, [_cell(raw, i, roles[i]) for i in range(start, end)]))
    return (
        f'<div class="split" style="display:flex;flex-wrap:wrap;align-items:stretch">{"".join(parts)}</div>{legend()}'
    )


# --- what each layer holds after each chunk -------------------------------


@dataclass
class Snapshot:
    """What the parser's layers emitted for one step, and what they hold after it."""

    label: str
    chunk: bytes | None  # None for the close() step
    text: str = ""
    lines: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    error: str | None = None
    state: dict[str, Any] = field(default_factory=dict)


def parser_state(parser: LayeredSSEParser[Any]) -> dict[str, Any]:
    """The buffers of every layer, keyed by the table's column names (the package's own
    stages: another stage holds other state)."""
    decoder, splitter, assembler = parser.decoder, parser.splitter, parser.assembler
    assert isinstance(decoder, Utf8Decoder) and isinstance(splitter, LineSplitter)
    assert isinstance(assembler, EventAssembler)
    return {
        "pending bytes": decoder.pending,
        "skip_lf": splitter.skip_lf,
        "partial line": splitter.partial,
        "data_lines": list(assembler.data_lines),
        "event_type": assembler.event_type,
        "id_buffer": assembler.id_buffer,
        "last_event_id": assembler.last_event_id,
        "retry": assembler.retry,
    }


def _tap(stage: Any, record: Callable[[Any], None]) -> None:
    """Record what ``stage`` returns from feed() and close(), on this instance only.

    The composed parser calls its stages' ``feed``/``close``; wrapping them is
    how the table shows what really flowed between layers, without a second
    copy of the composition.
    """
    for name in ("feed", "close"):
        method = getattr(stage, name)

        def wrapper(*args: Any, _method: Callable = method) -> Any:
            result = _method(*args)
            record(result)
            return result

        setattr(stage, name, wrapper)


def snapshots(raw: bytes, cuts: Iterable[int], profile: str = "strict", **options: Any) -> list[Snapshot]:
    """Feed ``LayeredSSEParser(profile, **options)`` the split, then close it; one
    snapshot per step (its stage objects are where the buffers show).

    Stops at the first error: the parser is spent after it.
    """
    parser = LayeredSSEParser(profile, **options)
    texts: list[str] = []  # what the decoder and the splitter return during one step
    lines: list[str] = []
    _tap(parser.decoder, texts.append)
    _tap(parser.splitter, lines.extend)
    steps: list[Snapshot] = []
    calls = [(f"chunk {n}", chunk, parser.feed) for n, chunk in enumerate(chunks_of(raw, sorted(cuts)), 1)]
    for label, chunk, call in [*calls, ("close()", None, lambda _: parser.close())]:
        texts.clear()
        lines.clear()
        error = None
        try:
            events = call(chunk)
        except Exception as err:  # the table shows any error as text
            events, error = list(getattr(err, "events", [])), f"{type(err).__name__}: {err}"
        steps.append(Snapshot(label, chunk, "".join(texts), list(lines), events, error, parser_state(parser)))
        if error:
            break
    return steps


def show_event(event: Any) -> str:
    """One event as text: ``type: 'data'`` (plus id and retry when set)."""
    if not isinstance(event, Event):
        return repr(event)
    extras = (f" id={event.last_event_id!r}" if event.last_event_id else "") + (
        f" retry={event.retry}" if event.retry is not None else ""
    )
    return f"{event.type}: {event.data!r}{extras}"


def _code(text: str) -> str:
    return f"<code>{html.escape(text)}</code>"


def _column_value(step: Snapshot, column: str) -> Any:
    if column == "text out":
        return step.text
    if column == "lines out":
        return step.lines
    return step.state[column]


def render_states(
    raw: bytes, cuts: Iterable[int], layers: Sequence[str] = LAYERS, profile: str = "strict", **options: Any
) -> str:
    """A table: one row per chunk (and close()), the chosen layers' state after it."""
    columns = [column for layer in layers for column in LAYER_COLUMNS[layer]]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in ["step", "chunk", *columns, "events out"])
    rows = []
    for step in snapshots(raw, cuts, profile, **options):
        chunk = _code(repr(step.chunk)) if step.chunk is not None else ""
        if step.error:
            cells = f'<td colspan="{len(columns)}" style="color:{ERROR_COLOUR}"><b>{html.escape(step.error)}</b></td>'
        else:
            cells = "".join(f"<td>{_code(repr(_column_value(step, column)))}</td>" for column in columns)
        events = "<br>".join(_code(show_event(e)) for e in step.events)
        rows.append(f"<tr><td>{html.escape(step.label)}</td><td>{chunk}</td>{cells}<td>{events}</td></tr>")
    return (
        '<table class="states" style="border-collapse:collapse;font-size:0.85em;margin:4px 0" border="1" '
        f'cellpadding="3"><tr style="background:#eee">{head}</tr>{"".join(rows)}</table>'
    )


# --- outcomes side by side ------------------------------------------------


def _outcome_cell(outcome: Outcome) -> str:
    events = "".join(f"<li>{_code(show_event(e))}</li>" for e in outcome.events) or "<li><i>no events</i></li>"
    error = (
        f'<div style="color:{ERROR_COLOUR}"><b>{html.escape(f"{outcome.error[0]}: {outcome.error[1]}")}</b></div>'
        if outcome.error
        else ""
    )
    return f'<ul style="margin:0;padding-left:1.2em">{events}</ul>{error}'


def render_outcomes(
    raw: bytes,
    cuts: Iterable[int],
    candidates: Mapping[str, Factory],
    profile: str = "strict",
    **options: Any,
) -> str:
    """The package's events next to each candidate parser's, at the same split.

    A candidate agrees when it yields the same events and the same kind of
    error (or none); the package's parser is the reference.
    """
    chunks = chunks_of(raw, sorted(cuts))
    reference = run(lambda: SSEParser(profile, **options), chunks)
    expected = Expected(reference.events, reference.error)
    head = [f"sse_course.SSEParser ({profile})"]
    cells = [_outcome_cell(reference)]
    for name, factory in candidates.items():
        outcome = run(factory, chunks)
        same = agrees(expected, outcome, exact_errors=False)
        verdict = "✔ same as sse_course" if same else "✘ differs from sse_course"
        colour = "#1b7f2a" if same else ERROR_COLOUR
        head.append(name)
        cells.append(f'<div style="color:{colour};font-weight:bold">{verdict}</div>{_outcome_cell(outcome)}')
    return (
        '<table class="outcomes" style="border-collapse:collapse;font-size:0.85em;margin:4px 0" border="1" '
        'cellpadding="4"><tr style="background:#eee">'
        + "".join(f"<th>{html.escape(h)}</th>" for h in head)
        + '</tr><tr style="vertical-align:top">'
        + "".join(f"<td>{c}</td>" for c in cells)
        + "</tr></table>"
    )


def render_explorer(
    raw: bytes,
    cuts: Iterable[int],
    layers: Sequence[str] = LAYERS,
    candidates: Mapping[str, Factory] | None = None,
    profile: str = "strict",
    **options: Any,
) -> str:
    """Everything an explorer shows for one split: bytes, layer states, outcomes."""
    cuts = sorted(cuts)
    parts = [render_split(raw, cuts)]
    if layers:
        parts.append(render_states(raw, cuts, layers, profile, **options))
    if candidates:
        parts.append(render_outcomes(raw, cuts, candidates, profile, **options))
    return "".join(parts)


# --- blocks cut on the bytes (lesson 09) ------------------------------------


def render_blocks(raw: bytes, cuts: Iterable[int]) -> str:
    """The split, then a table: for each chunk, the blocks the course's block cutter
    gives and the bytes it holds after it; then what ``close()`` returns."""
    cuts = sorted(cuts)
    cutter = BlockCutter()
    rows = []
    for number, chunk in enumerate(chunks_of(raw, cuts), 1):
        blocks = "<br>".join(_code(repr(block)) for block in cutter.feed(chunk)) or "<i>none</i>"
        rows.append((f"chunk {number}", _code(repr(chunk)), blocks, _code(repr(bytes(cutter.held)))))
    rows.append(("close()", "", _code(repr(cutter.close())) + " (held bytes)", ""))
    cells = "".join(f"<tr>{''.join(f'<td>{cell}</td>' for cell in row)}</tr>" for row in rows)
    return (
        render_split(raw, cuts)
        + '<table class="blocks" style="border-collapse:collapse;font-size:0.85em;margin:4px 0" border="1" cellpadding="3">'  # noqa: E501
        + '<tr style="background:#eee"><th>step</th><th>chunk</th><th>blocks out</th><th>held after</th></tr>'
        + cells
        + "</table>"
    )
