"""Shared fixtures: the site built once per session, served locally, and a headless Chromium.

* ``site_dir``: the site built with ``mkdocs build --strict`` into a temporary folder.
* ``site_url``: that folder served on ``http://127.0.0.1:<port>/`` (base URL, trailing ``/``).
* ``browser``: Debian's Chromium driven by Playwright (``$CHROMIUM``, default
  ``/usr/bin/chromium``); a missing browser fails the tests that need it.
* ``content_pages``: the site paths of the content pages (``""``, ``"equations/rope/"``, ...):
  every page except the API reference and the 404 page.
* ``site_pages``: the site paths of every HTML page of the built site except ``404.html``.
* ``summary``: lines that tests want printed in pytest's terminal summary (page counts).
* ``induction_hits``: which prompts of the induction benchmark each layer-1 head solves,
  computed once per session.

Every test that uses ``site_dir``, ``site_url`` or ``browser`` is marked ``site``:
``pytest -m "not site"`` runs the quick tests of the package, the hooks and the pages' sources
without building the site or starting a browser.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tools.browser import launch_chromium, serve

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "hooks"))  # the tests use the hooks' page scanner (hooklib)
SUMMARY_KEY = pytest.StashKey[list]()


def page_path(src: str) -> str:
    """The site path of a docs source file (``use_directory_urls``): ``a/b.md`` -> ``a/b/``."""
    stem = src.rsplit(".", 1)[0]
    if stem == "index":
        return ""
    if stem.endswith("/index"):
        return stem[: -len("index")]
    return stem + "/"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _served_port(site: Path) -> int | None:
    """The port a built site expects (its ``site_url``, read back from its sitemap)."""
    sitemap = site / "sitemap.xml"
    if sitemap.is_file():
        m = re.search(r"<loc>http://127\.0\.0\.1:(\d+)/", sitemap.read_text(encoding="utf-8"))
        if m:
            return int(m.group(1))
    return None


SITE_FIXTURES = {"site_dir", "site_url", "browser"}


class Background:
    """A command started when the tests are collected and waited for by the fixture that needs
    its result, so that a build runs on one core while quick tests run on the other."""

    def __init__(self, name: str, cmd: list[str], env: dict, cwd: Path = ROOT):
        self.name = name
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=self.log, stderr=self.log)

    def wait(self, timeout: float = 1800) -> None:
        code = self.proc.wait(timeout)
        if code != 0:
            self.log.seek(0)
            out = self.log.read().decode(errors="replace")
            pytest.fail(f"{self.name} failed (exit {code}):\n{out[-6000:]}", pytrace=False)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


BACKGROUND: dict[str, Background] = {}
SITE_BUILD: dict[str, object] = {}  # where the session's site is built, and for which address


def pytest_collection_modifyitems(config, items):
    """Mark the tests that need the built site or a browser ``site``, and run them last."""
    for item in items:
        if SITE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.site)
    items.sort(key=lambda item: item.get_closest_marker("site") is not None)  # stable


def pytest_collection_finish(session):
    """Start the site build, and the second rendering of every figure that the determinism
    test compares with it, now if a selected test needs them."""
    needs = set().union(*(getattr(i, "fixturenames", ()) for i in session.items))
    if session.config.option.collectonly:
        return
    if "other_process_svgs" in needs:
        out = Path(tempfile.mkdtemp(prefix="rope-figures-"))
        env = dict(os.environ, PYTHONHASHSEED="12345", PYTHONPATH=str(ROOT))
        BACKGROUND["figures"] = Background(
            "python -m rope_explained.figures",
            [sys.executable, "-m", "rope_explained.figures", "--out", str(out)],
            env,
        )
        BACKGROUND["figures"].out = out
    if not needs & {"site_dir", "site_url"} or os.environ.get("ROPE_SITE_DIR"):
        return
    out = Path(tempfile.mkdtemp(prefix="rope-site-"))
    port = _free_port()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", SITE_URL=f"http://127.0.0.1:{port}/")
    SITE_BUILD.update(dir=out, port=port)
    BACKGROUND["site"] = Background(
        "mkdocs build --strict",
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        env,
    )


def pytest_sessionfinish(session, exitstatus):
    for job in BACKGROUND.values():
        job.stop()
    for job in BACKGROUND.values():
        if hasattr(job, "out"):
            shutil.rmtree(job.out, ignore_errors=True)
    if "dir" in SITE_BUILD:
        shutil.rmtree(SITE_BUILD["dir"], ignore_errors=True)


@pytest.fixture(scope="session")
def site_dir() -> Path:
    """The site, built once per session with ``mkdocs build --strict`` (started in the
    background when the tests were collected).

    The build's ``site_url`` (``SITE_URL``) is the local address ``site_url`` serves it at, as
    ``mkdocs serve`` does: Material's instant navigation only follows links that its sitemap
    lists. ``ROPE_SITE_DIR=/path/to/site`` tests an already built site instead (no build).
    """
    if os.environ.get("ROPE_SITE_DIR"):
        prebuilt = Path(os.environ["ROPE_SITE_DIR"])
        if not (prebuilt / "index.html").is_file():
            pytest.fail(f"ROPE_SITE_DIR={prebuilt} holds no built site", pytrace=False)
        return prebuilt
    if "site" not in BACKGROUND:
        pytest.fail("the site build was not started at collection", pytrace=False)
    BACKGROUND["site"].wait()
    return SITE_BUILD["dir"]


@pytest.fixture(scope="session")
def other_process_svgs() -> Path:
    """Every registered figure rendered by a separate Python process with another hash seed
    (started in the background when the tests were collected)."""
    BACKGROUND["figures"].wait()
    return BACKGROUND["figures"].out


@pytest.fixture(scope="session")
def site_url(site_dir):
    """Serve the built site on 127.0.0.1 (at the port of its ``site_url``) for the session."""
    port = _served_port(site_dir) or 0
    with contextlib.ExitStack() as stack:
        try:
            url = stack.enter_context(serve(site_dir, port))
        except OSError:  # the port was taken meanwhile: serve anyway (instant navigation reloads)
            url = stack.enter_context(serve(site_dir, 0))
        yield url


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium through Playwright (never downloads a browser)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("playwright is not installed: run `make setup`", pytrace=False)
    with sync_playwright() as p:
        try:
            chromium = launch_chromium(p)
        except FileNotFoundError as err:  # a missing browser fails the run; it is never skipped
            pytest.fail(f"{err} (or run `make browser`)", pytrace=False)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def content_pages() -> list[str]:
    """Site paths of the content pages: every docs page except the API reference (and 404)."""
    pages = []
    for path in sorted(DOCS.rglob("*")):
        src = path.relative_to(DOCS).as_posix()
        if src.startswith(("reference/", "javascripts/", "stylesheets/")):
            continue
        if path.suffix == ".md" or (path.suffix == ".py" and src.startswith("paper-to-code/")):
            pages.append(page_path(src))
    return pages


@pytest.fixture(scope="session")
def site_pages(site_dir) -> list[str]:
    """Site paths of every HTML page of the built site (``404.html`` excluded)."""
    pages = []
    for path in sorted(site_dir.rglob("index.html")):
        rel = path.parent.relative_to(site_dir).as_posix()
        pages.append("" if rel == "." else rel + "/")
    return pages


@pytest.fixture(scope="session")
def induction_hits() -> dict:
    """Per-prompt hits of both layer-1 heads on the benchmark ``induction_prompts(1000)``.

    ``{"induction": hits, "rank1": hits, "letter": A}``: boolean arrays of shape ``(1000,)``
    (the top prediction is the right ``B``) and each prompt's repeated letter. It runs once
    per session, through the function the pages' values use (``benchmark_hits``, cached per
    process): the values computed in the same session reuse it. tests/test_model.py checks it
    against ``induction_accuracy``.
    """
    from rope_explained.figures.equations.induction_head import benchmark_hits

    return benchmark_hits(1000)


@pytest.fixture(scope="session")
def summary(request) -> list[str]:
    """Lines printed at the end of the run, e.g. how many pages the browser checked."""
    return request.config.stash.setdefault(SUMMARY_KEY, [])


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    lines = config.stash.get(SUMMARY_KEY, [])
    if lines:
        terminalreporter.section("site checks")
        for line in lines:
            terminalreporter.write_line(line)
