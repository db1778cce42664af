"""The playground page: its JavaScript forward pass against the package, and the page in Chromium.

Two groups of tests:

* the in-browser ``RopePlayground.forward`` (docs/javascripts/playground.js, loaded into a blank
  page) agrees with :func:`rope_explained.model.forward` to 1e-9 on every case of
  :func:`playground_cases.reference_cases`;
* the built page, driven like a reader drives it: typing, the sliders, the head switch, the
  buttons, bad input and markup, hovering and the keyboard, instant navigation.
"""

from __future__ import annotations

import base64
import json
import math
import re
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from playground_cases import export_reference, reference_cases, reference_trace

from rope_explained.examples import (
    ALPHA_RANGE,
    BASE_RANGE,
    LONG_PROMPT,
    MAX_LETTERS,
    OPENING_PROMPT,
    RANK1_FAILS_PROMPT,
)
from rope_explained.model import forward, predict_next

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "docs" / "javascripts" / "playground.js"
TOL = 1e-9
MATRICES = ("scores0", "A0", "scores1", "A1", "probs")

# Runs RopePlayground.forward and returns its arrays as base64 float64 bytes (exact and compact).
PULL = """(args) => {
  const r = RopePlayground.forward(args.text, args.config);
  const b64 = (a) => {
    const u = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    let s = '';
    for (let i = 0; i < u.length; i += 0x8000) {
      s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000));
    }
    return btoa(s);
  };
  const out = {T: r.T, tokens: r.tokens, prediction: r.prediction};
  for (const k of args.keys) out[k] = b64(r[k]);
  return out;
}"""


# The message of the error RopePlayground.forward(text, config) throws, or null.
CATCH = """([text, config]) => {
  try { RopePlayground.forward(text, config); return null; } catch (e) { return e.message; }
}"""


def js_forward(page, text: str, config: dict | None = None) -> dict:
    """``RopePlayground.forward(text, config)`` in the page, arrays as numpy ``(T, -1)``."""
    r = page.evaluate(PULL, {"text": text, "config": config or {}, "keys": list(MATRICES)})
    T = r["T"]
    for k in MATRICES:
        r[k] = np.frombuffer(base64.b64decode(r[k]), dtype=np.float64).reshape(T, -1)
    return r


def js_trace_of_page(page) -> dict:
    """The trace the page's playground last drew, arrays as numpy ``(T, -1)``."""
    r = page.evaluate(
        """() => { const t = RopePlayground.current.trace;
                   return {T: t.T, prediction: t.prediction, A0: Array.from(t.A0),
                           A1: Array.from(t.A1), probs: Array.from(t.probs),
                           state: RopePlayground.current.state}; }"""
    )
    for k in ("A0", "A1", "probs"):
        r[k] = np.asarray(r[k]).reshape(r["T"], -1)
    return r


# --- the forward pass, in a blank page ----------------------------------------------------------


@pytest.fixture(scope="module")
def js_page(browser):
    """A blank page with playground.js loaded (no site needed)."""
    page = browser.new_page()
    page.set_content("<!doctype html><html><head></head><body></body></html>")
    page.add_script_tag(content=SCRIPT.read_text(encoding="utf-8"))
    yield page
    page.close()


CASES = reference_cases()


def case_id(case) -> str:
    text = case["text"] if len(case["text"]) <= 12 else f"{case['text'][:6]}..{len(case['text'])}"
    return text + "-" + "-".join(f"{k}={v}" for k, v in case["config"].items())


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_js_forward_agrees_with_package(js_page, case):
    """Patterns, scores and probabilities agree with rope_explained.forward to 1e-9."""
    js = js_forward(js_page, case["text"], case["config"])
    ref = forward(case["text"], **case["config"])
    assert js["tokens"] == ref.tokens
    for k in MATRICES:
        want = getattr(ref, k)
        assert js[k].shape == want.shape, k
        err = np.max(np.abs(js[k] - want))
        # Scores reach alpha d/2 = 32000: compare them relative to their size.
        scale = max(1.0, float(np.max(np.abs(want)))) if k.startswith("scores") else 1.0
        assert err <= TOL * scale, f"{k}: max |js - package| = {err:.3g}"
    assert js["prediction"] == ref.prediction


def test_reference_cases_cover_the_brief():
    """Both heads, alpha and base at both ends of their sliders, lengths from 1 to the limit."""
    heads = {c["config"].get("head", "induction") for c in CASES}
    alphas = {c["config"].get("alpha") for c in CASES}
    bases = {c["config"].get("base") for c in CASES}
    lengths = {len(c["text"]) for c in CASES}
    assert heads == {"induction", "rank1"}
    assert set(ALPHA_RANGE) <= alphas and set(BASE_RANGE) <= bases
    assert min(lengths) == 1 and max(lengths) == MAX_LETTERS


def test_export_reference_round_trip(tmp_path):
    """The exported JSON holds the package's values, long traces thinned to a few rows."""
    path = export_reference(tmp_path / "ref.json")
    data = json.loads(path.read_text())
    assert len(data["cases"]) == len(CASES)
    assert path.stat().st_size < 4_000_000
    long_case = next(c for c in data["cases"] if len(c["text"]) == MAX_LETTERS)
    rows = long_case["trace"]["rows"]
    assert rows[-1] == MAX_LETTERS and len(rows) < 15
    ref = forward(long_case["text"], **long_case["config"])
    np.testing.assert_array_equal(np.asarray(long_case["trace"]["A1"]), ref.A1[rows])
    with pytest.raises(ValueError, match="rows"):
        reference_trace("abc", rows=[7])
    with pytest.raises(ValueError, match="max_full_rows"):
        export_reference(tmp_path / "x.json", max_full_rows=0)


def test_js_reads_text_like_tokenize(js_page):
    """Upper case is folded like tokenize; other characters are refused, as the package does."""
    upper = js_forward(js_page, "AbCaB")
    lower = forward("abcab")
    np.testing.assert_allclose(upper["probs"], lower.probs, atol=TOL, rtol=0)
    for bad in ("ab1", "a b", "é", "", "<b>"):
        with pytest.raises(ValueError):
            forward(bad)
        msg = js_page.evaluate(CATCH, [bad, {}])
        assert msg is not None and ("vocabulary" in msg or "empty" in msg), (bad, msg)


@pytest.mark.parametrize(
    "config",
    [{"base": 1.0}, {"alpha": 0.0}, {"head": "full"}, {"d": 7}, {"offset": -1}, {"bogus": 1}],
)
def test_js_refuses_settings_the_package_refuses(js_page, config):
    with pytest.raises(ValueError):
        forward("abc", **config)
    msg = js_page.evaluate(CATCH, ["abc", config])
    assert msg is not None and any(word in msg for word in config), msg


def test_prompts_are_the_packages_and_do_what_the_page_says(js_page):
    """The page's prompts equal the package's, and the package agrees with what the page says."""
    consts = js_page.evaluate(
        "() => [RopePlayground.OPENING, RopePlayground.RANK1_FAILS, RopePlayground.LONG]"
    )
    assert consts == [OPENING_PROMPT, RANK1_FAILS_PROMPT, LONG_PROMPT]
    # opening: the working head copies the letter after the earlier "he"
    assert predict_next(OPENING_PROMPT) == "a"
    # rank-1 fails where the working head copies "h"
    assert predict_next(RANK1_FAILS_PROMPT) == "h"
    assert predict_next(RANK1_FAILS_PROMPT, head="rank1") != "h"
    # ... because its last row lights up the two keys that remember an "a", whatever the query
    tr = forward(RANK1_FAILS_PROMPT, head="rank1")
    top = np.argsort(tr.A1[-1])[-2:]
    assert tr.A1[-1, top].sum() > 0.95 and all(tr.tokens[n - 1] == "a" for n in top)
    # 256 letters: right at base 10000, wrong at base 1000
    first = LONG_PROMPT.index(LONG_PROMPT[-1])
    assert first < MAX_LETTERS - 1 and LONG_PROMPT.count(LONG_PROMPT[-1]) == 2
    answer = LONG_PROMPT[first + 1]
    assert predict_next(LONG_PROMPT, base=10000.0) == answer
    assert predict_next(LONG_PROMPT, base=1000.0) != answer


def test_script_is_small_and_self_contained():
    """Well under 200 KB, and it loads nothing from anywhere."""
    src = SCRIPT.read_text(encoding="utf-8")
    assert len(src.encode()) < 200_000
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", src)
    assert "innerHTML" not in src and "insertAdjacentHTML" not in src


# --- the page, driven like a reader -------------------------------------------------------------

VIRIDIS = matplotlib.colormaps["viridis"]


def lut_index(x: float) -> int:
    """matplotlib's colour-table index for a value in [0, 1] (256 entries)."""
    return min(255, max(0, int(math.floor(x * 256))))


def assert_cell_shows(page, panel: str, m: int, n: int, value: float, cmap=VIRIDIS):
    """The heatmap cell (m, n) shows cmap(value), within one step of the colour table."""
    rgba = page.evaluate(f"() => RopePlayground.current.cellColor('{panel}', {m}, {n})")
    i = lut_index(value)
    allowed = [
        tuple(int(c) for c in cmap(j, bytes=True)[:3])
        for j in range(max(0, i - 1), min(256, i + 2))
    ]
    assert tuple(rgba[:3]) in allowed, (panel, m, n, value, rgba)


class Console:
    """Uncaught exceptions and console errors of one page, and any dialog it opens.

    ``errors`` holds only what happened after :meth:`settle` (called once the playground has
    drawn), so that the tests judge what the reader's actions cause; ``at_load`` keeps the
    ones raised while the page loaded, of which none may come from playground.js.
    """

    def __init__(self, page):
        self.all: list[str] = []
        self.mark = 0
        self.dialogs: list[str] = []
        page.on("pageerror", lambda e: self.all.append(f"pageerror: {e.message}\n{e.stack}"))
        page.on(
            "console",
            lambda m: (
                self.all.append(f"console: {m.text} @ {m.location.get('url')}")
                if m.type == "error"
                else None
            ),
        )

        def on_dialog(d):
            self.dialogs.append(d.message)
            d.dismiss()

        page.on("dialog", on_dialog)

    def settle(self):
        self.mark = len(self.all)

    @property
    def at_load(self) -> list[str]:
        return self.all[: self.mark]

    @property
    def errors(self) -> list[str]:
        return self.all[self.mark :]


@pytest.fixture()
def pg(browser, site_url):
    """A fresh playground page (light palette) and its console record."""
    context = browser.new_context(viewport={"width": 1280, "height": 1100}, color_scheme="light")
    page = context.new_page()
    console = Console(page)
    page.goto(site_url + "playground/")
    page.wait_for_function(
        "() => window.RopePlayground && RopePlayground.current"
        " && RopePlayground.current.renders > 0"
    )
    console.settle()
    assert not [e for e in console.at_load if "playground.js" in e], console.at_load
    yield page, console
    context.close()


def renders(page) -> int:
    return page.evaluate("() => RopePlayground.current.renders")


def wait_render(page, before: int):
    page.wait_for_function(f"() => RopePlayground.current.renders > {before}")


def shown_prediction(page) -> str:
    return page.locator(".rope-playground .rp-prediction [data-prediction]").inner_text().strip()


def test_page_opens_with_working_induction(pg):
    page, console = pg
    assert page.locator(".rope-playground input[type=text]").input_value() == OPENING_PROMPT
    assert shown_prediction(page) == predict_next(OPENING_PROMPT) == "a"
    assert "induction works" in page.locator(".rp-prediction").inner_text()
    js = js_trace_of_page(page)
    ref = forward(OPENING_PROMPT)
    assert np.max(np.abs(js["A0"] - ref.A0)) <= TOL and np.max(np.abs(js["A1"] - ref.A1)) <= TOL
    T = len(ref.tokens)
    for m, n in ((5, 4), (5, 3), (T - 1, T - 2), (T - 1, 12)):
        assert_cell_shows(page, "A0", m, n, ref.A0[m, n])
        assert_cell_shows(page, "A1", m, n, ref.A1[m, n])
    # the bar chart outlines the predicted letter
    label = page.locator("[data-panel=probs] svg").get_attribute("aria-label")
    assert "the prediction is a" in label
    assert console.errors == [] and console.dialogs == []


def test_typing_updates_the_prediction(pg):
    page, console = pg
    box = page.locator(".rope-playground input[type=text]")
    for text in ("qxzqx", "abcab", "thecatsatonthematthecatsatonthem"):
        before = renders(page)
        box.fill("")
        box.press_sequentially(text, delay=5)
        page.wait_for_function(f"() => RopePlayground.current.state.text === '{text}'")
        wait_render(page, before)
        assert shown_prediction(page) == predict_next(text)
        js = js_trace_of_page(page)
        ref = forward(text)
        assert np.max(np.abs(js["A1"] - ref.A1)) <= TOL
        assert np.max(np.abs(js["probs"] - ref.probs)) <= TOL
    assert console.errors == []


def test_alpha_slider_moves_the_layer0_pattern(pg):
    page, console = pg
    slider = page.locator(".rope-playground input[type=range]").first
    T = len(OPENING_PROMPT) + 1
    m = T - 1
    a_before = page.evaluate(f"() => RopePlayground.current.trace.A0[{m * T + m - 1}]")
    slider.focus()
    before = renders(page)
    page.keyboard.press("Home")  # alpha = 10^-1
    wait_render(page, before)
    state = js_trace_of_page(page)["state"]
    assert state["alpha"] == 0.1
    ref = forward(OPENING_PROMPT, alpha=0.1)
    js = js_trace_of_page(page)
    assert np.max(np.abs(js["A0"] - ref.A0)) <= TOL
    assert ref.A0[m, m - 1] < 0.5 < a_before  # the band fades, as the package says
    assert_cell_shows(page, "A0", m, m - 1, ref.A0[m, m - 1])
    assert_cell_shows(page, "A0", m, 3, ref.A0[m, 3])
    # the scores panel: RdBu_r, centred on zero, as the site's static figures (centred_norm)
    span = np.max(np.abs(ref.scores0))
    for n in (m - 1, m - 5, 0):
        x = 0.5 + ref.scores0[m, n] / (2 * span)
        assert_cell_shows(page, "scores0", m, n, x, cmap=matplotlib.colormaps["RdBu_r"])
    assert shown_prediction(page) == ref.prediction != "a"
    # step back up with the arrow keys: one step is 0.05 in log10(alpha)
    before = renders(page)
    page.keyboard.press("ArrowRight")
    wait_render(page, before)
    alpha = js_trace_of_page(page)["state"]["alpha"]
    assert alpha == float(f"{10**-0.95:.3g}")
    js = js_trace_of_page(page)
    assert np.max(np.abs(js["A0"] - forward(OPENING_PROMPT, alpha=alpha).A0)) <= TOL
    assert console.errors == []


def test_rank1_button_and_head_switch(pg):
    page, console = pg
    before = renders(page)
    page.get_by_role("button", name="Load a prompt where rank-1 fails").click()
    wait_render(page, before)
    assert page.locator(".rope-playground input[type=text]").input_value() == RANK1_FAILS_PROMPT
    assert page.get_by_label("the document’s rank-1 head").is_checked()
    wrong = predict_next(RANK1_FAILS_PROMPT, head="rank1")
    assert shown_prediction(page) == wrong != "h"
    assert "misses" in page.locator(".rp-prediction").inner_text()
    ref = forward(RANK1_FAILS_PROMPT, head="rank1")
    T = len(ref.tokens)
    js = js_trace_of_page(page)
    assert np.max(np.abs(js["A1"] - ref.A1)) <= TOL
    assert_cell_shows(page, "A1", T - 1, int(np.argmax(ref.A1[-1])), ref.A1[-1].max())
    # switch to the working head with the keyboard-reachable radio button
    before = renders(page)
    page.get_by_label("working head (rank 2, slowest pair)").check()
    wait_render(page, before)
    good = forward(RANK1_FAILS_PROMPT, head="induction")
    assert shown_prediction(page) == good.prediction == "h"
    target = int(np.argmax(good.A1[-1]))
    assert good.tokens[target] == "h"
    assert_cell_shows(page, "A1", T - 1, target, good.A1[-1, target])
    assert console.errors == []


def test_base_slider_on_256_letters(pg):
    page, console = pg
    before = renders(page)
    page.get_by_role("button", name="Load 256 letters").click()
    wait_render(page, before)
    assert shown_prediction(page) == predict_next(LONG_PROMPT)
    base_slider = page.locator(".rope-playground input[type=range]").nth(1)
    before = renders(page)
    base_slider.fill("3")  # base 10^3
    wait_render(page, before)
    js = js_trace_of_page(page)
    assert js["state"]["base"] == 1000.0
    ref = forward(LONG_PROMPT, base=1000.0)
    assert shown_prediction(page) == ref.prediction
    assert np.max(np.abs(js["A1"] - ref.A1)) <= TOL
    assert np.max(np.abs(js["probs"] - ref.probs)) <= TOL
    assert console.errors == []


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("ab1ab", "“1”"),
        ("ab ab", "a space"),
        ("", "at least one letter"),
        ("a" * (MAX_LETTERS + 1), f"{MAX_LETTERS + 1} letters"),
    ],
    ids=["digit", "space", "empty", "too-long"],
)
def test_bad_input_gets_an_inline_message(pg, text, says):
    page, console = pg
    box = page.locator(".rope-playground input[type=text]")
    before = renders(page)
    box.fill(text)
    wait_render(page, before)
    msg = page.locator(".rope-playground .rp-msg")
    assert says in msg.inner_text() and "rp-error" in msg.get_attribute("class")
    assert box.get_attribute("aria-invalid") == "true"
    # the panels keep the last valid text (the opening prompt), dimmed
    assert shown_prediction(page) == predict_next(OPENING_PROMPT)
    assert "rp-stale" in page.locator(".rope-playground").get_attribute("class")
    before = renders(page)
    box.fill("abcab")
    wait_render(page, before)
    assert msg.inner_text() == "" and box.get_attribute("aria-invalid") is None
    assert shown_prediction(page) == predict_next("abcab")
    assert console.errors == [] and console.dialogs == []


def test_upper_case_is_read_as_lower_case(pg):
    page, console = pg
    before = renders(page)
    page.locator(".rope-playground input[type=text]").fill("QxzQX")
    wait_render(page, before)
    assert shown_prediction(page) == predict_next("QxzQX") == predict_next("qxzqx")
    assert "lower case" in page.locator(".rope-playground .rp-msg").inner_text()
    assert console.errors == []


def test_markup_is_only_ever_text(pg):
    page, console = pg
    count_before = page.evaluate("() => document.querySelectorAll('img, script, b').length")
    box = page.locator(".rope-playground input[type=text]")
    for markup in ("<img src=x onerror=alert(1)>", "<script>alert(2)</script>", "<b>hi</b>"):
        before = renders(page)
        box.fill(markup)
        wait_render(page, before)
        assert "“<”" in page.locator(".rope-playground .rp-msg").inner_text()
    page.wait_for_timeout(300)
    assert console.dialogs == []
    assert page.evaluate("() => document.querySelectorAll('img, script, b').length") == count_before
    assert page.locator(".rope-playground img, .rope-playground b").count() == 0
    assert console.errors == []


def test_hover_and_keyboard_show_a_cell(pg):
    page, console = pg
    ref = forward(OPENING_PROMPT)
    canvas = page.locator("[data-panel=A1] canvas")
    canvas.scroll_into_view_if_needed()
    T = len(ref.tokens)
    m, n = T - 1, int(np.argmax(ref.A1[-1]))
    xy = page.evaluate(
        f"""() => {{ const h = RopePlayground.current.heatmaps.A1, g = h.geometry();
                     return [30 + ({n} + 0.5) * g.cell, 4 + ({m} + 0.5) * g.cell]; }}"""
    )
    canvas.hover(position={"x": xy[0], "y": xy[1]})
    tip = page.locator("[data-panel=A1] .rp-tip")
    tip.wait_for(state="visible")
    text = tip.inner_text()
    assert f"row m = {m} ({ref.tokens[m]})" in text and f"column n = {n} ({ref.tokens[n]})" in text
    shown = float(text.split("=")[-1].strip().replace("−", "-"))
    assert shown == pytest.approx(ref.A1[m, n], rel=1e-4)
    # keyboard: focus the layer-0 heatmap and walk left along the last row
    page.mouse.move(0, 0)
    page.locator("[data-panel=A0] canvas").focus()
    page.keyboard.press("ArrowLeft")
    readout = page.locator("[data-panel=A0] .rp-readout").inner_text()
    assert f"row m = {T - 1}" in readout and f"column n = {T - 3}" in readout
    assert console.errors == []


def test_restarts_on_each_instant_navigation(pg):
    """On every page that mkdocs-material's instant navigation swaps in, the playground restarts.

    Instant navigation replaces the page's content and then emits the new document on the
    theme's ``document$`` observable; this does the same by hand: a fresh placeholder element
    in place of the old one, then ``document$.next(document)``.
    """
    page, console = pg
    assert page.evaluate("() => typeof document$.next") == "function"
    ready = (
        "() => RopePlayground.current && document.body.contains(RopePlayground.current.root)"
        " && RopePlayground.current.renders > 0"
    )
    old = page.evaluate_handle("() => RopePlayground.current")
    page.evaluate(
        """() => { const old = document.querySelector('.rope-playground');
                   const fresh = document.createElement('div');
                   fresh.className = 'rope-playground';
                   old.replaceWith(fresh);
                   document$.next(document); }"""
    )
    page.wait_for_function(ready)
    assert page.evaluate("(o) => RopePlayground.current !== o", old)
    assert page.locator(".rope-playground").count() == 1
    assert shown_prediction(page) == predict_next(OPENING_PROMPT)
    # the same element again (a navigation that keeps it): no second playground
    renders_before = renders(page)
    page.evaluate("() => document$.next(document)")
    assert renders(page) == renders_before
    # a page without the element: the playground stops and nothing is drawn
    page.evaluate(
        "() => { document.querySelector('.rope-playground').remove(); document$.next(document); }"
    )
    assert page.evaluate("() => RopePlayground.current") is None
    # (other subscribers of document$ may complain about the hand-made emission; not ours)
    assert [e for e in console.errors if "playground.js" in e] == []
