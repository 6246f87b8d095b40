"""What judge prompts read from invocations and metrics (SPEC §4.3 common helpers).

* text of a message = its ``content`` (``""`` when absent);
* a rubric is *visible* iff it has ``content`` (even with empty text); invisible rubrics are
  ignored everywhere;
* ``rubrics_text`` = ``"<id>: <content.text>\\n"`` per visible rubric, in order (an empty id
  gives ``": text"``);
* ``go_trim`` strips what Go's ``strings.TrimSpace`` strips (Unicode white space), which is
  not exactly what ``str.strip`` strips.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...schema import EvalMetric, Invocation, Message, Rubric, message_text

__all__ = [
    "go_trim",
    "judge_criterion_rubrics",
    "last",
    "message_text",
    "rubrics_text",
    "visible_rubrics",
]

GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000"
)


def go_trim(text: str | None) -> str:
    """``strings.TrimSpace``."""
    return (text or "").strip(GO_SPACE)


def judge_criterion_rubrics(metric: EvalMetric | None) -> list[Rubric | None]:
    """The metric's ``criterion.llmJudge.rubrics`` (``[]`` when absent)."""
    if metric is None or metric.criterion is None or metric.criterion.llm_judge is None:
        return []
    return list(metric.criterion.llm_judge.rubrics or [])


def visible_rubrics(metric: EvalMetric | None) -> list[Rubric]:
    """Rubrics with ``content``, in configured order."""
    return [r for r in judge_criterion_rubrics(metric) if r is not None and r.content is not None]


def rubrics_text(metric: EvalMetric | None) -> str:
    """``"<id>: <text>\\n"`` for every visible rubric."""
    return "".join(
        f"{rubric.id or ''}: {(rubric.content.text if rubric.content else None) or ''}\n"
        for rubric in visible_rubrics(metric)
    )


def last(invocations: Sequence[Invocation | None]) -> Invocation | None:
    """The last invocation of a prefix (``None`` for an empty list)."""
    return invocations[-1] if invocations else None


def text(message: Message | None) -> str:
    """Alias of :func:`message_text` for brevity in prompt builders."""
    return message_text(message)
