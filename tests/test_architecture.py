"""The house stands in one direction: the package's imports, read with ``ast``, have no cycle
and never point up the layer order below.

Every import counts — module-level and inside functions (a function-level import does not
make a cycle go away, it only hides it until the call) — except those under
``if TYPE_CHECKING:``, which never run. A room is a top-level module or sub-package of
``agenteval_nb``; an import between two rooms must go to a strictly lower layer. Inside a room
only cycles are checked.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import agenteval_nb

PACKAGE_DIR = Path(agenteval_nb.__file__).parent

LAYERS: list[tuple[set[str], str]] = [
    (
        {
            "agenteval_nb",
            "_gc",
            "errors",
            "offline_flags",
            "openai_pool",
            "plot_figure",
            "secrets",
            "settings",
            "syncio",
        },
        "foundations that import nothing of the package (the root resolves ae.* by importlib)",
    ),
    ({"adk", "schema"}, "the wire models and the google-adk key rules"),
    (
        {"io", "steps"},
        "files of those models: entry rules, decoding, the Go writer, loaders, case sources;"
        " steps of a turn (any source) and the one builder that makes them an Invocation",
    ),
    (
        {"stores", "traces"},
        "eval-set, metric and result stores: memory, files, SQL, on io; trace files read into"
        " steps and built into trace-mode eval sets",
    ),
    ({"criteria", "verifier"}, "deterministic matchers and verifier scoring: models only"),
    ({"judge"}, "the judge client; its response check reads logprobs as verifier scoring does"),
    ({"evaluators"}, "evaluators call criteria, the judge client and verifier scoring"),
    ({"agents"}, "agents under test: tool mocks match with criteria, the recorder saves via io"),
    ({"engine", "testing"}, "the two phases over agents and evaluators; offline models on them"),
    ({"executors"}, "where cases run (Ray): the engine's one-case unit"),
    ({"analysis"}, "the run record and functions of it: frames, statistics, pass@k, comparison"),
    ({"plots", "render"}, "figures of a record; HTML pieces of a case result"),
    ({"report", "widgets"}, "the HTML report and the inspector: they take a record"),
    ({"evalrun"}, "EvalRun, the front door of a record: one line per method into the rooms below"),
    ({"runs"}, "load_run, as_run, RunCollection: anything a run comes from, made an EvalRun"),
    (
        {"batching"},
        "batch judging: passes of the evaluation the front door hands it, judge requests sent"
        " through the provider's batch API, resumed from results_dir",
    ),
    (
        {"api", "views"},
        "ae.evaluate returns an EvalRun; ae.compare/export_html/inspect coerce once",
    ),
    (
        {"experiments", "live", "rejudging"},
        "ae.experiment: variants evaluated with ae.evaluate, side by side; ae.start: one"
        " evaluation in the background, journalled, cancelled, resumed; ae.rejudge: a recorded"
        " run's judge metrics through the engine again",
    ),
    (
        {"bestofn", "demo", "judge_choice", "cost_estimate"},
        "best-of-n and the demo call ae.evaluate; compare_judges rejudges with each candidate;"
        " estimate_cost rejudges eval-set stand-ins with a judge that sends nothing",
    ),
    ({"cli"}, "the agenteval command: every door"),
    ({"__main__"}, "python -m agenteval_nb"),
]
"""Rooms from the bottom up, each line with why it stands there (DESIGN.md §1, §2). The judge
client sits below the evaluators: the LLM evaluators call it, it knows no evaluator."""

EXCEPTIONS: set[tuple[str, str]] = set()
"""(importing room, imported room) pairs allowed against the order: none."""


# -- the checker ------------------------------------------------------------------------------


def module_files(package_dir: Path) -> dict[str, Path]:
    """Dotted module name → file, for every ``.py`` under ``package_dir`` (a package is named
    by its ``__init__``)."""
    root = package_dir.parent
    found = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(node: ast.AST, type_only: bool = False) -> Iterable[ast.AST]:
    """Every node under ``node`` except the bodies of ``if TYPE_CHECKING:`` (with
    ``type_only``: those too)."""
    for child in ast.iter_child_nodes(node):
        if not type_only and isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield other
                yield from _statements(other)
            continue
        yield child
        yield from _statements(child, type_only)


def imports_of(
    module: str, path: Path, modules: Mapping[str, Path], type_only: bool = False
) -> set[str]:
    """The package modules ``module`` imports (each resolved to the longest existing module);
    ``type_only`` counts the imports under ``if TYPE_CHECKING:`` too."""
    top = module.split(".")[0]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def existing(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    targets: set[str | None] = set()
    for node in _statements(ast.parse(path.read_text(encoding="utf-8")), type_only):
        if isinstance(node, ast.Import):
            targets.update(existing(a.name) for a in node.names if a.name.split(".")[0] == top)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            if source.split(".")[0] != top:
                continue
            for alias in node.names:
                child = f"{source}.{alias.name}"
                targets.add(child if child in modules else existing(source))
    return {t for t in targets if t is not None and t != module}


def import_graph(package_dir: Path, type_only: bool = False) -> dict[str, set[str]]:
    modules = module_files(package_dir)
    return {name: imports_of(name, path, modules, type_only) for name, path in modules.items()}


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def room(module: str) -> str:
    """``agenteval_nb.analysis.record`` → ``analysis``; the root package is its own room."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def against_layers(
    graph: Mapping[str, set[str]],
    layers: Sequence[tuple[set[str], str]],
    exceptions: set[tuple[str, str]] = frozenset(),  # type: ignore[assignment]
) -> list[str]:
    """Every import between rooms that does not go to a strictly lower layer, and every room
    the layers do not place."""
    layer_of = {name: i for i, (rooms, _) in enumerate(layers) for name in rooms}
    problems = sorted({f"{room(m)}: no layer" for m in graph if room(m) not in layer_of})
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            a, b = room(module), room(target)
            if a == b or a not in layer_of or b not in layer_of or (a, b) in exceptions:
                continue
            if layer_of[b] >= layer_of[a]:
                problems.append(
                    f"{module} imports {target}: {a} (layer {layer_of[a]}) may not "
                    f"import {b} (layer {layer_of[b]})"
                )
    return problems


# -- the package ------------------------------------------------------------------------------


def test_the_package_has_no_import_cycle():
    assert cycles(import_graph(PACKAGE_DIR)) == []


def test_type_only_imports_make_no_cycle_either():
    """A module that names another's class for its types while that one imports it leans on
    it both ways (frames ⇄ record was such a loop): the lower one declares a protocol."""
    assert cycles(import_graph(PACKAGE_DIR, type_only=True)) == []


def test_every_import_goes_down_the_layer_order():
    assert against_layers(import_graph(PACKAGE_DIR), LAYERS, EXCEPTIONS) == []


def test_every_layered_room_exists_and_stands_once():
    rooms = {room(m) for m in module_files(PACKAGE_DIR)}
    listed = [name for names, _ in LAYERS for name in names]
    assert sorted(set(listed) - rooms) == []
    assert len(listed) == len(set(listed))


def test_analysis_imports_no_view():
    graph = import_graph(PACKAGE_DIR)
    views = {"report", "plots", "widgets", "render", "evalrun", "runs", "views"}
    assert {
        target
        for module, targets in graph.items()
        if room(module) == "analysis"
        for target in targets
        if room(target) in views
    } == set()


# -- the checker on planted packages ------------------------------------------------------------


def _package(tmp_path: Path, files: Mapping[str, str]) -> Path:
    package = tmp_path / "pkg"
    for name, text in {"__init__.py": "", **files}.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return package


def test_a_cycle_is_found_even_through_a_function_level_import(tmp_path):
    package = _package(
        tmp_path,
        {
            "low.py": "def f():\n    from .high import g\n    return g\n",
            "high.py": "from .low import f\n",
            "other.py": "import pkg.low\n",
        },
    )
    assert cycles(import_graph(package)) == [["pkg.high", "pkg.low"]]


def test_a_cycle_through_a_sub_package_is_found(tmp_path):
    package = _package(
        tmp_path,
        {
            "room/__init__.py": "from .inner import x\n",
            "room/inner.py": "from .. import top\nx = 1\n",
            "top.py": "from pkg.room import x\n",
        },
    )
    assert cycles(import_graph(package)) == [["pkg.room", "pkg.room.inner", "pkg.top"]]


def test_type_checking_imports_do_not_count(tmp_path):
    package = _package(
        tmp_path,
        {
            "low.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from .high import g\nelse:\n    import json\n"
            ),
            "high.py": "from .low import TYPE_CHECKING\n",
        },
    )
    assert cycles(import_graph(package)) == []


def test_an_upward_import_and_an_unplaced_room_are_reported(tmp_path):
    package = _package(
        tmp_path,
        {"low.py": "def f():\n    from . import high\n", "high.py": "", "stray.py": ""},
    )
    layers = [({"pkg", "low"}, "bottom"), ({"high"}, "top")]
    problems = against_layers(import_graph(package), layers)
    assert problems == [
        "stray: no layer",
        "pkg.low imports pkg.high: low (layer 0) may not import high (layer 1)",
    ]
    assert against_layers(import_graph(package), layers, {("low", "high")}) == ["stray: no layer"]


def test_rooms_of_one_layer_may_not_import_each_other(tmp_path):
    package = _package(tmp_path, {"a.py": "from . import b\n", "b.py": ""})
    problems = against_layers(import_graph(package), [({"pkg", "a", "b"}, "one layer")])
    assert problems == ["pkg.a imports pkg.b: a (layer 0) may not import b (layer 0)"]
