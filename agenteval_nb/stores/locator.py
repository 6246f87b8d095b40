"""Where the local stores keep each file (SPEC §1.7): pluggable path rules.

Default layout: ``<base_dir>/<app_name>/<id><suffix>`` with the suffixes below. A custom
locator (e.g. ``custom-<id>.evalset.json``) maps ids to paths and lists the ids of an app; it
must agree with itself: every id its ``list`` returns must ``build`` to an existing file.
"""

from __future__ import annotations

import builtins
import os
from pathlib import Path
from typing import Protocol, runtime_checkable

EVALSET_SUFFIX = ".evalset.json"
METRICS_SUFFIX = ".metrics.json"
RESULT_SUFFIX = ".evalset_result.json"

_SEPARATORS = tuple(sep for sep in ("/", "\\", os.sep, os.altsep) if sep)


@runtime_checkable
class Locator(Protocol):
    """Maps ``(base_dir, app_name, id)`` to a file path and lists an app's ids."""

    def build(self, base_dir: Path, app_name: str, item_id: str) -> Path:
        """The file holding ``item_id`` of ``app_name``."""
        ...

    def list(self, base_dir: Path, app_name: str) -> builtins.list[str]:
        """Ids stored for ``app_name`` (none ⇒ ``[]``)."""
        ...


def check_component(value: str, what: str) -> str:
    """``value`` if it is usable as one file-name component, else ``ValueError``.

    Empty strings, ``.``, ``..`` and anything with a path separator are refused, so an id or
    app name can never point outside its folder.
    """
    if not value or value in (".", "..") or any(sep in value for sep in _SEPARATORS):
        raise ValueError(f"{what} {value!r} cannot be used as a file name")
    return value


class SuffixLocator:
    """``<base_dir>/<app_name>/<id><suffix>``.

    ``list`` returns the non-directory entries of ``<base_dir>/<app_name>`` whose name ends with
    the suffix (and has something before it), suffix stripped, in file-name order; a missing
    folder ⇒ ``[]``.
    """

    def __init__(self, suffix: str) -> None:
        if not suffix:
            raise ValueError("suffix is empty")
        self.suffix = suffix

    def build(self, base_dir: Path, app_name: str, item_id: str) -> Path:
        check_component(app_name, "app name")
        check_component(item_id, "id")
        return Path(base_dir) / app_name / f"{item_id}{self.suffix}"

    def list(self, base_dir: Path, app_name: str) -> builtins.list[str]:
        check_component(app_name, "app name")
        folder = Path(base_dir) / app_name
        try:
            with os.scandir(folder) as entries:
                names = sorted(
                    entry.name
                    for entry in entries
                    if not entry.is_dir()
                    and entry.name.endswith(self.suffix)
                    and entry.name != self.suffix
                )
        except (FileNotFoundError, NotADirectoryError):
            return []
        return [name[: -len(self.suffix)] for name in names]

    def __repr__(self) -> str:
        return f"SuffixLocator({self.suffix!r})"
