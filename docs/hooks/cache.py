"""The build's one cache: what a step computed, kept in ``.cache/`` under a hash of its inputs.

Every entry is a file ``.cache/<kind>/<name>-<key>.<suffix>``: ``kind`` names what is kept
(``figures``, ``values``, ``katex``, ``notebooks``, ``notebook-css``), ``name`` the thing
(a figure's id, a notebook's stem), and ``key`` is :func:`key` of everything the result was
computed from: the source it ran (the package's modules, a notebook, a script), its arguments,
and the versions of the libraries that did the work. An entry is never updated: new inputs give
a new key, and writing it deletes the entries of the same ``kind`` and ``name`` under other
keys, so the folder holds one version of each thing. ``make clean`` removes it all.

Nothing here imports MkDocs or the package.

>>> key("ab", "c") != key("a", "bc")
True
"""

from __future__ import annotations

import hashlib
import os
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository: docs/hooks/ -> docs/ -> root
DIR = ROOT / ".cache"


def key(*parts: str | bytes) -> str:
    """A hash of ``parts``, each one's length hashed too, so that no two splits collide."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else bytes(part)
        h.update(f"{len(data)}:".encode())
        h.update(data)
    return h.hexdigest()[:24]


def versions(*names: str) -> str:
    """``"name version ..."`` of some installed distributions ("none" for a missing one)."""
    out = []
    for name in names:
        try:
            out.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            out.append(f"{name} none")
    return " ".join(out)


def source(*paths: Path, suffixes: tuple[str, ...] = (".py", ".mplstyle")) -> bytes:
    """The bytes of some files (of every file with one of ``suffixes`` under a folder), each
    with its name, in a stable order: the source part of a key."""
    out = []
    for path in paths:
        files = (
            sorted(p for p in path.rglob("*") if p.suffix in suffixes and p.is_file())
            if path.is_dir()
            else [path]
        )
        for file in files:
            name = file.relative_to(ROOT) if file.is_relative_to(ROOT) else Path(file.name)
            out.append(name.as_posix().encode() + b"\0" + file.read_bytes())
    return b"\0".join(out)


def path(kind: str, name: str, k: str, suffix: str) -> Path:
    """Where the entry ``name`` of ``kind`` under the key ``k`` lives."""
    return DIR / kind / f"{name}-{k}.{suffix}"


def read(kind: str, name: str, k: str, suffix: str) -> bytes | None:
    """The bytes of an entry, or None when there is none."""
    try:
        return path(kind, name, k, suffix).read_bytes()
    except OSError:
        return None


def write(kind: str, name: str, k: str, suffix: str, data: bytes) -> None:
    """Keep ``data`` as an entry (atomically: a reader sees the whole file or none), and delete
    the entries of the same ``name`` under other keys."""
    dest = path(kind, name, k, suffix)
    dest.parent.mkdir(parents=True, exist_ok=True)
    for old in dest.parent.glob(f"{name}-*.{suffix}"):
        if old != dest and len(old.name) == len(dest.name):  # same name, another key
            old.unlink(missing_ok=True)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(dest)
