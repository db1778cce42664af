"""MkDocs hook: the API reference's long signatures formatted once, not on every build.

mkdocstrings' Python handler lays out each signature longer than its line length by running
the formatter (ruff, in a subprocess) on it: about 140 subprocesses and most of a second per
build, for text that depends only on the signature, the line length and the formatter. This
hook keeps what the formatter returned in ``.cache/signatures/`` (a file named after ruff's
version) and hands the handler a formatter that looks there first. If the handler no longer
has the function it wraps (``_get_formatter``, in its rendering module), the hook does nothing
and the handler formats as it always does.
"""

from __future__ import annotations

import hashlib
import json
import logging
from importlib import metadata
from pathlib import Path

log = logging.getLogger("mkdocs.hooks.signatures")

ROOT = Path(__file__).resolve().parents[2]
CACHE_DIR = ROOT / ".cache" / "signatures"


class SignatureCache:
    """What the formatter returned for each ``(code, line_length)``, kept between builds."""

    def __init__(self) -> None:
        self.formatted: dict[str, str] = {}
        self.stored = -1
        self.path: Path | None = None

    @staticmethod
    def key(code: str, line_length: int) -> str:
        return hashlib.sha256(f"{line_length}\n{code}".encode()).hexdigest()[:24]

    def load(self) -> None:
        try:
            version = metadata.version("ruff")
        except metadata.PackageNotFoundError:
            version = "none"
        self.path = CACHE_DIR / f"ruff-{version}.json"
        if self.stored < 0 and self.path.is_file():
            try:
                self.formatted = json.loads(self.path.read_text(encoding="utf-8"))
            except ValueError:
                self.formatted = {}
        self.stored = len(self.formatted)

    def save(self) -> None:
        if self.path is None or len(self.formatted) == self.stored:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for old in CACHE_DIR.glob("*.json"):
            if old != self.path:
                old.unlink()
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.formatted, sort_keys=True), encoding="utf-8")
        tmp.replace(self.path)
        self.stored = len(self.formatted)

    def wrap(self, formatter):
        def cached_formatter(code: str, line_length: int) -> str:
            key = self.key(code, line_length)
            if key not in self.formatted:
                self.formatted[key] = formatter(code, line_length)
            return self.formatted[key]

        return cached_formatter


CACHE = SignatureCache()


def _install() -> None:
    try:
        from mkdocstrings_handlers.python._internal import rendering
    except ImportError:
        return
    get_formatter = getattr(rendering, "_get_formatter", None)
    if get_formatter is None or getattr(get_formatter, "cached", False):
        return

    def cached_get_formatter():
        return CACHE.wrap(get_formatter())

    cached_get_formatter.cached = True
    rendering._get_formatter = cached_get_formatter


def on_pre_build(config, **kwargs):
    _install()
    CACHE.load()


def on_post_build(config, **kwargs):
    CACHE.save()
