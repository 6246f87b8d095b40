"""Package-wide settings (``ae.config``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Config:
    """``backend``: default frame library of every ``*_df`` method, "pandas" or "polars"."""

    backend: str = "pandas"

    def __setattr__(self, name: str, value: object) -> None:
        if name == "backend" and value not in ("pandas", "polars"):
            raise ValueError(f'backend must be "pandas" or "polars", got {value!r}')
        super().__setattr__(name, value)


config = Config()
