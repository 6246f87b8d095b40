"""Metric reasons as shown to people. The stored reasons keep the reference's wire format (the
overall reason is the turns' reasons joined with ``";"``, SPEC §8.2 step 9; the criteria's
texts are fixed by the SPEC); only what is displayed is rewritten here:

* an overall reason that is exactly the join of its turns' reasons is shown one turn per line,
  ``turn 1: …`` (turns numbered from 1, as in the inspector);
* the text criterion's ``source``/``target`` (SPEC §3.2: source = actual, target = expected)
  read ``actual``/``expected``;
* a figure printed twice in one reason (ROUGE prints its measure, then ``f1`` again when the
  measure is f1) is shown once;
* the reference's Go-internal wording (``cannot match all left vertices``, ``... is nil``,
  ``into Go value of type``) gets a plain-language gloss shown under it (:data:`GLOSSES`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markupsafe import Markup

from .text import html, join, text

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


GLOSSES: tuple[tuple[str, str], ...] = (
    (
        "cannot match all left vertices",
        "no one-to-one pairing of the calls (in any order) gives every expected tool call a "
        "matching actual call; the expected calls listed next are left without one",
    ),
    ("actual or expected invocation is nil", "the actual or the expected turn is missing"),
    ("actual or expected tool is nil", "a tool call is empty (null) on one side"),
    (
        "actual or expected final response is nil",
        "the actual or the expected turn has no final response",
    ),
    ("target final response is nil", "the agent under test gave no final answer in this turn"),
    (
        "into Go value of type",
        "a JSON value has a type the comparison cannot use (e.g. a number too large for a "
        "64-bit float, or text where a number is expected)",
    ),
    (
        "into Go struct field",
        "a field of the JSON has the wrong type (e.g. text where a number is expected)",
    ),
    ("parse actual raw json", "the actual text is not valid JSON"),
    ("parse expected raw json", "the expected text is not valid JSON"),
    ("unmarshal response json", "the judge's reply is not the JSON the metric asks for"),
    ("session input is nil", "the eval case has no sessionInput"),
    (
        "expected runner is nil",
        "the case asks for expected outputs from an expected runner, but none was given",
    ),
    ("template is nil", "the judge criterion has no template"),
    ("template binding is nil", "a template variable entry is null"),
    ("source is nil", "a template variable has no source"),
)
"""(reference text, plain-language gloss): the one home of the glosses. A reason containing
the text is shown with the gloss; the stored reason keeps the reference's words."""


def glosses(reason: str) -> list[str]:
    """The glosses of the reference texts found in ``reason``, in :data:`GLOSSES` order."""
    return [gloss for fragment, gloss in GLOSSES if fragment in reason]


def gloss_note(reason: str | None) -> Markup:
    """The glosses of ``reason`` as a muted note (``in plain words: …``), else empty."""
    found = glosses(reason or "")
    if not found:
        return Markup("")
    return join(
        html('<div class="ae-muted ae-gloss">in plain words: {}</div>', text(gloss))
        for gloss in found
    )
