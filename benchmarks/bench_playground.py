"""Time one update of the playground page in headless Chromium: 256 letters as heatmaps, and
4,096 letters in the last-position view, with and without context extension.

Usage: ``python benchmarks/bench_playground.py [--runs N] [--width PX]``. Needs no built site:
it loads the playground's scripts (the data.js the site build writes, from
docs/hooks/playground.py, then docs/javascripts/playground/model.js and ui.js) into a bare page
holding one ``.rope-playground`` element of the width the panels get on a laptop screen and
times ``update()``, everything that happens between a control moving and the next frame:

* 256 letters (the "Load 256 letters" prompt), all patterns: the forward pass plus the redraw
  of three 257 x 257 heatmaps and the bar chart; target one frame, 16.7 ms;
* 4,096 letters (the "Load 4,096 letters" prompt), the last position only: ``predictLast``
  plus the two lines and the bar chart; target 50 ms. Timed while alpha moves over its slider
  (as a drag does), once without scaling and once under each context-extension method at the
  playground's starting factor and context, and at the lowest alpha, where every layer-0
  weight counts (the slowest case);
* 256 letters with the trained weights of the first seed (its weights file loaded beforehand),
  all patterns: ``forwardWeights``, the dense pass of every product of the equations, plus the
  same redraw; timed while layer 0's pairs zeroed step from none to a few (as that slider's
  drag does), target 50 ms; and, for comparison, ``forwardWeights`` on the hand-built weights
  written in the trained form (``trained.hand_built``, residual width D = 4d), the dense pass
  the hand-built circuit's own fast path spares.

Prints, for each, the model alone and the whole update: the fastest run (the least disturbed
by other load on the machine), the median and the 90th percentile, and the machine's load.
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

# One series: load `text` in `view` with the weights `weights` and the scaling `scaling` (null:
# none), then time `runs` updates while alpha steps through `alphas` (slider positions, log10
# alpha), or with trained weights while layer 0's pairs zeroed step through `alphas`.
MEASURE = """([runs, text, view, scaling, alphas, weights]) => {
  const pg = RopePlayground.current;
  pg.input.value = text;
  pg.weights.value = weights;
  pg.views.forEach((r) => { r.checked = r.value === view; });
  pg.scaling.value = scaling || "";
  const update = [], model = [];
  const hand = weights === "hand-built";
  for (let k = 0; k < runs + 5; k++) {
    // a new setting each time, as a slider drag
    if (hand) pg.alpha.value = alphas[k % alphas.length];
    else pg.bands[0].count.value = alphas[k % alphas.length];
    let t0 = performance.now();
    pg.update();
    const t1 = performance.now() - t0;
    const config = Object.assign({}, pg.trace.config);
    t0 = performance.now();
    if (!hand) RopePlaygroundModel.forwardWeights(weights, text, {zero_pairs: config.zero_pairs});
    else if (view === "full") RopePlaygroundModel.forward(text, config);
    else RopePlaygroundModel.predictLast(text, config);
    const t2 = performance.now() - t0;
    if (k >= 5) { update.push(t1); model.push(t2); }  // the first runs warm up the JIT
  }
  const stats = (a) => {
    const s = a.slice().sort((x, y) => x - y);
    return {min: s[0], median: s[s.length >> 1], p90: s[Math.floor(s.length * 0.9)]};
  };
  return {T: pg.trace.T, view: pg.state.view, update: stats(update), model: stats(model)};
}"""

# forwardWeights on a weights payload, `runs` times after 3 to warm up: its timings.
DENSE = """([runs, payload, text]) => {
  const times = [];
  for (let k = 0; k < runs + 3; k++) {
    const t0 = performance.now();
    RopePlaygroundModel.forwardWeights(payload, text, {});
    if (k >= 3) times.push(performance.now() - t0);
  }
  const s = times.sort((x, y) => x - y);
  return {min: s[0], median: s[s.length >> 1], p90: s[Math.floor(s.length * 0.9)]};
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60, help="timed updates per series (60)")
    parser.add_argument("--width", type=int, default=760, help="width of the page's content, px")
    args = parser.parse_args()
    if args.runs < 1 or args.width < 200:
        raise SystemExit(f"need --runs >= 1 and --width >= 200; got {args.runs}, {args.width}")

    from playground import data_js, playground_data, weights_js, weights_payload
    from playwright.sync_api import sync_playwright

    from rope_explained import trained
    from tools.browser import launch_chromium

    data = playground_data()
    seed = data["TRAINED"]["SEEDS"][0]
    scripts = {
        "data.js": data_js(),
        "model.js": (JS_DIR / "model.js").read_text(encoding="utf-8"),
        "ui.js": (JS_DIR / "ui.js").read_text(encoding="utf-8"),
        f"weights-seed-{seed}.js": weights_js(seed),
    }
    drag = ["-1", "0", "1", "2", "3"]  # alpha 0.1 ... 1000, the slider's range
    lowest = ["-1"]
    hand = "hand-built"
    series = [
        ("256 letters, all patterns", data["LONG_PROMPT"], "full", None, drag, hand, 16.7),
        ("4,096 letters, no scaling", data["LONG_MODE_PROMPT"], "last", None, drag, hand, 50.0),
    ]
    for method in data["SCALING_METHODS"]:
        label = f"4,096 letters, {method} x{data['FACTOR']:g}"
        series.append((label, data["LONG_MODE_PROMPT"], "last", method, drag, hand, 50.0))
    series.append(
        ("4,096 letters, alpha 0.1", data["LONG_MODE_PROMPT"], "last", None, lowest, hand, 50.0)
    )
    counts = ["0", "1", "2", "4", "8"]  # layer 0's pairs zeroed
    label = f"256 letters, trained seed {seed}"
    series.append((label, data["LONG_PROMPT"], "full", None, counts, f"seed-{seed}", 50.0))

    results = []
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
        for label, text, view, scaling, alphas, weights, budget in series:
            r = page.evaluate(MEASURE, [args.runs, text, view, scaling, alphas, weights])
            if r["view"] != view:
                raise SystemExit(f"{label}: the page shows the {r['view']} view, not {view}")
            results.append((label, r, budget))
        dense = page.evaluate(
            DENSE, [min(args.runs, 10), weights_payload(trained.hand_built()), data["LONG_PROMPT"]]
        )
        version = browser.version
        browser.close()

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    sizes = {name: len(src.encode()) for name, src in scripts.items()}
    print(", ".join(f"{name}: {size / 1024:.1f} KiB" for name, size in sizes.items()))
    print(f"Chromium {version}, {platform.machine()}, {os.cpu_count()} CPUs, load {load:.1f}")
    print(f"{args.runs} timed updates per series, after 5 to warm up; T counts the start token")
    print(f"{'':38}{'T':>6}{'min':>9}{'median':>9}{'p90':>9}{'budget':>9}   (ms)")
    for label, r, budget in results:
        for part, key in (("model", "model"), ("update", "update")):
            s = r[key]
            name = f"{label}: {part}"
            print(
                f"{name:38}{r['T']:6d}{s['min']:9.2f}{s['median']:9.2f}{s['p90']:9.2f}"
                + (f"{budget:9.1f}" if key == "update" else "")
            )
    name = "256 letters, dense pass, hand-built"
    print(
        f"{name:38}{len(data['LONG_PROMPT']) + 1:6d}"
        + "".join(f"{dense[k]:9.2f}" for k in ("min", "median", "p90"))
    )


if __name__ == "__main__":
    main()
