"""Messages constructors of the four rubric evaluators (SPEC §4.3, §4.7).

All ask for the same JSON answer, read by the ``rubric_scores`` scorer:
``{"rubricScores": [{"id", "score", "reason"}]}``, one item per rubric, in order, exact ids.
All send a structured output (schema with the rubric-id enum, :mod:`..structured`).

* ``llm_rubric_response``: user prompt, final answer, rubrics; schema
  ``rubric_response_scores``;
* ``llm_rubric_critic``: + reference answer (needs the expected final response); schema
  ``rubric_critic_scores``;
* ``llm_rubric_reference_critic``: + reference answer (needs it too); schema
  ``rubric_reference_critic_scores``;
* ``llm_rubric_knowledge_recall``: user prompt, retrieved knowledge, rubrics; schema
  ``rubric_knowledge_recall_scores``.

Errors: ``actuals is empty``; ``llm judge rubrics are required`` (no visible rubric);
``expected final response is required for <evaluator>``; knowledge extraction errors prefixed
``extract knowledge recall: ``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..content import last, rubrics_text, text, visible_rubrics
from ..operators import PromptMessages, TurnInput
from ..responsejson import JudgeOutputError
from ..structured import rubric_evaluator_output
from .knowledge import retrieved_knowledge
from .prompt import fill, section, sections, user_message

__all__ = [
    "KnowledgeRecallConstructor",
    "RubricCriticConstructor",
    "RubricReferenceCriticConstructor",
    "RubricResponseConstructor",
]

_OUTPUT = """\
Answer with a single JSON object and nothing else, shaped like this:
{"rubricScores": [{"id": "<rubric id>", "score": <0 or 1>, "reason": "<one or two sentences>"}]}
Give exactly one item per rubric item, in the order listed, and copy each id exactly as it \
appears before the colon.
"""


def _rubric_sections(*middle: str) -> str:
    """User prompt, ``middle`` sections, rubrics, then the answer format."""
    rubrics = section("rubrics", close_on_new_line=False)
    return sections(section("user_prompt"), *middle, rubrics) + _OUTPUT


_ANSWER_SECTIONS = _rubric_sections(section("agent_response"))
_REFERENCE_SECTIONS = _rubric_sections(section("agent_response"), section("reference_answer"))
_KNOWLEDGE_SECTIONS = _rubric_sections(section("retrieved_knowledge", "knowledge"))

RUBRIC_RESPONSE_PROMPT = (
    """\
You are checking the final answer of an AI agent against a list of rubric items.

Score every rubric item:
- 1 when the final answer satisfies the item, or when the item clearly does not apply to this \
request;
- 0 when the final answer does not satisfy the item, or when the evidence below is not enough \
to tell.
Use only the user prompt and the final answer as evidence. Do not give credit for anything the \
agent did not write.

"""
    + _ANSWER_SECTIONS
)

RUBRIC_CRITIC_PROMPT = (
    """\
You are llm_rubric_critic. You review the final answer of an AI agent, item by item, against \
a rubric, using a reference answer as the golden truth.

Score every rubric item:
- 1 when the final answer meets the item as the reference answer does, or when the item does \
not apply;
- 0 only when the final answer has a material defect for that item: wrong or missing facts, a \
contradiction of the reference, or a step the user needed that is absent.
Do not nitpick: style, length and harmless extra detail are not defects.

"""
    + _REFERENCE_SECTIONS
)

RUBRIC_REFERENCE_CRITIC_PROMPT = (
    """\
You review the final answer of an AI agent against rubric items. A reference answer is given \
as a quality anchor: it shows how grounded, specific and detailed a good answer is. It is not \
a script — the agent may phrase things differently.

Score every rubric item:
- 1 when the final answer reaches the quality of the reference for that item (paraphrases are \
fine), or when the item does not apply;
- 0 when it falls short of the reference on that item: vaguer, less grounded, missing detail \
the reference provides, or adding specific claims (numbers, names, facts) that nothing \
supports.

"""
    + _REFERENCE_SECTIONS
)

KNOWLEDGE_RECALL_PROMPT = (
    """\
You judge the knowledge an AI agent retrieved with its search tool, not its final answer. \
For every rubric item decide whether the retrieved knowledge is relevant and sufficient.

Test for each item: could someone who sees only the retrieved text below write an answer that \
satisfies the item?
- 1 when yes, and the supporting passage is present verbatim or nearly verbatim;
- 0 when the needed information is missing, only hinted at, or must be guessed.

"""
    + _KNOWLEDGE_SECTIONS
)


class _RubricConstructor:
    """Common checks and structured output of the rubric family."""

    evaluator: ClassVar[str]
    schema_name: ClassVar[str]
    template: ClassVar[str]
    needs_reference: ClassVar[bool] = False

    def _checked(self, turn: TurnInput) -> dict[str, str]:
        if not turn.actuals:
            raise JudgeOutputError("actuals is empty")
        if not visible_rubrics(turn.metric):
            raise JudgeOutputError("llm judge rubrics are required")
        actual = last(turn.actuals)
        values = {
            "user_prompt": text(actual.user_content if actual else None),
            "rubrics": rubrics_text(turn.metric),
        }
        if self.needs_reference:
            expected = last(turn.expecteds)
            if expected is None or expected.final_response is None:
                raise JudgeOutputError(f"expected final response is required for {self.evaluator}")
            values["agent_response"] = text(actual.final_response if actual else None)
            values["reference_answer"] = text(expected.final_response)
        return values

    async def construct(self, turn: TurnInput) -> PromptMessages:
        values = self._checked(turn)
        actual = last(turn.actuals)
        values.setdefault("agent_response", text(actual.final_response if actual else None))
        return user_message(fill(self.template, **values))

    def structured_output(self, turn: TurnInput) -> dict[str, Any]:
        return rubric_evaluator_output(self.schema_name, turn)


class RubricResponseConstructor(_RubricConstructor):
    evaluator = "llm_rubric_response"
    schema_name = "rubric_response_scores"
    template = RUBRIC_RESPONSE_PROMPT


class RubricCriticConstructor(_RubricConstructor):
    evaluator = "llm_rubric_critic"
    schema_name = "rubric_critic_scores"
    template = RUBRIC_CRITIC_PROMPT
    needs_reference = True


class RubricReferenceCriticConstructor(_RubricConstructor):
    evaluator = "llm_rubric_reference_critic"
    schema_name = "rubric_reference_critic_scores"
    template = RUBRIC_REFERENCE_CRITIC_PROMPT
    needs_reference = True


class KnowledgeRecallConstructor(_RubricConstructor):
    evaluator = "llm_rubric_knowledge_recall"
    schema_name = "rubric_knowledge_recall_scores"
    template = KNOWLEDGE_RECALL_PROMPT

    async def construct(self, turn: TurnInput) -> PromptMessages:
        values = self._checked(turn)
        try:
            values["knowledge"] = retrieved_knowledge(last(turn.actuals))
        except JudgeOutputError as exc:
            raise JudgeOutputError(f"extract knowledge recall: {exc}") from None
        return user_message(fill(self.template, **values))
