"""The committed notebooks show what they are about when viewed statically (GitHub, nbconvert
HTML): plots as images, the inspector as a readable summary, no frozen progress bars.

nbval (run in CI with ``--nbval-lax``) executes the notebooks but compares only marked cells;
these checks read the stored outputs, so a cell whose chart went missing fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))
_PLOT_CALL = re.compile(r"^(ae\.plots\.\w+\(.*\)|fig)\s*$")
_PROGRESS = re.compile(r"\d+%\|")


def _code_cells(path: Path):
    nb = nbformat.read(path, as_version=4)
    return [c for c in nb.cells if c.cell_type == "code"]


def _last_line(cell) -> str:
    lines = [ln for ln in cell.source.splitlines() if ln.strip() and not ln.startswith("#")]
    return lines[-1] if lines else ""


def _plot_cells(path: Path):
    return [
        c for c in _code_cells(path) if "ae.plots." in c.source and _PLOT_CALL.match(_last_line(c))
    ]


def test_the_notebooks_plot_something():
    assert sum(len(_plot_cells(p)) for p in NOTEBOOKS) >= 4


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_plot_cells_have_image_outputs(path):
    for cell in _plot_cells(path):
        kinds = {k for o in cell.get("outputs", ()) for k in o.get("data", {})}
        assert "image/png" in kinds or "image/svg+xml" in kinds, cell.source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_frozen_progress_bars(path):
    for cell in _code_cells(path):
        for out in cell.get("outputs", ()):
            text = out.get("text", "") or out.get("data", {}).get("text/plain", "")
            assert not _PROGRESS.search(text), cell.source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_widgets_have_a_static_fallback(path):
    for cell in _code_cells(path):
        for out in cell.get("outputs", ()):
            data = out.get("data", {})
            if "application/vnd.jupyter.widget-view+json" not in data:
                continue
            assert "text/html" in data, cell.source
            assert not data.get("text/plain", "").startswith("VBox("), cell.source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_stored_widget_state(path):
    """Without widget state, nbconvert and GitHub show the inspector's HTML summary."""
    assert "widgets" not in nbformat.read(path, as_version=4).metadata


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_output_checks_are_markers_nbval_reads(path):
    """nbval honours ``# NBVAL_CHECK_OUTPUT`` only on a line of its own: a marker trailing code
    would leave the cell unchecked while looking checked."""
    trailing = [
        line
        for cell in _code_cells(path)
        for line in cell.source.splitlines()
        if "NBVAL_CHECK_OUTPUT" in line and not line.lstrip().startswith("#")
    ]
    assert trailing == []
