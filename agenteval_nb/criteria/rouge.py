"""RougeCriterion (SPEC §3.6): ``match(target=expected text, prediction=actual text)``.

* ``ignore`` ⇒ value 1, P = R = F = 1, measure ``f1``, passed.
* Errors (in this order): empty ``rougeType`` ⇒ ``"rouge criterion requires rougeType"``;
  ``measure`` other than f1 (default) / precision / recall ⇒ ``"unsupported rouge measure:
  <m>"``; type other than ``rougeL``, ``rougeLsum``, ``rouge<N>`` (N a positive integer, Go
  ``Atoi`` syntax) ⇒ ``"invalid rouge type: <t>"``.
* rougeN: n-gram multiset overlap, ``P = overlap / max(#pred n-grams, 1)``,
  ``R = overlap / max(#target n-grams, 1)``. rougeL: token LCS, ``P = LCS/len(pred)``,
  ``R = LCS/len(target)``. rougeLsum: sentences split on ``\\n`` (or by
  :func:`.rouge_tokens.split_sentences` with ``splitSummaries``), summary-level union LCS with
  per-token hit budgets. ``F = 2PR/(P+R)`` (0 when P+R = 0). Scoring uses ``rouge_score``.
* ``passed = P >= thr.precision and R >= thr.recall and F >= thr.f1`` (unset = 0);
  ``value`` is the selected measure; reason ``"<type> <measure>=%.6f precision=%.6f
  recall=%.6f f1=%.6f"``.
* ``tokenizerName`` selects a registered tokenizer (which ignores ``useStemmer``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..schema import RougeCriterion
from .errors import MatchError
from .hooks import NO_HOOKS, Hooks
from .rouge_tokens import rouge_tokenize, split_sentences

MEASURES = ("f1", "precision", "recall")
_ROUGE_N = re.compile(r"rouge([+-]?[0-9]+)")


@dataclass(frozen=True, slots=True)
class RougeScore:
    """Outcome of one ROUGE comparison."""

    rouge_type: str
    measure: str
    value: float
    precision: float
    recall: float
    f1: float
    passed: bool

    @property
    def reason(self) -> str:
        """``"<type> <measure>=%.6f precision=%.6f recall=%.6f f1=%.6f"``."""
        return (
            f"{self.rouge_type} {self.measure}={self.value:.6f} precision={self.precision:.6f} "
            f"recall={self.recall:.6f} f1={self.f1:.6f}"
        )


def rouge_n(rouge_type: str) -> int | None:
    """N of ``rouge<N>`` (Go ``Atoi`` syntax, N > 0, fits int64), else ``None``."""
    found = _ROUGE_N.fullmatch(rouge_type)
    if found is None:
        return None
    n = int(found.group(1))
    return n if 0 < n < 2**63 else None


def validate_rouge(criterion: RougeCriterion | None) -> str | None:
    """The configuration error of an active ROUGE criterion, else ``None``."""
    if criterion is None or criterion.ignore:
        return None
    rouge_type = criterion.rouge_type or ""
    if not rouge_type:
        return "rouge criterion requires rougeType"
    measure = criterion.measure or "f1"
    if measure not in MEASURES:
        return f"unsupported rouge measure: {measure}"
    if rouge_type not in ("rougeL", "rougeLsum") and rouge_n(rouge_type) is None:
        return f"invalid rouge type: {rouge_type}"
    return None


Tokenizer = Callable[[str], list[str]]


def _scores(rouge_type: str, target: str, prediction: str, tokenize: Tokenizer, split: bool) -> Any:
    """``rouge_score``'s Score tuple (precision, recall, fmeasure) for one rouge type."""
    from rouge_score import rouge_scorer

    if rouge_type == "rougeLsum":

        def sentences(text: str) -> list[list[str]]:
            parts = split_sentences(text) if split else text.split("\n")
            return [tokenize(part) for part in parts if part]

        return rouge_scorer._summary_level_lcs(sentences(target), sentences(prediction))
    target_tokens = tokenize(target)
    prediction_tokens = tokenize(prediction)
    if rouge_type == "rougeL":
        return rouge_scorer._score_lcs(target_tokens, prediction_tokens)
    n = rouge_n(rouge_type) or 1
    return rouge_scorer._score_ngrams(
        rouge_scorer._create_ngrams(target_tokens, n),
        rouge_scorer._create_ngrams(prediction_tokens, n),
    )


def _tokenizer(criterion: RougeCriterion, hooks: Hooks) -> Tokenizer:
    custom = hooks.tokenizer_fn(criterion.tokenizer_name)
    if custom is None:
        stem = bool(criterion.use_stemmer)
        return lambda text: rouge_tokenize(text, stem)
    name = criterion.tokenizer_name

    def guarded(text: str) -> list[str]:
        try:
            return list(custom(text))
        except Exception as exc:
            raise MatchError(f"tokenizer {name}: {exc}") from exc

    return guarded


def score_rouge(
    criterion: RougeCriterion, target: str, prediction: str, hooks: Hooks = NO_HOOKS
) -> RougeScore:
    """ROUGE of ``prediction`` (actual) against ``target`` (expected).

    Raises :class:`~.errors.MatchError` on a configuration error (texts above).
    """
    rouge_type = criterion.rouge_type or ""
    if criterion.ignore:
        return RougeScore(rouge_type, "f1", 1.0, 1.0, 1.0, 1.0, True)
    error = validate_rouge(criterion)
    if error is not None:
        raise MatchError(error)
    measure = criterion.measure or "f1"
    tokenize = _tokenizer(criterion, hooks)
    raw: Any = _scores(
        rouge_type, target or "", prediction or "", tokenize, bool(criterion.split_summaries)
    )
    precision, recall, f1 = float(raw.precision), float(raw.recall), float(raw.fmeasure)
    value = {"f1": f1, "precision": precision, "recall": recall}[measure]
    threshold = criterion.threshold
    passed = (
        precision >= ((threshold.precision if threshold else None) or 0.0)
        and recall >= ((threshold.recall if threshold else None) or 0.0)
        and f1 >= ((threshold.f1 if threshold else None) or 0.0)
    )
    return RougeScore(rouge_type, measure, value, precision, recall, f1, passed)
