"""What a first visit to each page of the site costs, in one run.

Usage: ``python benchmarks/bench_page_weight.py [--site DIR] [--json FILE]``. Without
``--site`` it first times the build as ``benchmarks/bench_build.py`` does (cold, then five warm
builds, in a scratch copy of the repository) and prints those times, then measures the site
that build made: every target of the page-weight and build-time work in one run. The
site is served on loopback (``tools.browser.serve``) and every page (each ``index.html`` but the
404 page) is opened in a fresh Chromium context with the HTTP cache disabled, as a first-time
reader would open it, and left until the network is idle (the search worker's index included).

For each page it prints:

* **first visit**: the uncompressed bytes of everything the visit loaded: the sum of the body
  sizes of every response the browser received (HTML, CSS, scripts, fonts, images, the search
  index).
* **own**: the page's own HTML file plus the local images it shows (``<img src>``, read from the
  built site): what belongs to this page alone, as opposed to what every page shares.
* **math ms**: main-thread time spent in math-typesetting scripts. Chromium's JavaScript sampling
  profiler (DevTools protocol ``Profiler``, one sample every 100 microseconds) runs from before
  the navigation until the network is idle; the time of every sample whose innermost frame
  belongs to a script whose address looks like a typesetting engine (MathJax, KaTeX's renderer
  or auto-render; KaTeX's copy-tex helper, which only rewrites a copied selection, is not one) is
  added up. A page that loads no such script scores 0 by construction, and the table says which
  scripts matched.

Then the median and the largest of the first-visit bytes and of the own bytes, with the targets
(first visit: median at most 1 MB, largest at most 1.5 MB; own: at most 1 MB each), over the
reading pages: the print edition (``print_page/``, the whole site on one page, which ``make pdf``
prints) is listed but not counted.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tools.browser

from tools.browser import launch_chromium, serve  # noqa: E402

#: Scripts that typeset math in the browser (the copy-tex helper only handles a copied selection).
MATH_SCRIPT = re.compile(r"mathjax|tex-(?:svg|chtml|mml)|katex(?:\.min)?\.js|auto-render", re.I)
MB = 1_000_000
PRINT_PAGE = "print_page/"
TARGETS = {"median first visit": 1 * MB, "largest first visit": 1.5 * MB, "largest own": 1 * MB}


class _Images(HTMLParser):
    def __init__(self):
        super().__init__()
        self.srcs: list[str] = []

    def handle_starttag(self, tag, attrs):
        src = dict(attrs).get("src")
        if tag == "img" and src and not src.startswith("data:"):
            self.srcs.append(src)


def site_pages(site: Path) -> list[str]:
    """Site paths of every page (``""``, ``"equations/rope/"``, ...), 404 excluded."""
    pages = []
    for path in sorted(site.rglob("index.html")):
        rel = path.parent.relative_to(site).as_posix()
        pages.append("" if rel == "." else rel + "/")
    return pages


def own_bytes(site: Path, page: str) -> tuple[int, int]:
    """The page's HTML size and the size of the local images it shows (each counted once)."""
    html_file = site / page / "index.html"
    parser = _Images()
    parser.feed(html_file.read_text(encoding="utf-8"))
    base = "http://site/" + page
    files = set()
    for src in parser.srcs:
        url = urlsplit(urljoin(base, src))
        if url.netloc != "site":
            continue
        path = site / unquote(url.path).lstrip("/")
        if path.is_file():
            files.add(path.resolve())
    return html_file.stat().st_size, sum(p.stat().st_size for p in files)


def math_time_ms(profile: dict) -> tuple[float, set[str]]:
    """Milliseconds of profiler samples whose innermost frame is in a math-typesetting script."""
    urls = {n["id"]: n["callFrame"].get("url", "") for n in profile["nodes"]}
    math_nodes = {i for i, url in urls.items() if MATH_SCRIPT.search(url)}
    samples, deltas = profile.get("samples", []), profile.get("timeDeltas", [])
    total_us = 0
    for k, node in enumerate(samples):
        if node in math_nodes and k + 1 < len(deltas):
            total_us += deltas[k + 1]  # a sample lasts until the next one
    return total_us / 1000, {urls[i] for i in math_nodes}


def visit(browser, url: str) -> dict:
    """Open ``url`` as a first visit; the bytes of every response and the math profile."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 100})
    cdp.send("Profiler.start")
    responses = []
    page.on("response", lambda response: responses.append(response))
    page.goto(url, wait_until="load")
    page.wait_for_load_state("networkidle")
    profile = cdp.send("Profiler.stop")["profile"]
    by_kind: dict[str, int] = {}
    for response in responses:
        try:
            size = len(response.body())
        except Exception:  # a redirect or an aborted request has no body
            size = 0
        kind = response.request.resource_type
        by_kind[kind] = by_kind.get(kind, 0) + size
    math_ms, math_scripts = math_time_ms(profile)
    context.close()
    return {
        "bytes": sum(by_kind.values()),
        "by_kind": by_kind,
        "requests": len(responses),
        "math_ms": math_ms,
        "math_scripts": sorted(math_scripts),
    }


def kb(n: float) -> str:
    return f"{n / 1000:,.0f} KB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build one now)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    tmp = None
    build_times = None
    if args.site is None:
        import bench_build  # benchmarks/, beside this script

        print("building the site in a scratch copy: cold, then 5 warm builds ...", flush=True)
        repo, build_times = bench_build.measure(5)
        tmp = repo.parent
        site = repo / "site"
    else:
        site = args.site
        if not (site / "index.html").is_file():
            parser.error(f"--site {site} holds no built site (no index.html)")
    from playwright.sync_api import sync_playwright

    rows = {}
    try:
        with serve(site) as base, sync_playwright() as p:
            browser = launch_chromium(p)
            for page in site_pages(site):
                html_size, figures = own_bytes(site, page)
                rows[page] = visit(browser, base + page) | {"html": html_size, "figures": figures}
            browser.close()
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

    print(
        f"{'page':<40} {'first visit':>12} {'own':>10} {'html':>10} {'figures':>10} {'math ms':>8}"
    )
    for page, r in rows.items():
        own = r["html"] + r["figures"]
        print(
            f"/{page:<39} {kb(r['bytes']):>12} {kb(own):>10} {kb(r['html']):>10} "
            f"{kb(r['figures']):>10} {r['math_ms']:>8.1f}"
        )
    # the print edition (the whole site on one page, for the PDF) is listed, not a reading page
    reading = {p: r for p, r in rows.items() if p != PRINT_PAGE}
    first = [r["bytes"] for r in reading.values()]
    own = [r["html"] + r["figures"] for r in reading.values()]
    largest = max(reading, key=lambda p: reading[p]["bytes"])
    largest_own = max(reading, key=lambda p: reading[p]["html"] + reading[p]["figures"])
    scripts = sorted({s for r in rows.values() for s in r["math_scripts"]})
    summary = {
        "pages": len(reading),
        "median first visit": statistics.median(first),
        "largest first visit": max(first),
        "largest first visit page": "/" + largest,
        "median own": statistics.median(own),
        "largest own": max(own),
        "largest own page": "/" + largest_own,
        "largest math ms": max(r["math_ms"] for r in rows.values()),
        "math scripts": scripts,
    }
    kinds: dict[str, list[int]] = {}
    for r in rows.values():
        for kind, size in r["by_kind"].items():
            kinds.setdefault(kind, []).append(size)
    print()
    print(f"{len(reading)} pages (the print edition, /{PRINT_PAGE}, not counted)")
    print(
        f"first visit: median {kb(summary['median first visit'])}, largest "
        f"{kb(summary['largest first visit'])} ({summary['largest first visit page']})"
    )
    print(
        f"own HTML + figures: median {kb(summary['median own'])}, largest "
        f"{kb(summary['largest own'])} ({summary['largest own page']})"
    )
    print(
        "first visit by kind (median over the pages that load it): "
        + ", ".join(f"{k} {kb(statistics.median(v))}" for k, v in sorted(kinds.items()))
    )
    print(
        f"math main-thread time: largest {summary['largest math ms']:.1f} ms; math scripts "
        f"loaded: {', '.join(scripts) if scripts else 'none'}"
    )
    failed = [name for name, limit in TARGETS.items() if summary[name] > limit]
    for name, limit in TARGETS.items():
        verdict = "ok" if summary[name] <= limit else "OVER"
        print(f"target {name} <= {kb(limit)}: {kb(summary[name])} {verdict}")
    if build_times is not None:
        print()
        bench_build.report(build_times)
        summary["build"] = build_times
        measured = {"cold": "cold wall s", "warm": "warm wall s median"}
        failed += [
            f"make site {k}"
            for k, limit in bench_build.TARGETS.items()
            if build_times[measured[k]] > limit
        ]
    if args.json:
        args.json.write_text(json.dumps({"pages": rows, "summary": summary}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
