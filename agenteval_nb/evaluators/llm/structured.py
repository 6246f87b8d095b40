"""Structured output schemas (SPEC §4.7): ``{"type": "json_schema", "json_schema": {name,
description, strict: true, schema}}``, every object with ``additionalProperties: false`` and
all its properties required.

* rubric evaluators: ``rubricScores`` array with ``minItems = maxItems = #visible rubrics``,
  item ``id`` an enum of the configured ids (in order), ``score`` an enum ``[0, 1]``; the ids are
  validated first (:func:`~.scorers.rubricscores.structured_rubric_ids`);
* template providers: ``single_score`` → ``single_score_result`` (score in [0, 1]),
  ``rubric_scores`` → ``rubric_scores_result`` (no enum, no item counts), ``boolean`` →
  ``boolean_result``, ``categorical`` → ``categorical_result`` (category enum = configured
  labels, validated first).
"""

from __future__ import annotations

from typing import Any

from .operators import TurnInput
from .scorers.categorical import category_scores
from .scorers.rubricscores import structured_rubric_ids

__all__ = [
    "boolean_output",
    "categorical_output",
    "json_schema_output",
    "rubric_evaluator_output",
    "rubric_scores_output",
    "single_score_output",
]


def json_schema_output(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The ``response_format`` object for a strict JSON schema."""
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "description": description, "strict": True, "schema": schema},
    }


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _rubric_item(id_schema: dict[str, Any], score_schema: dict[str, Any]) -> dict[str, Any]:
    return _object({"id": id_schema, "score": score_schema, "reason": {"type": "string"}})


def rubric_evaluator_output(name: str, turn: TurnInput) -> dict[str, Any]:
    """Schema of a built-in rubric evaluator (``rubric_response_scores``, …)."""
    ids = structured_rubric_ids(turn.metric)
    items = _rubric_item({"type": "string", "enum": ids}, {"type": "number", "enum": [0, 1]})
    array = {"type": "array", "minItems": len(ids), "maxItems": len(ids), "items": items}
    return json_schema_output(
        name, "One score (0 or 1) with a reason per rubric item.", _object({"rubricScores": array})
    )


_UNIT = {"type": "number", "minimum": 0, "maximum": 1}


def single_score_output(turn: TurnInput) -> dict[str, Any]:
    return json_schema_output(
        "single_score_result",
        "A score between 0 and 1 and a short reason.",
        _object({"score": dict(_UNIT), "reason": {"type": "string"}}),
    )


def rubric_scores_output(turn: TurnInput) -> dict[str, Any]:
    array = {"type": "array", "items": _rubric_item({"type": "string"}, dict(_UNIT))}
    return json_schema_output(
        "rubric_scores_result",
        "A score between 0 and 1 with a reason per rubric item.",
        _object({"rubricScores": array}),
    )


def boolean_output(turn: TurnInput) -> dict[str, Any]:
    return json_schema_output(
        "boolean_result",
        "Whether the evaluation passed and a short reason.",
        _object({"passed": {"type": "boolean"}, "reason": {"type": "string"}}),
    )


def categorical_output(turn: TurnInput) -> dict[str, Any]:
    labels = list(category_scores(turn.metric))
    return json_schema_output(
        "categorical_result",
        "One category label and a short reason.",
        _object({"category": {"type": "string", "enum": labels}, "reason": {"type": "string"}}),
    )
