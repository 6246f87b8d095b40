"""FinalResponseCriterion (SPEC §3.7): ``match(actual_invocation, expected_invocation)``.

Order: custom compare (``compareName``) ⇒ its verdict; none of text/json/rouge/xml configured
⇒ ``"final response criterion must configure text, json, rouge, or xml"``; a null invocation
⇒ ``"actual or expected invocation is nil"``; both final responses null ⇒ match; only the
actual null ⇒ ``"actual or expected final response is nil"``; only the expected null ⇒ its
content is ``""``. Then every configured, non-ignored sub-criterion runs, in the order
json → text → rouge → xml, and all failures are joined with ``"; "``:

* ``"json mismatch[: cause]"`` — contents compared as raw JSON text (both decoded first);
* ``"text mismatch[: cause]"``;
* ``"rouge mismatch: <error or score reason>"`` (target = expected, prediction = actual);
* ``"xml mismatch[: cause]"``.
"""

from __future__ import annotations

from ..schema import FinalResponseCriterion, Invocation
from .errors import MatchError, Reason, fail, raise_if, wrap
from .hooks import NO_HOOKS, Hooks, hook_reason
from .jsoncmp import json_reason, validate_json
from .rawjson import RawJSON
from .rouge import score_rouge, validate_rouge
from .text import text_reason, validate_text
from .xml import validate_xml, xml_reason

NOT_CONFIGURED = "final response criterion must configure text, json, rouge, or xml"


def validate_final_response(criterion: FinalResponseCriterion | None) -> str | None:
    """The first configuration error, prefixed as its mismatch would be, else ``None``."""
    if criterion is None or criterion.compare_name:
        return None
    parts = (criterion.text, criterion.json_, criterion.rouge, criterion.xml)
    if all(part is None for part in parts):
        return NOT_CONFIGURED
    checks = (
        ("json mismatch", validate_json(criterion.json_)),
        ("text mismatch", validate_text(criterion.text)),
        ("rouge mismatch", validate_rouge(criterion.rouge)),
        ("xml mismatch", validate_xml(criterion.xml)),
    )
    for prefix, error in checks:
        if error is not None:
            return f"{prefix}: {error}"
    return None


def final_response_reason(
    criterion: FinalResponseCriterion,
    actual: Invocation | None,
    expected: Invocation | None,
    hooks: Hooks = NO_HOOKS,
) -> Reason | None:
    """``None`` on a match, else the deferred mismatch text."""
    fn = hooks.compare_fn(criterion.compare_name)
    if fn is not None:
        return hook_reason(fn, actual, expected)
    text_c, json_c, rouge_c, xml_c = (
        criterion.text,
        criterion.json_,
        criterion.rouge,
        criterion.xml,
    )
    if text_c is None and json_c is None and rouge_c is None and xml_c is None:
        return fail(NOT_CONFIGURED)
    if actual is None or expected is None:
        return fail("actual or expected invocation is nil")
    actual_msg, expected_msg = actual.final_response, expected.final_response
    if actual_msg is None and expected_msg is None:
        return None
    if actual_msg is None:
        return fail("actual or expected final response is nil")
    actual_text = actual_msg.content or ""
    expected_text = (expected_msg.content or "") if expected_msg is not None else ""

    failures: list[Reason] = []
    if json_c is not None and not json_c.ignore:
        cause = json_reason(json_c, RawJSON(actual_text), RawJSON(expected_text), hooks)
        if cause is not None:
            failures.append(wrap("json mismatch", cause))
    if text_c is not None and not text_c.ignore:
        cause = text_reason(text_c, actual_text, expected_text, hooks)
        if cause is not None:
            failures.append(wrap("text mismatch", cause))
    if rouge_c is not None and not rouge_c.ignore:
        try:
            score = score_rouge(rouge_c, expected_text, actual_text, hooks)
        except MatchError as exc:
            failures.append(fail(f"rouge mismatch: {exc.text}"))
        else:
            if not score.passed:
                failures.append(fail(f"rouge mismatch: {score.reason}"))
    if xml_c is not None and not xml_c.ignore:
        cause = xml_reason(xml_c, actual_text, expected_text, hooks)
        if cause is not None:
            failures.append(wrap("xml mismatch", cause))
    if not failures:
        return None
    return lambda: "; ".join(reason() for reason in failures)


def match_final_response(
    criterion: FinalResponseCriterion,
    actual_invocation: Invocation | None,
    expected_invocation: Invocation | None,
    hooks: Hooks = NO_HOOKS,
) -> None:
    """Raise :class:`~.errors.MatchError` unless the final responses match (SPEC §3.7)."""
    raise_if(final_response_reason(criterion, actual_invocation, expected_invocation, hooks))
