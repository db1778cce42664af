"""MkDocs hook: the API reference rendered once, and again only when what it shows changed.

Two steps of mkdocstrings' Python handler depend only on their input, and the hook keeps what
they returned in ``.cache/memo/`` (:class:`hooklib.Memo`):

* **Each object's HTML** (``PythonHandler.render``): keyed by the object's path, the handler's
  options and the package's source; the salt covers the versions of the libraries that render
  it (mkdocstrings, its Python handler, griffe, Markdown, pymdown-extensions, Pygments,
  autorefs, ruff) and ``mkdocs.yml``. Rendering is what takes the time (about 1.2 s of a
  warm build); collecting the object (griffe) still runs every build. What rendering leaves
  besides the HTML is kept with it and given back on a hit: the headings the handler gathered
  for the table of contents, autorefs and the inventory (:meth:`BaseHandler.get_headings`),
  and the anchors registered with autorefs while docstrings were converted.
* **Each long signature laid out by the formatter** (ruff, run in a subprocess: about 140 of
  them). The handler stands a random placeholder (``_`` and letters, as long as the name it
  hides) for each cross-reference in a signature while it is formatted, so the same signature
  reaches the formatter spelt differently on every build: the key renames each placeholder to
  one of the same length numbered in order of appearance (:func:`canonical`), and what comes
  back has the build's own placeholders put back in.

If the handler no longer has what the hook wraps (``PythonHandler.render``, the handler's
``_headings`` list, ``_get_formatter`` and ``do_stash_crossref`` in its rendering module), the
hook does nothing and the handler works as it always does.
"""

from __future__ import annotations

import logging
import re
import string
from pathlib import Path
from xml.etree.ElementTree import Element

from hooklib import ROOT, Memo, content_hash, source_of, versions

log = logging.getLogger("mkdocs.hooks.api_reference")

#: The handler's placeholder: "_" and at least two letters or digits (its _crossref_key_re).
PLACEHOLDER = re.compile(r"\b_[A-Za-z0-9]{2,}\b")
DIGITS = string.digits + string.ascii_letters
#: The libraries whose versions the rendered HTML depends on.
LIBRARIES = (
    "mkdocstrings",
    "mkdocstrings-python",
    "griffelib",
    "markdown",
    "pymdown-extensions",
    "pygments",
    "mkdocs-autorefs",
    "ruff",
)

SIGNATURES = Memo("signatures")
RENDERED = Memo("api-reference")
#: The keys of SIGNATURES looked up so far (a rendered object keeps the signatures it laid
#: out, so that a later change of the package reformats only what changed).
_LAID_OUT: list[str] = []


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
    return PLACEHOLDER.sub(lambda m: ahead.get(m[0], m[0]), code), back


def cached_formatter(formatter, placeholders=None, memo: Memo = SIGNATURES):
    """``formatter`` (``(code, line_length) -> code``) behind ``memo``; ``placeholders``: the
    handler's stash of cross-reference placeholders (a dict, read on every call)."""

    def formatted(code: str, line_length: int) -> str:
        renamed = canonical(code, placeholders or {})
        if renamed is None:
            return formatter(code, line_length)
        code, back = renamed
        key = memo.key(str(line_length), code)
        _LAID_OUT.append(key)
        text = memo(key, lambda: formatter(code, line_length))
        return PLACEHOLDER.sub(lambda m: back.get(m[0], m[0]), text)

    return formatted


def _unresolved_aliases(collection) -> dict:
    """Every alias of griffe's ``collection`` whose target is not looked up yet, by path (the
    walk does not go through aliases, so it resolves none)."""
    out = {}
    stack = list(getattr(collection, "members", {}).values())
    while stack:
        obj = stack.pop()
        if obj.is_alias:
            if not obj.resolved:
                out[obj.path] = obj
        else:
            stack.extend(obj.members.values())
    return out


class _Recorder:
    """Stands in for autorefs' ``register_anchor`` while an object renders, and writes down
    what was registered (the page aside: a hit registers on the page being built)."""

    def __init__(self, register):
        self.register = register
        self.calls: list[list] = []

    def __call__(self, page, *args, **kwargs):
        self.calls.append([list(args), kwargs])
        return self.register(page, *args, **kwargs)


def cached_render(render, autorefs=None, memo: Memo = RENDERED, package: str = ""):
    """``PythonHandler.render`` behind ``memo``: a hit returns the HTML and gives the handler
    back its headings and autorefs its anchors, and looks up the targets of the aliases that
    rendering looked up (griffe then lists each alias under its target, and the inventory and
    autorefs register it as another name of the target), as rendering would have. ``package``:
    a hash of the documented package's source, part of every key."""

    def rendered(self, data, options, *args, **kwargs):
        if not isinstance(getattr(self, "_headings", None), list):
            return render(self, data, options, *args, **kwargs)
        key = memo.key(data.path, repr(options), repr(args), repr(sorted(kwargs.items())), package)
        collection = getattr(self, "_modules_collection", None)
        hit = memo.get(key)
        if hit is not None:
            unresolved = _unresolved_aliases(collection)
            for path in hit["aliases"]:
                if path in unresolved:
                    try:
                        unresolved[path].target  # noqa: B018 (the lookup registers the alias)
                    except Exception:  # noqa: BLE001 (as the templates, which skip such aliases)
                        pass
            for tag, attrib, text in hit["headings"]:
                heading = Element(tag, attrib)
                heading.text = text
                self._headings.append(heading)
            SIGNATURES.keep(hit["signatures"])
            if autorefs is not None:
                for args_, kwargs_ in hit["anchors"]:
                    autorefs.register_anchor(autorefs.current_page, *args_, **kwargs_)
            return hit["html"]
        before, laid_out = len(self._headings), len(_LAID_OUT)
        unresolved = _unresolved_aliases(collection)
        recorder = None
        if autorefs is not None:
            own = vars(autorefs).get("register_anchor")  # set by an enclosing render, or None
            recorder = autorefs.register_anchor = _Recorder(autorefs.register_anchor)
        try:
            html = render(self, data, options, *args, **kwargs)
        finally:
            if recorder is not None and own is None:
                del autorefs.register_anchor  # the plugin's own method again
            elif recorder is not None:
                autorefs.register_anchor = own
        new = self._headings[before:]
        if any(len(h) or h.tail for h in new):  # more than do_heading makes: not kept
            return html
        memo.put(
            key,
            {
                "html": str(html),
                "headings": [[h.tag, dict(h.attrib), h.text] for h in new],
                "anchors": recorder.calls if recorder else [],
                "signatures": sorted(set(_LAID_OUT[laid_out:])),
                "aliases": sorted(p for p, alias in unresolved.items() if alias.resolved),
            },
        )
        return html

    return rendered


def _install(config) -> bool:
    try:
        from mkdocstrings_handlers.python._internal import handler, rendering
    except ImportError:
        return False
    get_formatter = getattr(rendering, "_get_formatter", None)
    stash = getattr(getattr(rendering, "do_stash_crossref", None), "stash", None)
    python_handler = getattr(handler, "PythonHandler", None)
    render = getattr(python_handler, "render", None)
    if None in (get_formatter, stash, render):
        return False
    if not getattr(get_formatter, "cached", False):

        def cached_get_formatter():
            return cached_formatter(get_formatter(), stash)

        cached_get_formatter.cached = True
        rendering._get_formatter = cached_get_formatter
    original = getattr(render, "original", render)
    autorefs = config.plugins.get("autorefs")
    package = content_hash(source_of(ROOT / "rope_explained"))
    wrapped = cached_render(original, autorefs, package=package)
    wrapped.original = original
    python_handler.render = wrapped
    return True


def on_pre_build(config, **kwargs):
    libraries = versions(*LIBRARIES)
    SIGNATURES.begin(config, libraries)
    RENDERED.begin(
        config, libraries, source_of(Path(config.config_file_path), Path(__file__).resolve())
    )
    if not _install(config):
        log.info("api_reference: the Python handler has changed; rendering without the cache")


def on_post_build(config, **kwargs):
    log.info("API reference: %d objects rendered, %d from cache", RENDERED.added, RENDERED.hits)
    SIGNATURES.save()
    RENDERED.save()
