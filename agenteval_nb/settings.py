"""Package-wide settings (``ae.config``)."""

from __future__ import annotations

import getpass
from dataclasses import dataclass, field


def os_user() -> str:
    """The login name of the OS user, or ``"unknown"`` when the system has none."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


@dataclass
class Config:
    """``backend``: default frame library of every ``*_df`` method, "pandas" or "polars";
    ``reviewer``: the name set on human marks (``view.mark``), default the OS user."""

    backend: str = "pandas"
    reviewer: str = field(default_factory=os_user)

    def __setattr__(self, name: str, value: object) -> None:
        if name == "backend" and value not in ("pandas", "polars"):
            raise ValueError(f'backend must be "pandas" or "polars", got {value!r}')
        if name == "reviewer" and (not isinstance(value, str) or not value.strip()):
            raise ValueError(f"reviewer must be a non-empty name, got {value!r}")
        super().__setattr__(name, value)


config = Config()
