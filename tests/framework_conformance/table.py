"""The conformance table of docs/agents.md (between :data:`START` and :data:`END`): one row per
framework module, its declarations (how each turn is called, how memory is kept) and, per mode,
what a fresh run gave: ``ok: cases_ok n/n`` or ``gap: <reason>`` (the gap's check passed).

``PYTHONPATH=tests python -m framework_conformance.table --write`` runs every framework
installed in this environment against the loopback server and rewrites their rows; rows of
frameworks not installed here stay as they are (another environment writes them). Without
``--write`` it prints the table and exits 1 when the docs differ. The conformance test checks
the same after its runs (``tests/framework_conformance/test_conformance.py``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

from agenteval_nb.testing.fake_server import FakeOpenAIServer

from .cases import scripted_model
from .contract import MODES
from .runner import Outcome, conformance, framework_modules, installed

START = "<!-- conformance:start (generated: PYTHONPATH=tests python -m framework_conformance.table --write) -->"
END = "<!-- conformance:end -->"
DOC = Path(__file__).resolve().parents[2] / "docs" / "agents.md"
HEADER = (
    "| framework | how each turn is called | earlier turns kept by | "
    + " | ".join(MODES)
    + " |\n|"
    + "---|" * (3 + len(MODES))
)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def row(module: ModuleType, outcomes: Mapping[str, Outcome]) -> str:
    """The table row of ``module`` from its outcomes by mode (``ok: …`` / ``gap: …``)."""
    cells = [module.FRAMEWORK, module.CALLED, module.MEMORY]
    for mode in MODES:
        cell = outcomes[mode].cell
        cells.append(cell if cell.startswith("gap: ") else f"ok: {cell}")
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def rows_in(doc: str) -> dict[str, str]:
    """The rows between the markers, by framework name (first cell)."""
    block = _block(doc)
    out = {}
    for line in block.splitlines()[2:]:
        if line.startswith("| "):
            out[line[2:].split(" | ", 1)[0]] = line
    return out


def _block(doc: str) -> str:
    if START not in doc or END not in doc:
        raise ValueError(f"{DOC}: the markers {START!r} … {END!r} are missing")
    return doc.split(START, 1)[1].split(END, 1)[0].strip("\n")


def updated(doc: str, fresh: Mapping[str, str], modules: list[ModuleType]) -> str:
    """``doc`` with the table rebuilt: the ``fresh`` rows (by framework), the doc's own rows for
    frameworks not run here, a placeholder for a framework never run."""
    kept = rows_in(doc)
    lines = [HEADER]
    for module in modules:
        name = module.FRAMEWORK
        placeholder = f"| {name} | not run yet: install `{module.PACKAGE}` and write the table |"
        lines.append(fresh.get(name) or kept.get(name) or placeholder)
    before, rest = doc.split(START, 1)
    after = rest.split(END, 1)[1]
    return before + START + "\n" + "\n".join(lines) + "\n" + END + after


def fresh_rows(outcomes: Mapping[tuple[str, str], Outcome], modules: list[ModuleType]) -> dict:
    """Rows of the modules whose every mode has an outcome."""
    out = {}
    for module in modules:
        by_mode = {mode: outcomes.get((module.FRAMEWORK, mode)) for mode in MODES}
        if all(by_mode.values()):
            out[module.FRAMEWORK] = row(module, by_mode)  # type: ignore[arg-type]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite docs/agents.md")
    args = parser.parse_args(argv)
    modules = framework_modules()
    outcomes: dict[tuple[str, str], Outcome] = {}
    with FakeOpenAIServer(scripted_model()) as server:
        for module in modules:
            if not installed(module):
                print(f"{module.FRAMEWORK}: {module.PACKAGE} not installed, row kept")
                continue
            for mode in MODES:
                outcomes[(module.FRAMEWORK, mode)] = conformance(module, mode, server)
    doc = DOC.read_text(encoding="utf-8")
    new = updated(doc, fresh_rows(outcomes, modules), modules)
    print(_block(new))
    if args.write:
        DOC.write_text(new, encoding="utf-8")
        return 0
    return 0 if new == doc else 1


if __name__ == "__main__":
    sys.exit(main())
