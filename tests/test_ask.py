"""Ask-first questions: the answer is hidden until a choice, in JupyterLab and on the book's pages."""

from __future__ import annotations

import fold_asks
import pytest

from sse_course.classroom.ask import Question, ask, render_feedback, render_static

QUESTION = Question("Which byte ends the line?", ("`\\r`", "`\\n`", "neither"), 0, "a CR alone ends a line")


def test_no_answer_shows_before_a_choice_and_the_right_one_after() -> None:
    widget = ask(QUESTION.prompt, QUESTION.choices, QUESTION.answer, QUESTION.why)
    assert widget.feedback.value == ""
    widget.choice.index = 1
    assert widget.feedback.value.startswith("<p><b>Not quite.</b> The answer is A")
    widget.choice.index = 0
    assert widget.feedback.value == render_feedback(QUESTION, 0)
    assert "Right." in widget.feedback.value and "a CR alone ends a line" in widget.feedback.value


def test_the_page_without_a_kernel_keeps_the_answer_behind_details() -> None:
    drawn = render_static(QUESTION)
    before, _, inside = drawn.partition("<details>")
    assert "The answer is" not in before and "The answer is A" in inside
    assert "<code>\\r</code>" in before  # backticks become code, the rest is escaped


def test_the_widget_carries_its_static_drawing_for_the_book() -> None:
    bundle = ask("q <b>", ["a", "b"], 1, "w")._repr_mimebundle_()
    assert bundle is not None and "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/html"] == render_static(Question("q <b>", ("a", "b"), 1, "w"))
    assert "q &lt;b&gt;" in bundle["text/html"]


@pytest.mark.parametrize("choices,answer", [(("only",), 0), (("a", "b"), 2), (("a", "b"), -1)])
def test_a_malformed_question_is_refused(choices: tuple[str, ...], answer: int) -> None:
    with pytest.raises(ValueError):
        Question("q", choices, answer, "why")


def test_every_ask_cell_folds_its_source_in_jupyterlab_and_on_the_book() -> None:
    """The call holds the answer: a learner must see the question, not the code."""
    stale = {
        str(path.name): cells for path in fold_asks.notebooks() if (cells := fold_asks.unfolded(path, write=False))
    }
    assert stale == {}, f"run python tools/fold_asks.py: {stale}"


def test_the_fold_check_finds_an_ask_cell_left_open() -> None:
    cell = {"cell_type": "code", "metadata": {}, "source": "from x import ask\nask('q', ['a', 'b'], 0, 'why')"}
    assert fold_asks.is_ask_cell(cell) and not fold_asks.is_folded(cell)
    fold_asks.fold(cell)
    assert fold_asks.is_folded(cell)
    assert not fold_asks.is_ask_cell({"cell_type": "code", "source": "answer = ask('q', ['a', 'b'], 0, 'w')"})
