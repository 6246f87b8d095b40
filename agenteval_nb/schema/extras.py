"""What agenteval_nb stores beyond the Go format, under extra keys that Go readers ignore.

All of it lives in ``EvalMetricResultDetails`` of per-invocation metric results (the overall
result of a metric repeats nothing). Keys, camelCase on the wire:

``judge`` (:class:`JudgeRecord`)
    the judgement of one turn by an LLM evaluator: judge model, the rendered prompt messages,
    every sample (raw answer, parsed score/status/reason, chosen by the samples aggregator,
    cache hit, usage), and whether the offline heuristic judge produced it.
``verifier`` (:class:`VerifierRecord`)
    for ``llm_verifier_pairwise``: per sample, the label distribution of candidate A and B, and
    the swapped-order scoring when position-bias control ran.
``panel`` (:class:`PanelRecord`)
    when a judge panel scored the turn: the vote rule, the configured size, every judge's vote
    (pass, fail or abstain, with its score, reason or error). The judges' samples are in
    ``judge.samples``, each naming its judge.

Use :func:`judge_record` / :func:`verifier_record` / :func:`panel_record` to read them from a
details object (they return ``None`` when absent, e.g. for deterministic metrics or Go-written
files).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from .base import WireModel
from .result import EvalMetricResultDetails, RubricScore

JUDGE_KEY = "judge"
VERIFIER_KEY = "verifier"
PANEL_KEY = "panel"


class PromptMessage(WireModel):
    role: str = ""
    content: str = ""


class JudgeSample(WireModel):
    """One judge sample before aggregation; ``judge`` names the panel member that answered
    (absent for a lone judge)."""

    judge: str | None = None
    sample_index: int = 0
    score: float | None = None
    status: str | None = None
    reason: str | None = None
    rubric_scores: list[RubricScore] | None = None
    chosen: bool = False
    raw: str | None = None
    error: str | None = None
    cache_hit: bool = False
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    reasoning_tokens: int | None = None
    latency_ms: float | None = None
    cost_usd: float | None = None
    batch: bool | None = None
    """True when answered through the provider's batch API (``cost_usd`` at the batch
    price); absent otherwise."""


class JudgeRecord(WireModel):
    """Everything about one turn's judgement (see module docstring)."""

    evaluator: str | None = None
    model: str | None = None
    heuristic: bool = False
    prompt: list[PromptMessage] | None = None
    extra_calls: list[JudgeSample] | None = None
    """Calls made before the scored samples (the hallucination segmentation call)."""
    samples: list[JudgeSample] | None = None


class LabelDistributionRecord(WireModel):
    """One candidate's distribution over the label scale (A best … T worst)."""

    labels: list[str] | None = None
    probs: list[float] | None = None
    expected_score: float | None = None
    sampled_label: str | None = None
    valid_mass: float | None = None
    entropy: float | None = None
    from_logprobs: bool = True


class VerifierSample(WireModel):
    judge: str | None = None
    """The panel member whose sample this is (absent for a lone judge)."""
    sample_index: int = 0
    score: float | None = None
    a: LabelDistributionRecord | None = None
    b: LabelDistributionRecord | None = None
    swapped_score: float | None = None
    """Score with the candidates swapped, mapped back to A's point of view (1 − raw score)."""
    swap_gap: float | None = None
    """``score − swapped_score``: how much the order of the candidates moved the score."""


class VerifierRecord(WireModel):
    samples: list[VerifierSample] | None = None
    swap_mode: str | None = None
    """``None`` (reference behaviour), ``"report"`` or ``"mean"``."""
    pooled: VerifierSample | None = None
    """A panel's pooled distributions (the mean of its judges' chosen samples) and score."""


class PanelVote(WireModel):
    """One panel member's reduced verdict on a turn: ``pass``, ``fail`` or ``abstain``."""

    judge: str = ""
    model: str | None = None
    vote: str = ""
    score: float | None = None
    reason: str | None = None
    error: str | None = None
    """Why the judge abstained: its call or parse error (absent when it voted)."""
    n_samples: int = 0
    prompt: list[PromptMessage] | None = None
    """This judge's prompt when it differs from ``JudgeRecord.prompt`` (hallucinations)."""


class PanelRecord(WireModel):
    """How a panel decided a turn: the rule, the configured size, the quorum, every vote
    (sorted by judge) and the judges whose votes make the score."""

    vote: str = ""
    size: int = 0
    min_votes: int | None = None
    status: str | None = None
    votes: list[PanelVote] | None = None
    counted: list[str] | None = None


def _extra(details: EvalMetricResultDetails | None, key: str) -> Any:
    if details is None or not details.model_extra:
        return None
    return details.model_extra.get(key)


def judge_record(details: EvalMetricResultDetails | None) -> JudgeRecord | None:
    """The judge record stored in ``details`` (loaded files hold plain dicts), or ``None``."""
    value = _extra(details, JUDGE_KEY)
    if value is None or isinstance(value, JudgeRecord):
        return value
    try:
        return JudgeRecord.model_validate(value)
    except ValidationError:
        return None


def verifier_record(details: EvalMetricResultDetails | None) -> VerifierRecord | None:
    """The verifier record stored in ``details``, or ``None``."""
    value = _extra(details, VERIFIER_KEY)
    if value is None or isinstance(value, VerifierRecord):
        return value
    try:
        return VerifierRecord.model_validate(value)
    except ValidationError:
        return None


def panel_record(details: EvalMetricResultDetails | None) -> PanelRecord | None:
    """The panel record stored in ``details``, or ``None`` (a lone judge, a Go file)."""
    value = _extra(details, PANEL_KEY)
    if value is None or isinstance(value, PanelRecord):
        return value
    try:
        return PanelRecord.model_validate(value)
    except ValidationError:
        return None


def with_extras(
    details: EvalMetricResultDetails, **extras: WireModel | None
) -> EvalMetricResultDetails:
    """``details`` with extra keys set (``judge=JudgeRecord(...)``, ``verifier=...``)."""
    for key, value in extras.items():
        if value is not None:
            setattr(details, key, value)
    return details
