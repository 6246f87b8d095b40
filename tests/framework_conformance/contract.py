"""What one framework module under ``framework_conformance/frameworks/`` (imported as ``framework_conformance.frameworks.<name>``: tests/ is on sys.path) declares for the conformance suite.

Each module ``frameworks/<name>.py`` defines:

* ``FRAMEWORK``: the name shown in the table (``"smolagents"``);
* ``PACKAGE``: the import name the suite needs (the module is skipped, with that reason, when
  the package is not installed);
* ``CALLED``: how the toolkit calls the object (one line, shown in docs/agents.md);
* ``MEMORY``: how a case's earlier turns reach the framework (one line, shown in the docs);
* ``make(base_url, mode, tools)``: for ``mode`` in :data:`MODES`, the framework's agent object
  built against the loopback server at ``base_url`` with ``tools`` (plain Python functions with
  type hints and a docstring), or a :class:`Gap` when that mode cannot be captured completely.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MODES = ("sync", "async", "streaming")
"""sync: the framework's blocking call; async: its coroutine API; streaming: its model
streams (SSE) — through whichever call the framework offers for it."""


@dataclass(frozen=True)
class Gap:
    """A mode that is not captured completely, and why.

    ``agent`` is still built when the mode can run (``None`` when it cannot); ``check(run)``
    asserts exactly the documented shortfall on the run of the conformance cases (for example:
    tool uses captured, their results missing), so the gap is proven, not just stated.
    """

    reason: str
    agent: Any = None
    check: Callable[[Any], None] | None = None
