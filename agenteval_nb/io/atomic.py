"""Files written atomically: a reader sees the old file or the new one, never half a file.

Rules: the text goes to a temporary file in the target's folder (created when missing), is
flushed and synced, made readable (``0o644``) and renamed over the target; on any failure the
temporary file is removed and the target is left as it was. The file is always valid UTF-8
(:func:`~agenteval_nb.io.escaping.utf8_bytes`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .escaping import go_escape, utf8_bytes


def write_text_atomic(path: str | os.PathLike[str], text: str | Iterable[str | bytes]) -> Path:
    """Write ``text`` (a string or pieces) via a temp file in the same folder and a rename, so
    that readers never see a partial file. String pieces get Go's HTML escaping; bytes pieces
    are file text already (escaped, UTF-8) and are written as they are.

    The file is always valid UTF-8: a lone surrogate still in the text (JSON from this package
    has them escaped already) is written as U+FFFD, as Go writes invalid UTF-8."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(text, str):
                handle.write(utf8_bytes(text))
            else:
                for piece in text:
                    handle.write(
                        piece if isinstance(piece, bytes) else utf8_bytes(go_escape(piece))
                    )
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
