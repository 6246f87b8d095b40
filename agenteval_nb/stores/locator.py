"""Where the local stores keep each file (SPEC §1.7): pluggable path rules.

Default layout: ``<base_dir>/<app_name>/<id><suffix>`` with the suffixes below. A custom
locator (e.g. ``custom-<id>.evalset.json``) maps ids to paths and lists the ids of an app; it
must agree with itself: every id its ``list`` returns must ``build`` to an existing file.
Ids and app names are data (an eval set id may hold ``/`` or ``..``): the default locator makes
them safe file names (:func:`safe_name`), and the local stores refuse any path a locator builds
outside their base folder.
"""

from __future__ import annotations

import builtins
import hashlib
import os
import re
import urllib.parse
from pathlib import Path
from typing import Protocol, runtime_checkable

EVALSET_SUFFIX = ".evalset.json"
METRICS_SUFFIX = ".metrics.json"
RESULT_SUFFIX = ".evalset_result.json"


def inside(base_dir: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` lies inside folder ``base_dir`` — below it, not the folder itself —
    once both are resolved (``..`` parts and symbolic links followed; a relative path is taken
    from the working directory, as ``open`` takes it). The rule of every file a folder names
    for itself (a locator's path, an experiment manifest's entry): a folder never hands out a
    file outside itself."""
    base = Path(base_dir).resolve()
    resolved = Path(path).resolve()
    return resolved != base and resolved.is_relative_to(base)


@runtime_checkable
class Locator(Protocol):
    """Maps ``(base_dir, app_name, id)`` to a file path and lists an app's ids."""

    def build(self, base_dir: Path, app_name: str, item_id: str) -> Path:
        """The file holding ``item_id`` of ``app_name``."""
        ...

    def list(self, base_dir: Path, app_name: str) -> builtins.list[str]:
        """Ids stored for ``app_name`` (none ⇒ ``[]``)."""
        ...


def safe_name(value: str) -> str:
    """``value`` as one safe file-name component; :func:`original_name` reverses it.

    Percent-escaped (``%XX`` of the UTF-8 bytes): path separators (``/`` ``\\``), NUL and
    other control characters, lone surrogates, a ``%`` that would read as an escape, the names ``.``
    and ``..``. Anything else is kept, so every name the Go framework writes for a plain id is
    unchanged. A name longer than :data:`MAX_NAME_BYTES` is cut and ends in ``~`` and a hash
    of the full value (not reversible; the stored file is still found by the same value).
    An empty value is a ``ValueError``.
    """
    if not value:
        raise ValueError("an empty name cannot be used as a file name")
    name = "%2E" * len(value) if value in (".", "..") else _UNSAFE.sub(_escape, value)
    if len(name.encode()) > MAX_NAME_BYTES:
        digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        cut = name.encode()[: MAX_NAME_BYTES - 17].decode("utf-8", "ignore")
        broken = cut.find("%", len(cut) - 2)  # never cut an escape in two
        name = f"{cut[:broken] if broken != -1 else cut}~{digest}"
    return name


def original_name(name: str) -> str:
    """The value whose :func:`safe_name` is ``name`` (names without escapes are unchanged)."""
    if "%" not in name:
        return name
    return urllib.parse.unquote(name, errors="surrogatepass")


def _escape(match: re.Match[str]) -> str:
    return "".join(f"%{b:02X}" for b in match.group().encode("utf-8", "surrogatepass"))


_UNSAFE = re.compile("[/\\\\\x00-\x1f\x7f\ud800-\udfff]|%(?=[0-9A-Fa-f]{2})")
MAX_NAME_BYTES = 200
"""Longest file-name component written (file systems allow 255 bytes; the suffix needs room)."""


class SuffixLocator:
    """``<base_dir>/<app_name>/<id><suffix>``, names made safe by :func:`safe_name`.

    ``list`` returns the non-directory entries of ``<base_dir>/<app_name>`` whose name ends with
    the suffix (and has something before it), suffix stripped and unescaped
    (:func:`original_name`), in file-name order; a missing folder ⇒ ``[]``.
    """

    def __init__(self, suffix: str) -> None:
        if not suffix:
            raise ValueError("suffix is empty")
        self.suffix = suffix

    def build(self, base_dir: Path, app_name: str, item_id: str) -> Path:
        return Path(base_dir) / safe_name(app_name) / f"{safe_name(item_id)}{self.suffix}"

    def list(self, base_dir: Path, app_name: str) -> builtins.list[str]:
        folder = Path(base_dir) / safe_name(app_name)
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
        return [original_name(name[: -len(self.suffix)]) for name in names]

    def __repr__(self) -> str:
        return f"SuffixLocator({self.suffix!r})"
