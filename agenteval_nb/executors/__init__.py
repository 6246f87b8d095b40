"""Where cases run besides this process: ``RayExecutor`` (optional extra ``ray``).

``RayExecutor`` is imported on first use, so this package imports without Ray installed.
"""

from importlib import import_module
from typing import Any

_LAZY = {"RayExecutor": ".ray_executor"}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
