"""The four rubric judges (SPEC §2, §4.3, §4.7): each scores the agent against the metric's
rubric items, one 0/1 item score with a reason per rubric; the turn score is their mean. They
share the answer format, the scorer ``rubric_scores`` and the schema (:mod:`.rubric_scoring`).

* ``llm_rubric_response``: user prompt, final answer, rubrics; schema ``rubric_response_scores``;
* ``llm_rubric_critic``: + reference answer as the golden truth (needs the expected final
  response); schema ``rubric_critic_scores``;
* ``llm_rubric_reference_critic``: + reference answer as a quality anchor (needs it too);
  schema ``rubric_reference_critic_scores``;
* ``llm_rubric_knowledge_recall``: user prompt, retrieved knowledge, rubrics; schema
  ``rubric_knowledge_recall_scores``.

Errors: ``actuals is empty``; ``llm judge rubrics are required`` (no visible rubric);
``expected final response is required for <evaluator>``; knowledge extraction errors prefixed
``extract knowledge recall: ``.

Retrieved knowledge: for every tool of the turn named ``knowledge_search`` or
``knowledge_search_with_agentic_filter`` whose ``result`` is not null, in call order, the result
is re-read as a knowledge search response ``{documents: [{id?, text, metadata?, score}],
message?}`` — keys matched like Go (case-insensitively), unknown keys dropped, a value of the
wrong type (a string result included) is an error ``parse tool <name> response: json: cannot
unmarshal …`` — and written back as compact JSON (Go's ``json.Marshal``: HTML characters
escaped) followed by ``\\n``. Nothing found ⇒ ``No knowledge search results were found.``

Aggregation: the contract's defaults (majority vote over samples, average over turns).
"""

from __future__ import annotations

from typing import Any, ClassVar

from ...schema import Invocation
from .judge_contract import LLMJudgeEvaluator, PromptMessages, TurnInput
from .judge_text import (
    JudgeOutputError,
    Struct,
    field,
    fill,
    json_kind,
    last,
    marshal,
    rubrics_text,
    section,
    text,
    user_message,
    visible_rubrics,
)
from .operator_registry import OperatorRegistry
from .rubric_scoring import rubric_judge_output, rubric_prompt_sections, score_rubric_scores

__all__ = [
    "KNOWLEDGE_TOOLS",
    "LLMRubricCriticEvaluator",
    "LLMRubricKnowledgeRecallEvaluator",
    "LLMRubricReferenceCriticEvaluator",
    "LLMRubricResponseEvaluator",
    "RubricJudge",
    "retrieved_knowledge",
]

_rubric_prompt_answer = rubric_prompt_sections(section("agent_response"))
_rubric_prompt_reference = rubric_prompt_sections(
    section("agent_response"), section("reference_answer")
)
_rubric_prompt_knowledge = rubric_prompt_sections(section("retrieved_knowledge", "knowledge"))

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
    + _rubric_prompt_answer
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
    + _rubric_prompt_reference
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
    + _rubric_prompt_reference
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
    + _rubric_prompt_knowledge
)


class RubricJudge(LLMJudgeEvaluator):
    """A rubric judge: its prompt template, schema name and whether it needs the reference."""

    schema_name: ClassVar[str]
    template: ClassVar[str]
    needs_reference: ClassVar[bool] = False

    def __init__(self, *, operators: OperatorRegistry | None = None, **stages: Any) -> None:
        stages.setdefault("scorer", score_rubric_scores)
        stages.setdefault("structured_output", self.rubric_schema)
        super().__init__(operators=operators or OperatorRegistry.default(), **stages)

    def rubric_schema(self, turn: TurnInput) -> dict[str, Any]:
        """This judge's structured output (:func:`.rubric_scoring.rubric_judge_output`)."""
        return rubric_judge_output(self.schema_name, turn)

    def prompt_values(self, turn: TurnInput) -> dict[str, str]:
        """The checked values every rubric prompt has (errors in the module doc)."""
        if not turn.actuals:
            raise JudgeOutputError("actuals is empty")
        if not visible_rubrics(turn.metric):
            raise JudgeOutputError("llm judge rubrics are required")
        actual = last(turn.actuals)
        values = {
            "user_prompt": text(actual.user_content if actual else None),
            "rubrics": rubrics_text(turn.metric),
            "agent_response": text(actual.final_response if actual else None),
        }
        if self.needs_reference:
            expected = last(turn.expecteds)
            if expected is None or expected.final_response is None:
                raise JudgeOutputError(f"expected final response is required for {type(self).name}")
            values["reference_answer"] = text(expected.final_response)
        return values

    async def build_messages(self, turn: TurnInput) -> PromptMessages:
        return user_message(fill(self.template, **self.prompt_values(turn)))


class LLMRubricResponseEvaluator(RubricJudge):
    name = "llm_rubric_response"
    description = "LLM judge: share of rubric items the final answer satisfies"
    schema_name = "rubric_response_scores"
    template = RUBRIC_RESPONSE_PROMPT


class LLMRubricCriticEvaluator(RubricJudge):
    name = "llm_rubric_critic"
    description = "LLM judge: rubric items checked against a golden reference answer"
    schema_name = "rubric_critic_scores"
    template = RUBRIC_CRITIC_PROMPT
    needs_reference = True


class LLMRubricReferenceCriticEvaluator(RubricJudge):
    name = "llm_rubric_reference_critic"
    description = "LLM judge: rubric items with the reference answer as a quality anchor"
    schema_name = "rubric_reference_critic_scores"
    template = RUBRIC_REFERENCE_CRITIC_PROMPT
    needs_reference = True


KNOWLEDGE_TOOLS = frozenset({"knowledge_search", "knowledge_search_with_agentic_filter"})
NO_KNOWLEDGE = "No knowledge search results were found."


def _document(raw: Any) -> Struct:
    doc = Struct()
    if raw is not None and not isinstance(raw, dict):
        raise JudgeOutputError(
            f"json: cannot unmarshal {json_kind(raw)} into Go struct field "
            "KnowledgeSearchResponse.documents of type DocumentResult"
        )
    doc_id = field(raw, "id", "string", "documents")
    if doc_id:
        doc["id"] = doc_id
    doc["text"] = field(raw, "text", "string", "documents") or ""
    metadata = field(raw, "metadata", "object", "documents")
    if metadata:
        doc["metadata"] = metadata
    doc["score"] = float(field(raw, "score", "number", "documents") or 0.0)
    return doc


def _response(result: Any) -> Struct:
    if not isinstance(result, dict):
        raise JudgeOutputError(
            f"json: cannot unmarshal {json_kind(result)} into Go value of type "
            "tool.KnowledgeSearchResponse"
        )
    documents = field(result, "documents", "array")
    out = Struct(documents=None if documents is None else [_document(d) for d in documents])
    message = field(result, "message", "string")
    if message:
        out["message"] = message
    return out


def retrieved_knowledge(actual: Invocation | None) -> str:
    """The knowledge text of a turn (rules in the module doc)."""
    parts: list[str] = []
    for tool in (actual.tools if actual else None) or ():
        if tool is None or tool.name not in KNOWLEDGE_TOOLS or tool.result is None:
            continue
        try:
            payload = _response(tool.result)
        except JudgeOutputError as exc:
            detail = str(exc).removeprefix("unmarshal response json: ")
            raise JudgeOutputError(f"parse tool {tool.name} response: {detail}") from None
        parts.append(marshal(payload, escape_html=True) + "\n")
    return "".join(parts) or NO_KNOWLEDGE


class LLMRubricKnowledgeRecallEvaluator(RubricJudge):
    name = "llm_rubric_knowledge_recall"
    description = "LLM judge: is the retrieved knowledge sufficient for each rubric item?"
    schema_name = "rubric_knowledge_recall_scores"
    template = KNOWLEDGE_RECALL_PROMPT

    async def build_messages(self, turn: TurnInput) -> PromptMessages:
        values = self.prompt_values(turn)
        try:
            values["knowledge"] = retrieved_knowledge(last(turn.actuals))
        except JudgeOutputError as exc:
            raise JudgeOutputError(f"extract knowledge recall: {exc}") from None
        return user_message(fill(self.template, **values))
