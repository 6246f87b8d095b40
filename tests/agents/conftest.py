"""Makes the agent test builders importable as ``_agent_builders``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
