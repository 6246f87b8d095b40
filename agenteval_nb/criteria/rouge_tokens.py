"""Tokenizers and sentence splitting for ROUGE (SPEC §3.6).

* :func:`rouge_tokenize` — the reference tokenizer (Google ``rouge_score``): lowercase, every
  run of characters outside ``[a-z0-9]`` becomes a space, split, keep ``^[a-z0-9]+$`` tokens;
  with stemming, NLTK's Porter stemmer (NLTK extensions, irregular forms included) is applied
  to tokens longer than 3 characters. Non-Latin text yields no tokens.
* :func:`cjk_tokenizer` — not in the reference; register it under a ``tokenizerName`` to score
  Chinese/Japanese/Korean text: every CJK character is a token, other runs of letters and
  digits are lowercased words.
* :func:`split_sentences` — sentence split for ``rougeLsum`` with ``splitSummaries``, offline:
  NLTK Punkt without trained data (the reference uses the English Punkt model), seeded with
  common English abbreviations so ``Dr. Smith`` stays one sentence; empty sentences dropped.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .gofmt import go_lower

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_VALID_TOKEN = re.compile(r"^[a-z0-9]+$")

_CJK = (
    "\u2e80-\u2eff\u2f00-\u2fdf\u3040-\u309f\u30a0-\u30ff\u3100-\u312f\u3130-\u318f"
    "\u31a0-\u31bf\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
    "\U00020000-\U0002ebef\U00030000-\U0003134f"
)
_CJK_TOKEN = re.compile(f"[{_CJK}]|(?:(?![{_CJK}])[^\\W_])+")

ABBREVIATIONS = frozenset(
    {
        "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "e.g", "i.e", "inc", "ltd",
        "co", "corp", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
        "nov", "dec", "u.s", "u.k", "a.m", "p.m", "fig", "approx", "dept", "est", "gen", "gov",
    }
)  # fmt: skip
"""Abbreviations the offline sentence splitter never ends a sentence on."""


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    from nltk.stem import porter

    return porter.PorterStemmer()


@lru_cache(maxsize=65536)
def porter_stem(word: str) -> str:
    """NLTK Porter stem (NLTK_EXTENSIONS mode), cached."""
    return _stemmer().stem(word)


def rouge_tokenize(text: str, use_stemmer: bool = False) -> list[str]:
    """The reference ROUGE tokenizer (see module docstring)."""
    words = _NON_ALNUM.sub(" ", go_lower(text)).split()
    if use_stemmer:
        words = [porter_stem(w) if len(w) > 3 else w for w in words]
    return [w for w in words if _VALID_TOKEN.match(w)]


def cjk_tokenizer(text: str) -> list[str]:
    """One token per CJK character; other letter/digit runs lowercased (``"Hi 你好"`` →
    ``["hi", "你", "好"]``)."""
    return [go_lower(token) for token in _CJK_TOKEN.findall(text)]


@lru_cache(maxsize=1)
def _sentence_tokenizer() -> Any:
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    params = PunktParameters()
    params.abbrev_types = set(ABBREVIATIONS)
    return PunktSentenceTokenizer(params)


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (offline Punkt), stripped, empty ones dropped."""
    sentences = (s.strip() for s in _sentence_tokenizer().tokenize(text))
    return [s for s in sentences if s]
