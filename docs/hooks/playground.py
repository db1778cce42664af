"""MkDocs hook: the playground's data file, and its scripts on the playground page only.

The playground (``docs/playground.md``) recomputes ``rope_explained.forward`` in the reader's
browser with three plain scripts, in this order:

* ``javascripts/playground/data.js``, written here at build time (:func:`data_js`): the
  package's own values, as one frozen global ``window.RopePlaygroundData``: the defaults of
  :class:`rope_explained.model.Config` and its upper limits, YaRN's and Llama 3.1's
  constants, the vocabulary and its letter step, the layer-1 head names, the prompts, the
  input limits, the ranges of the sliders, the floor of the layer-0 score panel's colour map
  (that of the build-time figure ``playground-opening``) and the tables of the colour maps
  the site's figures use (from matplotlib). Neither of the other two scripts restates any of
  them. The package is read when each build starts (:func:`package`), so ``mkdocs serve``
  picks up an edit of it. A script rather than a JSON file:
  it needs no ``fetch`` (so the page also works opened from disk), and tests can load it into
  a blank page as it is.
* ``javascripts/playground/model.js``: the forward pass (no DOM);
* ``javascripts/playground/ui.js``: the controls, heatmaps and bar chart.

The weights of the trained model (``rope_explained.trained``) go into one more script per
seed, ``javascripts/playground/weights-seed-N.js`` (:func:`weights_js`), about 190 kB each:
ui.js adds it to the page only when the reader picks that seed, so a visit that stays with the
hand-built circuit loads none of them. The stored weights are float32, and they travel as
their float32 bytes in base64 (:func:`encode_array`), which the page reads back exactly.

Only the playground page loads them, through one small inline script that this hook puts into
its article (:func:`loader_html`). Material's instant navigation swaps a page's content without
reloading and re-runs the scripts inside it, but it re-inserts external ones as async scripts
(run in whatever order they arrive) and waits only for the last one: so the inline loader adds
the three itself, with ``async = false`` (run in order), once per browser page; on every later
visit ui.js, subscribed to Material's ``document$``, restarts the playground by itself. The
loader goes into the final HTML (``on_post_page``), so neither the search index nor the
print-site page carries it.
"""

from __future__ import annotations

import base64
import dataclasses
import importlib
import inspect
import json
import logging
import posixpath
from types import SimpleNamespace

import matplotlib
import numpy as np
from hooklib import frozen_data_js, load_figures
from hooklib import loader_html as load_scripts
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

log = logging.getLogger("mkdocs.hooks.playground")

PAGE = "playground.md"
#: The scripts of the playground, in the order they must run (paths in the built site).
DATA_JS = "javascripts/playground/data.js"
SCRIPTS = (DATA_JS, "javascripts/playground/model.js", "javascripts/playground/ui.js")
#: What the page's radio buttons call each layer-1 head of rope_explained.heads.HEADS.
HEAD_LABELS = {
    "induction": "working head (rank 2, slowest pair)",
    "rank1": "the document\u2019s rank-1 head",
}
#: The explained-equations document's rank-1 head (every other head of HEADS is the working
#: one); the "rank-1 fails" button switches to it.
RANK1_HEAD = "rank1"
#: What the page's menu calls each context-extension method of rope_explained.rope.
SCALING_LABELS = {
    "linear": "linear (Position Interpolation)",
    "ntk": "NTK-aware",
    "dynamic-ntk": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3.1",
}
GLOBAL = "RopePlaygroundData"
WEIGHTS_GLOBAL = "RopePlaygroundWeights"
MODULES = (
    "embedding",
    "examples",
    "figures.playground",
    "figures.style",
    "figures.trained",
    "heads",
    "model",
    "rope",
    "trained",
)
#: One script per trained seed, beside data.js, loaded only when the reader picks that seed.
WEIGHTS_JS = "javascripts/playground/weights-{name}.js"
#: The array names of a weights file, in the order TrainedWeights.arrays gives them.
WEIGHT_ARRAYS = (
    "embedding",
    "W_out",
    *(f"L{layer}.{w}" for layer in (0, 1) for w in ("W_q", "W_k", "W_v", "W_o")),
)
#: What the page's buttons call each band ablation of rope_explained.figures.trained.ABLATIONS.
ABLATION_LABELS = {
    "l0-no-fast8": "layer 0 without its fastest 8",
    "l0-only-fast8": "layer 0 with only its fastest 8",
    "l1-no-fast16": "layer 1 without its fastest 16",
    "l1-no-slow16": "layer 1 without its slowest 16",
}


def package() -> SimpleNamespace:
    """The package's modules this hook reads, as they are now: through
    ``hooklib.load_figures``, which imports the package afresh when its source changed since
    the last build (``mkdocs serve`` keeps one process, and this module, for every rebuild)."""
    load_figures()
    mods = {name: importlib.import_module(f"rope_explained.{name}") for name in MODULES}
    # figures.trained is figures_trained, beside trained
    return SimpleNamespace(**{name.replace(".", "_"): mod for name, mod in mods.items()})


def _defaults(pkg: SimpleNamespace, names: tuple[str, ...]) -> dict:
    """The defaults of ``scaled_frequencies``'s keyword arguments ``names``."""
    params = inspect.signature(pkg.rope.scaled_frequencies).parameters
    return {name: params[name].default for name in names}


def uses_original_context(method: str, pkg: SimpleNamespace | None = None) -> bool:
    """Whether ``method``'s frequencies depend on ``original_max_position`` (for a text longer
    than both contexts tried): the page greys out that control for the others."""
    pkg = pkg or package()
    d = pkg.model.Config().d
    lo, hi = pkg.examples.ORIGINAL_MAX_POSITION_RANGE

    def freqs(L: int):
        return pkg.rope.scaled_frequencies(
            d, method=method, factor=4.0, original_max_position=L, seq_len=10**6
        )[0].tolist()

    return freqs(lo) != freqs(hi)


def colour_table(name: str) -> str:
    """matplotlib's colour map ``name`` as its table of ``N`` entries (``bytes=True``), each
    entry's red, green and blue as two hex digits: what the page indexes as matplotlib does,
    ``i = min(N - 1, floor(N x))`` for ``x`` in [0, 1]."""
    cmap = matplotlib.colormaps[name]
    rgb = cmap(np.arange(cmap.N), bytes=True)[:, :3]
    return rgb.astype(np.uint8).tobytes().hex()


def encode_array(name: str, a: np.ndarray) -> dict:
    """An array as the page decodes it, exactly: its shape and its entries in row-major order
    as little-endian IEEE bytes in base64, float32 (``"f4"``) when every entry is a float32
    (the trained weights are stored so), float64 (``"f8"``) otherwise."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    if not np.isfinite(a).all():
        raise PluginError(f"the weights' array {name} holds a non-finite number")
    single = a.astype("<f4")
    exact = np.array_equal(single.astype(np.float64), a)
    raw = single.tobytes() if exact else a.astype("<f8").tobytes()
    return {"shape": list(a.shape), "f4" if exact else "f8": base64.b64encode(raw).decode()}


def weights_payload(weights) -> dict:
    """A ``rope_explained.trained.TrainedWeights`` as JSON-ready values: its sizes, base and
    training length, its name and SHA-256, and every array (``encode_array``), the readout's
    bias included."""
    arrays = weights.arrays()
    if tuple(arrays) != WEIGHT_ARRAYS:
        raise PluginError(
            f"docs/hooks/playground.py sends the arrays {WEIGHT_ARRAYS}, but TrainedWeights.arrays "
            f"gives {tuple(arrays)}"
        )
    arrays["b_out"] = weights.weights.readout.b_out
    return {
        "name": weights.name,
        "d": weights.d,
        "D": weights.D,
        "base": weights.base,
        "length": weights.length,
        "sha256": weights.sha256,
        "arrays": {name: encode_array(name, a) for name, a in arrays.items()},
    }


def weights_js(seed: int) -> str:
    """The text of the weights file of a trained seed: it adds the frozen weights to
    ``window.RopePlaygroundWeights`` under their name (``"seed-0"``, ...)."""
    payload = json.dumps(weights_payload(package().trained.load(seed)), ensure_ascii=True)
    return (
        "// Generated by docs/hooks/playground.py from rope_explained/data/ while the site\n"
        "// builds: the weights of one trained model, for the playground's model.js. Do not edit.\n"
        "(function (weights) {\n"
        '  "use strict";\n'
        "  Object.values(weights.arrays).forEach(Object.freeze);\n"
        "  Object.freeze(weights.arrays);\n"
        f"  var all = window.{WEIGHTS_GLOBAL} || (window.{WEIGHTS_GLOBAL} = {{}});\n"
        "  all[weights.name] = Object.freeze(weights);\n"
        f"}})({payload});\n"
    )


def band(layer: int, indices, pairs: int) -> dict:
    """Pair indices zeroed in one layer as the page's controls set them: the fastest or the
    slowest ``count`` pairs."""
    indices = sorted(indices)
    count = len(indices)
    for name, want in (("fastest", range(count)), ("slowest", range(pairs - count, pairs))):
        if count and indices == list(want):
            return {"layer": layer, "band": name, "count": count}
    raise PluginError(
        f"the playground zeroes the fastest or the slowest pairs of a layer; the ablation of "
        f"layer {layer} zeroes pairs {indices} of {pairs}"
    )


def trained_data(pkg: SimpleNamespace) -> dict:
    """What the page needs to offer the trained weights: the seeds, their weights files (paths
    relative to data.js), their pairs, the band-ablation recipes of the chapter and the prompt
    they load."""
    tr, chapter = pkg.trained, pkg.figures_trained
    if set(ABLATION_LABELS) != set(chapter.ABLATIONS):
        raise PluginError(
            f"docs/hooks/playground.py labels the ablations {sorted(ABLATION_LABELS)}, but "
            f"rope_explained.figures.trained.ABLATIONS is {list(chapter.ABLATIONS)}"
        )
    first = tr.load(tr.SEEDS[0])
    if any(tr.load(s).d != first.d for s in tr.SEEDS) or pkg.model.Config().d != first.d:
        raise PluginError(
            "the page's pair sliders serve the hand-built circuit (Config().d) and every trained "
            "seed: they need the same head dimension d"
        )
    recipes = {}
    for key in ABLATION_LABELS:  # the order of the chapter's table
        (layer, indices), *more = chapter.ABLATIONS[key].items()
        if more:
            raise PluginError(f"the ablation {key!r} zeroes pairs in both layers")
        recipes[key] = {**band(layer, indices, first.pairs), "label": ABLATION_LABELS[key]}
    return {
        "SEEDS": list(tr.SEEDS),
        "SCRIPTS": {
            f"seed-{s}": posixpath.basename(WEIGHTS_JS.format(name=f"seed-{s}")) for s in tr.SEEDS
        },
        "PAIRS": first.pairs,
        # the page's sliders of pairs zeroed per layer: none to every pair
        "ZERO_COUNT_RANGE": [0, first.pairs],
        "LENGTH": first.length,
        "ABLATIONS": recipes,
        "ABLATION_PROMPT": chapter.ablation_prompt(),
    }


def playground_data() -> dict:
    """Everything the playground's JavaScript takes from the package, as JSON-ready values."""
    pkg = package()
    ex, rope = pkg.examples, pkg.rope
    heads = pkg.heads.HEADS
    if set(HEAD_LABELS) != set(heads) or RANK1_HEAD not in heads:
        raise PluginError(
            f"docs/hooks/playground.py labels the heads {sorted(HEAD_LABELS)} and switches to "
            f"{RANK1_HEAD!r}, but rope_explained.heads.HEADS is {list(heads)}"
        )
    if set(SCALING_LABELS) != set(rope.SCALING_METHODS):
        raise PluginError(
            f"docs/hooks/playground.py labels the scalings {sorted(SCALING_LABELS)}, but "
            f"rope_explained.rope.SCALING_METHODS is {list(rope.SCALING_METHODS)}"
        )
    defaults = {f.name: f.default for f in dataclasses.fields(pkg.model.Config)}
    if dataclasses.MISSING in defaults.values():
        raise PluginError(f"every field of Config needs a plain default; got {defaults}")
    maps = {
        "sequential": pkg.figures_style.SEQUENTIAL,
        "score_gap": pkg.figures_playground.SCORE_GAP_CMAP,
    }
    return {
        "DEFAULTS": defaults,
        "CONFIG_MAX": dict(pkg.model.CONFIG_MAX),
        "MODEL_MAX_LETTERS": pkg.model.MAX_LETTERS,
        "HEATMAP_MAX_LETTERS": ex.HEATMAP_MAX_LETTERS,
        "ALPHA_RANGE": list(ex.ALPHA_RANGE),
        "BASE_RANGE": list(ex.BASE_RANGE),
        "VOCAB": list(pkg.embedding.VOCAB),
        "LETTER_STEP": float(pkg.embedding.LETTER_STEP),
        "HEADS": list(heads),
        "HEAD_LABELS": {h: HEAD_LABELS[h] for h in heads},
        "OPENING_PROMPT": ex.OPENING_PROMPT,
        "RANK1_FAILS_PROMPT": ex.RANK1_FAILS_PROMPT,
        "RANK1_HEAD": RANK1_HEAD,
        "LONG_PROMPT": ex.LONG_PROMPT,
        "SCORE_GAP_FLOOR": pkg.figures_playground.SCORE_GAP_FLOOR,
        "COLOUR_MAPS": maps,
        "COLOUR_TABLES": {name: colour_table(name) for name in sorted(set(maps.values()))},
        "LAYOUTS": list(rope.LAYOUTS),
        "LAST_POSITION_MAX_LETTERS": ex.LAST_POSITION_MAX_LETTERS,
        "LONG_MODE_PROMPT": ex.LONG_MODE_PROMPT,
        "SCALING_METHODS": list(rope.SCALING_METHODS),
        "SCALING_LABELS": {m: SCALING_LABELS[m] for m in rope.SCALING_METHODS},
        "USES_ORIGINAL": [m for m in rope.SCALING_METHODS if uses_original_context(m, pkg)],
        "FACTOR": ex.FACTOR,
        "FACTOR_RANGE": list(ex.FACTOR_RANGE),
        "ORIGINAL_MAX_POSITION": ex.ORIGINAL_MAX_POSITION,
        "ORIGINAL_MAX_POSITION_RANGE": list(ex.ORIGINAL_MAX_POSITION_RANGE),
        "YARN": {
            **_defaults(pkg, ("beta_fast", "beta_slow")),
            "attention_slope": rope.YARN_ATTENTION_SLOPE,
            "min_ramp": rope.YARN_MIN_RAMP,
        },
        "LLAMA3": _defaults(pkg, ("low_freq_factor", "high_freq_factor")),
        "TRAINED": trained_data(pkg),
    }


def data_js() -> str:
    """The text of data.js: ``window.RopePlaygroundData``, deeply frozen."""
    return frozen_data_js(
        playground_data(),
        GLOBAL,
        "playground.py",
        "the values the playground's model.js and ui.js read",
    )


def loader_html(page_url: str) -> str:
    """The inline script that loads the playground's scripts on the page at ``page_url``."""
    return load_scripts(
        page_url,
        SCRIPTS,
        marker="rope-playground",
        root="rope-playground",
        name="playground",
        restarter="ui.js",
    )


def on_files(files, config, **kwargs):
    """Add data.js to the site, generated from the package."""
    if files.get_file_from_path(DATA_JS) is not None:
        raise PluginError(f"docs/{DATA_JS} must not exist: the build writes it")
    files.append(File.generated(config, DATA_JS, content=data_js()))
    for seed in package().trained.SEEDS:
        path = WEIGHTS_JS.format(name=f"seed-{seed}")
        if files.get_file_from_path(path) is not None:
            raise PluginError(f"docs/{path} must not exist: the build writes it")
        files.append(File.generated(config, path, content=weights_js(seed)))
    return files


def on_post_page(output, page, config, **kwargs):
    """On the playground page only: the loader, at the start of its article (which ends with
    the page's citation)."""
    if page.file.src_uri != PAGE:
        return output
    start = '<article class="md-content__inner md-typeset">'
    if output.count(start) != 1 or 'class="rope-playground"' not in output:
        raise PluginError(f"{PAGE}: expected one article holding a .rope-playground element")
    return output.replace(start, start + loader_html(page.url))
