"""Judge panels: several judges score the same item, then vote (JUDGES.md §1).

Rules:

* a panel is ``{name: judge}`` and a vote rule. A judge is a callable (an injected judge,
  :mod:`.injected`), a ready :class:`~.client.JudgeClient`, a judge model
  (:class:`~agenteval_nb.schema.JudgeModelOptions` or its wire dict), or a model name ``str``.
  A judge model or name is laid over the metric's ``judgeModel`` (the fields it sets replace
  the metric's: ``"gpt-4o-mini"`` keeps the metric's endpoint and asks another model) and is
  called through the evaluation's client (its cache, limits and usage);
* each judge first reduces its own ``numSamples`` exactly as a lone judge does (the evaluator's
  samples aggregator, the reference ``majority_vote`` by default); its **vote** is ``pass``
  (the reduced sample's score passes the threshold), ``fail``, or ``abstain`` (a call error, an
  answer that cannot be parsed, every sample ``not_evaluated``);
* the denominator is the **configured** panel size N: an abstention removes a vote and never
  lowers a threshold or a quorum;
* the rules, one function each: ``majority`` (passed iff #pass > N/2, failed iff #fail > N/2,
  else ``not_evaluated``; score = mean score of the winning side), ``mean`` / ``median`` of
  the scores given at least ``min_votes`` votes (default: a strict majority of N), ``all``
  (passed iff all N pass, failed as soon as one fails; score = the lowest), ``any`` (passed as
  soon as one passes, failed iff all N fail; score = the highest), or a callable
  ``rule(ballot) -> PanelDecision | bool | float | None`` (a bool is the verdict with score
  1/0, a float a score judged by the threshold, None ``not_evaluated``);
* a rule that cannot decide gives ``not_evaluated`` with a reason listing every vote; no rule
  ever breaks a tie by the order of the judges: a rule sees the votes sorted by judge name, so
  any permutation of the panel gives the same decision.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..schema.metric import JudgeModelOptions
from ..schema.status import EvalStatus, passes

__all__ = [
    "ABSTAIN",
    "FAIL",
    "PASS",
    "VOTE_RULES",
    "Ballot",
    "JudgePanel",
    "OpenPanel",
    "PanelDecision",
    "PanelMember",
    "Vote",
    "all_vote",
    "any_vote",
    "decided",
    "majority_vote",
    "mean_vote",
    "median_vote",
    "open_panel",
    "overlay_model",
    "undecided",
]

PASS, FAIL, ABSTAIN = "pass", "fail", "abstain"


@dataclass(frozen=True, slots=True)
class Vote:
    """One judge's reduced verdict: ``verdict`` is ``pass``, ``fail`` or ``abstain``;
    ``score`` is None for an abstention; ``reason`` is the judge's reason or the error."""

    judge: str
    verdict: str
    score: float | None = None
    reason: str = ""

    @classmethod
    def of(cls, judge: str, score: float | None, threshold: float, *, reason: str = "") -> Vote:
        """``pass`` / ``fail`` by the threshold rule; a ``None`` score abstains."""
        if score is None:
            return cls(judge, ABSTAIN, None, reason)
        return cls(judge, PASS if passes(score, threshold) else FAIL, score, reason)


@dataclass(frozen=True, slots=True)
class Ballot:
    """What a vote rule sees: every configured judge's vote (sorted by judge name), the
    metric's threshold and the quorum ``min_votes``."""

    votes: tuple[Vote, ...]
    threshold: float
    min_votes: int

    @property
    def size(self) -> int:
        return len(self.votes)

    def having(self, verdict: str) -> list[Vote]:
        return [v for v in self.votes if v.verdict == verdict]

    @property
    def cast(self) -> list[Vote]:
        """The votes that are not abstentions."""
        return [v for v in self.votes if v.verdict != ABSTAIN]

    def tally(self) -> str:
        """``1 pass, 1 fail, 1 abstain``."""
        return ", ".join(f"{len(self.having(v))} {v}" for v in (PASS, FAIL, ABSTAIN))

    def listing(self) -> str:
        """Every vote: ``haiku: fail 0.00; local: abstain (judge response: …); mini: pass 1``."""
        parts = []
        for v in self.votes:
            if v.verdict == ABSTAIN:
                parts.append(f"{v.judge}: abstain ({v.reason or 'no vote'})")
            else:
                parts.append(f"{v.judge}: {v.verdict} {_num(v.score)}")
        return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class PanelDecision:
    """The panel's outcome: status, score, a reason listing the votes, and the judges whose
    votes make the score (``counted``)."""

    status: EvalStatus
    score: float
    reason: str
    counted: tuple[str, ...] = ()


def _num(score: float | None) -> str:
    return "nan" if score is None or math.isnan(score) else f"{score:.4g}"


def _mean(votes: Sequence[Vote]) -> float:
    return sum(v.score for v in votes if v.score is not None) / len(votes)


def undecided(ballot: Ballot, why: str) -> PanelDecision:
    """``not_evaluated``, score 0, reason ``<why>: <tally> (<every vote>)``."""
    return PanelDecision(
        EvalStatus.NOT_EVALUATED, 0.0, f"{why}: {ballot.tally()} ({ballot.listing()})"
    )


def decided(
    ballot: Ballot, rule: str, status: EvalStatus, score: float, counted: Sequence[Vote]
) -> PanelDecision:
    """A decision whose reason names the rule, the outcome and every vote."""
    reason = f"{rule} of {ballot.size}: {status} {_num(score)} ({ballot.listing()})"
    return PanelDecision(status, score, reason, tuple(v.judge for v in counted))


# the rules: one function each -------------------------------------------------------------------


def majority_vote(ballot: Ballot) -> PanelDecision:
    """Passed iff more than N/2 judges pass, failed iff more than N/2 fail, else
    ``not_evaluated`` (``no majority: …``); score = mean score of the winning side."""
    for verdict, status in ((PASS, EvalStatus.PASSED), (FAIL, EvalStatus.FAILED)):
        side = ballot.having(verdict)
        if 2 * len(side) > ballot.size:
            return decided(ballot, "majority", status, _mean(side), side)
    return undecided(ballot, f"no majority of {ballot.size}")


def _quorum(ballot: Ballot, rule: str, score: Callable[[list[float]], float]) -> PanelDecision:
    cast = ballot.cast
    if len(cast) < ballot.min_votes:
        return undecided(
            ballot,
            f"no quorum for {rule}: {len(cast)} of {ballot.size} voted, {ballot.min_votes} needed",
        )
    value = score([v.score for v in cast if v.score is not None])
    status = EvalStatus.PASSED if passes(value, ballot.threshold) else EvalStatus.FAILED
    return decided(ballot, rule, status, value, cast)


def mean_vote(ballot: Ballot) -> PanelDecision:
    """Mean score of the votes cast, given at least ``min_votes`` of them; status by the
    threshold."""
    return _quorum(ballot, "mean", lambda scores: sum(scores) / len(scores))


def median_vote(ballot: Ballot) -> PanelDecision:
    """Median score of the votes cast (mean of the middle two for an even count), given at
    least ``min_votes`` of them; status by the threshold."""
    return _quorum(ballot, "median", statistics.median)


def all_vote(ballot: Ballot) -> PanelDecision:
    """Failed as soon as one judge fails; passed iff every configured judge passes (an
    abstention blocks a pass); score = the lowest score cast."""
    cast = ballot.cast
    if ballot.having(FAIL):
        return decided(ballot, "all", EvalStatus.FAILED, min(_scores(cast)), cast)
    if len(ballot.having(PASS)) == ballot.size:
        return decided(ballot, "all", EvalStatus.PASSED, min(_scores(cast)), cast)
    return undecided(ballot, "not every judge voted (all)")


def any_vote(ballot: Ballot) -> PanelDecision:
    """Passed as soon as one judge passes; failed iff every configured judge fails (an
    abstention blocks a fail); score = the highest score cast."""
    cast = ballot.cast
    if ballot.having(PASS):
        return decided(ballot, "any", EvalStatus.PASSED, max(_scores(cast)), cast)
    if len(ballot.having(FAIL)) == ballot.size:
        return decided(ballot, "any", EvalStatus.FAILED, max(_scores(cast)), cast)
    return undecided(ballot, "not every judge voted (any)")


def _scores(votes: Sequence[Vote]) -> list[float]:
    """Scores of the votes, NaN first so that ``min`` / ``max`` see it (a NaN fails)."""
    return [math.nan if v.score is None else v.score for v in votes]


def _custom(rule: Callable[[Ballot], Any], ballot: Ballot) -> PanelDecision:
    """A callable rule's answer made a :class:`PanelDecision` (module doc)."""
    name = getattr(rule, "__name__", type(rule).__name__)
    out = rule(ballot)
    if isinstance(out, PanelDecision):
        return out
    if out is None:
        return undecided(ballot, f"{name} gave no verdict")
    if isinstance(out, bool):
        status = EvalStatus.PASSED if out else EvalStatus.FAILED
        return decided(ballot, name, status, 1.0 if out else 0.0, ballot.cast)
    if isinstance(out, int | float):
        score = float(out)
        status = EvalStatus.PASSED if passes(score, ballot.threshold) else EvalStatus.FAILED
        return decided(ballot, name, status, score, ballot.cast)
    raise TypeError(
        f"panel vote rule {name} must return a PanelDecision, bool, number or None, got {out!r}"
    )


VOTE_RULES: dict[str, Callable[[Ballot], PanelDecision]] = {
    "majority": majority_vote,
    "mean": mean_vote,
    "median": median_vote,
    "all": all_vote,
    "any": any_vote,
}
"""The named vote rules."""


# the panel --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PanelMember:
    """One judge of a panel as an evaluation calls it: ``client`` answers ``complete(...)``
    (a :class:`~.client.JudgeClient`); ``model`` is laid over the metric's ``judgeModel``
    (None: the metric's own)."""

    name: str
    client: Any
    model: JudgeModelOptions | None = None


def overlay_model(
    model: JudgeModelOptions | None, base: JudgeModelOptions | None
) -> JudgeModelOptions | None:
    """``model``'s set fields laid over ``base`` (the metric's judge model); either alone when
    the other is None. The base's ``apiKey`` stays unless ``model`` sets one."""
    if model is None:
        return base
    if base is None:
        return model
    fields = type(model).model_fields
    update = {name: getattr(model, name) for name in model.model_fields_set if name in fields}
    return base.model_copy(update=update)


def as_judge_model(judge: str | Mapping[str, Any] | JudgeModelOptions) -> JudgeModelOptions:
    """A judge model from a model name, a wire dict or a model."""
    if isinstance(judge, JudgeModelOptions):
        return judge
    if isinstance(judge, str):
        return JudgeModelOptions(model_name=judge)
    return JudgeModelOptions.model_validate(dict(judge))


def _is_client(judge: Any) -> bool:
    """A ready judge client (a ``JudgeClient`` or anything with ``complete`` and ``usage``)."""
    return hasattr(judge, "complete") and hasattr(judge, "usage")


def _checked(name: str, judge: Any) -> Any:
    """``judge`` if it is a judge model, a client or a callable judge; else a ``TypeError``."""
    if isinstance(judge, JudgeModelOptions) or _is_client(judge) or callable(judge):
        return judge
    if hasattr(judge, "judge"):  # a CallableJudge
        return judge
    raise TypeError(
        f"panel judge {name!r} must be a callable, a JudgeClient, a judge model or a model "
        f"name, got {type(judge).__name__}"
    )


@dataclass(frozen=True)
class JudgePanel:
    """``ae.JudgePanel({"mini": judge_a, "haiku": judge_b, "local": judge_c}, vote="majority")``
    (rules in the module doc). ``min_votes`` is the quorum of ``mean`` / ``median`` (and of
    the verifier's pooling); default a strict majority of the panel."""

    judges: Mapping[str, Any]
    vote: str | Callable[[Ballot], Any] = "majority"
    min_votes: int | None = None
    _rule: Callable[[Ballot], Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.judges, Mapping) or not self.judges:
            raise ValueError("a JudgePanel needs a non-empty mapping {name: judge}")
        judges: dict[str, Any] = {}
        for name, judge in self.judges.items():
            if not isinstance(name, str) or not name:
                raise ValueError(f"panel judge names must be non-empty strings, got {name!r}")
            if judge is None:
                raise ValueError(f"panel judge {name!r} is None")
            # a model given as a name or dict is validated now, its apiKey kept out of reprs
            is_model = isinstance(judge, str | Mapping)
            judges[name] = as_judge_model(judge) if is_model else _checked(name, judge)
        object.__setattr__(self, "judges", judges)
        if isinstance(self.vote, str):
            if self.vote not in VOTE_RULES:
                raise ValueError(
                    f"unknown panel vote {self.vote!r}; expected one of "
                    f"{', '.join(VOTE_RULES)} or a callable"
                )
            object.__setattr__(self, "_rule", VOTE_RULES[self.vote])
        elif callable(self.vote):
            vote = self.vote
            object.__setattr__(self, "_rule", lambda ballot: _custom(vote, ballot))
        else:
            raise TypeError(f"vote must be a rule name or a callable, got {self.vote!r}")
        m = self.min_votes
        if m is not None and (isinstance(m, bool) or not isinstance(m, int) or m < 1):
            raise ValueError(f"min_votes must be an integer >= 1, got {m!r}")
        if m is not None and m > len(self.judges):
            raise ValueError(f"min_votes {m} exceeds the panel size {len(self.judges)}")

    @property
    def size(self) -> int:
        return len(self.judges)

    @property
    def quorum(self) -> int:
        """``min_votes``, default a strict majority of the panel."""
        return self.min_votes if self.min_votes is not None else self.size // 2 + 1

    @property
    def vote_name(self) -> str:
        return self.vote if isinstance(self.vote, str) else getattr(self.vote, "__name__", "custom")

    def ballot(self, votes: Iterable[Vote], threshold: float) -> Ballot:
        """The votes sorted by judge name; exactly one per configured judge."""
        ordered = tuple(sorted(votes, key=lambda v: v.judge))
        names = [v.judge for v in ordered]
        if names != sorted(self.judges):
            raise ValueError(f"panel votes {names} do not match its judges {sorted(self.judges)}")
        return Ballot(ordered, threshold, self.quorum)

    def decide(self, votes: Iterable[Vote], threshold: float) -> PanelDecision:
        """The panel's decision on one item (module doc)."""
        return self._rule(self.ballot(votes, threshold))

    def members(self, client: Any, make_client: Callable[[Any], Any]) -> list[PanelMember]:
        """The judges as an evaluation calls them, sorted by name: a judge model or name
        through ``client`` (the evaluation's), a ready client as is (anything with
        ``complete``), a callable through ``make_client(callable)``."""
        out = []
        for name in sorted(self.judges):
            judge = self.judges[name]
            if isinstance(judge, JudgeModelOptions):
                out.append(PanelMember(name, client, judge))
            elif _is_client(judge):
                out.append(PanelMember(name, judge))
            else:
                out.append(PanelMember(name, make_client(judge)))
        return out

    @classmethod
    def of_models(
        cls,
        models: Sequence[JudgeModelOptions],
        vote: str = "majority",
        min_votes: int | None = None,
    ) -> JudgePanel:
        """The panel of a metric's ``judgeModels``: each judge named by its ``modelName``
        (a repeated name gets ``#2``, ``#3``…)."""
        judges: dict[str, JudgeModelOptions] = {}
        for i, model in enumerate(models):
            base = model.model_name or f"judge{i + 1}"
            name, k = base, 1
            while name in judges:
                k += 1
                name = f"{base}#{k}"
            judges[name] = model
        return cls(judges, vote, min_votes)


@dataclass(frozen=True, slots=True)
class OpenPanel:
    """A panel opened for one evaluation: its rules and its members, sorted by name."""

    panel: JudgePanel
    members: tuple[PanelMember, ...]


def open_panel(
    panel: JudgePanel, client: Any, make_client: Callable[[Any], Any] | None = None
) -> OpenPanel:
    """``panel`` with its members resolved (:meth:`JudgePanel.members`); without
    ``make_client`` a callable judge is an error."""

    def refuse(judge: Any) -> Any:
        raise TypeError("this panel takes judge models only, not a callable judge")

    return OpenPanel(panel, tuple(panel.members(client, make_client or refuse)))
