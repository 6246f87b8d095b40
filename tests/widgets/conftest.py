"""Makes ``report_builders`` (tests/report) and ``browser_support`` importable here."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "report"))
sys.path.insert(0, str(Path(__file__).parent))
