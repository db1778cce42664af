"""MkDocs hook: the search index's entries of a page are parsed again only when the page changed.

Material's search plugin reads each page's finished HTML with Python's ``HTMLParser`` and
divides it into sections, one index entry each (``SearchIndex.add_entry_from_context``): about
a second of every build, most of it in the typeset formulas' markup. The entries depend on the
page's content, address, title, front matter (``title``, ``tags``, ``search``) and table of
contents alone, so the hook keeps them in ``.cache/memo/`` keyed by those
(:class:`hooklib.Memo`, salted with Material's version and this file) and hands the plugin the
stored entries of a page that has not changed. If the plugin no longer has the method, the
hook does nothing and every page is parsed as before.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from hooklib import Memo, source_of, versions

log = logging.getLogger("mkdocs.hooks.search_index")

ENTRIES = Memo("search-entries")


def _toc(items) -> list:
    """A table of contents as nested ``[id, url, children]`` lists."""
    return [[item.id, item.url, _toc(item.children)] for item in items]


def page_key(page) -> str:
    """Everything the search plugin reads of ``page`` to make its entries, hashed."""
    meta = {name: page.meta.get(name) for name in ("title", "tags", "search")}
    return ENTRIES.key(
        page.content or "",
        page.url,
        str(page.title),
        json.dumps(meta, sort_keys=True, default=str),
        json.dumps(_toc(page.toc), default=str),
    )


def cached_add_entry(add_entry, memo: Memo = ENTRIES):
    """``SearchIndex.add_entry_from_context`` behind ``memo``."""

    def add_entry_from_context(self, page):
        key = page_key(page)
        stored = memo.get(key)
        if stored is not None:
            self.entries.extend(stored)
            return None
        before = len(self.entries)
        result = add_entry(self, page)
        memo.put(key, self.entries[before:])
        return result

    add_entry_from_context.original = add_entry
    return add_entry_from_context


def _install() -> bool:
    try:
        from material.plugins.search.plugin import SearchIndex
    except ImportError:
        return False
    add_entry = getattr(SearchIndex, "add_entry_from_context", None)
    if add_entry is None:
        return False
    SearchIndex.add_entry_from_context = cached_add_entry(getattr(add_entry, "original", add_entry))
    return True


def on_pre_build(config, **kwargs):
    ENTRIES.begin(config, versions("mkdocs-material"), source_of(Path(__file__).resolve()))
    if not _install():
        log.info("search_index: Material's search plugin has changed; every page is parsed")


def on_post_build(config, **kwargs):
    ENTRIES.save()
