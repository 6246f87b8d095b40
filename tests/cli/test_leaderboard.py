"""``agenteval leaderboard RESULT…`` as a real subprocess: the leaderboard and the
Holm-adjusted pairwise table of saved results, one variant per file."""

from __future__ import annotations

import subprocess
import sys

import pytest
from _builders import METRIC, ExactAnswer, evalset, registry_with, trace_case

import agenteval_nb as ae

EXPECTED = ["a1", "a2", "a3", "a4"]


def saved(folder, name: str, answers: list[str], set_id: str = "set", num_runs: int = 1) -> str:
    cases = [trace_case(f"c{i}", [e], [a]) for i, (e, a) in enumerate(zip(EXPECTED, answers))]
    run = ae.evaluate(
        evalset(*cases, set_id=set_id),
        [METRIC],
        registry=registry_with(ExactAnswer()),
        num_runs=num_runs,
        progress=False,
    )
    return str(run.save(folder / f"{name}.evalset_result.json"))


def agenteval(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agenteval_nb", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lb")
    return [
        saved(folder, "good", EXPECTED),
        saved(folder, "half", ["a1", "a2", "x", "x"]),
        saved(folder, "bad", ["x", "x", "x", "x"]),
    ]


def test_leaderboard_prints_the_board_best_first_and_the_adjusted_pairs(results):
    done = agenteval("leaderboard", *results)
    assert done.returncode == 0, done.stderr
    board, pairs = done.stdout.split("\n\n")
    lines = board.splitlines()
    assert lines[0] == "pass rates in cases passed, runs averaged per case"
    assert lines[1].split()[:4] == ["variant", "metric", "passed", "cases"]
    rows = [line.split()[:5] for line in lines[3:]]
    assert [[r[0], r[1], r[2], r[3]] for r in rows] == [
        ["good", "exact_answer", "4/4", "1"],
        ["good", "overall", "4/4", "1"],
        ["half", "exact_answer", "2/4", "0.5"],
        ["half", "overall", "2/4", "0.5"],
        ["bad", "exact_answer", "0/4", "0"],
        ["bad", "overall", "0/4", "0"],
    ]
    pair_lines = pairs.splitlines()[2:]
    assert [line.split()[1:4] for line in pair_lines] == [
        ["good", "vs", "half"],
        ["good", "vs", "bad"],
        ["half", "vs", "bad"],
    ]
    # exact p: good–bad 2/2^4 = .125 (×3 = .375); good–half and half–bad .5 (×2 → 1, ×1 → 1)
    holm = [line.split()[-2] for line in pair_lines]
    assert holm == ["1", "0.375", "1"]


def test_leaderboard_of_one_metric(results):
    done = agenteval("leaderboard", *results, "--metric", "exact_answer")
    assert done.returncode == 0, done.stderr
    board = done.stdout.split("\n\n")[0]
    assert "overall" not in board
    unknown = agenteval("leaderboard", *results, "--metric", "nope")
    assert unknown.returncode == 2
    assert "--metric 'nope': not a metric of the results (exact_answer, overall)" in unknown.stderr


def test_leaderboard_refuses_a_result_of_another_eval_set(results, tmp_path):
    other = saved(tmp_path, "other", EXPECTED, set_id="elsewhere")
    done = agenteval("leaderboard", results[0], other)
    assert done.returncode == 2
    assert "variant 'other' was scored differently from 'good': eval set elsewhere" in done.stderr


def test_leaderboard_writes_one_junit_suite_per_variant(results, tmp_path):
    import xml.etree.ElementTree as ET

    path = tmp_path / "junit.xml"
    done = agenteval("leaderboard", *results, "--junit", str(path))
    assert done.returncode == 0, done.stderr
    root = ET.parse(path).getroot()
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["good", "half", "bad"]
    assert [s.get("failures") for s in suites] == ["0", "2", "4"]
    assert (root.get("tests"), root.get("failures")) == ("12", "6")


def test_leaderboard_counts_cases_as_the_run_summary_does(tmp_path):
    """Two runs of four cases: 2 of 4 cases passed (not 4 of 8 case-runs), the number
    ``agenteval``'s run summary prints for the same file."""
    paths = [
        saved(tmp_path, "twice", ["a1", "a2", "x", "x"], num_runs=2),
        saved(tmp_path, "once", EXPECTED),
    ]
    done = agenteval("leaderboard", *paths)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("\n\n")[0].splitlines()[3:]
    rows = {tuple(line.split()[:2]): line.split()[2] for line in lines}
    assert rows[("twice", "overall")] == "2/4" and rows[("twice", "exact_answer")] == "2/4"
    assert "2/4 cases passed, runs averaged per case" in ae.load_run(paths[0]).summary_text()
