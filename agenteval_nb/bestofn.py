"""Best-of-N: pick the best of several candidate responses with the evaluation metrics (SPEC §5.3).

Candidates are final-response strings, :class:`~agenteval_nb.schema.Invocation` objects, or
exception instances (an attempt that failed); ``None`` entries are skipped. A candidate's index
is its position in the list.

**Pairwise** (default; the ``llm_verifier_pairwise`` metric is made for it): round robin, every
pair ``(i, j)`` with ``i < j`` in candidate order — ``n(n−1)/2`` comparisons for ``n``
candidates:

* both passed ⇒ a trace-mode case ``pair-<i>-<j>`` with ``actualConversation=[i]`` (Candidate A)
  and ``conversation=[j]`` (Candidate B), evaluated with every metric; pair score = mean of the
  case's overall metric scores, skipping ``not_evaluated`` and NaN; no score (e.g. the case
  failed) ⇒ the pair is ignored. ``score > 0.5`` ⇒ i wins by ``score − 0.5``; ``< 0.5`` ⇒ j wins
  by ``0.5 − score``; ``0.5`` ⇒ tie;
* exactly one failed ⇒ the other wins by 0.5 without evaluation (a *status win*);
* both failed ⇒ nothing is recorded.

A win adds 1 to the winner's wins and the margin to its net margin, subtracts the margin from the
loser's net margin, and counts a comparison for both; a tie only counts the comparison. Winner
among candidates with at least one comparison: most wins, then larger net signed margin, then
lower index; none ⇒ ``bestofn: no pairwise comparison result``. A single candidate is returned
when it did not fail, else ``bestofn: no passing candidate``. ``require_passing`` is rejected.

**Pointwise**: each non-failed candidate is a trace-mode case ``attempt-<i>`` (``conversation =
[i]``); its score = mean overall metric score (skipping ``not_evaluated`` and NaN); best = higher
score, then ``passed`` case status, then lower index; ``require_passing`` skips cases that did
not pass; none ⇒ ``bestofn: no passing candidate``. ``llm_verifier_pairwise`` metrics are switched
to their pointwise mode (``extension.verifier.mode``) unless a mode is set.

Argument errors (checked before anything is evaluated, in :func:`check_arguments`; each names
the argument and what was expected): ``TypeError`` for a wrong type — ``candidates`` given as one
bare candidate (a string, an Invocation …) instead of a list, a candidate that is not a string,
an Invocation, an invocation mapping, an exception or ``None``, a ``mode`` / ``app_name`` that is
not a string, a non-bool ``require_passing``, a context message that is not a message;
``ValueError`` for a wrong value — ``bestofn: unsupported selection mode "x"``, ``bestofn: eval
metrics are empty``, a metric without a registered evaluator, pairwise selection without a
metric that compares two candidates (``llm_verifier_pairwise`` or a custom evaluator; the other
built-ins score one candidate at a time: use ``mode="pointwise"``), ``bestofn: candidate
attempts are empty``, ``bestofn: no usable candidate attempts``, ``bestofn: require passing
candidate is not supported in pairwise selection mode``, an empty ``app_name``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .api import evaluate_async
from .evalrun import EvalRun
from .evaluators.registry import Registry
from .io import load_metrics
from .schema import EvalCaseResult, EvalMetric, EvalStatus, Invocation, Message
from .syncio import sync_twin

__all__ = ["BestOfNError", "BestOfNResult", "best_of_n", "best_of_n_async"]

MODES = ("pairwise", "pointwise")
_COMPARISON_COLUMNS = ("left", "right", "score", "winner", "margin", "status", "error")


class BestOfNError(RuntimeError):
    """No candidate could be selected (``bestofn: …``)."""


@dataclass
class BestOfNResult:
    """The chosen candidate and how it was chosen.

    ``index``: position of the winner in the candidate list. ``comparisons`` (pairwise): one row
    per pair — ``left``, ``right``, ``score`` (pair score, NaN without evaluation), ``winner``
    (index, ``<NA>`` for a tie or no result), ``margin``, ``status`` (``win``, ``tie``,
    ``status_win``, ``both_failed``, ``no_result``), ``error``. ``candidates``: pairwise —
    ``index``, ``wins``, ``net_margin``, ``comparisons``, ``failed``, ``error``; pointwise —
    ``index``, ``score``, ``status``, ``failed``, ``error``. ``n_comparisons``: pairs considered
    (``n(n−1)/2``) in pairwise mode, candidates evaluated in pointwise mode. ``run``: the
    :class:`~agenteval_nb.EvalRun` of the evaluation (``None`` when nothing was evaluated).
    """

    index: int
    mode: str
    comparisons: pd.DataFrame
    candidates: pd.DataFrame
    n_comparisons: int
    run: EvalRun | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        return (
            f"BestOfNResult(mode={self.mode!r}, index={self.index}, "
            f"candidates={len(self.candidates)}, n_comparisons={self.n_comparisons})"
        )


@dataclass
class _Candidate:
    index: int
    invocation: Invocation | None
    error: str | None = None
    wins: int = 0
    margin: float = 0.0
    comparisons: int = 0

    @property
    def failed(self) -> bool:
        return self.error is not None

    def record_win(self, loser: _Candidate, margin: float) -> None:
        self.wins += 1
        self.margin += margin
        self.comparisons += 1
        loser.margin -= margin
        loser.comparisons += 1

    def record_tie(self, other: _Candidate) -> None:
        self.comparisons += 1
        other.comparisons += 1


_CANDIDATE_KINDS = "a final-response string, an Invocation, an invocation mapping or an exception"
VERIFIER_EVALUATOR = "llm_verifier_pairwise"


def _message(value: Any, what: str, role: str | None = None) -> Message:
    """``value`` as a :class:`Message` (a string only when ``role`` is given)."""
    if isinstance(value, Message):
        return value
    if isinstance(value, str) and role is not None:
        return Message(role=role, content=value)
    if isinstance(value, Mapping):
        try:
            return Message.model_validate(dict(value))
        except ValueError as exc:
            raise ValueError(f"bestofn: {what} is not a valid message: {exc}") from None
    kinds = "a string, a Message or a message mapping" if role else "a Message or a mapping"
    raise TypeError(f"bestofn: {what} must be {kinds}, got {type(value).__name__}")


def _candidate_list(candidates: Any) -> list[Any]:
    """The candidates as a list; one bare candidate (or a non-iterable) is a ``TypeError``."""
    if isinstance(candidates, str | bytes | Mapping | Invocation | BaseException):
        raise TypeError(
            f"bestofn: candidates must be a list of candidates ({_CANDIDATE_KINDS} each), got a "
            f"single {type(candidates).__name__}: wrap it in a list"
        )
    try:
        return list(candidates)
    except TypeError:
        raise TypeError(
            f"bestofn: candidates must be a list of candidates ({_CANDIDATE_KINDS} each), "
            f"got {type(candidates).__name__}"
        ) from None


def _check_metrics(metrics: list[EvalMetric], mode: str, registry: Registry) -> None:
    """Every metric has an evaluator. Pairwise selection evaluates every pair with all metrics
    (SPEC §5.3); without a metric that compares two candidates that is rarely what is meant,
    so it warns."""
    if not metrics:
        raise ValueError(
            "bestofn: eval metrics are empty: metrics must list at least one metric "
            f'(for pairwise selection an "{VERIFIER_EVALUATOR}" metric)'
        )
    for metric in metrics:
        if registry.lookup(metric) is None:
            raise ValueError(
                f"bestofn: metric {metric.metric_name!r} has no evaluator registered as "
                f"{metric.evaluator_key!r} (metrics must name registered evaluators)"
            )
    if mode != "pairwise":
        return
    builtins = set(Registry.default().names())
    comparing = [
        m
        for m in metrics
        if m.evaluator_key == VERIFIER_EVALUATOR or m.evaluator_key not in builtins
    ]
    if not comparing:
        named = ", ".join(f"{m.metric_name} ({m.evaluator_key})" for m in metrics)
        warnings.warn(
            "bestofn: pairwise selection without a verifier metric (evaluatorName "
            f'"{VERIFIER_EVALUATOR}" or a custom evaluator comparing Candidate A with '
            f"Candidate B): {named} score the left candidate against the right one as its "
            'reference, as the reference framework does; mode="pointwise" scores each alone',
            stacklevel=4,
        )


def check_arguments(
    user_content: Any,
    candidates: Any,
    metrics: Any,
    *,
    mode: Any,
    registry: Registry | None,
    require_passing: Any,
    context_messages: Any,
    app_name: Any,
) -> tuple[Message, list[_Candidate], list[EvalMetric], list[Message]]:
    """Validate every argument (module doc); returns the user message, the candidate pool,
    the metrics and the context messages."""
    if not isinstance(mode, str):
        raise TypeError(
            f'bestofn: mode must be "pairwise" or "pointwise", got {type(mode).__name__}'
        )
    if mode not in MODES:
        raise ValueError(
            f'bestofn: unsupported selection mode "{mode}": mode must be "pairwise" or "pointwise"'
        )
    if not isinstance(require_passing, bool):
        raise TypeError(
            f"bestofn: require_passing must be True or False, got {type(require_passing).__name__}"
        )
    if mode == "pairwise" and require_passing:
        raise ValueError(
            "bestofn: require passing candidate is not supported in pairwise selection mode"
        )
    if not isinstance(app_name, str):
        raise TypeError(f"bestofn: app_name must be a string, got {type(app_name).__name__}")
    if not app_name.strip():
        raise ValueError("bestofn: app_name must not be empty")
    user = _message(user_content, "user_content", role="user")
    pool = _candidates(_candidate_list(candidates), user)
    if context_messages is not None and isinstance(context_messages, str | bytes | Mapping):
        raise TypeError(
            "bestofn: context_messages must be a list of messages, got a single "
            f"{type(context_messages).__name__}"
        )
    contexts = [_message(m, f"context_messages[{i}]") for i, m in enumerate(context_messages or ())]
    empty = isinstance(metrics, Sequence) and not isinstance(metrics, str) and not metrics
    metric_list: list[EvalMetric] = [] if metrics is None or empty else load_metrics(metrics)
    _check_metrics(metric_list, mode, registry or Registry.default())
    return user, pool, metric_list, contexts


def _candidates(raw: list[Any], user: Message) -> list[_Candidate]:
    if not raw:
        raise ValueError(
            f"bestofn: candidate attempts are empty: candidates must hold at least one "
            f"candidate ({_CANDIDATE_KINDS})"
        )
    out: list[_Candidate] = []
    for index, item in enumerate(raw):
        if item is None:
            continue
        if isinstance(item, BaseException):
            out.append(_Candidate(index, None, str(item) or type(item).__name__))
            continue
        if isinstance(item, str):
            inv = Invocation(
                invocation_id=f"attempt-{index}",
                user_content=user,
                final_response=Message(role="assistant", content=item),
            )
        elif isinstance(item, Invocation):
            inv = item.model_copy(deep=True)
        elif isinstance(item, Mapping):
            try:
                inv = Invocation.model_validate(dict(item))
            except ValueError as exc:
                raise ValueError(
                    f"bestofn: candidates[{index}] is not a valid invocation mapping: {exc}"
                ) from None
        else:
            raise TypeError(
                f"bestofn: candidates[{index}] must be {_CANDIDATE_KINDS} (or None), "
                f"got {type(item).__name__}"
            )
        if inv.user_content is None:
            inv.user_content = user
        if not inv.invocation_id:
            inv.invocation_id = f"attempt-{index}"
        out.append(_Candidate(index, inv))
    if not out:
        raise ValueError("bestofn: no usable candidate attempts: every candidate is None")
    return out


def _case_score(result: EvalCaseResult | None) -> float | None:
    """Mean overall metric score without ``not_evaluated`` and NaN (``None`` when empty)."""
    scores = [
        m.score if m.score is not None else 0.0
        for m in (result.overall_eval_metric_results or [] if result else [])
        if m is not None
        and m.eval_status != EvalStatus.NOT_EVALUATED
        and not (m.score is not None and math.isnan(m.score))
    ]
    return sum(scores) / len(scores) if scores else None


def _case(
    eval_id: str,
    conversation: list[Invocation],
    actual: list[Invocation] | None,
    app_name: str,
    context_messages: list[Message] | None,
) -> dict[str, Any]:
    case: dict[str, Any] = {
        "evalId": eval_id,
        "evalMode": "trace",
        "sessionInput": {"appName": app_name, "userId": "bestofn"},
        "conversation": [inv.to_wire() for inv in conversation],
    }
    if actual is not None:
        case["actualConversation"] = [inv.to_wire() for inv in actual]
    if context_messages:
        case["contextMessages"] = [m.to_wire() for m in context_messages]
    return case


def _pointwise_metrics(metrics: list[EvalMetric]) -> list[EvalMetric]:
    """Verifier metrics switched to pointwise mode (unless a mode is configured)."""
    out = []
    for metric in metrics:
        extension = metric.extension if isinstance(metric.extension, Mapping) else None
        verifier = (extension or {}).get("verifier")
        if metric.evaluator_key != "llm_verifier_pairwise" or (
            isinstance(verifier, Mapping) and verifier.get("mode")
        ):
            out.append(metric)
            continue
        new_verifier = {**(verifier if isinstance(verifier, Mapping) else {}), "mode": "pointwise"}
        out.append(
            metric.model_copy(update={"extension": {**(extension or {}), "verifier": new_verifier}})
        )
    return out


async def best_of_n_async(
    user_content: str | Message | Mapping[str, Any],
    candidates: Sequence[Any],
    metrics: Any,
    *,
    mode: str = "pairwise",
    judge: Any = None,
    registry: Any = None,
    cache: Any = True,
    require_passing: bool = False,
    context_messages: Sequence[Message | Mapping[str, Any]] | None = None,
    app_name: str = "bestofn",
    **kwargs: Any,
) -> BestOfNResult:
    """Select the best of ``candidates`` for ``user_content`` with ``metrics`` (awaitable).

    ``mode``: ``"pairwise"`` (round robin, ``n(n−1)/2`` pair evaluations for ``n`` candidates,
    meant for ``llm_verifier_pairwise``) or ``"pointwise"`` (one evaluation per candidate;
    ``require_passing`` keeps passing candidates only). ``context_messages`` go to every
    evaluated case; ``app_name`` names it. ``judge`` / ``registry`` / ``cache`` and other
    keywords are those of :func:`agenteval_nb.evaluate_async`. Rules in the module doc.
    """
    _user, pool, metric_list, contexts = check_arguments(
        user_content,
        candidates,
        metrics,
        mode=mode,
        registry=registry,
        require_passing=require_passing,
        context_messages=context_messages,
        app_name=app_name,
    )
    options = {"judge": judge, "registry": registry, "cache": cache, "app_name": app_name, **kwargs}
    if mode == "pairwise":
        return await _pairwise(pool, metric_list, contexts, options)
    return await _pointwise(
        pool, _pointwise_metrics(metric_list), contexts, require_passing, options
    )


async def _evaluate(
    cases: list[dict[str, Any]], metrics: list[EvalMetric], options: dict[str, Any]
) -> EvalRun:
    evalset = {"evalSetId": "bestofn", "evalCases": cases}
    options = dict(options)
    options.setdefault("progress", False)
    return await evaluate_async(evalset, metrics, **options)


def _results_by_id(run: EvalRun | None) -> dict[str, EvalCaseResult]:
    if run is None:
        return {}
    return {r.eval_id or "": r for r in run.result.eval_case_results or [] if r is not None}


async def _pairwise(
    pool: list[_Candidate],
    metrics: list[EvalMetric],
    contexts: list[Message],
    options: dict[str, Any],
) -> BestOfNResult:
    if len(pool) == 1:
        only = pool[0]
        if only.failed:
            raise BestOfNError("bestofn: no passing candidate")
        return BestOfNResult(
            only.index, "pairwise", _comparisons_frame([]), _pairwise_frame(pool), 0
        )
    rows: list[dict[str, Any]] = []
    cases: list[dict[str, Any]] = []
    judged: list[tuple[_Candidate, _Candidate, dict[str, Any], str]] = []
    for i, left in enumerate(pool):
        for right in pool[i + 1 :]:
            row = {
                "left": left.index,
                "right": right.index,
                "score": math.nan,
                "winner": None,
                "margin": math.nan,
                "status": "",
                "error": None,
            }
            rows.append(row)
            if left.failed and right.failed:
                row["status"] = "both_failed"
            elif left.failed or right.failed:
                winner, loser = (right, left) if left.failed else (left, right)
                winner.record_win(loser, 0.5)
                row.update(winner=winner.index, margin=0.5, status="status_win")
            else:
                eval_id = f"pair-{left.index}-{right.index}"
                assert left.invocation is not None and right.invocation is not None
                cases.append(
                    _case(
                        eval_id,
                        [right.invocation],
                        [left.invocation],
                        options["app_name"],
                        contexts,
                    )
                )
                judged.append((left, right, row, eval_id))
    run = await _evaluate(cases, metrics, options) if cases else None
    results = _results_by_id(run)
    for left, right, row, eval_id in judged:
        result = results.get(eval_id)
        score = _case_score(result)
        if score is None:
            row.update(
                status="no_result", error=result.error_message if result else "not evaluated"
            )
            continue
        row["score"] = score
        if score > 0.5:
            left.record_win(right, score - 0.5)
            row.update(winner=left.index, margin=score - 0.5, status="win")
        elif score < 0.5:
            right.record_win(left, 0.5 - score)
            row.update(winner=right.index, margin=0.5 - score, status="win")
        else:
            left.record_tie(right)
            row.update(margin=0.0, status="tie")
    best: _Candidate | None = None
    for candidate in pool:
        if candidate.comparisons == 0:
            continue
        if best is None or (candidate.wins, candidate.margin, -candidate.index) > (
            best.wins,
            best.margin,
            -best.index,
        ):
            best = candidate
    if best is None:
        raise BestOfNError("bestofn: no pairwise comparison result")
    return BestOfNResult(
        best.index, "pairwise", _comparisons_frame(rows), _pairwise_frame(pool), len(rows), run
    )


async def _pointwise(
    pool: list[_Candidate],
    metrics: list[EvalMetric],
    contexts: list[Message],
    require_passing: bool,
    options: dict[str, Any],
) -> BestOfNResult:
    cases = [
        _case(f"attempt-{c.index}", [c.invocation], None, options["app_name"], contexts)
        for c in pool
        if not c.failed and c.invocation is not None
    ]
    run = await _evaluate(cases, metrics, options) if cases else None
    results = _results_by_id(run)
    rows: list[dict[str, Any]] = []
    best: tuple[float, bool, int] | None = None
    for candidate in pool:
        result = results.get(f"attempt-{candidate.index}")
        score = None if candidate.failed else _case_score(result)
        status = result.final_eval_status if result else None
        error = candidate.error or (result.error_message if result else None)
        rows.append(
            {
                "index": candidate.index,
                "score": math.nan if score is None else score,
                "status": status,
                "failed": candidate.failed,
                "error": error,
            }
        )
        if score is None or (require_passing and status != EvalStatus.PASSED):
            continue
        key = (score, status == EvalStatus.PASSED, -candidate.index)
        if best is None or key > best:
            best = key
    if best is None:
        raise BestOfNError("bestofn: no passing candidate")
    frame = pd.DataFrame(
        {
            "index": pd.array([r["index"] for r in rows], dtype="int64"),
            "score": pd.array([r["score"] for r in rows], dtype="float64"),
            "status": pd.array([r["status"] for r in rows], dtype="object"),
            "failed": pd.array([r["failed"] for r in rows], dtype="bool"),
            "error": pd.array([r["error"] for r in rows], dtype="object"),
        }
    )
    return BestOfNResult(-best[2], "pointwise", _comparisons_frame([]), frame, len(cases), run)


def _comparisons_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "left": pd.array([r["left"] for r in rows], dtype="int64"),
            "right": pd.array([r["right"] for r in rows], dtype="int64"),
            "score": pd.array([r["score"] for r in rows], dtype="float64"),
            "winner": pd.array([r["winner"] for r in rows], dtype="Int64"),
            "margin": pd.array([r["margin"] for r in rows], dtype="float64"),
            "status": pd.array([r["status"] for r in rows], dtype="object"),
            "error": pd.array([r["error"] for r in rows], dtype="object"),
        },
        columns=list(_COMPARISON_COLUMNS),
    )


def _pairwise_frame(pool: list[_Candidate]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "index": pd.array([c.index for c in pool], dtype="int64"),
            "wins": pd.array([c.wins for c in pool], dtype="int64"),
            "net_margin": pd.array([c.margin for c in pool], dtype="float64"),
            "comparisons": pd.array([c.comparisons for c in pool], dtype="int64"),
            "failed": pd.array([c.failed for c in pool], dtype="bool"),
            "error": pd.array([c.error for c in pool], dtype="object"),
        }
    )


@sync_twin(best_of_n_async)
def best_of_n() -> BestOfNResult:  # type: ignore[empty-body]
    """Select the best of ``candidates`` for ``user_content`` with ``metrics``; works in scripts
    and inside Jupyter."""
