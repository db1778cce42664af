"""The playground with the trained weights and pair ablation.

* the files the build writes: the trained weights, exactly as committed, one file per seed; the
  band ablations and their prompt, as the chapter "What training finds" measures them;
* ``RopePlaygroundModel.forwardWeights`` (the dense forward pass of any weights of the trained
  model's form) against :func:`rope_explained.trained.forward`, and the hand-built fast path
  (``forward``, ``predictLast``) with ``zero_pairs`` against the same function on
  :func:`rope_explained.trained.hand_built`, over texts, seeds, pairs zeroed and scalings
  (hypothesis), to 1e-9; what the JavaScript refuses, by name;
* the built page, opened once: the weights menu, the pair controls, the chapter's recipes and
  the address that loads them.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np
import playground as hook  # docs/hooks/playground.py, on sys.path through conftest.py
import pytest
from configs import rounding_bound, texts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rope_explained import trained
from rope_explained.examples import ALPHA_RANGE, BASE_RANGE, HEATMAP_MAX_LETTERS
from rope_explained.figures.trained import ABLATIONS
from rope_explained.heads import HEADS
from rope_explained.model import Config
from rope_explained.rope import SCALING_METHODS
from rope_explained.task import batch

ROOT = Path(__file__).resolve().parent.parent
MODEL_JS = ROOT / "docs" / "javascripts" / "playground" / "model.js"
CHAPTER = ROOT / "docs" / "trained" / "index.md"
PLAYGROUND_MD = ROOT / "docs" / "playground.md"
TOL = 1e-9
NAMES = [f"seed-{s}" for s in trained.SEEDS]
PAIRS = trained.load(trained.SEEDS[0]).pairs

# Runs a function of RopePlaygroundModel on [weights, text, options] or [text, config]; returns
# the arrays asked for as base64 float64 bytes (exact), or the message of what it threw.
RUN = """([fn, args, keys]) => {
  let r;
  try { r = RopePlaygroundModel[fn](...args); } catch (e) { return {error: e.message}; }
  const b64 = (a) => {
    const u = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    let s = '';
    for (let i = 0; i < u.length; i += 0x8000) {
      s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000));
    }
    return btoa(s);
  };
  const out = {T: r.T, tokens: r.tokens, prediction: r.prediction};
  for (const k of keys) out[k] = b64(r[k]);
  return out;
}"""
KEYS = ("scores0", "A0", "scores1", "A1", "probs")


def run_js(page, fn: str, args: list, keys=KEYS) -> dict:
    r = page.evaluate(RUN, [fn, args, list(keys)])
    if "error" in r:
        raise AssertionError(f"{fn} threw: {r['error']}")
    for k in keys:
        r[k] = np.frombuffer(base64.b64decode(r[k]), dtype=np.float64)
    return r


def js_error(page, fn: str, args: list) -> str | None:
    return page.evaluate(RUN, [fn, args, []]).get("error")


def payload_of(js: str) -> dict:
    """The JSON a generated weights file passes to its function."""
    return json.loads(js[js.index("})(") + 3 : js.rindex(");")])


def decode(array: dict) -> np.ndarray:
    (kind,) = set(array) - {"shape"}
    raw = base64.b64decode(array[kind])
    return np.frombuffer(raw, dtype="<" + kind).astype(np.float64).reshape(array["shape"])


def assert_agrees(js: dict, ref, keys=KEYS, bound: dict | None = None) -> None:
    """js (a run_js result) equals the package's trace to TOL, scores relative to their size,
    or to ``bound[k]`` where that is larger (:func:`configs.rounding_bound`)."""
    assert js["tokens"] == ref.tokens and js["T"] == len(ref.tokens)
    for k in keys:
        want = getattr(ref, k)
        got = js[k].reshape(want.shape)
        scale = max(1.0, float(np.abs(want).max())) if k.startswith("scores") else 1.0
        err = float(np.abs(got - want).max())
        allowed = max(TOL * scale, (bound or {}).get(k, 0.0))
        assert err <= allowed, f"{k}: max |js - package| = {err:.3g}"


# --- the files the build writes ---------------------------------------------------------------


@pytest.mark.parametrize("seed", trained.SEEDS)
def test_weights_files_hold_the_committed_weights_exactly(seed):
    """Each weights file holds its seed's arrays bit for bit (float32 in base64), its sizes, base
    and training length, and the SHA-256 of the committed file; hand-built weights, which
    float32 cannot hold, go as float64, also exactly."""
    w = trained.load(seed)
    payload = payload_of(hook.weights_js(seed))
    assert (payload["name"], payload["d"], payload["D"]) == (w.name, w.d, w.D)
    assert (payload["base"], payload["length"], payload["sha256"]) == (w.base, w.length, w.sha256)
    want = {**w.arrays(), "b_out": w.weights.readout.b_out}
    assert set(payload["arrays"]) == set(want)
    for name, a in want.items():
        assert "f4" in payload["arrays"][name], name
        np.testing.assert_array_equal(decode(payload["arrays"][name]), a)
    hand = trained.hand_built()
    encoded = hook.weights_payload(hand)["arrays"]
    assert "f8" in encoded["L0.W_q"]
    for name, a in hand.arrays().items():
        np.testing.assert_array_equal(decode(encoded[name]), a)


def test_data_file_stays_small_and_names_the_weights_files():
    """The weights travel in their own files, loaded on demand: data.js carries their names only."""
    data = hook.playground_data()["TRAINED"]
    assert data["SEEDS"] == list(trained.SEEDS) and data["PAIRS"] == PAIRS
    assert data["LENGTH"] == trained.load(trained.SEEDS[0]).length
    assert {Path(hook.WEIGHTS_JS.format(name=n)).name for n in NAMES} == set(
        data["SCRIPTS"].values()
    )
    assert len(hook.data_js().encode()) < 16_000
    assert all(len(hook.weights_js(s).encode()) < 200_000 for s in trained.SEEDS)


def test_recipes_are_the_chapters_band_ablations():
    """Each button zeroes exactly the pairs of its row of the chapter's table, the rows in the
    table's order; the prompt is the first clean prompt the table's accuracies are measured on."""
    data = hook.playground_data()["TRAINED"]
    for key, recipe in data["ABLATIONS"].items():
        k = recipe["count"]
        pairs = range(k) if recipe["band"] == "fastest" else range(PAIRS - k, PAIRS)
        assert {recipe["layer"]: set(pairs)} == {
            layer: set(idx) for layer, idx in ABLATIONS[key].items()
        }
    table = re.findall(r"^\| layer (\d): pairs (\d+)–(\d+) ", CHAPTER.read_text("utf-8"), re.M)
    rows = [(int(a), int(b), int(c)) for a, b, c in table]
    recipes = [ABLATIONS[key] for key in data["ABLATIONS"]]
    assert rows == [(layer, min(i), max(i)) for r in recipes for layer, i in r.items()]
    w = trained.load(trained.SEEDS[0])
    first = batch(trained.EVAL_SEED, trained.PROMPTS, w.length, clean=True)
    assert len(data["ABLATION_PROMPT"]) == w.length - 1 and first.mask[0].any()
    np.testing.assert_array_equal(trained.forward(w, data["ABLATION_PROMPT"]).ids, first.tokens[0])


# --- the forward passes, in a blank page ------------------------------------------------------


@pytest.fixture(scope="module")
def tpage(browser):
    """A blank page with data.js, model.js and every weights file loaded (no site needed)."""
    page = browser.new_page()
    page.set_content("<!doctype html><html><head></head><body></body></html>")
    page.add_script_tag(content=hook.data_js())
    page.add_script_tag(content=MODEL_JS.read_text(encoding="utf-8"))
    for seed in trained.SEEDS:
        page.add_script_tag(content=hook.weights_js(seed))
    yield page
    page.close()


def zero_pairs(pairs: int = PAIRS) -> st.SearchStrategy[dict]:
    """zero_pairs for one or both layers: any set of pairs, or a band (the fastest or slowest k)."""
    index = st.integers(0, pairs - 1)
    band = st.integers(1, pairs).flatmap(
        lambda k: st.sampled_from([list(range(k)), list(range(pairs - k, pairs))])
    )
    indices = st.one_of(st.lists(index, max_size=pairs), band)
    return st.fixed_dictionaries({}, optional={0: indices, 1: indices})


def scalings(default_context: bool) -> st.SearchStrategy[dict]:
    """No scaling, or a method with a factor in [1, 16] (the page's slider) or beyond, up to
    1e6, and a context L from 1 to 10**9 (None: the weights' training length)."""
    context = st.integers(1, 10**9) | st.sampled_from([8, 64, 1024, 4096])
    if default_context:
        context = st.none() | context
    method = st.builds(
        lambda m, f, L: (
            {"scaling": m, "factor": f} | ({} if L is None else {"original_max_position": L})
        ),
        st.sampled_from(SCALING_METHODS),
        st.floats(1.0, 16.0) | st.floats(1.0, 1e6),
        context,
    )
    return st.just({}) | method


def as_js(options: dict) -> dict:
    """zero_pairs with string keys and lists, as JSON carries it to the page."""
    out = dict(options)
    zero = out.get("zero_pairs")
    if isinstance(zero, dict):
        out["zero_pairs"] = {str(k): v if isinstance(v, str) else list(v) for k, v in zero.items()}
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(NAMES),
    text=texts(1, 64) | texts(200, HEATMAP_MAX_LETTERS),
    zero=zero_pairs(),
    scaling=scalings(default_context=True),
)
def test_js_forward_weights_agrees_with_trained_forward(tpage, name, text, zero, scaling):
    """forwardWeights on a trained seed against trained.forward: scores, patterns and
    probabilities to 1e-9, over texts up to the heatmaps' limit, pairs zeroed in either layer
    and every scaling."""
    options = {**scaling, "zero_pairs": zero}
    js = run_js(tpage, "forwardWeights", [name, text, as_js(options)])
    ref = trained.forward(trained.load(int(name[-1])), text, **options)
    assert_agrees(js, ref)
    assert js["prediction"] == ref.prediction


# The hand-built circuit's settings on the page: its sliders' ranges and both heads.
HAND = st.fixed_dictionaries(
    {
        "alpha": st.floats(*ALPHA_RANGE),
        "base": st.floats(*BASE_RANGE),
        "head": st.sampled_from(HEADS),
    }
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=HAND,
    text=texts(1, 64) | texts(200, HEATMAP_MAX_LETTERS),
    zero=zero_pairs(),
    scaling=scalings(default_context=False),
)
def test_js_hand_built_with_zero_pairs_agrees_with_trained_forward(
    tpage, config, text, zero, scaling
):
    """The hand-built fast path with zero_pairs (forward, and predictLast's last row) against
    trained.forward on trained.hand_built(**config): the same model with the same pairs zeroed,
    to TOL, or to the rounding bound of the package's own numbers where that is larger (at
    alpha near 1000 on a long text, the softmax of layer 0 turns 1e-13 of an angle into 1e-9 of
    a probability): :func:`configs.rounding_bound`."""
    ref = trained.forward(trained.hand_built(**config), text, zero_pairs=zero, **scaling)
    bound = rounding_bound(ref, Config(**config, **scaling))
    js = run_js(tpage, "forward", [text, as_js({**config, **scaling, "zero_pairs": zero})])
    assert_agrees(js, ref, bound=bound)
    keys = ("probs", "attention1", "previous")
    last = run_js(
        tpage, "predictLast", [text, as_js({**config, **scaling, "zero_pairs": zero})], keys
    )
    T = len(ref.tokens)
    m = np.arange(1, T)
    for k, name, want in (
        ("probs", "probs", ref.probs[-1]),
        ("attention1", "A1", ref.A1[-1]),
        ("previous", "A0", ref.A0[m, m - 1]),
    ):
        err = float(np.abs(last[k] - want).max(initial=0.0))
        assert err <= max(TOL, bound[name]), f"predictLast {k}: max |js - package| = {err:.3g}"


def test_js_predict_last_with_zero_pairs_on_a_long_text(tpage):
    """predictLast's FFT branch (a flat layer 0, where every weight of a row counts, on
    thousands of letters) with pairs zeroed, against trained.forward's last row."""
    rng = np.random.default_rng(5)
    text = "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), size=2000))
    config = {"alpha": ALPHA_RANGE[0], "head": "rank1"}
    zero = {0: list(range(8)), 1: [5]}
    before = tpage.evaluate("() => RopePlaygroundModel.fftCalls()")
    keys = ("probs", "attention1", "previous")
    last = run_js(tpage, "predictLast", [text, as_js({**config, "zero_pairs": zero})], keys)
    assert tpage.evaluate("() => RopePlaygroundModel.fftCalls()") > before
    ref = trained.forward(trained.hand_built(**config), text, zero_pairs=zero)
    m = np.arange(1, len(ref.tokens))
    for k, want in (
        ("probs", ref.probs[-1]),
        ("attention1", ref.A1[-1]),
        ("previous", ref.A0[m, m - 1]),
    ):
        err = float(np.abs(last[k] - want).max())
        assert err <= TOL, f"predictLast {k}: max |js - package| = {err:.3g}"


@pytest.mark.parametrize(
    "config",
    [{}, {"head": "rank1", "alpha": 3.0, "base": 500.0}],
    ids=["defaults", "rank1"],
)
def test_one_dense_forward_runs_the_hand_built_weights_too(tpage, config):
    """forwardWeights on the hand-built weights written in the trained form (trained.hand_built)
    agrees with trained.forward, and with the fast path the playground keeps for them."""
    payload = hook.weights_payload(trained.hand_built(**config))
    options = {"zero_pairs": {0: [0, 1, 30], 1: [3]}, "scaling": "ntk", "factor": 2.0}
    options["original_max_position"] = 16
    text = "thecatsatonthematthecat"
    dense = run_js(tpage, "forwardWeights", [payload, text, as_js(options)])
    ref = trained.forward(trained.hand_built(**config), text, **options)
    assert_agrees(dense, ref)
    fast = run_js(tpage, "forward", [text, as_js({**config, **options})])
    for k in ("A0", "A1", "probs"):
        assert float(np.abs(dense[k] - fast[k]).max()) <= TOL, k


def test_zeroing_pairs_changes_what_the_page_says_it_changes(tpage):
    """The chapter's band ablations move the trained model's numbers on their prompt (so a JS
    that ignored zero_pairs would fail the comparisons above), and the JS follows the package."""
    prompt = hook.playground_data()["TRAINED"]["ABLATION_PROMPT"]
    w = trained.load(trained.SEEDS[0])
    plain = trained.forward(w, prompt)
    for zero in ABLATIONS.values():
        ref = trained.forward(w, prompt, zero_pairs=zero)
        layer = next(iter(zero))
        pattern = "A0" if layer == 0 else "A1"
        assert np.abs(getattr(ref, pattern) - getattr(plain, pattern)).max() > 1e-3
        js = run_js(tpage, "forwardWeights", [NAMES[0], prompt, as_js({"zero_pairs": zero})])
        assert_agrees(js, ref)


def test_every_pair_zeroed_gives_zero_scores_and_even_attention(tpage):
    """What the page says of a layer with every pair zeroed, for both weights: each score of the
    layer is 0 and each query spreads its attention evenly over the keys it sees."""
    text = "thecatsatonthemat"
    T = len(text) + 1
    even = np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]
    for layer in (0, 1):
        zero = {layer: list(range(PAIRS))}
        for fn, first in (("forwardWeights", NAMES[0]), ("forward", None)):
            args = [text, as_js({"zero_pairs": zero})]
            js = run_js(tpage, fn, [first, *args] if first else args)
            assert not js[f"scores{layer}"].any()
            np.testing.assert_allclose(js[f"A{layer}"].reshape(T, T), even, rtol=0, atol=1e-15)


REFUSED = [
    ({"zero_pairs": {0: [PAIRS]}}, r"zero_pairs\[0\].*\[0, 31\]"),
    ({"zero_pairs": {1: [-1]}}, r"zero_pairs\[1\].*\[0, 31\]"),
    ({"zero_pairs": {0: [1.5]}}, r"zero_pairs\[0\].*\[0, 31\]"),
    ({"zero_pairs": {2: [0]}}, r"zero_pairs' layer.*\[0, 1\]"),
    ({"zero_pairs": {0: "ab"}}, r"zero_pairs\[0\]"),
    ({"zero_pairs": [0]}, r"zero_pairs must map a layer"),
    ({"factor": 2.0}, r"factor has an effect only with a scaling"),
    ({"scaling": "yarn", "factor": 0.5}, r"factor.*\[1, 1000000\]"),
    ({"scaling": "yarn", "factor": float("nan")}, r"factor"),
    ({"scaling": "rope", "factor": 2.0}, r"scaling.*one of"),
    ({"scaling": "ntk", "factor": 2.0, "original_max_position": 0}, r"original_max_position"),
    ({"scaling": "linear", "factor": 2.0, "original_max_position": 10**9 + 1}, r"original_max"),
]


@pytest.mark.parametrize(("options", "says"), REFUSED, ids=[s for _, s in REFUSED])
def test_js_refuses_what_the_package_refuses(tpage, options, says):
    """Bad arguments are refused by both, the JavaScript's message naming the argument and its
    range; the same zero_pairs are refused by the hand-built fast path."""
    w = trained.load(trained.SEEDS[0])
    with pytest.raises((ValueError, TypeError)):
        trained.forward(w, "abcab", **options)
    msg = js_error(tpage, "forwardWeights", [NAMES[0], "abcab", as_js(options)])
    assert msg is not None and re.search(says, msg), msg
    if "zero_pairs" in options:
        msg = js_error(tpage, "forward", ["abcab", as_js(options)])
        assert msg is not None and re.search(says, msg), msg


@pytest.mark.parametrize(
    ("fn", "args", "says"),
    [
        ("forwardWeights", [NAMES[0], "abc", {"cut": "keys"}], r"cut is not modelled"),
        ("forwardWeights", [NAMES[0], "abc", {"layer": 1}], r"unknown option 'layer'"),
        ("forwardWeights", ["seed-9", "abc", {}], r"weights \"seed-9\" are not loaded"),
        ("forwardWeights", [NAMES[0], "ab1", {}], r"text: character U\+0031"),
        (
            "forward",
            ["abc", {"layout": "half", "zero_pairs": {"0": [0]}}],
            r"zero_pairs with layout",
        ),
        ("forward", ["abc", {"bos": False, "zero_pairs": {}}], r"zero_pairs with bos"),
        ("predictLast", ["abc", {"unrotated_fast": 2, "zero_pairs": {}}], r"zero_pairs with unrot"),
    ],
)
def test_js_refuses_what_it_does_not_model(tpage, fn, args, says):
    """What the package runs but the page does not compute (a cut path; zero_pairs of the
    hand-built circuit with a setting trained.hand_built does not take) is refused by name."""
    msg = js_error(tpage, fn, args)
    assert msg is not None and re.search(says, msg), msg


# --- what the page says ---------------------------------------------------------------------


def test_copy_score_counts_what_copying_gives():
    """copy_score, the count the page shows, against its definition written another way: each
    prefix's prediction (predict_next) against the letter after the one earlier copy."""
    from rope_explained.figures.playground import copy_score
    from rope_explained.model import forward, predict_next

    for text in ("abcab", "thecatsatonthematthecat", "zzzz", "abcdefghijabcdefg"):
        want = [
            predict_next(text[: m + 1]) == text[text.index(text[m]) + 1]
            for m in range(len(text))
            if text[:m].count(text[m]) == 1
        ]
        assert copy_score(forward(text)) == (sum(want), len(want))


def test_band_recipe_claims():
    """ "Switch off a band of pairs" under What to try, from the package: every position copied
    right with every pair kept; layer 0's line one step back fading and the count falling
    without its fastest 8; each layer keeping the band it uses; part of the count left without
    layer 1's slowest 16, none for the hand-built circuit."""
    from rope_explained.figures.playground import band_copy_score, playground_band_previous

    seed = f"seed-{trained.SEEDS[0]}"
    right, positions = band_copy_score(seed, None)
    assert right == positions > 0
    assert float(playground_band_previous(ablation="l0-no-fast8")) < 0.5
    assert float(playground_band_previous(ablation=None)) > 0.9
    assert band_copy_score(seed, "l0-no-fast8")[0] < positions / 2
    for kept in ("l0-only-fast8", "l1-no-fast16"):
        assert band_copy_score(seed, kept)[0] == positions
    assert 0 < band_copy_score(seed, "l1-no-slow16")[0] < positions
    assert band_copy_score("hand-built", "l1-no-slow16")[0] == 0


def test_chapter_links_each_row_to_the_playground():
    """The chapter's table rows link to the playground's recipes, one each, with weights the
    page offers."""
    data = hook.playground_data()["TRAINED"]
    links = re.findall(
        r"\]\(\.\./playground\.md\?weights=([\w-]+)&ablation=([\w-]+)\)", CHAPTER.read_text("utf-8")
    )
    assert [a for _, a in links] == list(data["ABLATIONS"])
    assert {w for w, _ in links} <= set(data["SCRIPTS"])
    labels = re.findall(r"\[([^\]]+)\]\(\.\./playground\.md\?", CHAPTER.read_text("utf-8"))
    assert labels == [r["label"] for r in data["ABLATIONS"].values()]


# --- the built page, opened once --------------------------------------------------------------

STATE = "() => RopePlayground.current.state"


def page_trace(page) -> dict:
    r = page.evaluate(
        """() => { const t = RopePlayground.current.trace;
                   return {T: t.T, tokens: t.tokens, prediction: t.prediction,
                           A0: Array.from(t.A0), A1: Array.from(t.A1),
                           probs: Array.from(t.probs)}; }"""
    )
    for k in ("A0", "A1", "probs"):
        r[k] = np.asarray(r[k])
    return r


def wait_for(page, condition: str) -> None:
    page.wait_for_function(f"() => {condition}", timeout=30_000)


def test_page_runs_the_trained_weights_and_the_recipes(browser, site_url):
    """One visit of the playground, opened from an address the chapter links: the weights file
    is fetched, the hand-built-only controls are off with their reason, the recipe's settings
    are on, the panels and the copy count are the package's; then a recipe button, the switch
    back to the hand-built circuit, a text too long for the trained weights and a bad address,
    each shown as the package says or refused in words."""
    from rope_explained.figures.playground import copy_score

    data = hook.playground_data()["TRAINED"]
    context = browser.new_context(viewport={"width": 1280, "height": 1100})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site_url + "playground/?weights=seed-1&ablation=l1-no-slow16")
    wait_for(
        page,
        "window.RopePlayground && RopePlayground.current && "
        "RopePlayground.current.state && RopePlayground.current.state.weights === 'seed-1'",
    )
    prompt = data["ABLATION_PROMPT"]
    state = page.evaluate(STATE)
    assert state["text"] == prompt and state["zero_pairs"] == {"0": [], "1": list(range(16, 32))}
    assert page.evaluate(
        "() => Array.from(document.querySelectorAll('script[data-rope-playground-weights]'))"
        ".map((s) => s.getAttribute('data-rope-playground-weights'))"
    ) == ["seed-1"]
    w1 = trained.load(1)
    ref = trained.forward(w1, prompt, zero_pairs=ABLATIONS["l1-no-slow16"])
    js = page_trace(page)
    for k in ("A0", "A1", "probs"):
        assert float(np.abs(js[k] - getattr(ref, k).ravel()).max()) <= TOL, k
    root = page.locator(".rope-playground")
    disabled = page.evaluate(
        """() => { const pg = RopePlayground.current;
                   return [pg.alpha.disabled, pg.base.disabled, pg.headsBox.disabled,
                           pg.views[1].disabled, pg.factor.disabled, pg.scaling.disabled,
                           pg.bands[0].count.disabled, pg.input.disabled]; }"""
    )
    assert disabled == [True, True, True, True, True, False, False, False]
    note = root.locator("#" + page.evaluate("() => RopePlayground.current.weightsNote.id"))
    assert "only shape the hand-built circuit" in note.inner_text()
    right, positions = copy_score(ref)
    copying = root.locator(".rp-copying").inner_text()
    assert f"at {right} of the {positions} positions" in copying
    assert root.locator("[data-prediction]").inner_text().strip() == ref.prediction
    # a recipe button: layer 0 without its fastest 8, the weights kept
    page.get_by_role("button", name=data["ABLATIONS"]["l0-no-fast8"]["label"]).click()
    wait_for(page, "RopePlayground.current.state.zero_pairs[0].length === 8")
    ref = trained.forward(w1, prompt, zero_pairs=ABLATIONS["l0-no-fast8"])
    js = page_trace(page)
    assert float(np.abs(js["A0"] - ref.A0.ravel()).max()) <= TOL
    assert "Pairs 0\u20137 of 0\u201331 zeroed" in root.inner_text()
    # the hand-built circuit with the same pairs zeroed: its controls back on
    page.select_option(".rope-playground select[id$=-weights]", "hand-built")
    wait_for(page, "RopePlayground.current.state.weights === 'hand-built'")
    ref = trained.forward(trained.hand_built(), prompt, zero_pairs=ABLATIONS["l0-no-fast8"])
    js = page_trace(page)
    for k in ("A0", "A1", "probs"):
        assert float(np.abs(js[k] - getattr(ref, k).ravel()).max()) <= TOL, k
    assert page.evaluate("() => RopePlayground.current.alpha.disabled") is False
    # a text longer than the heatmaps take, with trained weights: refused in words
    page.select_option(".rope-playground select[id$=-weights]", "seed-1")
    wait_for(page, "RopePlayground.current.state.weights === 'seed-1'")
    box = page.locator(".rope-playground input[type=text]")
    box.fill("ab" * HEATMAP_MAX_LETTERS)
    wait_for(page, "document.querySelector('.rope-playground .rp-msg.rp-error') !== null")
    assert f"at most {HEATMAP_MAX_LETTERS}" in root.locator(".rp-msg").inner_text()
    assert page.evaluate(STATE)["text"] == prompt  # the panels keep the last valid text
    # "Reset the settings" keeps the text and the weights; a prompt button goes back to the
    # hand-built circuit; both zero no pair
    box.fill(prompt)
    wait_for(page, "RopePlayground.current.state.valid")
    page.get_by_role("button", name="Reset the settings").click()
    wait_for(page, "RopePlayground.current.state.zero_pairs[0].length === 0")
    state = page.evaluate(STATE)
    assert (state["weights"], state["text"]) == ("seed-1", prompt)
    page.get_by_role("button", name="Load the induction prompt").click()
    wait_for(page, "RopePlayground.current.state.weights === 'hand-built'")
    assert page.evaluate(STATE)["zero_pairs"] == {"0": [], "1": []}
    # an address the page does not know: said, not guessed
    page.evaluate("() => RopePlayground.current.fromAddress('?weights=seed-9')")
    assert "weights=seed-9" in root.locator(".rp-msg").inner_text()
    assert errors == []
    context.close()
