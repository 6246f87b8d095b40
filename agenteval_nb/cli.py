"""The ``agenteval`` command (also ``python -m agenteval_nb``).

``agenteval demo [--out DIR]``  evaluate the bundled demo data offline and write the outputs.
``agenteval evaluate EVALSET... --metrics FILE [--out DIR]``  evaluate eval set files.
``agenteval report RESULT.json [-o report.html]``  write the single-file HTML report of a result.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path


def _write_outputs(run: object, out: Path) -> None:
    print(run.summary_text())  # type: ignore[attr-defined]
    out.mkdir(parents=True, exist_ok=True)
    result_path = run.save(out / f"{run.result.eval_set_id}.evalset_result.json")  # type: ignore[attr-defined]
    report_path = run.to_html(out / "report.html")  # type: ignore[attr-defined]
    print(f"result: {result_path}")
    print(f"report: {report_path}")


def _evaluate_and_write(
    evalsets: list[Path], metrics: Path, out: Path, progress: bool, **kwargs: object
) -> int:
    from .api import evaluate

    run = evaluate([str(p) for p in evalsets], str(metrics), progress=progress, **kwargs)
    _write_outputs(run, out)
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    """Run both demos (see :mod:`agenteval_nb.demo`): the recorded runs → OUT/report.html, the
    live offline agent → OUT/agent/report.html."""
    from . import demo

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
    return 0


def _cmd_evaluate(args: argparse.Namespace) -> int:
    return _evaluate_and_write(
        [Path(p) for p in args.evalsets], Path(args.metrics), Path(args.out), not args.quiet
    )


def _cmd_report(args: argparse.Namespace) -> int:
    from .analysis.load import as_run
    from .report import export_html

    try:
        run = as_run(args.result, "agenteval report")
    except TypeError as exc:  # a folder with several results
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.output) if args.output else Path(args.result).with_suffix(".html")
    print(export_html(run, out, title=args.title, max_cases=args.max_cases))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="agenteval", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="evaluate the bundled demo data offline")
    demo.add_argument("--out", default="out", help="output folder (default: out)")
    demo.add_argument("--quiet", action="store_true", help="no progress bar")
    demo.add_argument("--no-judge", action="store_true", help="deterministic metrics only")
    demo.set_defaults(func=_cmd_demo)
    ev = sub.add_parser("evaluate", help="evaluate eval set files (several = recorded runs)")
    ev.add_argument("evalsets", nargs="+")
    ev.add_argument("--metrics", required=True)
    ev.add_argument("--out", default="out")
    ev.add_argument("--quiet", action="store_true")
    ev.set_defaults(func=_cmd_evaluate)
    rep = sub.add_parser("report", help="write the single-file HTML report of a result file")
    rep.add_argument("result", help="a .evalset_result.json file (or a folder with one)")
    rep.add_argument("-o", "--output", help="report path (default: RESULT with .html)")
    rep.add_argument("--title", help="report title")
    rep.add_argument("--max-cases", type=int, help="case results with full details (default: 500)")
    rep.set_defaults(func=_cmd_report)
    args = parser.parse_args(argv)
    from .errors import ConfigError, FormatError

    try:
        return int(args.func(args))
    except (ConfigError, FormatError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
