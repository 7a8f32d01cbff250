"""Ask first: the learner commits to an answer before any output shows it.

One question is data (:class:`Question`); two pure functions draw it
(:func:`render_static` for a page with no kernel, :func:`render_feedback` after
a choice), and a thin widget (:class:`Ask`) wraps them in JupyterLab. The
widget's display bundle carries the static drawing as ``text/html`` too, so
the book shows the same question, with its answer in a ``<details>`` block,
without a kernel. The cell after each question demonstrates the answer.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ipywidgets import HTML, Layout, RadioButtons, VBox


@dataclass(frozen=True)
class Question:
    """A prompt, its choices, the index of the right one, and why it is right."""

    prompt: str
    choices: tuple[str, ...]
    answer: int
    why: str

    def __post_init__(self) -> None:
        if len(self.choices) < 2:
            raise ValueError("a question needs at least two choices")
        if not 0 <= self.answer < len(self.choices):
            raise ValueError(f"answer {self.answer} is not the index of a choice (0 to {len(self.choices) - 1})")


def inline(text: str) -> str:
    """Plain text as HTML, with `backticks` drawn as code (bytes and names read better so)."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def render_static(question: Question) -> str:
    """The question as HTML that needs no kernel: the answer waits behind ``<details>``."""
    items = "".join(f"<li>{inline(choice)}</li>" for choice in question.choices)
    return (
        '<div class="ask-first">'
        f"<p><b>Ask first.</b> {inline(question.prompt)}</p>"
        f'<ol type="A">{items}</ol>'
        "<details><summary>Decide, then open the answer</summary>"
        f"<p>{_answer(question)}</p></details></div>"
    )


def render_feedback(question: Question, chosen: int | None) -> str:
    """What the learner sees after choosing ``chosen`` (nothing before a choice)."""
    if chosen is None:
        return ""
    verdict = "Right." if chosen == question.answer else "Not quite."
    return f"<p><b>{verdict}</b> {_answer(question)}</p>"


def _answer(question: Question) -> str:
    letter = chr(ord("A") + question.answer)
    return f"The answer is {letter}, {inline(question.choices[question.answer])}: {inline(question.why)}"


class Ask(VBox):
    """Choices as radio buttons; the answer and why appear once one is chosen.

    ``choice`` and ``feedback`` are attributes so tests can drive the widget:
    set ``choice.index``, read ``feedback.value``.
    """

    def __init__(self, question: Question) -> None:
        self.question = question
        prompt = HTML(f"<b>Ask first.</b> {inline(question.prompt)}")
        self.choice = RadioButtons(options=list(question.choices), index=None, layout=Layout(width="auto"))
        self.feedback = HTML("")
        super().__init__([prompt, self.choice, self.feedback])
        self.choice.observe(self._show, names="index")

    def _show(self, _change: Any = None) -> None:
        self.feedback.value = render_feedback(self.question, self.choice.index)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        """The widget, plus its static drawing for places with no widget manager (the book)."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            bundle["text/html"] = render_static(self.question)
        return bundle


def ask(prompt: str, choices: Sequence[str], answer: int, why: str) -> Ask:
    """A question the learner answers before running the next cell."""
    return Ask(Question(prompt, tuple(choices), answer, why))
