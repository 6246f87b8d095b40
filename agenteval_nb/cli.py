"""The ``agenteval`` command (also ``python -m agenteval_nb``): evaluation a CI job can gate on.

Commands (``agenteval COMMAND --help`` for the options):

* ``run EVALSET... --metrics M [--agent module:obj] [--runs N] [--out DIR] [--report FILE]
  [--store URL] [--junit FILE] [--fail-under RATE]`` — evaluate; a summary table on stdout,
  progress and file paths on stderr;
* ``evaluate`` — ``run`` writing ``OUT/<evalSetId>.evalset_result.json`` and ``OUT/report.html``
  (``--out`` defaults to ``out``), as before;
* ``report RESULT|DIR`` or ``report --store URL --app APP [--result-id ID]`` — HTML reports;
* ``passk RESULT --k 1 5 10`` — pass@k / pass^k of a multi-run result;
* ``compare A B`` — paired comparison per metric (``ae.compare``);
* ``convert IN OUT`` — a google-adk / trpc-agent-python eval set or ``test_config.json`` to the
  Go format (writing the ADK format is not supported); trace files (OTLP/JSON, Jaeger, Tempo,
  Langfuse …, a file or a folder) to a trace-mode eval set, the load report on stderr, exit 2
  with one line when no span could be read;
* ``demo`` — the bundled demo, offline.

Exit codes (the table in ``docs/cli.md``): 0 success (``run``: the evaluation ran to the end and
met the gate); 1 it did not — the gate failed, no case was evaluated, or the evaluation did not
run to the end; 2 a usage or configuration error, every way an ``--agent`` spec can be wrong
included (one line, no traceback); 3 an unexpected failure (a traceback); 130 interrupted.
``--debug`` or ``AGENTEVAL_DEBUG=1`` also shows the tracebacks of 1 and 2.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import json
import math
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from . import demo
from .adk import looks_like_adk_config, looks_like_metrics_config
from .agents.base import Agent, as_agent
from .analysis.headline import PASS_RATE_UNIT, case_pass_rate, pass_rate_text
from .api import evaluate
from .errors import ConfigError, FormatError, describe_exception, exception_message, is_interrupt
from .evalrun import EvalRun
from .experiments import experiment_of_runs
from .io import load_evalset, load_metrics, load_metrics_config, save_evalset, save_metrics
from .report.experiment import write_experiment_junit
from .report.junit import write_junit
from .runs import RunCollection, as_run, load_run
from .secrets import redact
from .stores import LocalResultStore, ResultStore, SQLResultStore, StoreBackendError
from .stores.locator import safe_name
from .traces.load import load_traces, looks_like_traces
from .traces.read import FORMATS
from .views import compare, export_html

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
ERRORS_SHOWN = 5
"""Case errors listed under the summary table."""


class UsageError(Exception):
    """A user mistake the CLI reports as ``error: …`` with exit code 2."""


def _err(text: str) -> None:
    print(text, file=sys.stderr)


# ------------------------------------------------------------------------------ arguments


def pass_rate_arg(text: str) -> float:
    """``--fail-under``: a rate in [0, 1] (``0.9``) or a percentage (``90%``)."""
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a rate: {text!r} (e.g. 0.9 or 90%)") from None
    if not 0.0 <= value <= 1.0 or math.isnan(value):
        raise argparse.ArgumentTypeError(f"a rate between 0 and 1 (or 0% to 100%), got {text}")
    return value


def positive_seconds(text: str) -> float:
    """``--agent-timeout``: a number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"a number of seconds above 0, got {text}")
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def load_agent(spec: str) -> Agent:
    """The agent named by ``module:attr`` (or ``path/to/file.py:attr``; ``attr`` may be dotted).

    A class is instantiated without arguments and a function whose parameters all have
    defaults is called (a factory); any other object — an agent function ``text -> str``, a turn
    function, an object with ``run_turn`` — is the agent itself. Every way this can go wrong
    (no such module, file or attribute; the module, class or factory raises — ``SystemExit``
    too; a class that needs arguments; something that is not an agent) is a
    :class:`UsageError` of one line naming the spec; its cause keeps the traceback.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"--agent {spec!r}: expected module:object (e.g. my_agents:agent)")
    obj: Any = _import_agent_module(spec, module_name)
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except BaseException as exc:
            if is_interrupt(exc):
                raise
            raise UsageError(f"--agent {spec!r}: {module_name!r} has no {attr!r}") from exc
    built = inspect.isclass(obj) or (callable(obj) and _is_factory(obj))
    if built:
        obj = _build_agent(spec, attr, obj)
    try:
        return as_agent(obj)
    except TypeError as exc:
        what = f"{attr}() returned {type(obj).__name__}, which is" if built else "it is"
        raise UsageError(
            _one_line(f"--agent {spec!r}: {what} not an agent: {exception_message(exc)}")
        ) from exc


def _import_agent_module(spec: str, module_name: str) -> Any:
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise UsageError(f"--agent {spec!r}: no file {path}")
            module_spec = importlib.util.spec_from_file_location(path.stem, path)
            if module_spec is None or module_spec.loader is None:
                raise UsageError(f"--agent {spec!r}: cannot import {path}")
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
            return module
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())  # like `python -m`: modules of the working dir
        return importlib.import_module(module_name)
    except UsageError:
        raise
    except ImportError as exc:
        raise UsageError(
            _one_line(f"--agent {spec!r}: cannot import {module_name!r}: {exc}")
        ) from exc
    except BaseException as exc:
        if is_interrupt(exc):
            raise
        raise UsageError(
            _one_line(f"--agent {spec!r}: importing {module_name} raised {describe_exception(exc)}")
        ) from exc


def _build_agent(spec: str, attr: str, factory: Callable[..., Any]) -> Any:
    """``factory()`` (a class or a factory function), its failures as usage errors."""
    if inspect.isclass(factory):
        try:
            required = _required_parameters(factory)
        except (TypeError, ValueError):
            required = []
        if required:
            raise UsageError(
                f"--agent {spec!r}: cannot build {attr}() without arguments (it needs "
                f"{', '.join(required)}); name an instance or a factory function instead"
            )
    try:
        return factory()
    except BaseException as exc:
        if is_interrupt(exc):
            raise
        raise UsageError(
            _one_line(f"--agent {spec!r}: {attr}() raised {describe_exception(exc)}")
        ) from exc


def _required_parameters(fn: Callable[..., Any]) -> list[str]:
    return [
        p.name
        for p in inspect.signature(fn).parameters.values()
        if p.default is inspect.Parameter.empty
        and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    ]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _is_factory(fn: Callable[..., Any]) -> bool:
    try:
        return not _required_parameters(fn)
    except (TypeError, ValueError):
        return False


def open_result_store(target: str) -> ResultStore:
    """``--store``: a database URL (``sqlite:///…``, ``mysql+pymysql://…``) or a folder."""
    if "://" in target:
        return SQLResultStore(target)
    return LocalResultStore(target)


# ------------------------------------------------------------------------------ output


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "n/a" if math.isnan(value) else f"{value:.4g}"
    return "" if value is None else str(value)


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain aligned text table."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    return "\n".join(lines)


def evaluated_count(run: EvalRun) -> int:
    """Case results that were scored: neither an error (of the agent, the loader or an
    evaluator) nor ``not_evaluated``."""
    cases = run.table("cases")
    scored = (pl.col("error").fill_null("") == "") & (pl.col("status") != "not_evaluated")
    return cases.filter(scored).height


def gate(run: EvalRun, fail_under: float | None) -> tuple[bool, str]:
    """Whether ``run`` passes the CI gate, and the sentence saying why.

    Nothing passes on nothing: no case results, or none that was evaluated (every one an error
    or not evaluated), fail. Otherwise, without ``fail_under``: the result's overall status
    must be ``passed``; with it: the pass rate (passed cases / all cases, each case's runs
    combined first, errors counting as not passed: :data:`PASS_RATE_UNIT`) must be at least
    ``fail_under``.
    """
    passed, total = case_pass_rate(run.record)
    rate = passed / total if total else 0.0
    shown = f"pass rate {pass_rate_text(passed, total)}"
    if run.num_case_results == 0:
        return False, "FAILED: no case results"
    if evaluated_count(run) == 0:
        return False, (
            f"FAILED: no case was evaluated ({run.num_case_results} case results, "
            "each an error or not evaluated)"
        )
    if fail_under is not None:
        ok = rate >= fail_under
        return ok, f"{'PASSED' if ok else 'FAILED'}: {shown}, required {fail_under:.1%}"
    summary = run.header.summary
    status = summary.overall_status if summary is not None else None
    ok = status == "passed"
    return ok, f"{'PASSED' if ok else 'FAILED'}: overall status {status or 'n/a'}, {shown}"


def summary_table(run: EvalRun) -> str:
    counts = run.case_status_counts()
    metrics = run.table("metrics").select(pl.col("metric_name").fill_null(""), "threshold")
    thresholds = dict(metrics.unique("metric_name", keep="first", maintain_order=True).iter_rows())
    rows = [
        f"  {name}: {pass_rate_text(passed, evaluated)}, threshold {_cell(thresholds.get(name))}"
        for name, (passed, evaluated) in run.metric_pass_rates().items()
    ]
    head = (
        f"eval set {run.header.eval_set_id}: {sum(counts.values())} case results over "
        f"{run.num_runs} run(s) — passed {counts.get('passed', 0)}, failed "
        f"{counts.get('failed', 0)}, not evaluated {counts.get('not_evaluated', 0)} "
        "(one per case and run)"
    )
    body = "\n".join(["pass rate per metric:", *rows])
    notes = [f"warning: {w}" for w in run.warnings]
    cases = run.table("cases")
    errors = cases.filter(pl.col("error").is_not_null() & (pl.col("error") != ""))
    for eval_id, run_id, error in (
        errors.select("eval_id", "run_id", "error").head(ERRORS_SHOWN).iter_rows()
    ):
        notes.append(f"error: {eval_id} [run {run_id or 1}]: {error}")
    if errors.height > ERRORS_SHOWN:
        notes.append(f"… {errors.height - ERRORS_SHOWN} more case results with errors")
    return redact("\n".join([head, body, *notes]))


# ------------------------------------------------------------------------------ commands


def _cmd_run(args: argparse.Namespace) -> int:
    sets = list(args.evalsets)  # paths: a Go-format file is streamed, case by case
    metrics, file_runs = load_metrics_config(args.metrics)
    num_runs = args.runs or file_runs or 1
    if args.runs is None and file_runs is not None:
        print(f"num_runs {file_runs} (from {args.metrics})")
    agent = load_agent(args.agent) if args.agent else None
    store = open_result_store(args.store) if args.store else None
    try:
        run = evaluate(
            sets if len(sets) > 1 else sets[0],
            metrics,
            agent=agent,
            agent_timeout=args.agent_timeout,
            num_runs=num_runs,
            app_name=args.app,
            result_store=store,
            progress=not args.quiet,
        )
    except (Exception, KeyboardInterrupt):
        raise
    except BaseException as exc:  # user code ended the event loop (SystemExit …) mid-run
        if _debug(args):
            traceback.print_exc()
        print(redact(f"FAILED: the evaluation did not run to the end: {describe_exception(exc)}"))
        return EXIT_FAILED
    finally:
        if store is not None:
            store.close()
    print(summary_table(run))
    if store is not None:
        _err(f"stored: {store!r} {run.app_name}/{run.info.get('saved_result_id')}")
    out = Path(args.out) if args.out else None
    if out is not None:
        name = safe_name(run.header.eval_set_id or "evalset") + ".evalset_result.json"
        _err(f"result: {run.save(out / name)}")
    report = Path(args.report) if args.report else None
    if report is None and args.html_in_out and out is not None:
        report = out / "report.html"
    if report is not None:
        _err(f"report: {run.to_html(report)}")
    if args.junit:
        _err(f"junit: {write_junit(run.record, args.junit)}")
    ok, verdict = gate(run, args.fail_under)
    print(verdict)
    return EXIT_OK if ok else EXIT_FAILED


def _runs_from_args(args: argparse.Namespace) -> tuple[list[tuple[str, EvalRun]], bool]:
    """The runs a ``report`` / ``passk`` names, and whether the source was a collection."""
    if args.store:
        if args.result or not args.app:
            raise UsageError("--store needs --app APP (and no RESULT argument)")
        store = open_result_store(args.store)
        try:
            if args.result_id:
                one = load_run(store, args.app, args.result_id)
                assert isinstance(one, EvalRun)  # a result id names one result
                return [(args.result_id, one)], False
            runs = RunCollection.from_store(store, args.app)
        finally:
            store.close()
        if len(runs) == 0:
            raise UsageError(f"no results of app {args.app!r} in {store!r}")
        return [(safe_name(key), run) for key, run in runs.items()], True
    if not args.result:
        raise UsageError("give a RESULT file or folder, or --store URL --app APP")
    if not Path(args.result).exists():
        raise UsageError(f"{args.result}: file not found")
    loaded = load_run(args.result)
    if isinstance(loaded, RunCollection):
        if len(loaded) == 0:
            raise UsageError(f"{args.result}: no *.evalset_result.json files")
        return loaded.items(), len(loaded) > 1
    return [("", loaded)], False


def _cmd_report(args: argparse.Namespace) -> int:
    runs, many = _runs_from_args(args)
    if not many:
        key, run = runs[0]
        if args.output:
            out = Path(args.output)
        elif args.store:
            out = Path(f"{key}.html")
        else:
            out = Path(args.result).with_suffix(".html")
        print(export_html(run, out, title=args.title, max_cases=args.max_cases))
        return EXIT_OK
    folder = Path(args.output or (args.result if args.result else "reports"))
    for key, run in runs:
        print(export_html(run, folder / f"{key}.html", title=args.title, max_cases=args.max_cases))
    return EXIT_OK


def _cmd_passk(args: argparse.Namespace) -> int:
    runs, many = _runs_from_args(args)
    if many:
        raise UsageError("passk takes one result; give a file, or --result-id with --store")
    run = runs[0][1]
    df = run.pass_at_k_df(ks=args.k, backend="polars")
    if args.json:
        records = [
            {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()}
            for row in df.to_dicts()
        ]
        print(json.dumps(records, default=str, allow_nan=False, indent=2))  # NaN ⇒ null
        return EXIT_OK
    overall = {r["k"]: r for r in df.iter_rows(named=True) if r["level"] == "overall"}
    reference = {r["k"]: r for r in df.iter_rows(named=True) if r["level"] == "eval_set"}
    rows = [
        [
            k,
            overall[k]["n_cases"],
            overall[k]["pass_at_k"],
            overall[k]["pass_at_k_se"],
            overall[k]["pass_hat_k_unbiased"],
            overall[k]["pass_hat_k_unbiased_se"],
            reference[k]["pass_at_k"],
        ]
        for k in args.k
    ]
    print(f"eval set {run.header.eval_set_id}: {run.num_runs} run(s)")
    header = ["k", "cases", "pass@k", "se", "pass^k", "se", "eval-set pass@k"]
    print(table(header, rows))
    return EXIT_OK


def _cmd_compare(args: argparse.Namespace) -> int:
    try:
        run_a, run_b = as_run(args.a, "agenteval compare"), as_run(args.b, "agenteval compare")
    except TypeError as exc:
        raise UsageError(str(exc)) from None
    result = compare(run_a, run_b, by=args.by, labels=(args.label_a, args.label_b))
    stats = result.stats
    rows = [
        [
            r["metric_name"],
            r["n"],
            r["mean_diff"],
            r["se"],
            f"[{_cell(r['ci_low'])}, {_cell(r['ci_high'])}]",
            r["n_flipped"],
            r["mcnemar_p"],
        ]
        for r in stats.to_dict("records")
    ]
    print(f"{args.label_a} = {args.a}\n{args.label_b} = {args.b}   (diff = A − B, by {args.by})")
    header = ["metric", "n", "mean diff", "se", "95% CI", "flipped", "McNemar p"]
    print(table(header, rows))
    if args.csv:
        Path(args.csv).parent.mkdir(parents=True, exist_ok=True)
        result.frame.to_csv(args.csv, index=False)
        _err(f"frame: {args.csv}")
    return EXIT_OK


def _variant_name(path: str) -> str:
    """A result file's variant name: its file name without ``.evalset_result.json`` (or
    without its last suffix)."""
    name = Path(path).name
    suffix = ".evalset_result.json"
    return name[: -len(suffix)] if name.endswith(suffix) else Path(path).stem


def _cmd_leaderboard(args: argparse.Namespace) -> int:
    names = [_variant_name(p) for p in args.results]
    taken = sorted({n for n in names if names.count(n) > 1})
    if taken:
        raise UsageError(f"two results would be variant {taken[0]!r}; rename one of the files")
    try:
        exp = experiment_of_runs(dict(zip(names, args.results, strict=True)))
    except TypeError as exc:
        raise UsageError(str(exc)) from None
    board = exp.leaderboard_df(backend="polars")
    pairs = exp.pairwise_df(args.metric, backend="polars")
    if args.metric is not None:
        if args.metric not in board["metric_name"].to_list():
            known = ", ".join(dict.fromkeys(board["metric_name"].to_list()))
            raise UsageError(f"--metric {args.metric!r}: not a metric of the results ({known})")
        board = board.filter(pl.col("metric_name") == args.metric)
    rows = [
        [
            r["variant"],
            r["metric_name"],
            f"{r['n_passed']}/{r['cases']}",
            r["pass_rate"],
            f"[{_cell(r['pass_rate_low'])}, {_cell(r['pass_rate_high'])}]",
            r["mean_score"],
            r["pass_at_1"],
            r["pass_at_k"],
            r["errors"],
            r["cost"],
        ]
        for r in board.iter_rows(named=True)
    ]
    k = board["k"][0] if board.height else 1
    header = ["variant", "metric", "passed cases", "pass rate", "95% Wilson", "mean score"]
    print(f"pass rates in {PASS_RATE_UNIT}")
    print(table([*header, "pass@1", f"pass@{k}", "errors", "cost"], rows))
    print()
    pair_rows = [
        [
            r["metric_name"],
            f"{r['variant_a']} vs {r['variant_b']}",
            r["n"],
            r["mean_diff"],
            r["n_flipped"],
            r["mcnemar_exact_p"],
            r["p_holm"],
            "yes" if r["significant"] else "no",
        ]
        for r in pairs.iter_rows(named=True)
    ]
    header = ["metric", "pair (A vs B)", "n", "mean diff", "flipped", "exact p", "Holm p"]
    print(table([*header, "significant"], pair_rows))
    if args.junit:
        _err(f"junit: {write_experiment_junit(exp, args.junit)}")
    return EXIT_OK


def _kind_of(path: str) -> str:
    """``"metrics"`` for a metrics array or a ``test_config.json`` (``{"criteria": …}`` or
    ``{"metrics": […]}``), else ``"evalset"`` (tables included)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "evalset"  # the eval set loader says what is wrong
    if looks_like_adk_config(data) or looks_like_metrics_config(data):
        return "metrics"
    metric_keys = ("metricName", "metric_name")
    if isinstance(data, list) and data and all(isinstance(d, dict) for d in data):
        return "metrics" if all(any(k in d for k in metric_keys) for d in data) else "evalset"
    return "evalset"


def _cmd_convert(args: argparse.Namespace) -> int:
    if not Path(args.input).exists():
        raise UsageError(f"{args.input}: file not found")
    kind = args.kind or ("traces" if looks_like_traces(args.input) else _kind_of(args.input))
    if kind == "traces":
        return _convert_traces(args)
    if not Path(args.input).is_file():
        raise UsageError(f"{args.input}: not a file")
    if kind == "metrics":
        metrics = load_metrics(args.input)
        path = save_metrics(metrics, args.output)
        print(f"{path}: {len(metrics)} metric(s) in the Go format")
    else:
        eval_set = load_evalset(args.input)
        path = save_evalset(eval_set, args.output)
        print(f"{path}: eval set {eval_set.eval_set_id} ({len(eval_set.eval_cases or [])} cases)")
    return EXIT_OK


def _convert_traces(args: argparse.Namespace) -> int:
    """Spans → a trace-mode eval set (``ae.load_traces``); the report on stderr; exit 2 with
    one line when nothing could be read."""
    eval_set, report = load_traces(
        args.input, format=args.format, group_by=args.group_by, eval_set_id=args.eval_set_id
    )
    if not eval_set.eval_cases:
        first = report.problems[0] if report.problems else None
        why = f" ({first.where}: {first.message})" if first is not None else ""
        raise UsageError(f"{args.input}: no spans could be read{why}")
    path = save_evalset(eval_set, args.output)
    _err(report.summary())
    turns = sum(len(c.actual_conversation or ()) for c in eval_set.eval_cases)
    print(
        f"{path}: eval set {eval_set.eval_set_id} ({len(eval_set.eval_cases)} cases, "
        f"{turns} turns) from traces"
    )
    return EXIT_OK


def _write_outputs(run: EvalRun, out: Path) -> None:
    print(run.summary_text())
    out.mkdir(parents=True, exist_ok=True)
    result_path = run.save(out / f"{run.header.eval_set_id}.evalset_result.json")
    report_path = run.to_html(out / "report.html")
    print(f"result: {result_path}")
    print(f"report: {report_path}")


def _cmd_demo(args: argparse.Namespace) -> int:
    """Run the demos (see :mod:`agenteval_nb.demo`): the recorded runs → OUT/report.html, the
    live offline agent → OUT/agent/report.html, the experiment → OUT/experiment/report.html."""
    out = Path(args.out)
    judge = not args.no_judge
    progress = not args.quiet
    with demo.offline_endpoint() as local_url:
        if local_url is not None:
            print(
                "offline: the judge is the heuristic judge and the agent the scripted agent "
                "model — neither is an LLM — on a loopback server; set OPENAI_BASE_URL, "
                "OPENAI_API_KEY and AGENTEVAL_JUDGE_MODEL (and AGENTEVAL_AGENT_MODEL) for real ones"
            )
        print("== recorded runs (data/demo/demo_assistant)")
        _write_outputs(demo.recorded_demo(out, judge=judge, progress=progress), out)
        print("== live agent (data/demo/travel_agent)")
        base_url = local_url or os.environ["OPENAI_BASE_URL"]
        agent_run = demo.agent_demo(out / "agent", base_url, judge=judge, progress=progress)
        _write_outputs(agent_run, out / "agent")
        print("== experiment (the travel assistant, three ways)")
        exp = demo.experiment_demo(
            out / "experiment", base_url, agent_run, judge=judge, progress=progress
        )
        overall = exp.leaderboard_df(backend="polars").filter(pl.col("metric_name") == "overall")
        rows = [[r["variant"], r["pass_rate"], r["errors"]] for r in overall.iter_rows(named=True)]
        print(f"pass rates in {PASS_RATE_UNIT}")
        print(table(["variant", "pass rate", "errors"], rows))
        print(f"report: {out / 'experiment' / 'report.html'}")
    return EXIT_OK


# ------------------------------------------------------------------------------ parser


def _add_run_arguments(p: argparse.ArgumentParser, *, legacy: bool) -> None:
    p.add_argument(
        "evalsets",
        nargs="+",
        metavar="EVALSET",
        help="eval set file(s); several = recorded runs 1..N of one eval set",
    )
    p.add_argument(
        "--metrics", required=True, metavar="M", help="metrics file (or a test_config.json)"
    )
    p.add_argument(
        "--agent",
        metavar="MODULE:OBJ",
        help="agent under test: an agent object, "
        "class or factory function (module:obj or path/file.py:obj)",
    )
    p.add_argument(
        "--agent-timeout",
        type=positive_seconds,
        metavar="S",
        help="seconds each agent turn may take; a slower turn fails its case (default: no limit)",
    )
    p.add_argument(
        "--runs",
        type=positive_int,
        default=None,
        metavar="N",
        help="runs per case (default: num_runs of the metrics file, else 1)",
    )
    p.add_argument("--app", help="app name (default: the first case's sessionInput.appName)")
    p.add_argument(
        "--out",
        default="out" if legacy else None,
        metavar="DIR",
        help="write DIR/<evalSetId>.evalset_result.json"
        + (" and DIR/report.html (default: out)" if legacy else ""),
    )
    p.add_argument("--report", metavar="FILE", help="write the HTML report to FILE")
    p.add_argument(
        "--store",
        metavar="URL",
        help="save the result in a store: a database URL "
        "(sqlite:///evals.db, mysql+pymysql://…, ${ENV} expanded) or a folder",
    )
    p.add_argument("--junit", metavar="FILE", help="write JUnit XML (one testcase per case × run)")
    p.add_argument(
        "--fail-under",
        type=pass_rate_arg,
        metavar="RATE",
        help="pass when the pass rate (passed cases / all cases, each case's runs "
        "averaged first) is at least RATE (0.9 or 90%%) instead of requiring the overall "
        "status passed",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_run, html_in_out=legacy)


def _add_source_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "result",
        nargs="?",
        metavar="RESULT",
        help="a .evalset_result.json file or a folder of them",
    )
    p.add_argument(
        "--store", metavar="URL", help="read from a result store (database URL or folder)"
    )
    p.add_argument("--app", help="app name in the store")
    p.add_argument("--result-id", help="one result of the store (default: all of the app)")


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help="show tracebacks of usage errors too (as AGENTEVAL_DEBUG=1)",
    )
    parser = argparse.ArgumentParser(
        prog="agenteval",
        description="Evaluate LLM agents (trpc-agent-go evaluation format) and gate CI on it.",
        epilog="exit codes: 0 passed/ok, 1 the evaluation failed its gate, evaluated nothing or "
        "did not run to the end, 2 usage or configuration error, 3 unexpected failure, "
        "130 interrupted",
        parents=[common],
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = sub.add_parser(
        "run", parents=[common], help="evaluate eval sets; exit 1 when below the thresholds"
    )
    _add_run_arguments(run, legacy=False)
    ev = sub.add_parser(
        "evaluate",
        parents=[common],
        help="run, writing the result and report to --out (default out)",
    )
    _add_run_arguments(ev, legacy=True)

    rep = sub.add_parser(
        "report", parents=[common], help="write single-file HTML reports of results"
    )
    _add_source_arguments(rep)
    rep.add_argument(
        "-o",
        "--output",
        help="report path (one result; default: RESULT with .html) "
        "or folder (several results; default: the RESULT folder, or reports/)",
    )
    rep.add_argument("--title", help="report title")
    rep.add_argument("--max-cases", type=int, help="case results with full details (default: 500)")
    rep.set_defaults(func=_cmd_report)

    pk = sub.add_parser("passk", parents=[common], help="pass@k and pass^k of a multi-run result")
    _add_source_arguments(pk)
    pk.add_argument("--k", type=positive_int, nargs="+", default=[1], help="k values (default 1)")
    pk.add_argument("--json", action="store_true", help="every row (per case too) as JSON")
    pk.set_defaults(func=_cmd_passk)

    cmp_ = sub.add_parser(
        "compare", parents=[common], help="paired comparison of two results (A − B)"
    )
    cmp_.add_argument("a", metavar="A", help="result file (or folder with one)")
    cmp_.add_argument("b", metavar="B", help="result file (or folder with one)")
    cmp_.add_argument("--by", choices=["case", "invocation"], default="case")
    cmp_.add_argument("--label-a", default="A")
    cmp_.add_argument("--label-b", default="B")
    cmp_.add_argument("--csv", metavar="FILE", help="write the aligned rows as CSV")
    cmp_.set_defaults(func=_cmd_compare)

    lb = sub.add_parser(
        "leaderboard",
        parents=[common],
        help="several results side by side: leaderboard and Holm-adjusted pairwise table",
    )
    lb.add_argument(
        "results",
        nargs="+",
        metavar="RESULT",
        help="result files, one per variant (named by file name without its suffix)",
    )
    lb.add_argument("--metric", help="only this metric (default: every metric and overall)")
    lb.add_argument("--junit", metavar="FILE", help="write JUnit XML: one test suite per variant")
    lb.set_defaults(func=_cmd_leaderboard)

    conv = sub.add_parser(
        "convert",
        parents=[common],
        help="ADK / trpc-agent-python eval set, test_config.json or trace files to the Go format",
    )
    conv.add_argument("input", metavar="IN", help="a file; for traces also a folder")
    conv.add_argument("output", metavar="OUT")
    conv.add_argument("--kind", choices=["evalset", "metrics", "traces"], help="default: detected")
    conv.add_argument(
        "--format", choices=FORMATS, default="auto", help="traces: the envelope (default: auto)"
    )
    conv.add_argument("--group-by", metavar="ATTR", help="traces: the conversation attribute")
    conv.add_argument("--eval-set-id", metavar="ID", help="traces: default the file's name")
    conv.set_defaults(func=_cmd_convert)

    dm = sub.add_parser("demo", parents=[common], help="evaluate the bundled demo data offline")
    dm.add_argument("--out", default="out", help="output folder (default: out)")
    dm.add_argument("--quiet", action="store_true", help="no progress bar")
    dm.add_argument("--no-judge", action="store_true", help="deterministic metrics only")
    dm.set_defaults(func=_cmd_demo)
    return parser


USER_ERRORS = (
    UsageError,
    ConfigError,
    FormatError,
    ValueError,
    OSError,
    KeyError,
    StoreBackendError,
)
"""Reported as ``error: …`` with exit code 2 (``FileNotFoundError`` and the stores'
``NotFoundError`` included)."""


def _debug(args: argparse.Namespace) -> bool:
    """``--debug`` given, or ``AGENTEVAL_DEBUG`` set (to anything but ``0``)."""
    return bool(getattr(args, "debug", False)) or os.environ.get("AGENTEVAL_DEBUG", "0") not in (
        "",
        "0",
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except USER_ERRORS as exc:
        if _debug(args):
            traceback.print_exc()
        text = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        _err(redact(f"error: {text}"))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except Exception:
        traceback.print_exc()
        _err("agenteval: unexpected failure (exit 3)")
        return EXIT_INTERNAL


if __name__ == "__main__":
    raise SystemExit(main())
