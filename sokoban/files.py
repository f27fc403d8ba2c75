"""Files written whole or not at all.

:func:`write_atomically` writes to a temporary file beside the target, flushed to disk, and
renames it over the target: an interrupted write never leaves half a file, nor loses the
old one. Every file the package writes (collections, pictures, tables) goes through it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from sokoban.errors import SokobanError


def write_atomically(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` whole or not at all, keeping the mode of
    a file it replaces (a new file gets the umask's).

    An ``OSError`` names ``path``, not the temporary file.
    """
    if not os.fspath(path) or Path(path).is_dir():
        raise SokobanError(f"cannot write {os.fspath(path)!r}: no file name, or a folder")
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    temporary: str | None = None
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        with os.fdopen(handle, "wb") as out:
            out.write(payload)
            out.flush()
            os.fsync(out.fileno())
        if target.exists():
            os.chmod(temporary, target.stat().st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except BaseException as error:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise OSError(error.errno, error.strerror, os.fspath(target)) from error
        raise
