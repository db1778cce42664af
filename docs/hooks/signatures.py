"""MkDocs hook: the API reference's long signatures formatted once, not on every build.

mkdocstrings' Python handler lays out each signature longer than its line length by running
the formatter (ruff, in a subprocess) on it: about 140 subprocesses and most of a second per
build, for text that depends only on the signature, the line length and the formatter. This
hook keeps what the formatter returned in ``.cache/signatures/`` (a file named after ruff's
version) and hands the handler a formatter that looks there first. If the handler no longer
has the function it wraps (``_get_formatter``, in its rendering module), the hook does nothing
and the handler formats as it always does.

The handler stands a random placeholder (``_`` and letters, as long as the name it hides) for
each cross-reference in a signature while it is formatted, so the same signature reaches the
formatter spelt differently on every build. The cache keys it with each placeholder renamed to
one of the same length numbered in order of appearance, and puts the build's own placeholders
back into what it returns. The file keeps only the signatures of the last build.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import string
from importlib import metadata
from pathlib import Path

log = logging.getLogger("mkdocs.hooks.signatures")

ROOT = Path(__file__).resolve().parents[2]
CACHE_DIR = ROOT / ".cache" / "signatures"
# The handler's placeholder: "_" and at least two letters or digits (its _crossref_key_re).
PLACEHOLDER = re.compile(r"\b_[A-Za-z0-9]{2,}\b")
DIGITS = string.digits + string.ascii_letters


def _numbered(index: int, length: int) -> str:
    """The ``index``-th canonical placeholder of ``length`` characters: "_" then base-62 digits."""
    digits = ""
    for _ in range(length - 1):
        index, digit = divmod(index, len(DIGITS))
        digits = DIGITS[digit] + digits
    return "_" + digits


def canonical(code: str, placeholders) -> tuple[str, dict[str, str]] | None:
    """``code`` with each of ``placeholders`` (the handler's stash) renamed in order of appearance,
    and the map back; None when a renamed placeholder could be mistaken for another name."""
    back: dict[str, str] = {}
    ahead: dict[str, str] = {}
    for name in dict.fromkeys(m[0] for m in PLACEHOLDER.finditer(code) if m[0] in placeholders):
        ahead[name] = _numbered(len(ahead), len(name))
        back[ahead[name]] = name
    if len(set(ahead.values())) != len(ahead):  # too many of one length to number apart
        return None
    others = {m[0] for m in PLACEHOLDER.finditer(code)} - ahead.keys()
    if others & back.keys():
        return None
    renamed = PLACEHOLDER.sub(lambda m: ahead.get(m[0], m[0]), code)
    return renamed, back


class SignatureCache:
    """What the formatter returned for each ``(code, line_length)``, kept between builds."""

    def __init__(self) -> None:
        self.formatted: dict[str, str] = {}
        self.used: set[str] = set()
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
        self.used = set()

    def save(self) -> None:
        if self.path is None:
            return
        kept = {key: self.formatted[key] for key in self.used}
        if kept.keys() == self.formatted.keys() and len(kept) == self.stored:
            return
        self.formatted = kept
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for old in CACHE_DIR.glob("*.json"):
            if old != self.path:
                old.unlink()
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.formatted, sort_keys=True), encoding="utf-8")
        tmp.replace(self.path)
        self.stored = len(self.formatted)

    def wrap(self, formatter, placeholders=None):
        """``formatter`` behind the cache; ``placeholders``: the handler's stash of cross-reference
        placeholders (a dict, read on every call; none when omitted)."""

        def cached_formatter(code: str, line_length: int) -> str:
            renamed = canonical(code, placeholders or {})
            if renamed is None:
                return formatter(code, line_length)
            code, back = renamed
            key = self.key(code, line_length)
            if key not in self.formatted:
                self.formatted[key] = formatter(code, line_length)
            self.used.add(key)
            return PLACEHOLDER.sub(lambda m: back.get(m[0], m[0]), self.formatted[key])

        return cached_formatter


CACHE = SignatureCache()


def _install() -> None:
    try:
        from mkdocstrings_handlers.python._internal import rendering
    except ImportError:
        return
    get_formatter = getattr(rendering, "_get_formatter", None)
    stash = getattr(getattr(rendering, "do_stash_crossref", None), "stash", None)
    if get_formatter is None or getattr(get_formatter, "cached", False) or stash is None:
        return

    def cached_get_formatter():
        return CACHE.wrap(get_formatter(), stash)

    cached_get_formatter.cached = True
    rendering._get_formatter = cached_get_formatter


def on_pre_build(config, **kwargs):
    _install()
    CACHE.load()


def on_post_build(config, **kwargs):
    CACHE.save()
