"""A voilà server and a headless Chromium (driven by playwright) for the widget browser tests.

The browser is the system Chromium (``/usr/bin/chromium``, started through playwright's
``executable_path``; no browser is downloaded). voilà serves the notebooks with a copy of its
``lab`` template minus the two font stylesheet links it loads from a CDN, so that the page
makes no request beyond the loopback server. Without Chromium, playwright or voilà the tests
are skipped — or fail when ``AGENTEVAL_REQUIRE_BROWSER`` is set, as in CI (``.ci/run``).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from jupyter_core.paths import jupyter_path as jupyter_data_paths

CHROMIUM = Path("/usr/bin/chromium")
REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "out" / "browser"
"""Where the browser tests leave their screenshots (for people to look at)."""

SERVER_START_S = 180
"""How long voilà may take to answer at all on a loaded machine."""

TEMPLATE = "agenteval-offline"


def require_browser() -> None:
    """Skip (or fail under ``AGENTEVAL_REQUIRE_BROWSER``) when a piece is missing."""
    missing = []
    if not CHROMIUM.exists():
        missing.append(f"chromium ({CHROMIUM})")
    for module in ("playwright", "voila"):
        try:
            __import__(module)
        except ImportError:
            missing.append(f"the {module} package (pip install -e '.[dev]')")
    if not missing:
        return
    reason = "needs " + ", ".join(missing)
    if os.environ.get("AGENTEVAL_REQUIRE_BROWSER"):
        pytest.fail(f"{reason}, and AGENTEVAL_REQUIRE_BROWSER is set (.ci/run)")
    pytest.skip(reason)


def offline_template(jupyter_path: Path) -> None:
    """voilà's ``lab`` template without its CDN stylesheet links, as ``agenteval-offline``."""
    lab = None
    for root in jupyter_data_paths("voila", "templates", "lab"):
        if (Path(root) / "index.html.j2").exists():
            lab = Path(root) / "index.html.j2"
            break
    assert lab is not None, "voila's lab template not found"
    target = jupyter_path / "voila" / "templates" / TEMPLATE
    target.mkdir(parents=True, exist_ok=True)
    lines = lab.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if "://" not in line or "cdn." not in line]
    (target / "index.html.j2").write_text("".join(kept), encoding="utf-8")
    (target / "conf.json").write_text('{"base_template": "lab"}', encoding="utf-8")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_served(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"voila exited: {log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)  # polling interval, not an assertion
    raise RuntimeError(f"voila did not answer within {SERVER_START_S}s: {log.read_text()[-3000:]}")


def serve(notebooks: Path, work: Path) -> Iterator[str]:
    """Serve the folder ``notebooks`` with voilà on a free loopback port; yields the base URL."""
    jupyter_path = work / "jupyter"
    offline_template(jupyter_path)
    port = free_port()
    env = dict(os.environ)
    env["JUPYTER_PATH"] = os.pathsep.join(
        [str(jupyter_path), *filter(None, [env.get("JUPYTER_PATH")])]
    )
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    log = work / "voila.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "voila",
                str(notebooks),
                "--no-browser",
                f"--port={port}",
                "--Voila.ip=127.0.0.1",
                f"--template={TEMPLATE}",
                "--MappingKernelManager.cull_idle_timeout=0",
            ],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_served(base + "/", process, log)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def serve_cells(work: Path, name: str, cells: list[str]) -> Iterator[str]:
    """Write ``cells`` as notebook ``<name>.ipynb`` (Python 3 kernel) in ``work/notebooks`` and
    :func:`serve` it; yields the base URL."""
    notebooks = work / "notebooks"
    notebooks.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, notebooks / f"{name}.ipynb")
    yield from serve(notebooks, work)


def fresh_screenshots() -> Path:
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
