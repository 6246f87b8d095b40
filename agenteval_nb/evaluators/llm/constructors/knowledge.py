"""Retrieved knowledge of a turn, for ``llm_rubric_knowledge_recall`` (SPEC §4.3).

For every tool of the turn named ``knowledge_search`` or ``knowledge_search_with_agentic_filter``
whose ``result`` is not null, in call order: the result is re-read as a knowledge search
response ``{documents: [{id?, text, metadata?, score}], message?}`` — keys matched like Go
(case-insensitively), unknown keys dropped, a value of the wrong type (a string result
included) is an error ``parse tool <name> response: json: cannot unmarshal …`` — and written back
as compact JSON (Go's ``json.Marshal``: HTML characters escaped) followed by ``\\n``. Nothing
found ⇒ ``No knowledge search results were found.``
"""

from __future__ import annotations

from typing import Any

from ....schema import Invocation
from ..gojson import Struct, marshal
from ..responsejson import JudgeOutputError, field, json_kind

__all__ = ["KNOWLEDGE_TOOLS", "NO_KNOWLEDGE", "retrieved_knowledge"]

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
