"""Shared fixtures: the site built once per session, served locally, and a headless Chromium.

* ``site_dir``: the site built with ``mkdocs build --strict`` into a temporary folder.
* ``site_url``: that folder served on ``http://127.0.0.1:<port>/`` (base URL, trailing ``/``).
* ``browser``: Debian's Chromium driven by Playwright (``$CHROMIUM``, default its headless
  shell: ``tools.browser.CHROMIUM_DEFAULTS``); a missing browser fails the tests that need it.
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

import concurrent.futures
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy  # noqa: F401 (loads the BLAS that threadpool_limits below limits)
import pytest
from hypothesis import settings
from readers import VIEWS, is_print_page
from threadpoolctl import threadpool_limits

from tools.browser import launch_chromium, serve_in_child

# The tests run the site build, a second figure rendering, browsers and numpy side by side on
# every core. OpenBLAS's worker threads spin while they wait, so several processes each with
# one thread per core slow one another down by an order of magnitude: one BLAS thread per
# process (this one, whose numpy is imported after this, and every subprocess it starts).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# Hypothesis's per-example deadline (200 ms) times the machine, not the code: on two cores busy
# with the site build and the browsers an example can take longer. Speed is measured by the
# scripts under benchmarks/, never by a test.
settings.register_profile("rope-explained", deadline=None)
settings.load_profile("rope-explained")

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "hooks"))  # the tests use the hooks' page scanner (hooklib)

# The package's matrices are small and many: one BLAS thread computes them faster than two that
# hand work over, and leaves the other core to the build, the browsers and the second rendering
# that run beside the tests. The build (docs/hooks/hooklib.py) and that rendering do the same.
threadpool_limits(limits=1, user_api="blas")  # the BLAS numpy loaded (imported above)

SUMMARY_KEY = pytest.StashKey[list]()
SESSION_START = time.monotonic()


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


class Job:
    """Work that runs in a thread of its own, started as soon as what it needs is ready, and
    waited for by the fixture that returns its result.

    The site build, the second rendering of the figures, the deploy with mike, the accessibility
    run and the PDF are each mostly a subprocess or a browser of their own: run side by side,
    they keep both cores busy while the tests in the main thread go on.
    """

    def __init__(self, name: str, run, after: tuple[str, ...] = ()):
        self.name, self.run, self.after = name, run, after
        self.future: concurrent.futures.Future | None = None
        self.times: list[float] = []  # when it started and ended, from the session's start

    def start(self) -> None:
        def work():
            ready = {dep: JOBS[dep].result() for dep in self.after}
            self.times.append(time.monotonic() - SESSION_START)
            try:
                return self.run(**ready)
            finally:
                self.times.append(time.monotonic() - SESSION_START)

        self.future = EXECUTOR.submit(work)

    def result(self):
        if self.future is None:
            pytest.fail(f"the background job {self.name!r} was not started", pytrace=False)
        return self.future.result()


#: The jobs a test module may ask for: ``name -> (function, names of the jobs it needs)``. A
#: job runs only when a collected test uses the fixture of the same name.
BACKGROUND: dict[str, tuple] = {}
JOBS: dict[str, Job] = {}
EXECUTOR = concurrent.futures.ThreadPoolExecutor(8, thread_name_prefix="background")
CLEANUP: list = []  # callables run at the end of the session (servers, temporary folders)


def background(name: str, after: tuple[str, ...] = ()):
    """Register a background job (the decorated function takes its dependencies' results as
    keyword arguments) under the name of the fixture that waits for it."""

    def deco(func):
        BACKGROUND[name] = (func, after)
        return func

    return deco


#: A background job's command runs at a lower priority than pytest's thread (``nice``, where
#: there is one): the tests in that thread are one long chain, and the jobs' processes (the
#: browsers, the second rendering) fill in the time the chain leaves. The site build, which the
#: chain waits for, runs at the tests' priority.
YIELDING = ["nice", "-n", "10"] if shutil.which("nice") else []


def run_checked(
    name: str, cmd: list[str], env: dict, cwd: Path = ROOT, input: str | None = None
) -> None:
    """Run a command; fail the waiting test with the end of its output if it fails."""
    proc = subprocess.run(
        cmd, cwd=cwd, env=env, input=input, capture_output=True, text=True, timeout=1800
    )
    if proc.returncode != 0:
        out = proc.stdout + proc.stderr
        pytest.fail(f"{name} failed (exit {proc.returncode}):\n{out[-6000:]}", pytrace=False)


@background("site_build")
def _build_site() -> tuple[Path, int]:
    """``mkdocs build --strict`` into a temporary folder, for the address it will be served at
    (its ``site_url``: Material's instant navigation only follows the links its sitemap lists)."""
    if os.environ.get("ROPE_SITE_DIR"):
        prebuilt = Path(os.environ["ROPE_SITE_DIR"])
        if not (prebuilt / "index.html").is_file():
            pytest.fail(f"ROPE_SITE_DIR={prebuilt} holds no built site", pytrace=False)
        return prebuilt, _served_port(prebuilt) or 0
    out = Path(tempfile.mkdtemp(prefix="rope-site-"))
    CLEANUP.append(lambda: shutil.rmtree(out, ignore_errors=True))
    port = _free_port()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", SITE_URL=f"http://127.0.0.1:{port}/")
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)]
    run_checked("mkdocs build --strict", cmd, env)
    return out, port


@background("site_server", after=("site_build",))
def _serve_site(site_build) -> str:
    """The built site served on 127.0.0.1 at the port of its ``site_url``, for the session, by a
    process of its own (:func:`tools.browser.serve_in_child`)."""
    site, port = site_build
    stack = contextlib.ExitStack()
    CLEANUP.append(stack.close)
    try:
        return stack.enter_context(serve_in_child(site, port))
    except OSError:  # the port was taken meanwhile: serve anyway (instant navigation reloads)
        return stack.enter_context(serve_in_child(site, 0))


#: ``python -m rope_explained.figures`` on one BLAS thread, as the build renders them
ONE_THREAD_FIGURES = (
    "import sys, numpy; from threadpoolctl import threadpool_limits; "
    "threadpool_limits(limits=1, user_api='blas'); "
    "from rope_explained.figures.__main__ import main; sys.exit(main())"
)


@background("other_process_svgs")
def _render_figures_again() -> Path:
    """Every registered figure rendered again by two Python processes, each with a hash seed
    of its own and every other figure (two, so that the rendering can use both cores when it
    is the last job left)."""
    from rope_explained.figures import load_all

    out = Path(tempfile.mkdtemp(prefix="rope-figures-"))
    CLEANUP.append(lambda: shutil.rmtree(out, ignore_errors=True))
    ids = sorted(load_all())
    cmd = [*YIELDING, sys.executable, "-c", ONE_THREAD_FIGURES, "--out", str(out)]

    def render(half: int, seed: str) -> None:
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
        run_checked("python -m rope_explained.figures", [*cmd, *ids[half::2]], env)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for done in [pool.submit(render, 0, "12345"), pool.submit(render, 1, "54321")]:
            done.result()
    return out


#: The background jobs' results that take longest to come, in the order they come in a run of
#: ``make test`` (the handout, the deploy with mike, the readers, then the second rendering of the
#: figures, which has the most work to do beside the tests), latest last: a site test that waits
#: for one runs after those that wait for none or for a quicker one, so that pytest's thread
#: works while the browsers and the second rendering do.
LATE_FIXTURES = ("site_pdf", "deployed", "views", "other_process_svgs")


def _lateness(item) -> int:
    names = set(getattr(item, "fixturenames", ()))
    return max((i + 1 for i, name in enumerate(LATE_FIXTURES) if name in names), default=0)


def pytest_collection_modifyitems(config, items):
    """Mark the tests that need the built site or a browser ``site``, and run them last, those
    that wait for the slowest background jobs at the very end."""
    for item in items:
        if SITE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.site)
    # stable: within a group, the files' and the tests' order
    items.sort(key=lambda item: (item.get_closest_marker("site") is not None, _lateness(item)))


def pytest_collection_finish(session):
    """Start the background jobs that the selected tests need (and what those jobs need)."""
    if session.config.option.collectonly:
        return
    needs = set().union(*(getattr(i, "fixturenames", ()) for i in session.items))
    if needs & {"views", "axe_results"}:
        needs |= {"visits"}
    if needs & {"site_dir", "site_url"}:
        needs |= {"site_build", "site_server"}
    wanted: list[str] = []

    def want(name: str) -> None:
        if name in wanted:
            return
        for dep in BACKGROUND[name][1]:
            want(dep)
        wanted.append(name)

    for name in BACKGROUND:
        if name in needs:
            want(name)
    for name in wanted:
        JOBS[name] = Job(name, *BACKGROUND[name])
    for name in wanted:
        JOBS[name].start()


def pytest_sessionfinish(session, exitstatus):
    for job in JOBS.values():
        if job.future is not None:
            job.future.cancel()
    EXECUTOR.shutdown(wait=True, cancel_futures=True)
    for cleanup in reversed(CLEANUP):
        cleanup()


@pytest.fixture(scope="session")
def site_dir() -> Path:
    """The site, built once per session with ``mkdocs build --strict`` in the background from
    the moment the tests were collected. ``ROPE_SITE_DIR=/path/to/site`` tests an already built
    site instead (no build)."""
    return JOBS["site_build"].result()[0]


@pytest.fixture(scope="session")
def site_url(site_dir) -> str:
    """The base URL (``http://127.0.0.1:<port>/``) the built site is served at."""
    return JOBS["site_server"].result()


@pytest.fixture(scope="session")
def other_process_svgs() -> Path:
    """Every registered figure rendered by a separate Python process with another hash seed
    (in the background from the moment the tests were collected)."""
    return JOBS["other_process_svgs"].result()


def job_result(name: str):
    """The result of the background job ``name`` (for the fixtures of the test modules)."""
    return JOBS[name].result()


# What a reader's browser shows: every page, by three readers (tests/readers.py) ----------------


def _html_pages(site: Path) -> list[str]:
    """Site paths of every HTML page of a built site (``404.html`` excluded)."""
    pages = []
    for path in sorted(site.rglob("index.html")):
        rel = path.parent.relative_to(site).as_posix()
        pages.append("" if rel == "." else rel + "/")
    return pages


@background("visits", after=("site_build", "site_server"))
def _open_every_page(site_build, site_server) -> dict[str, dict[str, dict]]:
    """Every page opened once by each reader of :data:`readers.VIEWS`, axe included (in the
    background, by a process with browsers of its own, while the quick tests run)."""
    out = Path(tempfile.mkdtemp(prefix="rope-visits-")) / "views.json"
    CLEANUP.append(lambda: shutil.rmtree(out.parent, ignore_errors=True))
    readers = [sys.executable, str(Path(__file__).with_name("readers.py"))]
    paths = json.dumps(_html_pages(site_build[0]))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run_checked(
        "the readers' visits", [*YIELDING, *readers, site_server, str(out)], env, input=paths
    )
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def views(site_url, site_pages, summary) -> dict[str, dict[str, dict]]:
    """What the browser saw on every page in each of :data:`VIEWS` (opened once, in the
    background from the moment the site was served)."""
    out = JOBS["visits"].result()
    pages = [p for p in site_pages if not is_print_page(p)]
    assert all(sorted(seen) == sorted(pages) for seen in out.values())
    summary.append(
        f"browser: {len(pages)} pages of the built site opened in headless Chromium, "
        f"{', '.join(VIEWS)}"
    )
    return out


@pytest.fixture(scope="session")
def reports(views) -> dict[str, dict]:
    """What a desktop browser with JavaScript saw on each page."""
    return views["desktop"]


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
    """Site paths of the content pages: every docs page except the API reference, the list of
    figures and equations (an index of the others) and the 404 page."""
    pages = []
    for path in sorted(DOCS.rglob("*")):
        src = path.relative_to(DOCS).as_posix()
        if src.startswith(("reference/", "javascripts/", "stylesheets/")):
            continue
        if src == "figures-and-equations.md":
            continue
        if path.suffix == ".md" or (path.suffix == ".py" and src.startswith("paper-to-code/")):
            pages.append(page_path(src))
    return pages


@pytest.fixture(scope="session")
def site_pages(site_dir) -> list[str]:
    """Site paths of every HTML page of the built site (``404.html`` excluded)."""
    return _html_pages(site_dir)


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
    lines = list(config.stash.get(SUMMARY_KEY, []))
    ran = [job for job in JOBS.values() if len(job.times) == 2]
    if ran:
        lines.append(
            "background jobs (seconds from the start of the run): "
            + ", ".join(f"{j.name} {j.times[0]:.0f}-{j.times[1]:.0f}" for j in ran)
        )
    if lines:
        terminalreporter.section("site checks")
        for line in lines:
            terminalreporter.write_line(line)
