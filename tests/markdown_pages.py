"""Reading the course's markdown as CommonMark (markdown-it-py, as JupyterLab's renderer
reads it): a notebook's markdown cells, a page's headings and the anchors they answer to,
and the links of a text. Shared by tests/test_markdown.py and tests/test_workshop.py."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

MD = MarkdownIt("commonmark").enable("table")


def markdown_cells(path: Path) -> list[str]:
    """The markdown cells of a notebook, in order, as text."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"]


def all_tokens(tokens: list[Token]) -> Iterator[Token]:
    """Block tokens and, inside inline tokens, their children."""
    for token in tokens:
        yield token
        yield from token.children or []


def heading_text(tokens: list[Token], index: int) -> str:
    """A heading's text as a browser's textContent sees it (markup dropped, code kept)."""
    inline = tokens[index + 1]
    return "".join(child.content for child in inline.children or [] if child.type in ("text", "code_inline"))


def slugs(markdown_parts: list[str]) -> set[str]:
    """Every anchor a heading of these parts answers to, in JupyterLab's and GitHub's form."""
    found: set[str] = set()
    for markdown in markdown_parts:
        tokens = MD.parse(markdown)
        for index, token in enumerate(tokens):
            if token.type == "heading_open":
                text = heading_text(tokens, index).strip()
                found.add(text.replace(" ", "-"))
                found.add(re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-"))
    return found


def page_parts(path: Path) -> list[str]:
    """The markdown of a page a link points to (an ``.ipynb``'s cells, or a ``.md``)."""
    if path.suffix == ".ipynb":
        return markdown_cells(path)
    return [path.read_text(encoding="utf-8")]


@cache
def target_slugs(path: Path) -> frozenset[str]:
    """The anchors of a page other links point to, read once per run (the kit links a lesson
    from many places)."""
    return frozenset(slugs(page_parts(path)))


def links(markdown: str) -> Iterator[str]:
    """The target of every link and image in this markdown."""
    for token in all_tokens(MD.parse(markdown)):
        if token.type == "link_open":
            yield str(token.attrs["href"])
        elif token.type == "image":
            yield str(token.attrs["src"])
