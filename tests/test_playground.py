"""The playground page: its JavaScript forward pass against the package, and the page in Chromium.

Four groups of tests:

* the data file the build writes (docs/hooks/playground.py) holds the package's values, and
  the scripts restate none of them;
* the in-browser ``RopePlaygroundModel.forward`` (docs/javascripts/playground/model.js, loaded
  with the generated data.js into a blank page) agrees with :func:`rope_explained.model.forward`
  to 1e-9 on every case of :func:`playground_cases.reference_cases`;
* the built page, driven like a reader drives it: typing, the sliders, the head switch, the
  buttons, bad input and markup, hovering and the keyboard;
* the scripts load on the playground page only, and instant navigation starts and restarts it.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import math
import re
import unicodedata
from pathlib import Path
from urllib.parse import urljoin, urlparse

import matplotlib
import numpy as np
import playground as hook  # docs/hooks/playground.py, on sys.path through conftest.py
import pytest
from configs import configs, rounding_bound, texts
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from playground_cases import (
    FACTORS,
    export_reference,
    last_position_cases,
    reference_cases,
    reference_trace,
)
from readers import wait_for_page

from rope_explained.embedding import LETTER_STEP, VOCAB, tokenize
from rope_explained.examples import (
    ALPHA_RANGE,
    BASE_RANGE,
    FACTOR,
    FACTOR_RANGE,
    HEATMAP_MAX_LETTERS,
    LAST_POSITION_MAX_LETTERS,
    LONG_MODE_DISTANCE,
    LONG_MODE_PROMPT,
    LONG_PROMPT,
    OPENING_PROMPT,
    ORIGINAL_MAX_POSITION,
    ORIGINAL_MAX_POSITION_RANGE,
    RANK1_FAILS_PROMPT,
)
from rope_explained.figures import get as get_figure
from rope_explained.figures import load_all as load_figures
from rope_explained.figures.playground import SCORE_GAP_CMAP, SCORE_GAP_FLOOR, score_gap
from rope_explained.figures.style import SEQUENTIAL
from rope_explained.heads import HEADS
from rope_explained.model import (
    CONFIG_MAX,
    Config,
    forward,
    predict_last,
    predict_next,
    rope_frequencies,
)
from rope_explained.model import MAX_LETTERS as MODEL_MAX_LETTERS
from rope_explained.rope import (
    LAYOUTS,
    SCALING_METHODS,
    YARN_ATTENTION_SLOPE,
    YARN_MIN_RAMP,
    scaled_frequencies,
)

ROOT = Path(__file__).resolve().parent.parent
JS_DIR = ROOT / "docs" / "javascripts" / "playground"
MODEL_JS = JS_DIR / "model.js"
UI_JS = JS_DIR / "ui.js"
PAGE_MD = ROOT / "docs" / "playground.md"
TOL = 1e-9
MATRICES = ("scores0", "A0", "scores1", "A1", "probs")

# Runs RopePlaygroundModel.forward; returns its arrays as base64 float64 bytes (exact, compact).
PULL = """(args) => {
  const r = RopePlaygroundModel.forward(args.text, args.config);
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


# The message of the error RopePlaygroundModel.forward(text, config) throws, or null.
CATCH = """([text, config]) => {
  try { RopePlaygroundModel.forward(text, config); return null; } catch (e) { return e.message; }
}"""


def js_forward(page, text: str, config: dict | None = None) -> dict:
    """``RopePlaygroundModel.forward(text, config)`` in the page, arrays as numpy ``(T, -1)``."""
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


# --- one source: the data file the build writes -------------------------------------------------


def hex_table(cmap) -> str:
    """A colour map's table as the page reads it: red, green, blue of each of its N entries,
    two hex digits each."""
    return "".join(f"{r:02x}{g:02x}{b:02x}" for r, g, b, _ in cmap(np.arange(cmap.N), bytes=True))


def expected_data() -> dict:
    """What data.js must hold of the package's values, read straight from the package."""
    return {
        "DEFAULTS": {f.name: f.default for f in dataclasses.fields(Config)},
        "CONFIG_MAX": CONFIG_MAX,
        "MODEL_MAX_LETTERS": MODEL_MAX_LETTERS,
        "HEATMAP_MAX_LETTERS": HEATMAP_MAX_LETTERS,
        "ALPHA_RANGE": list(ALPHA_RANGE),
        "BASE_RANGE": list(BASE_RANGE),
        "VOCAB": list(VOCAB),
        "LETTER_STEP": LETTER_STEP,
        "HEADS": list(HEADS),
        "OPENING_PROMPT": OPENING_PROMPT,
        "RANK1_FAILS_PROMPT": RANK1_FAILS_PROMPT,
        "LONG_PROMPT": LONG_PROMPT,
        "SCORE_GAP_FLOOR": SCORE_GAP_FLOOR,
        "COLOUR_MAPS": {"sequential": SEQUENTIAL, "score_gap": SCORE_GAP_CMAP},
        "COLOUR_TABLES": {
            name: hex_table(matplotlib.colormaps[name]) for name in {SEQUENTIAL, SCORE_GAP_CMAP}
        },
        "LAYOUTS": list(LAYOUTS),
        "LAST_POSITION_MAX_LETTERS": LAST_POSITION_MAX_LETTERS,
        "LONG_MODE_PROMPT": LONG_MODE_PROMPT,
        "SCALING_METHODS": list(SCALING_METHODS),
        "FACTOR": FACTOR,
        "FACTOR_RANGE": list(FACTOR_RANGE),
        "ORIGINAL_MAX_POSITION": ORIGINAL_MAX_POSITION,
        "ORIGINAL_MAX_POSITION_RANGE": list(ORIGINAL_MAX_POSITION_RANGE),
        "YARN": {
            "beta_fast": 32.0,
            "beta_slow": 1.0,
            "attention_slope": YARN_ATTENTION_SLOPE,
            "min_ramp": YARN_MIN_RAMP,
        },
        "LLAMA3": {"low_freq_factor": 1.0, "high_freq_factor": 4.0},
    }


def test_scaling_defaults_are_the_functions():
    """data.js's YaRN and Llama 3.1 settings are what scaled_frequencies does by default: the
    frequencies with them passed explicitly equal those without."""
    data = hook.playground_data()
    for method, key in (("yarn", "YARN"), ("llama3", "LLAMA3")):
        kw = {"method": method, "factor": 4.0, "original_max_position": 1024}
        plain = scaled_frequencies(64, **kw)
        arguments = {k: v for k, v in data[key].items() if k not in ("attention_slope", "min_ramp")}
        explicit = scaled_frequencies(64, **kw, **arguments)
        np.testing.assert_array_equal(plain[0], explicit[0])
        changed = {k: v * 2 for k, v in arguments.items()}
        assert not np.array_equal(scaled_frequencies(64, **kw, **changed)[0], plain[0])


def test_uses_original_names_the_methods_that_read_the_context():
    """The page greys out L for exactly the methods whose frequencies never depend on it."""
    uses = set(hook.playground_data()["USES_ORIGINAL"])
    for method in SCALING_METHODS:
        seen = set()
        for L in (16, 64, 1024, 4096):
            for T in (8, 5000):
                cfg = Config(scaling=method, factor=4.0, original_max_position=L)
                seen.add(tuple(rope_frequencies(cfg, T)[0]))
        assert (len(seen) > 1) == (method in uses), method


def test_long_mode_prompt_is_an_induction_prompt():
    """The 4,096-letter prompt: its last letter occurred exactly once before, LONG_MODE_DISTANCE
    letters back, and fills the longest text of the last-position view."""
    t = LONG_MODE_PROMPT
    assert len(t) == LAST_POSITION_MAX_LETTERS and t.count(t[-1]) == 2
    assert len(t) - 1 - t.index(t[-1]) == LONG_MODE_DISTANCE


# The page's own words for the heads and the scalings, and which head is the rank-1 one; which
# scalings read L (tested above); the trained weights' files and the band ablations
# (tests/test_playground_trained.py).
PAGE_ONLY_KEYS = {"HEAD_LABELS", "RANK1_HEAD", "SCALING_LABELS", "USES_ORIGINAL", "TRAINED"}


def code_of(src: str) -> str:
    """JavaScript without its comments."""
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"(?m)(^|(?<=[\s;,{}()]))//.*$", " ", src)


def restated(src: str) -> list[str]:
    """The package's values that a JavaScript source spells out itself (comments aside)."""
    code = code_of(src)
    found = [p for p in (OPENING_PROMPT, RANK1_FAILS_PROMPT, "".join(VOCAB)) if p in code]
    found += sorted(
        {LONG_PROMPT[i : i + 12] for i in range(len(LONG_PROMPT) - 11)}
        & {code[i : i + 12] for i in range(len(code) - 11)}
    )[:1]
    # the defaults, the input limit and the slider ends, as literals (10000, 1e4, 1000, ...)
    found += re.findall(r"(?<![\w.])(?:10000|1e4|1000|1e3|1e6|1000000|256|0\.1)(?![\w.])", code)
    found += re.findall(r"(?:min|max|value)\s*:\s*\"-?\d", code)  # slider ranges as strings
    heads = "|".join(map(re.escape, HEADS))
    found += re.findall(rf"[\"'](?:{heads})[\"']", code)  # head names
    found += re.findall(r"Math\.PI\s*/\s*13|a(?:\\u2013|\u2013|-)z", code)  # letter step, "a-z"
    # Config's limits, YaRN's constants, a colour table pasted in (hex of 100 colours or more)
    found += re.findall(r"(?<![\w.])(?:1e9|1e12|1000000000|0\.001|512|2048|8192)(?![\w.])", code)
    found += re.findall(r"Math\.log\(\w+\)\s*/\s*10\b", code)
    found += [m[:12] + "..." for m in re.findall(r"[0-9a-f]{600,}", code)]
    return found


def test_restated_finds_hand_copies():
    """The check below catches the hand copies the scripts used to hold."""
    old = (
        'var OPENING = "inductionheadsinductionhe"; // the opening prompt\n'
        "var DEFAULTS = {d: 64, base: 10000, beta: 1000}; var HEATMAP_MAX_LETTERS = 256;\n"
        f'var LONG = ("{LONG_PROMPT[:100]}" +\n "{LONG_PROMPT[100:]}");\n'
        'el("input", {type: "range", min: "-1", max: "3"}); var h = "rank1";\n'
        'var LETTER_STEP = Math.PI / 13; label("letters a\\u2013z");\n'
        "if (L > 1e9) fail(); var af = Math.log(s) / 10 + 1; high += 0.001;\n"
        f'var LUT = "{hex_table(matplotlib.colormaps["viridis"])}";'
    )
    found = restated(old)
    assert OPENING_PROMPT in found and "10000" in found and "1000" in found and "256" in found
    assert any(f in LONG_PROMPT for f in found if len(f) == 12)
    assert 'min: "-' in "".join(found) and '"rank1"' in found and "Math.PI / 13" in found
    assert "a\\u2013z" in found and "1e9" in found and "0.001" in found
    assert "Math.log(s) / 10" in found and "440154440255..." in found
    assert restated("// var OPENING = 'inductionheadsinductionhe', base 10000") == []


@pytest.mark.parametrize("path", [MODEL_JS, UI_JS], ids=lambda p: p.name)
def test_scripts_restate_no_package_value(path):
    """model.js and ui.js read the prompts, defaults, limits and ranges from data.js only."""
    assert restated(path.read_text(encoding="utf-8")) == []


def test_data_file_holds_the_package_values():
    """The hook's data is the package's, the head labels name exactly the package's heads."""
    data = hook.playground_data()
    assert set(data) == set(expected_data()) | PAGE_ONLY_KEYS
    assert {k: data[k] for k in expected_data()} == expected_data()
    assert list(data["HEAD_LABELS"]) == list(HEADS) and data["RANK1_HEAD"] in HEADS
    assert list(data["SCALING_LABELS"]) == list(SCALING_METHODS)
    assert data["DEFAULTS"] == dataclasses.asdict(Config())
    assert json.loads(json.dumps(data)) == data  # JSON holds it exactly (floats round-trip)


def test_data_js_defines_one_frozen_global(js_page):
    """data.js, run in Chromium, gives the same values, frozen all the way down."""
    got = js_page.evaluate("() => RopePlaygroundData")
    assert got == hook.playground_data()
    frozen = js_page.evaluate(
        """() => { "use strict";
                   const d = RopePlaygroundData;
                   const all = [d, d.DEFAULTS, d.VOCAB, d.HEADS, d.HEAD_LABELS, d.ALPHA_RANGE,
                                d.BASE_RANGE].every(Object.isFrozen);
                   let threw = false;
                   try { d.DEFAULTS.alpha = 1; } catch (e) { threw = e instanceof TypeError; }
                   return [all, threw, d.DEFAULTS.alpha]; }"""
    )
    assert frozen == [True, True, Config().alpha]


def test_page_statements_follow_from_the_data():
    """What docs/playground.md says about the prompts and the panels, computed from the package."""
    text = " ".join(PAGE_MD.read_text(encoding="utf-8").split())
    m = re.search(
        r"Press \*Load (\d+) letters\* \(the last letter, `(\w)`, appeared once before, "
        r"followed by `(\w)`\)",
        text,
    )
    assert m, "the paragraph about the 256 letters changed: update this test"
    n, last, after = int(m.group(1)), m.group(2), m.group(3)
    assert n == len(LONG_PROMPT) == HEATMAP_MAX_LETTERS
    assert last == LONG_PROMPT[-1] and LONG_PROMPT[:-1].count(last) == 1
    assert after == LONG_PROMPT[LONG_PROMPT.index(last) + 1]
    m = re.search(r"After `(\w+)` anyone would say `(\w)`", text)
    assert m and m.group(1) == RANK1_FAILS_PROMPT and m.group(2) == predict_next(m.group(1))
    m = re.search(r"The opening prompt ends in `(\w+)`", text)
    assert m and OPENING_PROMPT.endswith(m.group(1))
    # panel 1: "at most \(\alpha d/2 = 320\) with the defaults", "down to \(-40\)"
    m = re.search(r"at most \\\(\\alpha d/2 = (\d+)\\\) with the defaults", text)
    cfg = Config()
    assert m and int(m.group(1)) == cfg.alpha * cfg.d / 2
    # The largest score is a sum of d/2 products of cosines: equal to alpha d/2 up to the round-off
    # of that sum (a few ulps of 320; the BLAS kernel decides which), not exactly.
    np.testing.assert_allclose(
        forward(OPENING_PROMPT).scores0.max(), cfg.alpha * cfg.d / 2, rtol=1e-12, atol=0
    )
    m = re.search(r"`cividis` down to \\\((-\d+)\\\)", text)
    assert m and float(m.group(1)) == SCORE_GAP_FLOOR


def test_score_gap_is_each_row_minus_its_best_visible_score():
    tr = forward("abcab", alpha=0.3)
    gap = score_gap(tr)
    for m in range(len(tr.tokens)):
        best = max(tr.scores0[m, : m + 1])
        np.testing.assert_allclose(gap[m], tr.scores0[m] - best, rtol=0, atol=1e-12)
        assert gap[m, : m + 1].max() == 0.0


def test_opening_figure_shows_the_live_panels_quantity():
    """The build-time figure's score panel: each row minus its best, cividis from the floor."""
    import matplotlib.pyplot as plt

    load_figures()
    spec = get_figure("playground-opening")
    fig = spec.draw()
    try:
        img = fig.axes[0].images[-1]
        assert img.get_cmap().name == "cividis" and img.get_clim() == (SCORE_GAP_FLOOR, 0.0)
        tr = forward(OPENING_PROMPT)
        shown = np.ma.filled(np.ma.asarray(img.get_array(), dtype=float), np.nan)
        np.testing.assert_allclose(shown[tr.mask], score_gap(tr)[tr.mask], rtol=0, atol=1e-9)
        assert np.isnan(shown[~tr.mask]).all()
    finally:
        plt.close(fig)
    # "the diagonal and the key two back trail by about 10.8"
    caption = " ".join(spec.caption.split())
    stated_gap = float(re.search(r"key two back trail by about ([\d.]+)", caption).group(1))
    gap = score_gap(tr)
    T = len(tr.tokens)
    for m in range(2, T):
        assert round(-gap[m, m], 1) == round(-gap[m, m - 2], 1) == stated_gap
        assert gap[m, m - 1] == 0.0 and (m < 3 or gap[m, : m - 2].max() < -stated_gap)
    assert f"({SCORE_GAP_FLOOR:g} and below)" in spec.alt


# --- characters outside the vocabulary ----------------------------------------------------------

# (text, position of the odd character, its code point, whether its glyph is shown)
ODD_TEXTS = [
    ("abc\u202edef", 3, "U+202E", False),  # RIGHT-TO-LEFT OVERRIDE (format)
    ("ab\u0301c", 2, "U+0301", False),  # COMBINING ACUTE ACCENT
    ("a\u200bb", 1, "U+200B", False),  # ZERO WIDTH SPACE (format)
    ("abc\U0001f600", 3, "U+1F600", True),  # GRINNING FACE
]
ODD_IDS = ["rtl-override", "combining-mark", "zero-width-space", "emoji"]
ISOLATE = "\u2068{}\u2069"  # FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE
BIDI_CONTROLS = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def assert_names_odd_character(msg: str, text: str, pos: int, code: str, glyph: bool):
    """msg names the character by code point at pos; its glyph, if any, only inside isolates."""
    ch = text[pos]
    assert re.search(rf"[Cc]haracter {re.escape(code)}(?![0-9A-F])", msg), msg
    assert f"at position {pos}" in msg, msg
    if glyph:
        assert f"{code} ({ISOLATE.format(ch)})" in msg, msg
        assert msg.count(ch) == 1
    else:
        assert ch not in msg, msg
    # no bidi control other than the one isolate pair around the glyph
    assert set(msg) & BIDI_CONTROLS <= ({"\u2068", "\u2069"} if glyph else set()), msg
    assert msg.count("\u2068") == msg.count("\u2069") == (1 if glyph else 0)


@pytest.mark.parametrize(("text", "pos", "code", "glyph"), ODD_TEXTS, ids=ODD_IDS)
def test_tokenize_names_odd_characters_by_code_point(text, pos, code, glyph):
    assert unicodedata.category(text[pos])[0] in ("S" if glyph else "CM")
    with pytest.raises(ValueError) as err:
        tokenize(text)
    msg = str(err.value)
    assert msg.startswith("text") and "a-z" in msg
    assert_names_odd_character(msg, text, pos, code, glyph)


def test_tokenize_quotes_a_short_excerpt():
    text = "a" * 5000 + "1" + "b" * 5000
    with pytest.raises(ValueError, match=r"U\+0031 \(\u20681\u2069\) at position 5000") as err:
        tokenize(text)
    assert len(str(err.value)) < 200 and "text[4992:5009] = 'aaaaaaaa1bbbbbbbb'" in str(err.value)
    with pytest.raises(ValueError, match="fold_case=False"):
        tokenize("Ab", fold_case=False)


@pytest.mark.parametrize(("text", "pos", "code", "glyph"), ODD_TEXTS, ids=ODD_IDS)
def test_js_names_odd_characters_by_code_point(js_page, text, pos, code, glyph):
    msg = js_page.evaluate(CATCH, [text, {}])
    assert msg.startswith("text") and "a-z" in msg
    assert_names_odd_character(msg, text, pos, code, glyph)
    check = js_page.evaluate("(t) => RopePlaygroundModel.checkText(t)", text)
    assert check["ok"] is False and check["position"] == pos
    assert_names_odd_character(check["message"], text, pos, code, glyph)


# --- the forward pass, in a blank page ----------------------------------------------------------


@pytest.fixture(scope="module")
def js_page(browser):
    """A blank page with the generated data.js and model.js loaded (no site needed)."""
    page = browser.new_page()
    page.set_content("<!doctype html><html><head></head><body></body></html>")
    page.add_script_tag(content=hook.data_js())
    page.add_script_tag(content=MODEL_JS.read_text(encoding="utf-8"))
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
    """Both heads, alpha and base at both ends of their sliders, lengths from 1 to the limit,
    every scaling at both ends of the factor slider and two factors between, L at both ends
    of its slider; the last-position cases reach the longest text under every scaling."""
    heads = {c["config"].get("head", "induction") for c in CASES}
    alphas = {c["config"].get("alpha") for c in CASES}
    bases = {c["config"].get("base") for c in CASES}
    lengths = {len(c["text"]) for c in CASES}
    assert heads == {"induction", "rank1"}
    assert set(ALPHA_RANGE) <= alphas and set(BASE_RANGE) <= bases
    assert min(lengths) == 1 and max(lengths) == HEATMAP_MAX_LETTERS
    assert set(FACTOR_RANGE) < set(FACTORS) and len(FACTORS) >= 4
    for method in SCALING_METHODS:
        mine = [c for c in CASES if c["config"].get("scaling") == method]
        assert {c["config"]["factor"] for c in mine} == set(FACTORS)
        assert set(ORIGINAL_MAX_POSITION_RANGE) <= {
            c["config"]["original_max_position"] for c in mine
        }
        assert any(len(c["text"]) + 1 > c["config"]["original_max_position"] for c in mine)
        longest = [c for c in LAST_CASES if c["config"].get("scaling") == method]
        assert max(len(c["text"]) for c in longest) == LAST_POSITION_MAX_LETTERS


LAST_CASES = last_position_cases()


@pytest.mark.parametrize("case", LAST_CASES, ids=[case_id(c) for c in LAST_CASES])
def test_js_predict_last_agrees_with_package(js_page, case):
    """The last-position view's numbers agree with rope_explained.predict_last to 1e-9: the
    probabilities, the last query's layer-1 attention, each query's weight on the key one step
    back, and each query's favourite key wherever the package's is not a near tie."""
    keys = ["probs", "attention1", "previous"]
    r = js_page.evaluate(
        PULL.replace("RopePlaygroundModel.forward", "RopePlaygroundModel.predictLast").replace(
            "const out = {", "const out = {peak: Array.from(r.peak), "
        ),
        {"text": case["text"], "config": case["config"], "keys": keys},
    )
    ref = predict_last(case["text"], **case["config"])
    assert r["tokens"] == ref.tokens and r["prediction"] == ref.prediction
    for k in keys:
        got = np.frombuffer(base64.b64decode(r[k]), dtype=np.float64)
        want = getattr(ref, k)
        assert got.shape == want.shape, k
        err = float(np.max(np.abs(got - want), initial=0.0))
        assert err <= TOL, f"{k}: max |js - package| = {err:.3g}"
    peak = np.asarray(r["peak"])
    differ = np.flatnonzero(peak != ref.peak)
    if differ.size:  # only where two keys tie to rounding in the package's own scores
        full = forward(case["text"], **case["config"]) if len(ref.tokens) <= 600 else None
        assert full is not None, f"peaks differ at {differ[:5]}"
        for m in differ:
            row = full.A0[m, : m + 1]
            assert abs(row[peak[m]] - row.max()) <= 1e-12, (m, peak[m], ref.peak[m])


@pytest.fixture(scope="module")
def ui_page(browser):
    """A blank page running the whole playground (data.js, model.js, ui.js) in one element, as
    benchmarks/bench_playground.py does (no site needed)."""
    page = browser.new_page(viewport={"width": 800, "height": 1200})
    page.set_content(
        '<!doctype html><html><body><div class="rope-playground" style="width:760px"></div>'
        "</body></html>"
    )
    for src in (hook.data_js(), MODEL_JS.read_text("utf-8"), UI_JS.read_text("utf-8")):
        page.add_script_tag(content=src)
    page.wait_for_function("() => RopePlayground.current && RopePlayground.current.renders")
    yield page
    page.close()


# Every value a slider of the page offers: from its minimum, one stepUp() at a time, each read
# back through the page's own readControls(); the slider is then put back.
SLIDER_VALUES = """([slider, key]) => {
  const pg = RopePlayground.current, s = pg[slider], was = s.value, out = [];
  s.value = s.min;
  for (;;) {
    out.push(pg.readControls()[key]);
    const before = s.value;
    s.stepUp();
    if (s.value === before) break;
  }
  s.value = was;
  return out;
}"""

# RopePlaygroundModel.forward on one text under many settings: [A0, A1, probs] as base64 each.
FORWARD_MANY = """([text, configs]) => configs.map((c) => {
  const r = RopePlaygroundModel.forward(text, c);
  return ['A0', 'A1', 'probs'].map((k) => {
    const u = new Uint8Array(r[k].buffer);
    let s = '';
    for (let i = 0; i < u.length; i += 0x8000) {
      s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000));
    }
    return btoa(s);
  });
})"""


def slider_values(page, slider: str, key: str) -> list:
    return page.evaluate(SLIDER_VALUES, [slider, key])


def assert_js_agrees_on(page, text: str, configs: list[dict]):
    got = page.evaluate(FORWARD_MANY, [text, configs])
    for config, arrays in zip(configs, got, strict=True):
        ref = forward(text, **config)
        for name, b64 in zip(("A0", "A1", "probs"), arrays, strict=True):
            js = np.frombuffer(base64.b64decode(b64), dtype=np.float64).reshape(len(ref.tokens), -1)
            err = np.max(np.abs(js - getattr(ref, name)))
            assert err <= TOL, (config, name, err)


def test_every_position_of_the_alpha_and_base_sliders(ui_page):
    """The whole range each slider offers, position by position, as the page reads it: from
    the lowest value to the highest, every one agrees with the package to 1e-9 (the opening
    prompt), and the ends of the 256-letter prompt's range too."""
    for slider, key, lo_hi in (("alpha", "alpha", ALPHA_RANGE), ("base", "base", BASE_RANGE)):
        values = slider_values(ui_page, slider, key)
        assert (values[0], values[-1]) == lo_hi and len(values) == len(set(values)) > 40
        assert_js_agrees_on(ui_page, OPENING_PROMPT, [{key: v} for v in values])
        assert_js_agrees_on(ui_page, LONG_PROMPT, [{key: v} for v in lo_hi])


def test_every_position_of_the_scaling_sliders(ui_page):
    """Every factor the factor slider offers, under every method (with a context shorter than
    the text, so dynamic NTK acts too), and every context the L slider offers under the
    methods that read it, agree with the package to 1e-9."""
    factors = slider_values(ui_page, "factor", "factor")
    assert (factors[0], factors[-1]) == FACTOR_RANGE and FACTOR in factors and len(factors) > 8
    for method in SCALING_METHODS:
        configs = [{"scaling": method, "factor": f, "original_max_position": 8} for f in factors]
        assert_js_agrees_on(ui_page, OPENING_PROMPT, configs)
    contexts = slider_values(ui_page, "original", "original_max_position")
    assert (contexts[0], contexts[-1]) == ORIGINAL_MAX_POSITION_RANGE
    assert ORIGINAL_MAX_POSITION in contexts and all(isinstance(L, int) for L in contexts)
    for method in hook.playground_data()["USES_ORIGINAL"]:
        configs = [
            {"scaling": method, "factor": FACTOR, "original_max_position": L} for L in contexts
        ]
        assert_js_agrees_on(ui_page, LONG_PROMPT, configs)


def test_export_reference_round_trip(tmp_path):
    """The exported JSON holds the package's values, long traces thinned to a few rows."""
    path = export_reference(tmp_path / "ref.json")
    data = json.loads(path.read_text())
    assert len(data["cases"]) == len(CASES)
    assert path.stat().st_size < 16_000_000
    long_case = next(c for c in data["cases"] if len(c["text"]) == HEATMAP_MAX_LETTERS)
    rows = long_case["trace"]["rows"]
    assert rows[-1] == HEATMAP_MAX_LETTERS and len(rows) < 15
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
    [
        {"base": 1.0},
        {"alpha": 0.0},
        {"head": "full"},
        {"d": 7},
        {"offset": -1},
        {"bogus": 1},
        {"scaling": "yarn"},
        {"scaling": "rope"},
        {"factor": 2.0},
        {"scaling": "linear", "factor": 0.5, "original_max_position": 64},
        {"scaling": "linear", "factor": float("nan"), "original_max_position": 64},
        {"scaling": "ntk", "factor": 2.0, "original_max_position": 0},
        {"scaling": "yarn", "factor": 2.0, "original_max_position": 64.5},
        {"scaling": "llama3", "factor": 2e6, "original_max_position": 64},
        {"scaling": "ntk", "factor": 2.0, "original_max_position": 64, "d": 2, "D": 7},
        {"layout": "diagonal"},
        # Config's upper limits
        {"d": 514, "D": 2048},
        {"D": 2049},
        {"base": 2e12},
        {"gamma": 1.5e6},
        {"offset": 8193},
        {"scaling": "yarn", "factor": 4.0, "original_max_position": 10**9 + 1},
        {"rotary_pct": 0.0},
        {"unrotated_fast": 33},
        {"unrotated_fast": 20, "unrotated_slow": 13},
        {"layer1_rotary": 1},
    ],
)
def test_js_refuses_settings_the_package_refuses(js_page, config):
    with pytest.raises(ValueError):
        forward("abc", **config)
    for fn in ("forward", "predictLast"):
        msg = js_page.evaluate(CATCH.replace("forward", fn), ["abc", config])
        # the setting refused, or D when d leaves too little room for it
        named = [*config, "D"] if "d" in config else list(config)
        assert msg is not None and any(re.search(rf"\b{w}\b", msg) for w in named), msg


@pytest.mark.parametrize(
    "config",
    [{"layout": "half", "weights_layout": "interleaved"}, {"weights_layout": "half"}],
)
def test_js_refuses_settings_it_does_not_model(js_page, config):
    """The one setting the package takes but the playground does not compute, weights run
    under the other pairing, is refused by name, not ignored."""
    forward("abc", **config)  # the package runs it
    for fn in ("forward", "predictLast"):
        msg = js_page.evaluate(CATCH.replace("forward", fn), ["abc", config])
        assert msg is not None and "weights_layout" in msg and "not modelled" in msg, msg


@pytest.mark.parametrize(
    "config",
    [
        {"unrotated_fast": 3},
        {"unrotated_slow": 1},
        {"layer1_rotary": False},
        {"rotary_pct": 0.5},
        {"unrotated_fast": 31, "unrotated_slow": 1},
    ],
    ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()),
)
def test_js_ablations_agree_with_package(js_page, config):
    """Each ablation changes the package's numbers (so running the default model would fail
    here), and the JavaScript's agree with the package's to TOL."""
    text = "abcdabcxyzabcabcd"
    ref, plain = forward(text, **config), forward(text)
    assert np.max(np.abs(ref.probs - plain.probs)) > 1e-3
    js = js_forward(js_page, text, config)
    for k in ("A0", "A1", "probs"):
        assert np.max(np.abs(js[k] - getattr(ref, k))) <= TOL, k


# Every setting of Config, each over its whole range (d up to 512: the JavaScript's cost does not
# grow with D, and a d of 512 costs a forward pass of 40 letters a few milliseconds), and texts of
# 1 to 40 letters.
JS_CONFIGS = configs(max_d=CONFIG_MAX["d"])


def modelled(config: dict) -> bool:
    """Whether the playground computes these settings (see
    test_js_refuses_settings_it_does_not_model)."""
    return config.get("weights_layout") in (None, config["layout"])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=JS_CONFIGS, text=texts())
def test_js_forward_agrees_with_package_over_every_setting(js_page, config, text):
    """RopePlaygroundModel.forward against forward, every matrix, over the settings Config
    accepts and the playground models: to TOL, or to the rounding bound of the package's own
    numbers where that is larger (:func:`rounding_bound`); scores relative to their size."""
    assume(modelled(config))
    js = js_forward(js_page, text, config)
    ref = forward(text, **config)
    assert js["tokens"] == ref.tokens
    bound = rounding_bound(ref)
    for k in MATRICES:
        want = getattr(ref, k)
        scale = max(1.0, float(np.max(np.abs(want)))) if k.startswith("scores") else 1.0
        err = float(np.max(np.abs(js[k] - want)))
        assert err <= max(TOL * scale, bound.get(k, 0.0)), f"{k}: max |js - package| = {err:.3g}"


def js_predict_last(page, text: str, config: dict) -> dict:
    keys = ["probs", "attention1", "previous"]
    r = page.evaluate(
        PULL.replace("RopePlaygroundModel.forward", "RopePlaygroundModel.predictLast").replace(
            "const out = {", "const out = {peak: Array.from(r.peak), "
        ),
        {"text": text, "config": config, "keys": keys},
    )
    for k in keys:
        r[k] = np.frombuffer(base64.b64decode(r[k]), dtype=np.float64)
    r["peak"] = np.asarray(r["peak"])
    return r


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=JS_CONFIGS, text=texts())
def test_js_predict_last_agrees_with_package_over_every_setting(js_page, config, text):
    """RopePlaygroundModel.predictLast against predict_last (itself checked against forward in
    tests/test_model.py), over the same space, to TOL; the favourite key wherever the
    package's pattern has no tie to rounding. Its FFT branch needs thousands of letters: the
    cases of playground_cases.last_position_cases reach it
    (test_js_predict_last_takes_both_paths)."""
    assume(modelled(config))
    js = js_predict_last(js_page, text, config)
    ref = predict_last(text, **config)
    full = forward(text, **config)
    bound = rounding_bound(full)
    for k, b in (("probs", "probs"), ("attention1", "A1"), ("previous", "A0")):
        err = float(np.max(np.abs(js[k] - getattr(ref, k)), initial=0.0))
        assert err <= max(TOL, bound[b]), f"{k}: max |js - package| = {err:.3g}"
    for m in np.flatnonzero(js["peak"] != ref.peak):
        row = full.A0[m, : m + 1]
        # a near-tie: the two favourites differ by no more than rounding moves a weight
        tie = max(1e-12, bound["A0"])
        assert abs(row[js["peak"][m]] - row.max()) <= tie, (m, js["peak"][m], ref.peak[m])


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), length=st.integers(1500, 2500), seed=st.integers(0, 2**32 - 1))
def test_js_predict_last_agrees_on_long_texts_over_every_setting(js_page, config, length, seed):
    """The same comparison on texts of 1,500 to 2,500 letters, where predictLast sums layer 0
    row by row, or (where many weights of a row count) by one FFT convolution (d up to 64 here:
    the package's forward pass, which the rounding bound needs, costs a second at d = 512)."""
    assume(modelled(config))
    rng = np.random.default_rng(seed)
    text = "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), size=length))
    js = js_predict_last(js_page, text, config)
    ref = predict_last(text, **config)
    full = forward(text, **config)
    bound = rounding_bound(full)
    # On long texts predictLast may form layer 0's rows by one FFT convolution, whose rounding
    # grows like log2(T) eps of the largest score (16: a margin); a weight moves by at most
    # twice its score's error.
    T = len(full.tokens)
    fft = 2 * 16 * math.log2(T) * np.finfo(np.float64).eps * float(np.abs(full.scores0).max())
    for k, b in (("probs", "probs"), ("attention1", "A1"), ("previous", "A0")):
        err = float(np.max(np.abs(js[k] - getattr(ref, k)), initial=0.0))
        assert err <= max(TOL, bound[b], fft), f"{k}: max |js - package| = {err:.3g}"


# Settings drawn from a mix of valid and invalid values: the JavaScript must refuse exactly what
# Config refuses (and the settings it does not model), naming one of the settings given.
_INVALID = st.sampled_from([None, "x", True, -1, 0, 0.5, 1e300, float("nan"), float("inf")])
_FIELDS = {
    "d": st.one_of(st.integers(-2, 600), _INVALID),
    "D": st.one_of(st.integers(0, 2100), _INVALID),
    "base": st.one_of(st.floats(0.5, 2e12), _INVALID),
    "alpha": st.one_of(st.floats(-1.0, 2e6), _INVALID),
    "beta": st.one_of(st.floats(-1.0, 2e6), _INVALID),
    "gamma": st.one_of(st.floats(-1.0, 2e6), _INVALID),
    "offset": st.one_of(st.integers(-2, 8200), _INVALID),
    "head": st.sampled_from([*HEADS, "full", None]),
    "bos": st.sampled_from([True, False, 1, None]),
    "layout": st.sampled_from([*LAYOUTS, "diagonal"]),
    "weights_layout": st.sampled_from([None, *LAYOUTS, "x"]),
    "rotary_pct": st.one_of(st.floats(-0.5, 1.5), _INVALID),
    "unrotated_fast": st.one_of(st.integers(-1, 40), _INVALID),
    "unrotated_slow": st.one_of(st.integers(-1, 40), _INVALID),
    "layer1_rotary": st.sampled_from([True, False, 0, None]),
    "scaling": st.sampled_from([None, *SCALING_METHODS, "rope"]),
    "factor": st.one_of(st.floats(0.0, 2e6), _INVALID),
    "original_max_position": st.one_of(st.integers(-1, 2 * 10**9), _INVALID),
}


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries({}, optional=_FIELDS))
def test_js_accepts_exactly_what_config_accepts(js_page, overrides):
    """Over settings drawn from every field's range and beyond it (wrong types, NaN, one past
    each limit), the JavaScript's makeConfig refuses a setting if and only if Config does or
    it is one the playground does not model, and its message names a setting it was given."""
    try:
        cfg = Config(**overrides)
        python_refuses = False
    except ValueError:
        python_refuses = True
    msg = js_page.evaluate(
        "(c) => { try { RopePlaygroundModel.makeConfig(c); return null; }"
        " catch (e) { return e.message; } }",
        overrides,
    )
    unmodelled = not python_refuses and cfg.weights_layout not in (None, cfg.layout)
    assert (msg is not None) == (python_refuses or unmodelled), (overrides, msg)
    if msg is not None:  # the setting refused, or D when d leaves too little room for it
        named = [*overrides, "D"] if "d" in overrides else list(overrides)
        assert any(re.search(rf"\b{re.escape(w)}\b", msg) for w in named), (overrides, msg)


def test_js_half_layout_with_its_weights_is_the_same_model(js_page):
    """layout="half" with weights reordered for it: the same scores, so the same numbers."""
    js = js_forward(js_page, "abcabd", {"layout": "half"})
    ref = forward("abcabd", layout="half")
    for k in ("A0", "A1", "probs"):
        assert np.max(np.abs(js[k] - getattr(ref, k))) <= TOL, k


def test_prompts_are_the_packages_and_do_what_the_page_says(js_page):
    """The page's prompts equal the package's, and the package agrees with what the page says."""
    consts = js_page.evaluate(
        "() => ['OPENING_PROMPT', 'RANK1_FAILS_PROMPT', 'LONG_PROMPT']"
        ".map((k) => RopePlaygroundData[k])"
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
    assert first < HEATMAP_MAX_LETTERS - 1 and LONG_PROMPT.count(LONG_PROMPT[-1]) == 2
    answer = LONG_PROMPT[first + 1]
    assert predict_next(LONG_PROMPT, base=10000.0) == answer
    assert predict_next(LONG_PROMPT, base=1000.0) != answer


def test_scripts_are_small_and_self_contained():
    """Well under 200 KB together, and they load nothing from anywhere; only ui.js has a DOM."""
    sources = {p.name: p.read_text(encoding="utf-8") for p in (MODEL_JS, UI_JS)}
    sources["data.js"] = hook.data_js()
    assert sum(len(src.encode()) for src in sources.values()) < 200_000
    for name, src in sources.items():
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", src), name
        assert "innerHTML" not in src and "insertAdjacentHTML" not in src, name
    for name in ("model.js", "data.js"):
        assert not re.search(
            r"\bdocument\.|createElement|getContext|addEventListener", code_of(sources[name])
        ), name
    assert sorted(p.name for p in JS_DIR.iterdir()) == ["model.js", "ui.js"]  # data.js: built


# --- the page, driven like a reader -------------------------------------------------------------

VIRIDIS = matplotlib.colormaps["viridis"]
CIVIDIS = matplotlib.colormaps["cividis"]
MASKED_GREY = (226, 226, 226)


def lut_index(x: float) -> int:
    """matplotlib's colour-table index for a value in [0, 1] (256 entries)."""
    return min(255, max(0, int(math.floor(x * 256))))


def cell_rgb(page, panel: str, m: int, n: int) -> tuple[int, int, int]:
    rgba = page.evaluate(f"() => RopePlayground.current.cellColor('{panel}', {m}, {n})")
    return tuple(rgba[:3])


def gap_x(gap: float) -> float:
    """Where a score's distance from its row's best sits on the panel's map: Normalize(floor, 0)."""
    return (gap - SCORE_GAP_FLOOR) / (0.0 - SCORE_GAP_FLOOR)


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
        self.page = page

        def on_dialog(d):
            self.dialogs.append(d.message)
            d.dismiss()

        self.listeners = {
            "pageerror": lambda e: self.all.append(f"pageerror: {e.message}\n{e.stack}"),
            "console": lambda m: (
                self.all.append(f"console: {m.text} @ {m.location.get('url')}")
                if m.type == "error"
                else None
            ),
            "dialog": on_dialog,
        }
        for event, listener in self.listeners.items():
            page.on(event, listener)

    def stop(self):
        """Stop recording (the page goes on to another test)."""
        for event, listener in self.listeners.items():
            self.page.remove_listener(event, listener)

    def settle(self):
        self.mark = len(self.all)

    @property
    def at_load(self) -> list[str]:
        return self.all[: self.mark]

    @property
    def errors(self) -> list[str]:
        return self.all[self.mark :]


@pytest.fixture(scope="module")
def pg_tab(browser):
    """One browser tab (light palette) for the tests that each open the playground afresh: a
    new tab for each would start a renderer process each time, and the playground keeps
    nothing in storage that a reload would not reset."""
    context = browser.new_context(viewport={"width": 1280, "height": 1100}, color_scheme="light")
    yield context.new_page()
    context.close()


@pytest.fixture()
def pg(pg_tab, site_url):
    """The playground freshly opened (in :func:`pg_tab`) and its console record."""
    page = pg_tab
    page.goto("about:blank")  # what the previous test left under way ends before the record
    console = Console(page)
    page.goto(site_url + "playground/")
    page.wait_for_function(
        "() => window.RopePlayground && RopePlayground.current"
        " && RopePlayground.current.renders > 0"
    )
    console.settle()
    assert not [e for e in console.at_load if "javascripts/playground/" in e], console.at_load
    yield page, console
    console.stop()


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
    # the layer-0 score panel: each row minus its best visible score, cividis from the floor to 0
    gap = score_gap(ref)
    live = page.evaluate("() => Array.from(RopePlayground.current.heatmaps.scores0.values)")
    live = np.asarray(live).reshape(T, T)
    np.testing.assert_allclose(live[ref.mask], gap[ref.mask], rtol=0, atol=1e-9)
    cells = [(T - 1, T - 2), (T - 1, T - 1), (T - 1, T - 3), (T - 1, T - 4), (T - 1, 0), (0, 0)]
    for m, n in cells:
        assert_cell_shows(page, "scores0", m, n, gap_x(gap[m, n]), cmap=CIVIDIS)
    # the peak, its nearest rivals and the far keys are three different colours
    assert len({cell_rgb(page, "scores0", T - 1, n) for n in (T - 2, T - 1, 0)}) == 3
    assert cell_rgb(page, "scores0", 3, 7) == MASKED_GREY
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
    # the scores panel: each row minus its best, cividis from the floor to 0 (now all near 0)
    gap = score_gap(ref)
    assert gap[m, : m + 1].min() > SCORE_GAP_FLOOR
    for n in (m - 1, m, m - 5, 0):
        assert_cell_shows(page, "scores0", m, n, gap_x(gap[m, n]), cmap=CIVIDIS)
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
        ("ab1ab", "Character U+0031 (\u20681\u2069) at position 2 (counting from 0) is not a"),
        ("ab ab", "Character U+0020 at position 2"),
        ("ab1a2b3", "nor are 2 other characters"),
        ("", "at least one letter"),
        ("a" * (LAST_POSITION_MAX_LETTERS + 1), f"{LAST_POSITION_MAX_LETTERS + 1:,} letters"),
    ],
    ids=["digit", "space", "three-digits", "empty", "too-long"],
)
def test_bad_input_gets_an_inline_message(pg, text, says):
    page, console = pg
    box = page.locator(".rope-playground input[type=text]")
    before = renders(page)
    box.fill(text)
    wait_render(page, before)
    msg = page.locator(".rope-playground .rp-msg")
    assert says in msg.text_content() and "rp-error" in msg.get_attribute("class")
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


def test_last_position_view(pg):
    """4,096 letters: the lines replace the heatmaps; the numbers are predict_last's; the
    context-extension menu and sliders drive them; the lines read out by keyboard."""
    from rope_explained.figures.playground import long_mode_answer, long_mode_results

    page, console = pg
    root = page.locator(".rope-playground")
    factor = page.get_by_label("Factor s")
    original = page.get_by_label("Original context L")
    assert factor.is_disabled() and original.is_disabled()  # no scaling: neither counts
    before = renders(page)
    page.get_by_role("button", name=f"Load {LAST_POSITION_MAX_LETTERS:,} letters").click()
    wait_render(page, before)
    assert root.get_attribute("data-view") == "last"
    assert page.get_by_label(re.compile("the last position only")).is_checked()
    for panel in ("scores0", "A0", "A1"):
        assert not page.locator(f"[data-panel={panel}]").is_visible()
    for panel in ("attention1", "previous", "probs"):
        assert page.locator(f"[data-panel={panel}]").is_visible()
    answer, key = long_mode_answer()
    results = long_mode_results()
    assert shown_prediction(page) == results[None].prediction != answer
    pull = """() => { const t = RopePlayground.current.trace;
                      return [Array.from(t.attention1), Array.from(t.previous),
                              Array.from(t.probs), RopePlayground.current.state]; }"""
    for method in (None, "linear", "yarn"):
        if method is not None:
            before = renders(page)
            page.get_by_label("Context extension").select_option(method)
            wait_render(page, before)
            assert factor.is_enabled()
            assert original.is_enabled() == (method in hook.playground_data()["USES_ORIGINAL"])
        a1, prev, probs, state = page.evaluate(pull)
        assert state["scaling"] == method and state["view"] == "last"
        ref = results[method]
        assert state["factor"] == (None if method is None else FACTOR)
        assert np.max(np.abs(np.asarray(a1) - ref.attention1)) <= TOL
        assert np.max(np.abs(np.asarray(prev) - ref.previous)) <= TOL
        assert np.max(np.abs(np.asarray(probs) - ref.probs)) <= TOL
        assert shown_prediction(page) == ref.prediction
    assert shown_prediction(page) == answer and "induction works" in root.inner_text()
    note = page.locator(".rope-playground [id$=-scaling-note]").inner_text()
    assert "queries and keys \u00d7" + f"{np.log(FACTOR) / 10 + 1:.3f}" in note
    # the layer-1 line by keyboard: focus starts at its peak, End goes to the last key
    line = page.locator("[data-panel=attention1] svg")
    line.focus()
    readout = page.locator("[data-panel=attention1] .rp-readout")
    top = int(np.argmax(results["yarn"].attention1))
    assert readout.inner_text().startswith(f"key n = {top} ")
    assert top == key  # YaRN reads the key to copy
    page.keyboard.press("End")
    last = len(results["yarn"].tokens) - 1
    assert readout.inner_text().startswith(f"key n = {last} ")
    assert "copy: n = " + str(key) in line.text_content()
    # back to the heatmaps with a short text (with 4,096 letters the view stays on the last)
    before = renders(page)
    page.locator(".rope-playground input[type=text]").fill("abcab")
    wait_render(page, before)
    before = renders(page)
    page.get_by_label(re.compile("all patterns, as heatmaps")).check()
    wait_render(page, before)
    assert root.get_attribute("data-view") == "full"
    assert page.locator("[data-panel=A1]").is_visible()
    assert console.errors == []


def test_long_text_switches_to_the_last_position_view(pg):
    page, console = pg
    text = LONG_MODE_PROMPT[: HEATMAP_MAX_LETTERS + 1]
    before = renders(page)
    page.locator(".rope-playground input[type=text]").fill(text)
    wait_render(page, before)
    assert page.locator(".rope-playground").get_attribute("data-view") == "last"
    msg = page.locator(".rope-playground .rp-msg")
    assert f"More than {HEATMAP_MAX_LETTERS} letters" in msg.inner_text()
    assert "rp-error" not in (msg.get_attribute("class") or "")
    assert shown_prediction(page) == predict_last(text).prediction
    assert console.errors == []


@pytest.mark.parametrize(("text", "pos", "code", "glyph"), ODD_TEXTS, ids=ODD_IDS)
def test_odd_characters_are_named_inline(pg, text, pos, code, glyph):
    """The inline message names a right-to-left override, a combining mark, a zero-width space
    or an emoji by its code point, the glyph (if shown) isolated from the text around it."""
    page, console = pg
    box = page.locator(".rope-playground input[type=text]")
    before = renders(page)
    box.fill(text)
    wait_render(page, before)
    assert box.input_value() == text
    msg = page.locator(".rope-playground .rp-msg")
    assert_names_odd_character(msg.text_content(), text, pos, code, glyph)
    assert "rp-error" in msg.get_attribute("class") and box.get_attribute("aria-invalid") == "true"
    assert shown_prediction(page) == predict_next(OPENING_PROMPT)
    assert console.errors == []


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
        msg = page.locator(".rope-playground .rp-msg")
        assert "U+003C (\u2068<\u2069) at position 0" in msg.text_content()
        assert msg.evaluate("(el) => el.children.length") == 0  # text only
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
    assert [e for e in console.errors if "javascripts/playground/" in e] == []


# --- the scripts load on the playground page only; instant navigation ---------------------------


def test_built_data_file_is_the_hooks(site_dir):
    """The site holds the generated data.js, model.js and ui.js, and no old playground.js."""
    assert (site_dir / hook.DATA_JS).read_text(encoding="utf-8") == hook.data_js()
    for src in hook.SCRIPTS[1:]:
        assert (site_dir / src).read_bytes() == (ROOT / "docs" / src).read_bytes()
    assert not (site_dir / "javascripts" / "playground.js").exists()


def test_scripts_load_on_the_playground_page_only(site_dir):
    """Only the playground page has the loader, in its article, pointing at the three scripts
    in order; no other page (the print page included) and not the search index names them,
    except the page that runs the same model on a pasted configuration, which loads data.js and
    model.js (not ui.js) through its own loader (tests/test_your_config.py)."""
    pages = sorted(site_dir.rglob("*.html"))
    playground = site_dir / "playground" / "index.html"
    assert playground in pages and site_dir / "print_page" / "index.html" in pages
    mention = re.compile(r"javascripts/playground|RopePlayground|playground\.js|data-rope-playgr")
    config_page = site_dir / "real-models" / "your-config" / "index.html"
    for path in pages:
        if path == config_page:
            found = set(re.findall(r"javascripts/playground/[\w.]+", path.read_text("utf-8")))
            assert found == {"javascripts/playground/data.js", "javascripts/playground/model.js"}
        elif path != playground:
            assert not mention.search(path.read_text(encoding="utf-8")), path
    assert not mention.search((site_dir / "search" / "search_index.json").read_text("utf-8"))
    html = playground.read_text(encoding="utf-8")
    loaders = re.findall(r"<script>\s*\(function \(urls\).*?</script>", html, flags=re.S)
    assert len(loaders) == 1 and len(mention.findall(html)) == len(mention.findall(loaders[0]))
    article = html[html.index("<article") : html.index("</article>")]
    assert loaders[0] in article  # inside Material's container: re-run on instant navigation
    urls = json.loads(re.search(r"\}\)\((\[.*?\])\);", loaders[0]).group(1))
    # relative to the page, so the site works under any prefix (mike's /<version>/ folders)
    page_url = "https://example.org/rope-explained/latest/playground/"
    resolved = [urlparse(urljoin(page_url, u)).path for u in urls]
    assert resolved == [f"/rope-explained/latest/{src}" for src in hook.SCRIPTS]
    assert all((playground.parent / u).resolve().is_file() for u in urls)


def started(page, starts: int):
    """Wait until the playground has started ``starts`` times and drawn in the page."""
    page.wait_for_function(
        f"() => window.RopePlayground && RopePlayground.starts === {starts}"
        " && RopePlayground.current && document.body.contains(RopePlayground.current.root)"
        " && RopePlayground.current.renders > 0"
    )


def playground_fetches(page) -> list[str]:
    """The paths of the playground's scripts the page has fetched so far."""
    names = page.evaluate("() => performance.getEntriesByType('resource').map((e) => e.name)")
    return sorted(urlparse(n).path for n in names if "/javascripts/playground/" in n)


def test_instant_navigation_starts_leaves_and_restarts(browser, site_url):
    """(a) Arriving by instant navigation starts the playground; (b) leaving stops it and coming
    back (browser back, or a link) restarts it, with one set of controls and each script
    fetched and run once; (c) the page it came from loaded none of its scripts."""
    context = browser.new_context(viewport={"width": 1280, "height": 1000}, color_scheme="light")
    page = context.new_page()
    console = Console(page)
    page.goto(site_url)
    page.wait_for_function("() => typeof document$ !== 'undefined'")
    assert page.evaluate("() => typeof window.RopePlayground") == "undefined"
    assert playground_fetches(page) == []
    page.evaluate("() => { window.sameDocument = true; }")  # survives instant navigation only
    link = f'nav.md-nav--primary a[href="{site_url}playground/"]'
    # (a) from the home page, by the navigation's link
    page.locator(link).first.click()
    wait_for_page(page, f"{site_url}playground/")
    started(page, 1)
    assert page.evaluate("() => window.sameDocument") is True, "not an instant navigation"
    assert shown_prediction(page) == predict_next(OPENING_PROMPT)
    assert playground_fetches(page) == sorted(f"/{src}" for src in hook.SCRIPTS)
    first = page.evaluate_handle("() => RopePlayground.current")
    # (b) away, then back with the browser's back button, then away and back by the link
    for back in ("history", "link"):
        page.locator(f'article a[href="{site_url}forward-pass/"]').first.click()
        wait_for_page(page, f"{site_url}forward-pass/")
        page.wait_for_function("() => RopePlayground.current === null")
        assert page.locator(".rope-playground").count() == 0
        if back == "history":
            page.go_back()
        else:
            page.locator(link).first.click()
        wait_for_page(page, f"{site_url}playground/")
        started(page, 2 if back == "history" else 3)
    assert page.evaluate("() => window.sameDocument") is True, "not an instant navigation"
    assert page.evaluate("(o) => RopePlayground.current !== o", first)
    assert page.locator(".rope-playground").count() == 1
    assert page.locator(".rope-playground .rp-controls").count() == 1
    assert page.locator("#rope-playground-style").count() == 1
    assert page.locator("script[data-rope-playground]").count() == len(hook.SCRIPTS)
    assert playground_fetches(page) == sorted(f"/{src}" for src in hook.SCRIPTS)  # once each
    box = page.locator(".rope-playground input[type=text]")
    before = renders(page)
    box.fill("abcab")
    wait_render(page, before)
    assert shown_prediction(page) == predict_next("abcab")
    assert [e for e in console.all if "javascripts/playground/" in e] == []
    context.close()


def test_js_predict_last_takes_both_paths(js_page):
    """The last-position cases run the layer-0 sums both ways: row by row (few weights count)
    and by FFT (many count), so the parity test above checks both."""
    spy = """([text, config]) => {
      const before = RopePlaygroundModel.fftCalls();
      RopePlaygroundModel.predictLast(text, config);
      return RopePlaygroundModel.fftCalls() - before;
    }"""
    used = [js_page.evaluate(spy, [c["text"], c["config"]]) for c in LAST_CASES]
    assert 0 in used and 1 in used and set(used) <= {0, 1}


# --- what the page says about context extension and the last-position view --------------------


def test_stretch_the_context_claims():
    """'Stretch the context': every number is a property of the package's own answers."""
    from rope_explained.embedding import letter_angle
    from rope_explained.figures import get_value
    from rope_explained.figures.playground import long_mode_answer, long_mode_results
    from rope_explained.rope import frequencies

    def value(value_id: str) -> str:
        return get_value(value_id).compute()

    text = " ".join(PAGE_MD.read_text(encoding="utf-8").split())
    assert (
        "keeping \\(s = 4\\) and \\(L = 1024\\)" in text and "divides every frequency by 4" in text
    )
    assert (FACTOR, ORIGINAL_MAX_POSITION) == (4.0, 1024)
    t = LONG_MODE_PROMPT
    answer, key = long_mode_answer()
    distance = len(t) - 1 - t.index(t[-1])
    m = re.search(
        r"Press \*Load 4,096 letters\*\. The last letter, `(\w)`, occurred once before, "
        r"\{\{ value\(\"playground-long-distance\"\) \}\} letters back, followed by `(\w)`",
        text,
    )
    assert m and m.group(1) == t[-1] and m.group(2) == answer and t.count(t[-1]) == 2
    assert value("playground-long-distance") == f"{distance:,}" and key == t.index(t[-1]) + 2
    m = re.search(r"and the model predicts `(\w)`\. Now pick", text)
    assert m and m.group(1) == long_mode_results()[None].prediction
    # "beyond the 906 positions over which the slowest pair turns through half a letter step"
    theta = frequencies(64)
    step = abs(letter_angle("b") - letter_angle("a"))
    horizon = int(value("playground-half-step-horizon"))
    assert abs(horizon * theta[-1] - step / 2) < theta[-1] and distance > horizon
    results = long_mode_results()
    none = results[None]
    # without scaling: the key to copy does not stand out, nothing above the stated weight
    assert none.prediction != answer
    top = float(value("playground-long-unscaled-top"))  # "none gets more than": rounded up
    assert none.attention1.max() <= top < none.attention1.max() + 0.01
    assert none.attention1[key] < none.attention1.max()
    # linear: the layer-0 peak moves s steps back and the weight one step back collapses
    lin = results["linear"]
    T = len(lin.tokens)
    assert int(value("playground-long-linear-peak")) == FACTOR == T - 1 - lin.peak[-1]
    assert np.all(np.arange(T)[100:] - lin.peak[100:] == FACTOR)
    assert f"{lin.previous[-1]:.1g}" == value("playground-long-linear-previous")
    assert np.median(lin.previous) < 0.01 and lin.prediction != answer
    # ... and flattens: the weights around the peak, from the distance kernel, are the
    # package's (its weight one step back is predict_last's), less peaked than unscaled
    from rope_explained.extension import layer0_kernel
    from rope_explained.figures.playground import long_mode_linear_row

    row = long_mode_linear_row()
    k = int(np.argmax(row))
    assert k == FACTOR and abs(row[1] - lin.previous[-1]) <= 1e-12
    assert value("playground-long-linear-peak-weight") == f"{row[k]:.2f}"
    assert value("playground-long-linear-neighbour-weight") == f"{row[k - 1]:.2f}"
    assert abs(row[k - 1] - row[k + 1]) <= 1e-12 and row[k] < 0.5  # "only": under half
    plain = layer0_kernel(T)
    f = layer0_kernel(T, scaling="linear", factor=FACTOR, original_max_position=1024)
    assert f[k] - f[k - 1] < (plain[1] - plain[0]) / FACTOR  # "each pair changes four times less"
    assert none.previous[-1] > 0.999
    # the others copy the right letter, with at least the stated weight on the key
    right = [m for m in SCALING_METHODS if results[m].prediction == answer]
    assert right == [m for m in SCALING_METHODS if m != "linear"]
    names = [hook.SCALING_LABELS[m] for m in right]
    assert f"**{', '.join(names[:-1])} and {names[-1]}** all copy `{answer}`" in text
    least = min(results[m].attention1[key] for m in right)
    stated = float(value("playground-long-right-least"))  # "at least": rounded down
    assert stated <= least < stated + 0.01
    for m in right:
        assert np.all(np.arange(1, T) - results[m].peak[1:] == 1)  # still one step back
    # "each leaves the fastest pair as built and slows the slowest pair" so that it turns by
    # less than half a letter step over the distance; linear changes all 32 pairs
    for m in SCALING_METHODS:
        cfg = Config(scaling=m, factor=FACTOR, original_max_position=ORIGINAL_MAX_POSITION)
        th = rope_frequencies(cfg, T)[0]
        if m == "linear":
            assert np.all(th != theta) and len(th) == 32
        else:
            assert th[0] == theta[0] and th[-1] < theta[-1] and distance * th[-1] < step / 2
    # "Dynamic NTK changes nothing while the text has at most L positions"
    for L in ORIGINAL_MAX_POSITION_RANGE:
        cfg = Config(scaling="dynamic-ntk", factor=FACTOR, original_max_position=L)
        np.testing.assert_array_equal(rope_frequencies(cfg, L)[0], theta)
        assert not np.array_equal(rope_frequencies(cfg, L + 1)[0], theta)


def test_controls_paragraphs_follow_from_the_data():
    """The ranges and names the page's list of controls gives are the package's."""
    text = " ".join(PAGE_MD.read_text(encoding="utf-8").split())
    assert (
        f"at most {LAST_POSITION_MAX_LETTERS:,} letters `a`–`z` (at most {HEATMAP_MAX_LETTERS} for"
        in text
    )
    lo, hi = FACTOR_RANGE
    assert f"(1 to {hi:g}, in quarter powers of two)" in text and lo == 1
    lo, hi = ORIGINAL_MAX_POSITION_RANGE
    assert f"({lo} to {hi:,}, in powers of two)" in text
    uses = hook.playground_data()["USES_ORIGINAL"]
    names = {"dynamic-ntk": "dynamic NTK", "yarn": "YaRN", "llama3": "Llama 3.1"}
    assert set(uses) == set(names)
    assert "Only dynamic NTK, YaRN and Llama 3.1 read \\(L\\)" in text
    # "YaRN also multiplies queries and keys by 0.1 ln s + 1"
    for s in (1.0, 2.5, 16.0):
        cfg = Config(scaling="yarn", factor=s, original_max_position=64)
        assert rope_frequencies(cfg, 8)[1] == pytest.approx(0.1 * math.log(s) + 1, abs=1e-15)


# Two builds in one process, as `mkdocs serve` rebuilds: data.js of each, the package edited
# in between (in a copy of the repository's package and hooks).
TWO_BUILDS = """
import sys
from pathlib import Path
from mkdocs.commands.build import build
from mkdocs.config import load_config

root = Path(sys.argv[1])
out = []
for edit in (True, False):
    build(load_config(config_file=str(root / "mkdocs.yml")))
    out.append((root / "site" / "javascripts/playground/data.js").read_text(encoding="utf-8"))
    if edit:
        src = root / "rope_explained" / "examples.py"
        text = src.read_text(encoding="utf-8")
        src.write_text(text.replace("ALPHA_RANGE = (0.1, 1000.0)", "ALPHA_RANGE = (0.2, 500.0)"))
print("\\0".join(out))
"""


def test_data_js_follows_an_edit_of_the_package_between_builds(tmp_path):
    """`mkdocs serve` keeps one process, and the hook module, for all its rebuilds: after an
    edit of rope_explained/examples.py the next build's data.js holds the new value."""
    import os
    import shutil
    import subprocess
    import sys

    shutil.copytree(ROOT / "rope_explained", tmp_path / "rope_explained")
    shutil.copytree(ROOT / "docs" / "hooks", tmp_path / "docs" / "hooks")
    assert "ALPHA_RANGE = (0.1, 1000.0)" in (tmp_path / "rope_explained/examples.py").read_text()
    (tmp_path / "docs" / "pages").mkdir()
    (tmp_path / "docs" / "pages" / "index.md").write_text("# A page\n", encoding="utf-8")
    hooks = tmp_path / "docs" / "hooks"
    (tmp_path / "mkdocs.yml").write_text(
        f"site_name: test\ndocs_dir: {tmp_path / 'docs' / 'pages'}\n"
        f"site_dir: {tmp_path / 'site'}\ntheme: mkdocs\n"
        f"hooks: [{hooks / 'numbering.py'}, {hooks / 'playground.py'}]\n",
        encoding="utf-8",
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path), NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-c", TWO_BUILDS, str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    first, second = proc.stdout.rstrip("\n").split("\0")
    ranges = [
        json.loads(re.search(r'"ALPHA_RANGE": (\[[^\]]*\])', js).group(1)) for js in (first, second)
    ]
    assert ranges == [[0.1, 1000.0], [0.2, 500.0]]


def test_a_letter_outside_the_text_is_the_weighted_mean_of_the_copied_letters():
    """The page's example: after `thecatsatonthemat` the last query spreads its weight almost
    evenly over the four keys after an earlier `t` (holding h, s, o, h), and the readout names
    the letter nearest the direction of their weighted mean, `l`, which is not in the text."""
    from rope_explained.embedding import letter_angle

    text = "thecatsatonthemat"
    assert re.search(r"after `thecatsatonthemat` .* the model predicts `l`", page_text())
    tr = forward(text)
    assert tr.prediction == "l" and "l" not in text
    a = tr.A1[-1]
    after_t = [n for n in range(1, len(tr.tokens) - 1) if tr.tokens[n - 1] == "t"]
    assert sorted(np.argsort(a)[-4:].tolist()) == after_t
    assert [tr.tokens[n] for n in after_t] == ["h", "s", "o", "h"]
    assert all(0.2 < a[n] < 0.3 for n in after_t) and a[after_t].sum() > 0.99
    angles = np.array([letter_angle(t) if t in VOCAB else 0.0 for t in tr.tokens])
    letters = np.array([t in VOCAB for t in tr.tokens])
    mean = np.sum((a * letters)[:, None] * np.stack([np.cos(angles), np.sin(angles)], 1), axis=0)
    nearest = VOCAB[
        int(np.argmax([np.cos(letter_angle(v) - np.arctan2(*mean[::-1])) for v in VOCAB]))
    ]
    assert nearest == tr.prediction


def page_text() -> str:
    return " ".join(PAGE_MD.read_text(encoding="utf-8").split())


def test_prediction_sentence_for_one_letter_and_a_letter_outside_the_text(ui_page):
    """One letter: nothing to copy, "1 letter", no "undefined"; a prediction outside the text
    says where it comes from, naming the keys' letters and weights."""
    pg = "RopePlayground.current"
    ui_page.evaluate(f"() => {{ {pg}.input.value = 'a'; {pg}.update(); }}")
    said = ui_page.evaluate(f"() => [{pg}.prediction.textContent, {pg}.timing.textContent]")
    assert "undefined" not in said[0] and "nothing to copy" in said[0]
    assert " 1 letter in " in said[1]
    ui_page.evaluate(f"() => {{ {pg}.input.value = 'thecatsatonthemat'; {pg}.update(); }}")
    said = ui_page.evaluate(f"() => {pg}.prediction.textContent")
    assert "predicts l" in said and "\u201cl\u201d is not in the text" in said
    for letter in ("h", "s", "o"):
        assert re.search(rf"\b{letter} 0\.2\d", said), said
    ui_page.evaluate(f"() => {{ {pg}.input.value = 'abcab'; {pg}.update(); }}")
    assert "not in the text" not in ui_page.evaluate(f"() => {pg}.prediction.textContent")


def test_load_buttons_and_reset_apply_the_recipes_settings(ui_page):
    """Each Load button, and Reset, puts every control at the settings the recipes assume
    (Config's defaults, no scaling, s and L at their starting values): the buttons' head and
    view, the text kept by Reset."""
    pg = "RopePlayground.current"
    moved = f"""() => {{
      const p = {pg};
      p.alpha.value = p.alpha.min; p.base.value = p.base.min; p.scaling.value = 'linear';
      p.factor.value = p.factor.max; p.original.value = p.original.min;
      p.input.value = 'abcabd'; p.update();
    }}"""
    defaults = {
        "alpha": Config().alpha,
        "base": Config().base,
        "scaling": None,
        "factor": FACTOR,
        "original_max_position": ORIGINAL_MAX_POSITION,
    }
    for button, text, head, view in (
        ("openBtn", OPENING_PROMPT, Config().head, "full"),
        ("failBtn", RANK1_FAILS_PROMPT, hook.RANK1_HEAD, "full"),
        ("longBtn", LONG_PROMPT, Config().head, "full"),
        ("longestBtn", LONG_MODE_PROMPT, Config().head, "last"),
        ("resetBtn", "abcabd", Config().head, "full"),
    ):
        ui_page.evaluate(moved)
        assert ui_page.evaluate(f"() => {pg}.readControls().alpha") != defaults["alpha"]
        ui_page.evaluate(f"() => {pg}.{button}.click()")
        got = ui_page.evaluate(f"() => {pg}.readControls()")
        assert {k: got[k] for k in defaults} == defaults, button
        assert (got["text"], got["head"], got["view"]) == (text, head, view), button


def test_exercise_answers():
    """The playground's exercises: the weights and predictions recomputed from forward, and the
    horizon from the closed form pi / (26 theta_slowest)."""
    from pages import value

    from rope_explained.figures import playground as pg

    for alpha, level in zip(pg.EXERCISE_ALPHAS, ("high", "low"), strict=True):
        tr = forward(OPENING_PROMPT, alpha=alpha)
        T = len(tr.tokens)
        weight = min(tr.A0[m, m - 1] for m in range(1, T))
        assert value(f"playground-ex-previous-{level}") == f"{weight:.3f}"
        assert value(f"playground-ex-prediction-{level}") == tr.prediction
        if level == "high":  # "more than on any other key", at every query
            assert (np.argmax(tr.A0[1:], axis=1) == np.arange(T - 1)).all()
        else:  # "a blend": under a third on the previous letter
            assert weight < 1 / 3
    default = forward(OPENING_PROMPT).prediction
    assert value("playground-ex-prediction-default") == default
    assert (
        value("playground-ex-prediction-high") == default != value("playground-ex-prediction-low")
    )
    rank1 = forward(OPENING_PROMPT, head="rank1").prediction
    assert value("playground-ex-prediction-rank1") == rank1 != default
    d = Config().d
    horizon = math.pi / (26 * pg.EXERCISE_BASE ** (-(d - 2) / d))
    assert value("playground-ex-base-horizon") == f"{horizon:.0f}"
