"""JUnit XML of an evaluation, so CI systems show case results natively.

One ``<testsuite>`` per result (named by the eval set id), one ``<testcase>`` per case result —
per case × run: ``name`` is ``"<evalId>"`` for single-run results and ``"<evalId> [run N]"``
otherwise, ``classname`` the eval set id. A case that failed its thresholds carries a
``<failure>`` (``message``: the failed metrics with score, threshold and reason; body: every
metric's line), a case whose agent or evaluation raised an ``<error>`` with the error message,
a ``not_evaluated`` case ``<skipped>``. Texts are redacted (:func:`agenteval_nb.secrets.redact`)
and stripped of characters XML 1.0 cannot hold.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

from ..analysis.passk import num_runs
from ..analysis.record import RunRecord, case_metric_rows
from ..io import write_text_atomic
from ..secrets import redact

_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
MESSAGE_LIMIT = 1000
"""Longest ``message`` attribute (characters); the element body holds the full text."""


def _text(value: str) -> str:
    return _NOT_XML.sub("\ufffd", redact(value))


def _short(value: str) -> str:
    value = _text(value)
    return value if len(value) <= MESSAGE_LIMIT else value[: MESSAGE_LIMIT - 1] + "…"


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4g}"


Metric = tuple[str | None, str | None, float | None, float | None, str | None]
"""An overall metric result: (metric_name, status, score, threshold, reason) — metrics table."""
_METRIC_COLUMNS = ("metric_name", "status", "score", "threshold", "reason")


def _metric_line(metric: Metric) -> str:
    name, status, score, threshold, reason = metric
    line = f"{name}: {status} (score {_number(score)}, threshold {_number(threshold)})"
    return f"{line}: {reason}" if reason else line


def _case_name(eval_id: str | None, run_id: int | None, multi_run: bool) -> str:
    name = eval_id or "?"
    return f"{name} [run {run_id or 1}]" if multi_run else name


def _outcome(
    status: str | None, error: str | None, metrics: list[Metric]
) -> tuple[str, str, str] | None:
    """``(element, message, body)`` for a case that did not pass, else ``None``."""
    body = "\n".join(_metric_line(m) for m in metrics)
    if error:
        return "error", error, "\n".join(filter(None, [error, body]))
    if status == "failed":
        failed = [m for m in metrics if m[1] == "failed"]
        message = "; ".join(_metric_line(m) for m in failed) or "case failed"
        return "failure", message, body
    if status != "passed":
        return "skipped", f"case {status or 'not evaluated'}", body
    return None


def junit_xml(run: RunRecord) -> str:
    """The JUnit XML document (UTF-8 text with an XML declaration) of ``run``, from its cases
    and metrics tables (no case result is decoded)."""
    result = run.header
    set_id = result.eval_set_id or "evalset"
    cases = run.table("cases").select("eval_id", "run_id", "status", "error").rows()
    case_metrics = case_metric_rows(run, _METRIC_COLUMNS)
    runs = num_runs(run)
    multi_run = runs > 1 or len({run_id for _, run_id, _, _ in cases}) > 1
    counts = {"failure": 0, "error": 0, "skipped": 0}
    suite = ET.Element("testsuite", name=_text(set_id))
    properties = ET.SubElement(suite, "properties")
    summary = result.summary
    for name, value in (
        ("evalSetResultId", result.eval_set_result_id),
        ("appName", run.app_name or None),
        ("numRuns", str(runs)),
        ("overallStatus", summary.overall_status if summary is not None else None),
    ):
        if value:
            ET.SubElement(properties, "property", name=name, value=_text(value))
    for (eval_id, run_id, status, error), metrics in zip(cases, case_metrics, strict=True):
        element = ET.SubElement(
            suite,
            "testcase",
            classname=_text(set_id),
            name=_text(_case_name(eval_id, run_id, multi_run)),
        )
        element.set("time", "0")
        outcome = _outcome(status, error, metrics)
        if outcome is not None:
            kind, message, body = outcome
            counts[kind] += 1
            child = ET.SubElement(element, kind, message=_short(message))
            if kind != "skipped":
                child.set("type", "error" if kind == "error" else "threshold")
            child.text = _text(body) if body else None
    attributes = {
        "tests": str(len(cases)),
        "failures": str(counts["failure"]),
        "errors": str(counts["error"]),
        "skipped": str(counts["skipped"]),
        "time": f"{run.elapsed_s or 0:.3f}",
    }
    if result.creation_timestamp:
        stamp = datetime.fromtimestamp(result.creation_timestamp, UTC)
        attributes["timestamp"] = stamp.strftime("%Y-%m-%dT%H:%M:%S")
    for key, value in attributes.items():
        suite.set(key, value)
    root = ET.Element("testsuites", name="agenteval")
    for key in ("tests", "failures", "errors", "skipped", "time"):
        root.set(key, attributes[key])
    root.append(suite)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_junit(run: RunRecord, path: str | os.PathLike[str]) -> Path:
    """Write :func:`junit_xml` of ``run`` to ``path`` atomically; returns the path."""
    return write_text_atomic(path, junit_xml(run))
