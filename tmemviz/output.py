"""Writing result files all-or-nothing: a temp file beside the target, then a rename."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from tmemviz.errors import TmemvizError


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so readers never see a half-written file.

    On any failure the temp file is removed and the target is left as it was.
    """
    directory = path.parent if str(path.parent) else Path(".")
    try:
        if path.is_dir():
            raise TmemvizError(f"cannot write {path}: it is a directory")
        # A short temp name: the target's own name may already be at the 255-byte limit.
        fd, tmp = tempfile.mkstemp(prefix=".tmemviz-", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise TmemvizError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise TmemvizError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise
