"""MkDocs hook: the data file of the page "Paste your model's config", and its scripts on that
page only.

The page (``docs/real-models/your-config.md``) reads a Hugging Face ``config.json`` in the
reader's browser with four plain scripts, in this order:

* ``javascripts/playground/data.js`` and ``javascripts/playground/model.js``, the playground's
  (``playground.py`` writes the first): the circuit's forward pass, whose ``predictLast`` takes
  the frequencies the page gives it;
* ``javascripts/your-config/data.js``, written here at build time (:func:`data_js`) from the
  package, as one frozen global ``window.RopeConfigData``: the rope types and the keys each
  takes, what the package refuses and why (``rope_explained.hf``), YaRN's constants, the
  limits of the checks, the circuit's settings and the released configurations the page
  offers, each with its source;
* ``javascripts/your-config/hf.js`` (``from_config`` in the browser, and the recipe on the
  circuit) and ``javascripts/your-config/page.js`` (the form, the table and the plot).

As on the playground, one inline loader (:func:`loader_html`) adds the scripts in order, once
per browser page; page.js restarts itself after each instant navigation.
"""

from __future__ import annotations

import importlib
import inspect

from hooklib import frozen_data_js, load_figures
from hooklib import loader_html as load_scripts
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from playground import DATA_JS as PLAYGROUND_DATA_JS

PAGE = "real-models/your-config.md"
DATA_JS = "javascripts/your-config/data.js"
SCRIPTS = (
    PLAYGROUND_DATA_JS,
    "javascripts/playground/model.js",
    DATA_JS,
    "javascripts/your-config/hf.js",
    "javascripts/your-config/page.js",
)
GLOBAL = "RopeConfigData"
ROOT_CLASS = "rope-your-config"
#: Keys of a model's rope parameters that stay with its own head when its recipe is put on the
#: circuit: its base, rotary share (except for the proportional type, whose recipe it is),
#: original context, and LongRoPE's per-pair lists.
OWN_HEAD_KEYS = (
    "rope_type",
    "type",
    "rope_theta",
    "original_max_position_embeddings",
    "short_factor",
    "long_factor",
)


def _module(name: str):
    load_figures()  # the package as its source is now (mkdocs serve rebuilds in one process)
    return importlib.import_module(f"rope_explained.{name}")


def recipe_keys(allowed: dict) -> list[str]:
    """The rope-parameter keys a recipe carries to the circuit: every key some rope type takes,
    except :data:`OWN_HEAD_KEYS`; ``partial_rotary_factor`` only for the proportional type, whose
    recipe is which share of the pairs turns (the page says so)."""
    keys = set().union(*map(set, allowed.values())) - set(OWN_HEAD_KEYS)
    return sorted(keys)


def config_data() -> dict:
    """Everything the page's JavaScript takes from the package, as JSON-ready values."""
    hf, rope, checks = _module("hf"), _module("rope"), _module("_checks")
    model, examples = _module("model"), _module("examples")
    cfg = model.Config()
    defaults = inspect.signature(rope.scaled_frequencies).parameters
    allowed = {t: sorted(keys) for t, keys in hf.ALLOWED_KEYS.items()}
    if list(allowed) != list(rope.ROPE_TYPES):
        raise PluginError(f"hf.ALLOWED_KEYS names {list(allowed)}, not rope.ROPE_TYPES")
    return {
        "ROPE_TYPES": list(rope.ROPE_TYPES),
        "ALLOWED_KEYS": allowed,
        "REFUSED": dict(hf.REFUSED),
        "YARN": {
            "beta_fast": defaults["beta_fast"].default,
            "beta_slow": defaults["beta_slow"].default,
            "attention_slope": rope.YARN_ATTENTION_SLOPE,
            "min_ramp": rope.YARN_MIN_RAMP,
        },
        "LIMITS": {
            "max_base": checks.MAX_BASE,
            "max_head_dim": checks.MAX_HEAD_DIM,
            "max_context": checks.MAX_CONTEXT,
            "max_factor": rope.MAX_FACTOR,
        },
        "CIRCUIT": {
            "d": cfg.d,
            "base": cfg.base,
            "original_max_position": examples.ORIGINAL_MAX_POSITION,
            "max_positions": model.MAX_LETTERS + int(cfg.bos),
            "prompts": examples.CONFIG_PROMPTS,
            "seed": examples.CONFIG_SEED,
            "distance_share": examples.CONFIG_DISTANCE_SHARE,
            "recipe_keys": recipe_keys(allowed),
        },
        "FIXTURES": [
            {key: m[key] for key in ("name", "source", "copy", "note", "layer_types", "config")}
            for m in hf.released_configs()
        ],
    }


def data_js() -> str:
    """The text of data.js: ``window.RopeConfigData``, deeply frozen."""
    return frozen_data_js(
        config_data(), GLOBAL, "your_config.py", "the values hf.js and page.js read"
    )


def loader_html(page_url: str) -> str:
    """The inline script that loads the page's scripts, in order, once per browser page."""
    return load_scripts(
        page_url,
        SCRIPTS,
        marker="rope-your-config",
        root=ROOT_CLASS,
        name="page",
        restarter="page.js",
    )


def on_files(files, config, **kwargs):
    """Add data.js to the site, generated from the package."""
    if files.get_file_from_path(DATA_JS) is not None:
        raise PluginError(f"docs/{DATA_JS} must not exist: the build writes it")
    files.append(File.generated(config, DATA_JS, content=data_js()))
    return files


def on_post_page(output, page, config, **kwargs):
    """On the page only: the loader, at the start of its article."""
    if page.file.src_uri != PAGE:
        return output
    start = '<article class="md-content__inner md-typeset">'
    if output.count(start) != 1 or f'class="{ROOT_CLASS}"' not in output:
        raise PluginError(f"{PAGE}: expected one article holding a .{ROOT_CLASS} element")
    return output.replace(start, start + loader_html(page.url))
