"""Makes ``report_builders`` from tests/report importable for the widget tests."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "report"))
