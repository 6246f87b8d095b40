"""Metric reasons as shown to people. The stored reasons keep the reference's wire format (the
overall reason is the turns' reasons joined with ``";"``, SPEC §8.2 step 9; the criteria's
texts are fixed by the SPEC); only what is displayed is rewritten here:

* an overall reason that is exactly the join of its turns' reasons is shown one turn per line,
  ``turn 1: …`` (turns numbered from 1, as in the inspector);
* the text criterion's ``source``/``target`` (SPEC §3.2: source = actual, target = expected)
  read ``actual``/``expected``;
* a figure printed twice in one reason (ROUGE prints its measure, then ``f1`` again when the
  measure is f1) is shown once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_SOURCE = re.compile(
    r"\bsource (?=.*? (?:and target|does not contain target|does not match regex) )", re.S
)
_TARGET = re.compile(r" (and|does not contain) target ")
_REGEX = re.compile(r" does not match regex ")
_FIGURE = re.compile(r"\b(\w+)=(-?[0-9][0-9.e+-]*)")


def _once(reason: str) -> str:
    seen: set[tuple[str, str]] = set()

    def keep_first(match: re.Match[str]) -> str:
        key = (match.group(1), match.group(2))
        if key in seen:
            return ""
        seen.add(key)
        return match.group()

    return re.sub(r" {2,}", " ", _FIGURE.sub(keep_first, reason)).rstrip()


def display_reason(reason: str) -> str:
    """One stored reason as shown (actual/expected named, repeated figures dropped)."""
    shown = _SOURCE.sub("actual ", reason)
    shown = _TARGET.sub(lambda m: f" {m.group(1)} expected ", shown)
    shown = _REGEX.sub(" does not match the expected regex ", shown)
    return _once(shown) if "rouge" in shown else shown


def display_overall_reason(reason: str, turn_reasons: Sequence[str | None]) -> str:
    """The overall reason as shown: one ``turn N: …`` line per turn with a reason when the
    stored reason is their ``";"`` join and the case has several turns; otherwise
    :func:`display_reason` of the whole."""
    numbered = [(i + 1, r) for i, r in enumerate(turn_reasons) if r]
    if len(turn_reasons) > 1 and numbered and ";".join(r for _, r in numbered) == reason:
        return "\n".join(f"turn {i}: {display_reason(r)}" for i, r in numbered)
    return display_reason(reason)
