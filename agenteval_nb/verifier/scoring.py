"""Verifier scoring from judge token logprobs (SPEC §5.2), as pure functions.

The judge writes ``<score_A>L</score_A>`` and ``<score_B>L</score_B>`` with a letter ``L`` of the
label scale. Instead of reading the sampled letter, the score of each candidate is the expected
label value under the judge's next-token distribution at the letter's position:

1. walk the tokens accumulating text; the first occurrence of the tag (possibly split over
   several tokens) locates the score;
2. if the token that completes the tag runs past it, the letter is fused into that token and
   candidates are read after the token's tag part (the *prefix*); otherwise the next token holds
   the letter and the prefix is empty;
3. a candidate (the sampled token and every ``top_logprobs`` entry) maps to a label iff it starts
   with the prefix and the rest, trimmed and upper-cased, is exactly one label letter; duplicates
   of a label keep the maximum logprob; logprobs ≤ −9999 (vLLM's clamp of −∞) count as −∞;
4. ``w_k = exp(lp_k − max lp)`` over the labels present; ``E = Σ w_k·value_k / Σ w_k``;
5. the pair score is ``clamp(0.5 + (E_A − E_B)/2, 0, 1)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .labels import DEFAULT_SCALE, LabelScale

__all__ = [
    "TAG_A",
    "TAG_B",
    "LabelDistribution",
    "PairScore",
    "VerifierScoreError",
    "comparison_score",
    "expected_score",
    "label_distribution",
    "score_pair",
    "text_fallback_label",
]

TAG_A = "<score_A>"
TAG_B = "<score_B>"

#: Logprobs at or below this are treated as −∞ (vLLM reports −∞ as −9999).
NEG_INF_CLAMP = -9999.0

# Characters Go's strings.TrimSpace removes (unicode.IsSpace); Python's str.strip() differs.
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000"
)


class VerifierScoreError(ValueError):
    """A judge response from which no verifier score can be computed.

    The message is the reference text (SPEC §5.2), prefixed ``"score_A: "`` / ``"score_B: "`` by
    :func:`score_pair`. ``kind`` is a stable short code: ``logprobs_missing``, ``tokens_empty``,
    ``tag_missing``, ``token_missing``, ``candidates_missing``, ``nan``, ``all_neg_inf``,
    ``closing_tag_missing``, ``label_invalid``.
    """

    def __init__(self, message: str, kind: str = "") -> None:
        super().__init__(message)
        self.kind = kind

    def with_prefix(self, prefix: str) -> VerifierScoreError:
        """The same error with ``prefix`` prepended to its message."""
        return VerifierScoreError(f"{prefix}{self}", self.kind)


@dataclass(frozen=True)
class LabelDistribution:
    """The judge's distribution over the labels of one score tag.

    * ``probs``: one probability per scale label (zeros for labels absent from the candidates),
      the softmax of the per-label max logprobs renormalised over the labels present;
    * ``expected_score``: ``Σ_k probs_k · value_k``;
    * ``sampled_label``: label read from the sampled token, None when that token is not a label;
    * ``valid_mass``: ``Σ exp(lp_t)`` over the *distinct* candidate token strings ``t`` (sampled
      token and top_logprobs, each string counted once at its max logprob) that map to a label,
      i.e. the share of the model's next-token probability at that position that the returned
      candidates place on valid labels (a lower bound: unreturned tokens are unknown). 1.0 for
      a text fallback;
    * ``entropy``: ``−Σ p ln p`` over ``probs``, in nats;
    * ``token_index``: index of the token that carries the label (−1 for a text fallback);
    * ``from_logprobs``: False when built from message text by :func:`text_fallback_label`.
    """

    probs: tuple[float, ...]
    expected_score: float
    sampled_label: str | None
    valid_mass: float
    entropy: float
    token_index: int
    from_logprobs: bool = True
    scale: LabelScale = field(default=DEFAULT_SCALE, repr=False, compare=False)

    @property
    def labels(self) -> tuple[str, ...]:
        """The scale's labels, aligned with ``probs``."""
        return self.scale.labels

    def prob(self, label: str) -> float:
        """Probability of ``label`` (``KeyError`` if it is not a label of the scale)."""
        index = self.scale.index(label)
        if index is None:
            raise KeyError(label)
        return self.probs[index]

    def to_dict(self) -> dict[str, Any]:
        """Compact JSON-ready form; ``probs`` keeps only non-zero labels, as ``{label: p}``."""
        return {
            "probs": {
                label: p for label, p in zip(self.scale.labels, self.probs, strict=True) if p > 0.0
            },
            "expected_score": self.expected_score,
            "sampled_label": self.sampled_label,
            "valid_mass": self.valid_mass,
            "entropy": self.entropy,
            "token_index": self.token_index,
            "from_logprobs": self.from_logprobs,
        }

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], scale: LabelScale = DEFAULT_SCALE
    ) -> LabelDistribution:
        """Inverse of :meth:`to_dict`.

        Also reads the dense form ``{"labels": [...], "probs": [...], ...}`` (``labels``
        optional, defaulting to the scale's); labels outside ``scale`` raise ``ValueError``.
        """
        raw = data.get("probs") or {}
        if not isinstance(raw, Mapping):
            names = data.get("labels") or scale.labels
            if len(names) != len(raw):
                raise ValueError(f"{len(names)} labels but {len(raw)} probabilities")
            raw = dict(zip(names, raw, strict=True))
        unknown = [label for label in raw if scale.index(label) is None]
        if unknown:
            raise ValueError(f"labels not on the scale: {unknown}")
        probs = tuple(float(raw.get(label, 0.0)) for label in scale.labels)
        return cls(
            probs=probs,
            expected_score=float(data["expected_score"]),
            sampled_label=data.get("sampled_label"),
            valid_mass=float(data.get("valid_mass", math.nan)),
            entropy=float(data.get("entropy", math.nan)),
            token_index=int(data.get("token_index", -1)),
            from_logprobs=bool(data.get("from_logprobs", True)),
            scale=scale,
        )


@dataclass(frozen=True)
class PairScore:
    """Verifier result of one judge response: ``score = clamp(0.5 + (s_a − s_b)/2, 0, 1)``."""

    score: float
    s_a: float
    s_b: float
    dist_a: LabelDistribution
    dist_b: LabelDistribution
    reason: str


# -- token access ---------------------------------------------------------------------------------


def _field(obj: Any, name: str) -> Any:
    """``obj[name]`` for mappings, else ``obj.name`` (openai objects); None when absent."""
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def _token_text(entry: Any) -> str:
    text = _field(entry, "token")
    return "" if text is None else str(text)


def _logprob(raw: Any) -> float:
    """A candidate's logprob as float: None ⇒ NaN, ``≤ −9999`` ⇒ −∞."""
    if raw is None:
        return math.nan
    value = float(raw)
    return -math.inf if value <= NEG_INF_CLAMP else value


def _label_index(candidate: str, prefix: str, scale: LabelScale) -> int | None:
    """Label index of ``candidate`` after ``prefix``: ``upper(trim(rest))`` must be one label."""
    if not candidate.startswith(prefix):
        return None
    rest = candidate[len(prefix) :].strip(_GO_SPACE).upper()
    if len(rest) != 1:
        return None
    return scale.index(rest)


# -- distribution ---------------------------------------------------------------------------------


def _softmax(
    best: Mapping[int, float], scale: LabelScale
) -> tuple[tuple[float, ...], float, float]:
    """Probabilities, expected value and entropy from per-label max logprobs.

    Errors: NaN ⇒ ``"score token logprob is NaN"``; all −∞ ⇒ ``"score token logprobs are all
    negative infinity"``.
    """
    if any(math.isnan(lp) for lp in best.values()):
        raise VerifierScoreError("score token logprob is NaN", "nan")
    top = max(best.values())
    if top == -math.inf:
        raise VerifierScoreError("score token logprobs are all negative infinity", "all_neg_inf")
    weights = {k: math.exp(lp - top) for k, lp in best.items()}
    total = sum(weights.values())
    probs = [0.0] * scale.size
    for k, w in weights.items():
        probs[k] = w / total
    expected = sum(w * scale.values[k] for k, w in weights.items()) / total
    entropy = -sum(p * math.log(p) for p in probs if p > 0.0)
    return tuple(probs), expected, entropy


def _distribution_at(
    entry: Any, prefix: str, token_index: int, scale: LabelScale
) -> LabelDistribution:
    sampled_text = _token_text(entry)
    candidates = [(sampled_text, _field(entry, "logprob"))]
    for alt in _field(entry, "top_logprobs") or ():
        candidates.append((_token_text(alt), _field(alt, "logprob")))

    best: dict[int, float] = {}
    per_token: dict[str, float] = {}
    for text, raw in candidates:
        k = _label_index(text, prefix, scale)
        if k is None:
            continue
        lp = _logprob(raw)
        if math.isnan(lp) or math.isnan(best.get(k, 0.0)):
            best[k] = math.nan  # NaN is sticky: any NaN label candidate is an error
        else:
            best[k] = max(best.get(k, -math.inf), lp)
        if not math.isnan(lp):
            per_token[text] = max(per_token.get(text, -math.inf), lp)
    if not best:
        raise VerifierScoreError("score token logprobs are missing after tag", "candidates_missing")
    probs, expected, entropy = _softmax(best, scale)
    sampled_index = _label_index(sampled_text, prefix, scale)
    return LabelDistribution(
        probs=probs,
        expected_score=expected,
        sampled_label=None if sampled_index is None else scale.labels[sampled_index],
        valid_mass=sum(math.exp(lp) for lp in per_token.values()),
        entropy=entropy,
        token_index=token_index,
        from_logprobs=True,
        scale=scale,
    )


def label_distribution(
    token_logprobs: Sequence[Any] | None, tag: str, *, scale: LabelScale = DEFAULT_SCALE
) -> LabelDistribution:
    """Label distribution at the first occurrence of ``tag`` in the judge's tokens.

    ``token_logprobs`` is ``choices[0].logprobs.content``: items with ``token``, ``logprob`` and
    ``top_logprobs`` (``[{token, logprob}]``), as dicts or attribute objects. For token i with
    ``before`` = accumulated text length before it, the tag is searched from
    ``max(0, before − len(tag) + 1)``, so the first occurrence ending inside token i is found.
    If it ends before the token's end the label is read from token i after its prefix
    ``token_i[:end − before]``; otherwise from token i+1 with no prefix.

    Errors (:class:`VerifierScoreError`): ``"token logprobs are empty"``, ``"score tag is
    missing"``, ``"score token is missing after tag"``, ``"score token logprobs are missing after
    tag"``, ``"score token logprob is NaN"``, ``"score token logprobs are all negative
    infinity"``.
    """
    if not tag:
        raise ValueError("tag must be a non-empty string")
    tokens = list(token_logprobs or ())
    if not tokens:
        raise VerifierScoreError("token logprobs are empty", "tokens_empty")
    keep = len(tag) - 1
    tail = ""  # last len(tag)−1 characters of the text before the current token
    for i, entry in enumerate(tokens):
        token = _token_text(entry)
        window = tail + token  # starts at offset max(0, before − len(tag) + 1) of the text
        start = window.find(tag)
        if start >= 0:
            end = start + len(tag)
            if end < len(window):
                return _distribution_at(entry, token[: end - len(tail)], i, scale)
            if i + 1 >= len(tokens):
                raise VerifierScoreError("score token is missing after tag", "token_missing")
            return _distribution_at(tokens[i + 1], "", i + 1, scale)
        tail = window[-keep:] if keep else ""
    raise VerifierScoreError("score tag is missing", "tag_missing")


def expected_score(
    dist_or_logprob_map: LabelDistribution | Mapping[str, float],
    scale: LabelScale | None = None,
) -> float:
    """Expected label value ``Σ_k w_k·value_k / Σ_k w_k`` with ``w_k = exp(lp_k − max lp)``.

    Given a :class:`LabelDistribution`, returns ``Σ probs_k·value_k`` (its stored value unless a
    different ``scale`` is passed). Given ``{label: logprob}``, applies the §5.2 rules (−9999 ⇒
    −∞, NaN and all-−∞ errors); keys must be labels of ``scale`` (default
    :data:`DEFAULT_SCALE`).
    """
    if isinstance(dist_or_logprob_map, LabelDistribution):
        dist = dist_or_logprob_map
        if scale is None or scale == dist.scale:
            return dist.expected_score
        if scale.size != len(dist.probs):
            raise ValueError(f"scale has {scale.size} labels, distribution has {len(dist.probs)}")
        return sum(p * v for p, v in zip(dist.probs, scale.values, strict=True))
    scale = DEFAULT_SCALE if scale is None else scale
    best: dict[int, float] = {}
    for label, raw in dist_or_logprob_map.items():
        k = scale.index(label)
        if k is None:
            raise ValueError(f"{label!r} is not a label of the scale")
        best[k] = _logprob(raw)
    if not best:
        raise VerifierScoreError("score token logprobs are missing after tag", "candidates_missing")
    return _softmax(best, scale)[1]


def comparison_score(s_a: float, s_b: float) -> float:
    """``clamp(0.5 + (s_a − s_b)/2, 0, 1)``: > 0.5 prefers A (actual), < 0.5 prefers B."""
    score = 0.5 + (s_a - s_b) / 2.0
    if math.isnan(score):
        return math.nan
    return min(1.0, max(0.0, score))


def score_pair(response: Any, *, scale: LabelScale = DEFAULT_SCALE) -> PairScore:
    """Score a chat-completion response (dict or openai object) from its token logprobs.

    Reads ``choices[0].logprobs.content``; a missing response, choice or ``logprobs`` raises
    ``"logprobs are missing"``. ``s_a`` comes from tag ``<score_A>`` and ``s_b`` from
    ``<score_B>`` (errors prefixed ``"score_A: "`` / ``"score_B: "``, A checked first).
    """
    choices = _field(response, "choices")
    if not choices:
        raise VerifierScoreError("logprobs are missing", "logprobs_missing")
    logprobs = _field(choices[0], "logprobs")
    if logprobs is None:
        raise VerifierScoreError("logprobs are missing", "logprobs_missing")
    content = _field(logprobs, "content")
    dists: list[LabelDistribution] = []
    for tag, prefix in ((TAG_A, "score_A: "), (TAG_B, "score_B: ")):
        try:
            dists.append(label_distribution(content, tag, scale=scale))
        except VerifierScoreError as err:
            raise err.with_prefix(prefix) from err
    dist_a, dist_b = dists
    s_a, s_b = dist_a.expected_score, dist_b.expected_score
    return PairScore(
        score=comparison_score(s_a, s_b),
        s_a=s_a,
        s_b=s_b,
        dist_a=dist_a,
        dist_b=dist_b,
        reason=f"Computed from score_A {s_a:.4f} and score_B {s_b:.4f} log probabilities.",
    )


def text_fallback_label(
    text: str, tag: str, scale: LabelScale = DEFAULT_SCALE
) -> LabelDistribution:
    """One-hot distribution from ``<tag>L</tag>`` in the message text (no logprobs available).

    Uses the first occurrence of ``tag``; the closing tag is ``"</" + tag[1:]``; the content,
    trimmed and upper-cased, must be one label. The result has ``from_logprobs=False``,
    ``valid_mass = 1``, ``entropy = 0``, ``token_index = −1``. Errors: ``"score tag is missing"``,
    ``"score closing tag is missing"``, ``"score label is invalid: <content>"``.
    """
    if not tag:
        raise ValueError("tag must be a non-empty string")
    start = (text or "").find(tag)
    if start < 0:
        raise VerifierScoreError("score tag is missing", "tag_missing")
    closing = "</" + tag[1:] if tag.startswith("<") else tag
    body_start = start + len(tag)
    stop = text.find(closing, body_start)
    if stop < 0:
        raise VerifierScoreError("score closing tag is missing", "closing_tag_missing")
    content = text[body_start:stop]
    k = _label_index(content, "", scale)
    if k is None:
        raise VerifierScoreError(f"score label is invalid: {content!r}", "label_invalid")
    probs = tuple(1.0 if i == k else 0.0 for i in range(scale.size))
    return LabelDistribution(
        probs=probs,
        expected_score=scale.values[k],
        sampled_label=scale.labels[k],
        valid_mass=1.0,
        entropy=0.0,
        token_index=-1,
        from_logprobs=False,
        scale=scale,
    )
