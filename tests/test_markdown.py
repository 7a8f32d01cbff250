"""Every page of the course renders as its author meant it, as CommonMark.

Renders every markdown cell of every notebook in ``notebooks/``, ``solutions/`` and
``exercises/``, and ``README.md`` and ``docs/*.md``, with markdown-it-py (CommonMark plus
tables, as JupyterLab's renderer reads them), and fails on:

- **prose that became code**: an indented code block (a ``code_block`` token). Four spaces
  of indentation turn a paragraph, a list or a table into a grey block of literal text;
  code and diagrams use fenced blocks (```), which are never an accident;
- **a relative link that does not resolve**: the file or folder must exist relative to the
  page, and an ``#anchor`` must name a heading of the target (or of the page itself).
  Anchor rule: JupyterLab 4 gives a heading the id of its text with every space replaced
  by ``-``, case and punctuation kept (``createHeaderId`` in ``@jupyterlab/rendermime``);
  GitHub lower-cases the text, drops punctuation and replaces spaces by ``-``. Either form
  is accepted, so ``#course-map`` (GitHub) and ``#Course-map`` (JupyterLab) both resolve;
- **a lesson header without the learner aids**: every lesson's header links the cheat
  sheet, the glossary and the closing page (the last lesson of ``course.toml``, which links
  the first two);
- **a lesson without further reading**: every lesson but the closing page has a
  ``## Further reading`` section with at least one link out of the course;
- **a cheat-sheet example that is not true**: the ``>>>`` examples of ``docs/cheat-sheet.md``
  run as doctests;
- **a verdict kind no check says**: a list of three or more capitalised words naming what a
  check reports (``MISSING, EXTRA, WRONG VALUE``) holds only kinds the checks use.

Times, prerequisites and titles are not compared here: ``course.toml`` states them once and
``tools/course.py`` writes them into the pages (``tests/test_course.py`` runs its ``--check``).

Each check is a small function of the text (and of the files its links name), so the
tests at the end show each one rejecting a small page with the defect it looks for, and
accepting the same page without it.
"""

from __future__ import annotations

import doctest
import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import course  # tools/course.py (pyproject.toml puts tools/ on the path)
import pytest
from markdown_pages import MD, links, markdown_cells, slugs, target_slugs

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_FOLDERS = ("notebooks", "solutions", "exercises")

#: A link with a scheme (https:, mailto:) leaves the repository: not checked offline.
EXTERNAL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


# ---------------------------------------------------------------------------- pages


def pages(root: Path = ROOT) -> Iterator[tuple[Path, list[str]]]:
    """Every page of the course: (path, its markdown parts: cells, or the whole file)."""
    for folder in NOTEBOOK_FOLDERS:
        for path in sorted((root / folder).glob("*.ipynb")):
            yield path, markdown_cells(path)
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        if path.exists():
            yield path, [path.read_text(encoding="utf-8")]


# ---------------------------------------------------------------------------- code blocks


def code_block_problems(markdown: str) -> list[str]:
    """An indented code block is prose that became code (fenced blocks are fine)."""
    return [
        f"line {token.map[0] + 1} renders as an indented code block: {token.content.splitlines()[0].strip()!r}"
        for token in MD.parse(markdown)
        if token.type == "code_block"
    ]


# ---------------------------------------------------------------------------- links


def link_problems(markdown: str, page: Path, own_parts: list[str]) -> list[str]:
    """Relative links of ``markdown`` (on ``page``, whose parts are ``own_parts``) that do not resolve."""
    problems = []
    for href in links(markdown):
        if EXTERNAL.match(href):
            continue
        target, _, anchor = unquote(href).partition("#")
        path = (page.parent / target) if target else page
        if target and not path.exists():
            problems.append(f"link {href!r}: {target} does not exist next to {page.name}")
        elif anchor and path.suffix in (".md", ".ipynb"):
            heads = slugs(own_parts) if path == page else target_slugs(path)
            if anchor not in heads:
                problems.append(f"link {href!r}: no heading of {path.name} has the anchor #{anchor}")
    return problems


# ---------------------------------------------------------------------------- headers


def header(path: Path) -> str:
    """A notebook's header: its first markdown cell with a title (``# ...``); a generated
    exercise starts with a one-line note before it."""
    return next((cell for cell in markdown_cells(path) if cell.startswith("# ")), "")


def headers(folder: str) -> dict[str, str]:
    """File name -> header, for every notebook of a folder."""
    return {path.name: header(path) for path in sorted((ROOT / folder).glob("*.ipynb"))}


# ---------------------------------------------------------------------------- aids and examples

CLOSING = Path(course.load().closing.notebook).name
AIDS = {"cheat sheet": "../docs/cheat-sheet.md", "glossary": "../docs/glossary.md", "closing page": CLOSING}


def aid_problems(name: str, header_text: str) -> list[str]:
    """The learner aids a lesson header does not link (the closing page need not link itself)."""
    targets = {href.partition("#")[0] for href in links(header_text)}
    return [
        f"{name}: its header does not link the {aid} ({href})"
        for aid, href in AIDS.items()
        if href not in targets and href != name
    ]


def further_reading_problems(name: str, parts: list[str]) -> list[str]:
    """A lesson must end with a '## Further reading' section that links somewhere outside."""
    for part in parts:
        before, heading, after = part.partition("## Further reading")
        if heading:
            section = after.split("\n## ")[0]
            if any(EXTERNAL.match(href) for href in links(section)):
                return []
            return [f"{name}: its 'Further reading' section links nothing outside the course"]
    return [f"{name}: no '## Further reading' section"]


def doctest_failures(text: str, name: str) -> int:
    """How many ``>>>`` examples in ``text`` do not give the output written after them."""
    test = doctest.DocTestParser().get_doctest(text, {}, name, name, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test, out=lambda _: None)
    return runner.failures


# ---------------------------------------------------------------------------- the course


PAGES = list(pages())


#: Three or more capitalised names in a row, as pages list a check's verdict kinds.
KIND_LIST = re.compile(r"[A-Z]{3,}(?:\s+[A-Z]{3,})?(?:,\s+(?:or\s+)?[A-Z]{3,}(?:\s+[A-Z]{3,})?){2,}")


def unknown_kinds(markdown: str) -> list[str]:
    """Names in a list of verdict kinds that are no :class:`Kind` of the checks."""
    from sse_course.classroom.checking import Kind

    known = {kind.value for kind in Kind}
    listed = [
        " ".join(name.split()).removeprefix("or ")
        for found in KIND_LIST.findall(markdown)
        for name in re.split(r",\s+", found)
    ]
    return [name for name in listed if name not in known]


def test_pages_list_only_the_kinds_checks_say() -> None:
    found = {
        str(path.relative_to(ROOT)): unknown for path, parts in PAGES if (unknown := unknown_kinds("\n".join(parts)))
    }
    assert found == {}


def test_a_kind_no_check_says_is_rejected() -> None:
    assert unknown_kinds("which way (LATE, MISSING, EXTRA, WRONG VALUE, EXTRA ERROR)") == ["LATE", "EXTRA ERROR"]
    assert unknown_kinds("a kind (MISSING, EXTRA, WRONG VALUE, WRONG ERROR, MISSING ERROR, or NOT YOURS when") == []


@pytest.mark.parametrize("path, parts", PAGES, ids=[str(p.relative_to(ROOT)) for p, _ in PAGES])
def test_no_prose_renders_as_code(path: Path, parts: list[str]) -> None:
    problems = [f"part {i}: {p}" for i, part in enumerate(parts) for p in code_block_problems(part)]
    assert not problems, f"{path.relative_to(ROOT)}:\n" + "\n".join(problems)


@pytest.mark.parametrize("path, parts", PAGES, ids=[str(p.relative_to(ROOT)) for p, _ in PAGES])
def test_relative_links_resolve(path: Path, parts: list[str]) -> None:
    problems = [f"part {i}: {p}" for i, part in enumerate(parts) for p in link_problems(part, path, parts)]
    assert not problems, f"{path.relative_to(ROOT)}:\n" + "\n".join(problems)


def test_lesson_headers_link_the_aids() -> None:
    problems = [p for name, text in headers("notebooks").items() for p in aid_problems(name, text)]
    assert not problems, "\n".join(problems)


def test_every_lesson_has_further_reading() -> None:
    lessons = [path for path in sorted((ROOT / "notebooks").glob("*.ipynb")) if path.name != CLOSING]
    problems = [p for path in lessons for p in further_reading_problems(path.name, markdown_cells(path))]
    assert not problems, "\n".join(problems)


def test_cheat_sheet_examples_are_true() -> None:
    text = (ROOT / "docs" / "cheat-sheet.md").read_text(encoding="utf-8")
    assert text.count(">>> ") >= 15
    assert doctest_failures(text, "cheat-sheet.md") == 0


def test_every_page_is_found() -> None:
    """The scan is not vacuous: it sees the lessons, the README and the docs."""
    names = {str(path.relative_to(ROOT)) for path, _ in PAGES}
    assert {"README.md", "notebooks/00-welcome.ipynb", "docs/cheat-sheet.md", "docs/glossary.md"} <= names
    assert sum(len(parts) for _, parts in PAGES) > 200


# ---------------------------------------------------------------------------- the checks reject each defect


@pytest.mark.parametrize(
    "markdown",
    [
        "## The course map\n\n    Each lesson builds one layer.\n\n    | a | b |\n    |---|---|\n",
        "Some prose.\n\n        chunks -> text -> lines\n",
        "- a list\n\n\n      still indented four past the list: code\n",
    ],
)
def test_indented_prose_is_rejected(markdown: str) -> None:
    assert code_block_problems(markdown)


@pytest.mark.parametrize(
    "markdown",
    [
        "## Map\n\nEach lesson builds one layer.\n\n```text\nchunks -> text\n```\n",
        "- a list\n\n  continued in the item\n",
    ],
)
def test_fenced_and_list_text_are_accepted(markdown: str) -> None:
    assert not code_block_problems(markdown)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A tiny course: README with a heading, a lesson notebook with a heading, docs/."""
    (tmp_path / "README.md").write_text("# Course\n\n## Course map\n\nText.\n", encoding="utf-8")
    (tmp_path / "notebooks").mkdir()
    cell = {"cell_type": "markdown", "metadata": {}, "source": ["## The problem, live\n"]}
    (tmp_path / "notebooks" / "01-x.ipynb").write_text(json.dumps({"cells": [cell]}), encoding="utf-8")
    (tmp_path / "docs").mkdir()
    return tmp_path


@pytest.mark.parametrize(
    "markdown",
    [
        "[map](../README.md#course-map)",  # GitHub's form
        "[map](../README.md#Course-map)",  # JupyterLab's form
        "[lesson](../notebooks/01-x.ipynb#The-problem,-live)",  # JupyterLab keeps punctuation
        "[lesson](../notebooks/01-x.ipynb#the-problem-live)",
        "[folder](../notebooks/)",
        "[own](#Own-heading)\n\n## Own heading\n",
        "[web](https://html.spec.whatwg.org/multipage/server-sent-events.html#nowhere)",
    ],
)
def test_resolving_links_are_accepted(site: Path, markdown: str) -> None:
    page = site / "docs" / "page.md"
    assert not link_problems(markdown, page, [markdown])


@pytest.mark.parametrize(
    "markdown",
    [
        "[map](../README.md#the-course-map)",  # no such heading
        "[map](../README.md#COURSE-MAP)",  # neither form
        "[missing](../notebooks/02-y.ipynb)",  # no such file
        "[cheat sheet](cheat-sheet.md)",  # not written yet
        "[own](#nowhere)\n\n## Own heading\n",
        "![picture](missing.png)",
    ],
)
def test_broken_links_are_rejected(site: Path, markdown: str) -> None:
    page = site / "docs" / "page.md"
    assert link_problems(markdown, page, [markdown])


@pytest.mark.parametrize(
    "header_text",
    [
        "# 03\n\n[Course map](../README.md#course-map)",
        "# 03\n\n[Cheat sheet](../docs/cheat-sheet.md) · [Where next](11-where-next.ipynb)",
        "# 03\n\n[Cheat sheet](../docs/cheat-sheet.md) · [Glossary](../docs/glossary.md)",
    ],
)
def test_a_header_without_the_aids_is_rejected(header_text: str) -> None:
    assert aid_problems("03-text-to-lines.ipynb", header_text)


def test_a_header_with_the_aids_is_accepted() -> None:
    nav = "[Cheat sheet](../docs/cheat-sheet.md) · [Glossary](../docs/glossary.md)"
    assert not aid_problems("03-x.ipynb", f"# 03\n\n{nav} · [Where next](11-where-next.ipynb#Back)")
    assert not aid_problems("11-where-next.ipynb", f"# 11\n\n{nav}")


@pytest.mark.parametrize(
    "statement, false_output, true_output",
    [
        (
            r'SSEParser().feed(b"data: a\r\n\r\n")',
            "[Event(type='message', data='a\\r', last_event_id='', retry=None)]",
            "[Event(type='message', data='a', last_event_id='', retry=None)]",
        ),
        (r'[e.retry for e in SSEParser().feed(b"retry: +5\ndata: z\n\n")]', "[5]", "[None]"),
        (r'SSEParser().feed(b": ping\n\n")', "[Event(type='message', data='', last_event_id='', retry=None)]", "[]"),
    ],
)
def test_a_false_cheat_sheet_example_is_rejected(statement: str, false_output: str, true_output: str) -> None:
    example = ">>> from sse_course import SSEParser\n>>> {}\n{}\n"
    assert doctest_failures(example.format(statement, false_output), "false.md") == 1
    assert doctest_failures(example.format(statement, true_output), "true.md") == 0


@pytest.mark.parametrize(
    "parts",
    [
        ["# 03\n", "## Lessons learned\n\n- one\n\n## Next\n\n[lesson 04](04-x.ipynb)"],
        [
            "## Further reading\n\n- [the cheat sheet](../docs/cheat-sheet.md)\n\n## Next\n\n[WHATWG](https://html.spec.whatwg.org/)"
        ],
    ],
)
def test_a_lesson_without_further_reading_is_rejected(parts: list[str]) -> None:
    assert further_reading_problems("03-x.ipynb", parts)


def test_a_lesson_with_further_reading_is_accepted() -> None:
    parts = ["# 03\n", "## Further reading\n\n- [WHATWG](https://html.spec.whatwg.org/)\n\n## Next\n"]
    assert not further_reading_problems("03-x.ipynb", parts)
