"""The page "Paste your model's config" (docs/real-models/your-config.md).

* the data file the build writes (docs/hooks/your_config.py) holds the package's values, and
  the page's scripts restate none of them;
* ``RopeConfigModel.fromConfig`` (docs/javascripts/your-config/hf.js, in a blank page with the
  generated data files) agrees with :func:`rope_explained.hf.from_config` on every released
  configuration of the menu (and each layer type, and lengths past the context), to a relative
  1e-9, and refuses what it refuses, naming the key;
* the recipe on the circuit: the circuit's configuration carries the recipe and nothing of the
  model's own head, and the circuit's predictions are the package's (``predict_last_at``);
* the dynamic-NTK pitfall the page states, computed again through other paths of the package;
* the built page in Chromium: the table and the summary a reader sees, the message for bad
  input, and no horizontal overflow at 360 px.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import playground  # docs/hooks/, on sys.path through conftest.py
import pytest
import your_config as hook
from pages import value

from rope_explained import hf
from rope_explained.embedding import VOCAB
from rope_explained.examples import CONFIG_PROMPTS, ORIGINAL_MAX_POSITION
from rope_explained.extension import (
    predict_last_at,
    predict_last_many,
    recency_prompts,
)
from rope_explained.figures.real_models import your_config as page_values
from rope_explained.model import MAX_LETTERS, Config

ROOT = Path(__file__).resolve().parent.parent
JS_DIR = ROOT / "docs" / "javascripts"
HF_JS = JS_DIR / "your-config" / "hf.js"
PAGE_JS = JS_DIR / "your-config" / "page.js"
MODEL_JS = JS_DIR / "playground" / "model.js"
RTOL = 1e-9
FIXTURES = {m["name"]: m for m in hook.config_data()["FIXTURES"]}


def fixture_cases() -> list[tuple[str, str | None]]:
    """Every released configuration of the menu, once per layer type when it has several."""
    return [(name, t) for name, m in FIXTURES.items() for t in m["layer_types"]]


CASES = fixture_cases()


def case_id(case) -> str:
    return case[0] + ("" if case[1] is None else f"-{case[1]}")


# --- one source: the data file ------------------------------------------------------------------


def test_data_file_holds_the_package_values():
    data = hook.config_data()
    assert data["REFUSED"] == hf.REFUSED
    assert data["ALLOWED_KEYS"] == {t: sorted(k) for t, k in hf.ALLOWED_KEYS.items()}
    cfg = Config()
    assert data["CIRCUIT"]["d"] == cfg.d and data["CIRCUIT"]["base"] == cfg.base
    assert data["CIRCUIT"]["original_max_position"] == ORIGINAL_MAX_POSITION
    assert data["CIRCUIT"]["max_positions"] == MAX_LETTERS + 1
    assert data["CIRCUIT"]["prompts"] == CONFIG_PROMPTS
    # the recipe carries no key of the model's own head
    assert not set(data["CIRCUIT"]["recipe_keys"]) & set(hook.OWN_HEAD_KEYS)
    # the keys the page names as the recipe, and only those
    recipe = {"factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim",
              "attention_factor", "truncate", "low_freq_factor", "high_freq_factor",
              "partial_rotary_factor"}  # fmt: skip
    assert set(data["CIRCUIT"]["recipe_keys"]) == recipe


def code_of(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"(?m)(^|(?<=[\s;,{}()]))//.*$", " ", src)


def restated(src: str) -> list[str]:
    """Package values a script spells out itself: the circuit's settings, YaRN's constants and
    the limits of the checks. (The names of config.json's keys and rope types are the file's
    format, which the scripts read, not values of the package.)"""
    values = r"10000|1e4|1024|8192|8193|1e6|1e9|1e12|4096|0\.1|0\.001|0\.75|32"
    return re.findall(rf"(?<![\w.])(?:{values})(?![\w.])", code_of(src))


def test_restated_finds_hand_copies():
    old = "var base = 10000; var L = 1024; var slope = 0.1; var beta = 32; high += 0.001;"
    assert restated(old) == ["10000", "1024", "0.1", "32", "0.001"]
    assert restated("// base 10000\n") == []


@pytest.mark.parametrize("path", [HF_JS, PAGE_JS], ids=lambda p: p.name)
def test_scripts_restate_no_package_value(path):
    assert restated(path.read_text(encoding="utf-8")) == []


# --- fromConfig in a blank page -----------------------------------------------------------------


@pytest.fixture(scope="module")
def js_page(browser):
    """A blank page with the two data files, model.js and hf.js (no site needed)."""
    page = browser.new_page()
    page.set_content("<!doctype html><html><head></head><body></body></html>")
    for src in (playground.data_js(), MODEL_JS.read_text("utf-8"), hook.data_js(),
                HF_JS.read_text("utf-8")):  # fmt: skip
        page.add_script_tag(content=src)
    yield page
    page.close()


FROM_CONFIG = """([config, seqLen, layerType]) => {
  try {
    const r = RopeConfigModel.fromConfig(config, seqLen, layerType);
    return {ok: true, rope_type: r.rope_type, head_dim: r.head_dim, rotary_dim: r.rotary_dim,
            base: r.base, inv_freq: Array.from(r.inv_freq), attention_factor: r.attention_factor,
            original_max_position: r.original_max_position, max_position: r.max_position,
            wavelengths: Array.from(r.wavelengths, (x) => isFinite(x) ? x : null),
            context: r.context, completes: r.completes};
  } catch (e) { return {ok: false, kind: e.name, message: e.message}; }
}"""


def js_from_config(page, config, seq_len=None, layer_type=None) -> dict:
    return page.evaluate(FROM_CONFIG, [config, seq_len, layer_type])


def assert_same_rope(js: dict, ref: hf.HFRope) -> None:
    assert js["ok"], js
    assert js["rope_type"] == ref.rope_type
    assert (js["head_dim"], js["rotary_dim"]) == (ref.head_dim, ref.rotary_dim)
    assert js["base"] == ref.base
    assert js["original_max_position"] == ref.original_max_position
    assert js["max_position"] == ref.max_position
    np.testing.assert_allclose(js["inv_freq"], ref.inv_freq, rtol=RTOL, atol=0)
    wl = np.array([np.inf if w is None else w for w in js["wavelengths"]])
    np.testing.assert_allclose(wl, ref.wavelengths, rtol=RTOL, atol=0)
    assert math.isclose(js["attention_factor"], ref.attention_factor, rel_tol=RTOL)
    context = ref.original_max_position or ref.max_position
    assert js["context"] == context
    assert js["completes"] == ref.turns_within(context).tolist()


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_js_reads_every_released_config_as_the_package(js_page, case):
    name, layer_type = case
    config = FIXTURES[name]["config"]
    ref = hf.from_config(config, layer_type=layer_type)
    assert_same_rope(js_from_config(js_page, config, None, layer_type), ref)
    # the types that depend on the text's length, at lengths around their context
    if ref.rope_type in ("dynamic", "longrope"):
        L = ref.original_max_position
        for seq_len in (L - 1, L, L + 1, 3 * L):
            got = js_from_config(js_page, config, seq_len, layer_type)
            assert_same_rope(got, hf.from_config(config, seq_len=seq_len, layer_type=layer_type))


def test_the_menu_covers_every_rope_type_of_the_fixtures():
    """The menu offers every released configuration of the package, and among them default,
    linear, yarn, longrope and llama3 recipes."""
    assert list(FIXTURES) == [m["name"] for m in hf.released_configs()]
    for m in hf.released_configs():
        assert {k: m[k] for k in FIXTURES[m["name"]]} == FIXTURES[m["name"]]
    types = {hf.from_config(FIXTURES[n]["config"], layer_type=t).rope_type for n, t in CASES}
    assert {"default", "linear", "yarn", "longrope", "llama3"} <= types


LLAMA = {
    "rope_theta": 500000.0,
    "head_dim": 128,
    "max_position_embeddings": 131072,
    "rope_scaling": {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    },
}


def with_rope(**changes) -> dict:
    return {**LLAMA, "rope_scaling": {**LLAMA["rope_scaling"], **changes}}


BAD = [
    ("not an object", [1, 2], "config"),
    ("no rope_theta", {k: v for k, v in LLAMA.items() if k != "rope_theta"}, "rope_theta"),
    ("rope_theta text", {**LLAMA, "rope_theta": "big"}, "rope_theta"),
    ("unknown type", with_rope(rope_type="ntk-by-parts"), "rope_type"),
    ("unknown key", with_rope(beta_fast=32), "beta_fast"),
    ("factor below 1", with_rope(factor=0.5), "factor"),
    ("factor missing", {**LLAMA, "rope_scaling": {"rope_type": "linear"}}, "factor"),
    ("odd rotary width", {**LLAMA, "head_dim": 64, "partial_rotary_factor": 0.3}, "partial_rotary"),
    ("odd head", {**LLAMA, "head_dim": 127}, "head_dim"),
    ("no head", {k: v for k, v in LLAMA.items() if k != "head_dim"}, "head_dim"),
    (
        "no max",
        {k: v for k, v in LLAMA.items() if k != "max_position_embeddings"},
        "max_position_embeddings",
    ),  # fmt: skip
    ("high below low", with_rope(high_freq_factor=0.5), "high_freq_factor"),
    (
        "yarn betas",
        {
            **LLAMA,
            "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "beta_fast": 1, "beta_slow": 2},
        },
        "beta_fast",
    ),
    (
        "longrope list",
        {
            **LLAMA,
            "rope_scaling": {
                "rope_type": "longrope",
                "short_factor": [1.0],
                "long_factor": [1.0] * 64,
            },
        },  # fmt: skip
        "short_factor",
    ),
    ("layer type", {**LLAMA, "rope_scaling": {"full": {"rope_type": "default"}}}, "layer_type"),
]


@pytest.mark.parametrize(("why", "config", "key"), BAD, ids=[b[0] for b in BAD])
def test_js_refuses_what_the_package_refuses_naming_the_key(js_page, why, config, key):
    with pytest.raises((ValueError, TypeError)) as err:
        hf.from_config(config)
    assert key in str(err.value)
    got = js_from_config(js_page, config)
    assert not got["ok"], got
    assert key in got["message"], got["message"]
    assert got["kind"] == ("TypeError" if isinstance(err.value, TypeError) else "RangeError")


# --- the recipe on the circuit ------------------------------------------------------------------

CIRCUIT = "([config, layerType]) => RopeConfigModel.circuit(config, layerType)"


#: Recipes no released configuration of the menu uses, and a multimodal file (text_config).
SYNTHETIC = {
    "linear": {
        "rope_theta": 10000.0, "head_dim": 128, "max_position_embeddings": 16384,
        "rope_scaling": {"rope_type": "linear", "factor": 4.0},
    },
    "dynamic": {
        "rope_theta": 500000.0, "hidden_size": 4096, "num_attention_heads": 32,
        "max_position_embeddings": 4096, "rope_scaling": {"type": "dynamic", "factor": 2.0},
    },
    "proportional": {
        "rope_theta": 1000000.0, "head_dim": 256, "max_position_embeddings": 131072,
        "rope_parameters": {"rope_type": "proportional", "factor": 8.0,
                            "partial_rotary_factor": 0.25},
    },
    "yarn-partial": {
        "rope_theta": 10000.0, "head_dim": 128, "partial_rotary_factor": 0.5,
        "max_position_embeddings": 65536,
        "rope_parameters": {"rope_type": "yarn", "original_max_position_embeddings": 4096,
                            "beta_fast": 16.0, "attention_factor": 1.25},
    },
    "multimodal": {
        "text_config": {"rope_theta": 1000000.0, "head_dim": 128,
                        "max_position_embeddings": 32768},
    },
}  # fmt: skip


@pytest.mark.parametrize("name", list(SYNTHETIC))
def test_js_reads_other_recipes_as_the_package(js_page, name):
    config = SYNTHETIC[name]
    ref = hf.from_config(config)
    assert_same_rope(js_from_config(js_page, config), ref)
    for seq_len in (100, 4095, 4096, 4097, 20000):
        got = js_from_config(js_page, config, seq_len)
        assert_same_rope(got, hf.from_config(config, seq_len=seq_len))


def circuit_cases() -> list[tuple[str, dict]]:
    """One released configuration of each recipe of the menu that carries over (not nested
    by layer type), and the other recipes."""
    seen, out = set(), []
    for name, m in FIXTURES.items():
        t = hf.from_config(m["config"], layer_type=m["layer_types"][0]).rope_type
        key = (t, bool((m["config"].get("rope_scaling") or {}).get("mscale")))
        if key not in seen and t != "longrope" and m["layer_types"] == [None]:
            seen.add(key)
            out.append((name, m["config"]))
    return out + [(n, c) for n, c in SYNTHETIC.items() if n != "multimodal"]


@pytest.mark.parametrize("case", circuit_cases(), ids=lambda c: c[0])
def test_the_circuit_runs_the_recipe_as_the_package(js_page, case):
    name, config = case
    got = js_page.evaluate(CIRCUIT, [config, None])
    ref = hf.from_config(config)
    recipe = got["recipe"]["config"]
    cfg = Config()
    # the circuit's own head and context, the model's recipe
    assert recipe["head_dim"] == cfg.d and recipe["rope_theta"] == cfg.base
    params = recipe["rope_parameters"]
    assert params["rope_type"] == ref.rope_type
    pasted = config.get("rope_scaling") or config.get("rope_parameters") or {}
    for key in hook.config_data()["CIRCUIT"]["recipe_keys"]:
        if key != "partial_rotary_factor" or ref.rope_type == "proportional":
            assert params.get(key) == pasted.get(key), key
    assert "partial_rotary_factor" in params or ref.rope_type != "proportional"
    # the lengths: a share of 2^k L for 2^k up to s, capped at the longest text
    s, L = got["recipe"]["factor"], ORIGINAL_MAX_POSITION
    share = hook.config_data()["CIRCUIT"]["distance_share"]
    doublings = range(int(math.log2(s)) + 1)
    want = sorted({min(round(share * 2**k * L), MAX_LETTERS - 1) + 2 for k in doublings})
    assert [r["T"] for r in got["rows"]] == want
    for row in got["rows"]:
        T = row["T"]
        circuit = hf.from_config(recipe, seq_len=T)
        assert circuit.head_dim == cfg.d
        np.testing.assert_allclose(row["scaled"]["inv_freq"], circuit.inv_freq, rtol=RTOL, atol=0)
        af = row["scaled"]["attention_factor"]
        assert math.isclose(af, circuit.attention_factor, rel_tol=RTOL)
        # the prompts: A B ... A of T positions, A nowhere else, B the second letter
        texts = [p["text"] for p in row["prompts"]]
        assert len(texts) == CONFIG_PROMPTS
        for p in row["prompts"]:
            t = p["text"]
            assert len(t) == T - 1 and t[0] == t[-1] and t.count(t[0]) == 2 and p["answer"] == t[1]
        probs, _, previous = predict_last_at(texts, circuit.inv_freq, circuit.attention_factor)
        np.testing.assert_allclose(row["scaled"]["probs"], probs, rtol=0, atol=RTOL)
        assert math.isclose(row["scaled"]["previous"], previous, rel_tol=0, abs_tol=RTOL)
        answers = [p["answer"] for p in row["prompts"]]
        right = [VOCAB[i] == a for i, a in zip(probs.argmax(1), answers, strict=True)]
        assert row["scaled"]["right"] == sum(right)
        plain, _ = predict_last_many(texts)
        np.testing.assert_allclose(row["plain"]["probs"], plain, rtol=0, atol=RTOL)
        right = [VOCAB[i] == a for i, a in zip(plain.argmax(1), answers, strict=True)]
        assert row["plain"]["right"] == sum(right)


def test_longrope_does_not_carry_over(js_page):
    name = next(
        n
        for n, t in CASES
        if hf.from_config(FIXTURES[n]["config"], layer_type=t).rope_type == "longrope"
    )
    msg = js_page.evaluate(
        """(config) => { try { RopeConfigModel.recipeOnCircuit(config); return null; }
                         catch (e) { return e.message; } }""",
        FIXTURES[name]["config"],
    )
    assert msg and "longrope" in msg and "short_factor" in msg


# --- the dynamic-NTK pitfall --------------------------------------------------------------------


def fraction(text: str) -> float:
    """A cell of the table: how many of the page's prompts, as a fraction of them."""
    return int(text) / page_values.N


def test_pitfall_values_through_the_configured_model():
    """The table's cells again, without predict_last_at: stateless through Config's dynamic
    NTK, the module after the long text through the static NTK-aware base at the factor the
    long text gives (the same base, by the formula)."""
    s, L = page_values.FACTOR, page_values.L
    one = page_values.one_copy()
    two = page_values.two_copies()
    dyn = {"scaling": "dynamic-ntk", "factor": s, "original_max_position": L}
    grown = {"scaling": "ntk", "factor": s * page_values.LONG / L - (s - 1),
             "original_max_position": L}  # fmt: skip
    from rope_explained.extension import distance_prompts

    ones = distance_prompts(page_values.ONE_COPY_DISTANCE, page_values.N)
    twos = recency_prompts(page_values.NEAR, page_values.FAR, page_values.N)
    for settings, state, mode in ((dyn, "short", "stateless"), (dyn, "long", "stateless"),
                                  (dyn, "short", "module"), (grown, "long", "module")):  # fmt: skip
        probs, _ = predict_last_many([p.text for p in ones], **settings)
        right = np.mean([VOCAB[i] == p.answer for i, p in zip(probs.argmax(1), ones, strict=True)])
        assert one[state][mode] == right
        assert fraction(value(f"yc-dyn-one-{state}-{mode}")) == right
        probs, _ = predict_last_many([t for t, _, _ in twos], **settings)
        right = np.mean([VOCAB[i] == c for i, (_, c, _) in zip(probs.argmax(1), twos, strict=True)])
        assert two[state][mode] == right
        assert fraction(value(f"yc-dyn-two-{state}-{mode}")) == right


def test_pitfall_is_what_the_page_says():
    """Past L the stateless circuit fails the one-copy prompts and the module after a long text
    completes them; on the two-copy prompts it is the other way round; after a short text the
    two ways agree (the module has nothing to remember)."""
    one, two = page_values.one_copy(), page_values.two_copies()
    assert one["short"]["module"] == one["short"]["stateless"] == one["long"]["stateless"]
    assert two["short"]["module"] == two["short"]["stateless"] == two["long"]["stateless"]
    assert one["long"]["stateless"] <= 0.25 and one["long"]["module"] == 1.0
    assert two["long"]["stateless"] == 1.0 and two["long"]["module"] <= 0.25
    L = page_values.L
    assert L < page_values.ONE_COPY_DISTANCE + 2 < page_values.LONG
    # after the short text both ways read the prompt with its own length's frequencies
    after = page_values.frequencies_after(page_values.ONE_COPY_DISTANCE + 2, page_values.SHORT)
    np.testing.assert_array_equal(after["module"], after["stateless"])


def test_two_copies_blend_after_the_long_text():
    """Read with the long text's frequencies, the induction head's weight is split between the
    keys after the two earlier A's (the page's "copies a blend"), and it is not otherwise."""
    prompts = recency_prompts(page_values.NEAR, page_values.FAR, page_values.N)
    texts = [t for t, _, _ in prompts]
    T = page_values.FAR + 2
    first, second = 2, page_values.FAR - page_values.NEAR + 2  # keys after each A (<s> at 0)
    for seq_len, blended in ((page_values.LONG, True), (T, False)):
        _, A1, _ = predict_last_at(texts, page_values.frequencies_for(seq_len))
        split = np.minimum(A1[:, first], A1[:, second])
        if blended:
            assert np.median(split) > 0.2 and np.all(A1[:, first] + A1[:, second] > 0.5)
        else:
            assert np.all(split < 1e-3)


def test_figure_alt_text_follows_the_sweep():
    sw = page_values.sweep()
    g = np.array(page_values.SWEEP)
    assert np.all(sw["one", "stateless"][g < 1170] <= 0.1)
    assert np.all(sw["one", "stateless"][g >= 1300] >= 0.9)
    assert np.all(sw["one", "module"] == 1.0) and np.all(sw["two", "stateless"] == 1.0)
    assert np.all(sw["two", "module"] <= 1 / 8)
    assert (g[0], g[-1]) == (1040, 2000)


# --- the built page ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site_page(browser, site_url):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(site_url + "real-models/your-config/")
    page.wait_for_function(
        "() => window.RopeConfigPage && RopeConfigPage.current && RopeConfigPage.current.result"
    )
    yield page
    page.close()


def shown(page) -> dict:
    return page.evaluate(
        """() => {
      const cells = (cls) => Array.from(document.querySelectorAll('.ryc-table td.' + cls),
                                        (td) => Number(td.dataset.value));
      const af = document.querySelector('.ryc-summary td[data-key=attention_factor]');
      return {theta: cells('ryc-theta'), wavelength: cells('ryc-wavelength'),
              af: Number(af.dataset.value), afText: af.textContent,
              msg: document.querySelector('.ryc-msg').textContent};
    }"""
    )


@pytest.mark.parametrize("name", list(FIXTURES))
def test_page_shows_each_released_config(site_page, name):
    site_page.select_option("#rope-your-config-pick", name)
    site_page.wait_for_function(
        "(n) => RopeConfigPage.current.pick.value === n && RopeConfigPage.current.result", arg=name
    )
    layer = site_page.evaluate("() => RopeConfigPage.current.layerType")
    ref = hf.from_config(FIXTURES[name]["config"], layer_type=layer)
    got = shown(site_page)
    np.testing.assert_allclose(got["theta"], ref.inv_freq, rtol=RTOL, atol=0)
    np.testing.assert_allclose(got["wavelength"], ref.wavelengths, rtol=RTOL, atol=0)
    assert math.isclose(got["af"], ref.attention_factor, rel_tol=RTOL)
    assert got["msg"] == ""


@pytest.mark.parametrize(("why", "config", "key"), BAD[1:6], ids=[b[0] for b in BAD[1:6]])
def test_page_names_the_key_of_bad_input(site_page, why, config, key):
    before = site_page.evaluate("() => RopeConfigPage.current.updates")
    site_page.fill("#rope-your-config-box", json.dumps(config))
    site_page.wait_for_function("(n) => RopeConfigPage.current.updates > n", arg=before)
    assert site_page.evaluate("() => RopeConfigPage.current.result") is None
    msg = site_page.text_content(".ryc-msg")
    assert key in msg and site_page.is_visible(".ryc-msg.ryc-error")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_page_fits_a_phone(browser, site_url, scheme):
    page = browser.new_page(viewport={"width": 360, "height": 800}, color_scheme=scheme)
    page.goto(site_url + "real-models/your-config/")
    page.wait_for_function("() => RopeConfigPage.current && RopeConfigPage.current.circuit")
    overflow = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert overflow[0] <= overflow[1], overflow
    # the tables fit too: no column hidden behind a scroll bar
    tables = page.evaluate(
        "() => Array.from(document.querySelectorAll('.ryc-table'),"
        " (e) => [e.scrollWidth, e.clientWidth])"
    )
    assert len(tables) == 2 and all(w <= c for w, c in tables), tables
    page.close()


def test_page_statements_about_the_circuit():
    """The circuit's original context is the one of the context-extension page and of the
    playground; the example model's numbers are its configuration's."""
    from rope_explained.figures.paper_to_code import context_extension

    assert context_extension.L == ORIGINAL_MAX_POSITION == page_values.L
    assert value("yc-circuit-original") == f"{ORIGINAL_MAX_POSITION:,}"
    llama = next(m for m in hf.released_configs() if m["name"] == page_values.EXAMPLE_MODEL)
    assert llama["config"]["rope_scaling"]["rope_type"] == "llama3"
    assert value("yc-example-base") == f"{llama['config']['rope_theta']:,.0f}"
    orig = llama["config"]["rope_scaling"]["original_max_position_embeddings"]
    assert value("yc-example-original") == f"{orig:,}"


def test_each_rung_lies_inside_the_reach_of_its_doubling():
    """The page measures at a share of 2^k L; with the slowest pair slowed by 2^k the predicted
    reach is 2^k times the unscaled one, so each rung lies inside it (and inside 2^k L)."""
    from rope_explained.examples import CONFIG_DISTANCE_SHARE
    from rope_explained.extension import predicted_horizon

    assert (
        CONFIG_DISTANCE_SHARE * ORIGINAL_MAX_POSITION < predicted_horizon() < ORIGINAL_MAX_POSITION
    )
    # dividing the slowest frequency by s multiplies the reach by s
    s, L = 8.0, ORIGINAL_MAX_POSITION
    slowed = predicted_horizon(scaling="linear", factor=s, original_max_position=L)
    assert math.isclose(slowed, s * predicted_horizon(), rel_tol=1e-12)


def test_dynamic_factor_divides_the_slowest_pair():
    """ "which divides the slowest pair's frequency by that factor": the NTK-aware base
    b (s')^(d/(d-2)) turns pair d/2-1 at b^(-(d-2)/d) / s'."""
    stateless = float(value("yc-dyn-scale-stateless"))
    ell = page_values.ONE_COPY_DISTANCE + 2
    exact = page_values.FACTOR * ell / page_values.L - (page_values.FACTOR - 1)
    assert abs(stateless - exact) <= 0.005
    theta = page_values.frequencies_for(ell)
    plain = page_values.frequencies_for(page_values.L)
    assert math.isclose(plain[-1] / theta[-1], exact, rel_tol=1e-12)


def test_the_table_counts_prompts_of_the_stated_number():
    assert value("yc-dyn-n") == str(page_values.N)
    assert (
        value("yc-distance-share") == f"{100 * hook.config_data()['CIRCUIT']['distance_share']:.0f}"
    )
