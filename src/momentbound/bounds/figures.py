"""Writing figures of bound results: PNG files replaced atomically."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from momentbound.errors import InvalidArgument

__all__ = ["save_png"]


def save_png(fig: Any, path: str | os.PathLike[str]) -> Path:
    """Save a matplotlib ``Figure`` as ``path`` (a .png): written to a temporary name, then renamed.

    A reader never sees a half-written file, and a failed save leaves no temporary behind.
    """
    target = Path(path)
    if target.suffix.lower() != ".png":
        raise InvalidArgument(f"plot path must end in .png, got {str(path)!r}")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}-", suffix=".png", dir=target.parent)
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=110)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target
