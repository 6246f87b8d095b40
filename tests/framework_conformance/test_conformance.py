"""Every framework module × mode against the loopback server: the conformance cases pass with
tool uses (ids, arguments) and results captured, the final answers and the usage the server
issued — or the module's declared gap holds exactly (its check); streaming runs really streamed.
The last test compares docs/agents.md's conformance table with what these runs produced.

A framework whose package is not installed here is skipped (another environment runs it:
LlamaIndex needs ``openai<3``, docs/agents.md).
"""

from __future__ import annotations

import pytest

from agenteval_nb.testing.fake_server import FakeOpenAIServer
from framework_conformance import table
from framework_conformance.cases import scripted_model
from framework_conformance.contract import MODES
from framework_conformance.runner import Outcome, conformance, framework_modules, installed

MODULES = framework_modules()
OUTCOMES: dict[tuple[str, str], Outcome] = {}
"""What the runs of this session gave, for the docs table test."""


@pytest.fixture(scope="module")
def server():
    with FakeOpenAIServer(scripted_model()) as srv:
        yield srv


def test_every_framework_module_declares_the_contract():
    assert MODULES, "no framework module found"
    for module in MODULES:
        for name in ("FRAMEWORK", "PACKAGE", "CALLED", "MEMORY", "make"):
            assert getattr(module, name, None), f"{module.__name__} lacks {name}"
    names = [m.FRAMEWORK for m in MODULES]
    assert len(set(names)) == len(names), names


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("module", MODULES, ids=[m.__name__.rsplit(".", 1)[1] for m in MODULES])
def test_conformance(module, mode, server):
    if not installed(module):
        pytest.skip(f"{module.PACKAGE} is not installed in this environment (docs/agents.md)")
    OUTCOMES[(module.FRAMEWORK, mode)] = conformance(module, mode, server)


def test_the_docs_table_is_what_these_runs_produced():
    ran = [m for m in MODULES if installed(m)]
    missing = [
        (m.FRAMEWORK, mode) for m in ran for mode in MODES if (m.FRAMEWORK, mode) not in OUTCOMES
    ]
    if missing:
        pytest.skip(f"the conformance runs of {missing} did not pass or were not selected")
    doc = table.DOC.read_text(encoding="utf-8")
    fresh = table.fresh_rows(OUTCOMES, MODULES)
    assert table.updated(doc, fresh, MODULES) == doc, (
        "docs/agents.md's conformance table differs from these runs: "
        "PYTHONPATH=tests python -m framework_conformance.table --write"
    )
