"""A turn without content is never scored as a pass on a text metric.

Turns built from traces or captured traffic carry the gaps found in ``invocation.source``;
:func:`agenteval_nb.schema.evalset.text_gap_reason` says when those leave the turn's text
unscoreable (content not captured, redacted or stored elsewhere; no final response). For a
metric whose evaluator reads text — every evaluator but those declaring ``reads_text = False``
(the tool trajectory: names and ids survive without content) — such a turn is
``not_evaluated`` with score 0 and the reason naming the gap; the evaluator scores the other
turns (its overall result stands for them), and when no turn is left the metric is
``not_evaluated`` with score 0. Turns without a gap flag (every Go-written file) are scored as
before: this rule changes nothing for them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ..evaluators.base import EvaluateResult, Evaluator, PerInvocationResult
from ..schema import EvalMetricResultDetails, EvalStatus, Invocation, text_gap_reason

Score = Callable[[list[Invocation], list[Invocation]], Awaitable[EvaluateResult]]
"""The evaluator of one metric, bound to everything but the turns."""


def reads_text(evaluator: Evaluator) -> bool:
    """Whether the evaluator reads turn text (default yes: a user evaluator may)."""
    return bool(getattr(evaluator, "reads_text", True))


async def score_scoreable_turns(
    evaluator: Evaluator, actuals: list[Invocation], expecteds: list[Invocation], score: Score
) -> EvaluateResult:
    """``score`` over the turns whose text can be scored; the others not_evaluated (the
    module's rule)."""
    reasons = [text_gap_reason(turn) for turn in actuals]
    if not any(reasons) or not reads_text(evaluator):
        return await score(actuals, expecteds)
    keep = [i for i, reason in enumerate(reasons) if reason is None]
    scored: dict[int, PerInvocationResult] = {}
    result = EvaluateResult(0.0, EvalStatus.NOT_EVALUATED)
    if keep:
        result = await score([actuals[i] for i in keep], [expecteds[i] for i in keep])
        scored = dict(zip(keep, result.per_invocation_results, strict=False))
    turns = []
    for i, (actual, expected) in enumerate(zip(actuals, expecteds, strict=True)):
        reason = reasons[i]
        if reason is None and i in scored:
            turns.append(scored[i])
            continue
        text = f"not evaluated: {reason}"
        turns.append(
            PerInvocationResult(
                actual_invocation=actual,
                expected_invocation=expected,
                score=0.0,
                status=EvalStatus.NOT_EVALUATED,
                details=EvalMetricResultDetails(reason=text, score=0.0),
            )
        )
    return EvaluateResult(result.overall_score, result.overall_status, turns)
