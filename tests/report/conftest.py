"""Makes ``report_builders`` (hand-built results with judge and verifier extras) importable."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
