"""Time one update of the playground page for 256 letters in headless Chromium.

Usage: ``python benchmarks/bench_playground.py [--runs N] [--width PX]``. Needs no built site:
it loads the playground's scripts (the data.js the site build writes, from
docs/hooks/playground.py, then docs/javascripts/playground/model.js and ui.js) into a bare page
holding one ``.rope-playground`` element of the width the panels get on a laptop screen, loads
the 256-letter prompt, and times
``update()``: the forward pass plus the redraw of three 257 x 257 heatmaps and the bar chart,
everything that happens between a slider moving and the next frame. The target is one frame,
16.7 ms.

Prints the forward pass alone and the whole update: the fastest run (the least disturbed by
other load on the machine), the median and the 90th percentile, and the machine's load.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "docs" / "hooks")]  # tools.browser; the playground hook
JS_DIR = ROOT / "docs" / "javascripts" / "playground"

MEASURE = """([runs]) => {
  const pg = RopePlayground.current;
  const long = RopePlaygroundData.LONG_PROMPT;
  pg.input.value = long;
  const alphas = ["-1", "0", "1", "2", "3"];
  const update = [], fwd = [];
  for (let k = 0; k < runs + 5; k++) {
    pg.alpha.value = alphas[k % alphas.length];  // a new setting each time, as a slider drag
    let t0 = performance.now();
    pg.update();
    const t1 = performance.now() - t0;
    t0 = performance.now();
    RopePlaygroundModel.forward(long, {alpha: 10 ** Number(pg.alpha.value)});
    const t2 = performance.now() - t0;
    if (k >= 5) { update.push(t1); fwd.push(t2); }  // the first runs warm up the JIT
  }
  const stats = (a) => {
    const s = a.slice().sort((x, y) => x - y);
    return {min: s[0], median: s[s.length >> 1], p90: s[Math.floor(s.length * 0.9)]};
  };
  return {T: pg.trace.T, update: stats(update), forward: stats(fwd)};
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60, help="timed updates (default 60)")
    parser.add_argument("--width", type=int, default=760, help="width of the page's content, px")
    args = parser.parse_args()
    if args.runs < 1 or args.width < 200:
        raise SystemExit(f"need --runs >= 1 and --width >= 200; got {args.runs}, {args.width}")

    from playground import data_js
    from playwright.sync_api import sync_playwright

    from tools.browser import launch_chromium

    scripts = {
        "data.js": data_js(),
        "model.js": (JS_DIR / "model.js").read_text(encoding="utf-8"),
        "ui.js": (JS_DIR / "ui.js").read_text(encoding="utf-8"),
    }

    with sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": args.width + 40, "height": 1200})
        page.set_content(
            f'<!doctype html><html><body><div class="rope-playground" style="width:{args.width}px">'
            "</div></body></html>"
        )
        for src in scripts.values():
            page.add_script_tag(content=src)
        page.wait_for_function("() => RopePlayground.current && RopePlayground.current.renders")
        r = page.evaluate(MEASURE, [args.runs])
        version = browser.version
        browser.close()

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    sizes = {name: len(src.encode()) for name, src in scripts.items()}
    print(", ".join(f"{name}: {size / 1024:.1f} KiB" for name, size in sizes.items()))
    print(f"Chromium {version}, {platform.machine()}, {os.cpu_count()} CPUs, load {load:.1f}")
    print(f"T = {r['T']} positions (256 letters + start token), {args.runs} runs")
    print(f"{'':22}{'min':>9}{'median':>9}{'p90':>9}   (ms)")
    for name, key in (("forward pass", "forward"), ("update (all panels)", "update")):
        s = r[key]
        print(f"{name:22}{s['min']:9.2f}{s['median']:9.2f}{s['p90']:9.2f}")
    print("budget: 16.7 ms (one frame at 60 Hz)")


if __name__ == "__main__":
    main()
