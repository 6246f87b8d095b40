"""The inferences of a batch job: recorded once, replayed by every later pass.

Rules:

* the first pass runs each case's inference in this process (:class:`RecordingExecutor`, the
  engine's own :func:`~agenteval_nb.engine.inference.infer_case`, agents and callbacks as
  usual) and keeps its :class:`InferenceResult` under ``(run id, eval id)``; the engine then
  evaluates it here, as it does for any executor that returns no result;
* later passes (planning rounds, the final scoring, a new process) replay them
  (:class:`ReplayExecutor`): the agent is never called again; a case with no recorded inference
  is an error naming it;
* on disk: one JSON line per case inference, ``{"run": N, "evalId": …, "inference": {…}}``,
  invocations in their wire form (:func:`write_inferences` / :func:`read_inferences`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine.executor import CaseJob
from ..engine.inference import InferenceResult, infer_case
from ..errors import FormatError
from ..evaluators.base import EvaluationContext
from ..io import write_text_atomic
from ..schema import EvalCase, EvalStatus, Invocation

InferenceKey = tuple[int, str]
"""``(run id, eval id)``."""


@dataclass(slots=True)
class _Runner:
    job: CaseJob
    inferences: dict[InferenceKey, InferenceResult]
    record: bool

    async def run(self, case: EvalCase, session_id: str) -> tuple[InferenceResult, None]:
        key = (self.job.run_id, case.eval_id)
        if self.record:
            inference = await infer_case(case, session_id, self.job.agents)
            self.inferences[key] = inference
            return inference, None
        found = self.inferences.get(key)
        if found is None:
            raise LookupError(
                f"the batch job recorded no inference of case {case.eval_id!r} in run "
                f"{self.job.run_id}"
            )
        return found, None

    async def close(self) -> None:
        return None


@dataclass(slots=True)
class RecordingExecutor:
    """Infers each case here and keeps the inference (module rules)."""

    inferences: dict[InferenceKey, InferenceResult] = field(default_factory=dict)

    def in_flight(self, default: int) -> int:
        return default

    async def open(self, job: CaseJob, context: EvaluationContext) -> _Runner:
        return _Runner(job, self.inferences, record=True)


@dataclass(slots=True)
class ReplayExecutor:
    """Hands each case its recorded inference (module rules)."""

    inferences: Mapping[InferenceKey, InferenceResult]

    def in_flight(self, default: int) -> int:
        return default

    async def open(self, job: CaseJob, context: EvaluationContext) -> _Runner:
        return _Runner(job, dict(self.inferences), record=False)


def _invocations(items: list[Invocation] | None) -> list[Any] | None:
    if items is None:
        return None
    return [json.loads(inv.model_dump_json(by_alias=True, exclude_none=True)) for inv in items]


def _inference_dict(inference: InferenceResult) -> dict[str, Any]:
    return {
        "evalCaseId": inference.eval_case_id,
        "sessionId": inference.session_id,
        "userId": inference.user_id,
        "status": str(inference.status),
        "inferences": _invocations(inference.inferences),
        "expectedInferences": _invocations(inference.expected_inferences),
        "errorMessage": inference.error_message,
    }


def write_inferences(path: Path, inferences: Mapping[InferenceKey, InferenceResult]) -> None:
    """All inferences, one JSON line each, written atomically."""
    lines = (
        json.dumps({"run": run, "evalId": eval_id, "inference": _inference_dict(inference)}) + "\n"
        for (run, eval_id), inference in sorted(inferences.items())
    )
    write_text_atomic(path, "".join(lines))


def read_inferences(path: Path) -> dict[InferenceKey, InferenceResult]:
    """The inferences :func:`write_inferences` wrote; a bad line is a :class:`FormatError`
    naming the file and line."""
    out: dict[InferenceKey, InferenceResult] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            data = item["inference"]
            expected = data.get("expectedInferences")
            inference = InferenceResult(
                eval_case_id=data["evalCaseId"],
                session_id=data["sessionId"],
                user_id=data.get("userId"),
                status=EvalStatus(data["status"]),
                inferences=[
                    Invocation.model_validate_json(json.dumps(i)) for i in data["inferences"]
                ],
                expected_inferences=None
                if expected is None
                else [Invocation.model_validate_json(json.dumps(i)) for i in expected],
                error_message=data.get("errorMessage"),
            )
            out[(int(item["run"]), str(item["evalId"]))] = inference
        except (KeyError, TypeError, ValueError) as exc:
            raise FormatError(
                str(path),
                "$",
                f"a recorded inference {{run, evalId, inference}} ({type(exc).__name__}: {exc})",
                line=number,
            ) from None
    return out
