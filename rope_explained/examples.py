"""The site's running examples and the playground's limits: one source for pages, tests and JS.

Every page that runs the model on "the" example uses [`FORWARD_PASS_PROMPT`][]; the
playground's prompts and input limits live here too, and the site build exports them (with the
[`Config`][rope_explained.model.Config] defaults, the vocabulary and the head names) into the data
file the playground's JavaScript reads, so nothing is copied by hand.
"""

from __future__ import annotations

import numpy as np

from .embedding import VOCAB
from .experiments import induction_prompts

FORWARD_PASS_PROMPT = "thecatsatonthec"
"""The prompt of the forward-pass pages and of the home page's circuit: "the cat sat on the c".
The earlier "c" was followed by "a", so an induction head should predict "a"."""

OPENING_PROMPT = "inductionheadsinductionhe"
"""The prompt the playground opens with: the working head copies "a" (as in "heads")."""
RANK1_FAILS_PROMPT = "abcdefghijabcdefg"
"""The prompt of the playground's "rank-1 fails" button: the working head copies "h", the
rank-1 head does not."""
LONG_PROMPT = induction_prompts(1, min_len=256, max_len=256, seed=7)[0].text
"""The prompt of the playground's "256 letters" button: 256 random letters whose last one was
seen exactly once before; ``induction_prompts(1, 256, 256, seed=7)``."""

HEATMAP_MAX_LETTERS = 256
"""The longest text the playground draws whole, as heatmaps of its T x T patterns (the model's
own limit is [`MAX_LETTERS`][rope_explained.model.MAX_LETTERS])."""
ALPHA_RANGE = (0.1, 1000.0)
"""The playground's logarithmic sliders: (lowest, highest) value."""
BASE_RANGE = (10.0, 1e6)

LAST_POSITION_MAX_LETTERS = 4096
"""The longest text of the playground's last-position view, which draws the last query's
attention as a line instead of the T x T patterns."""
FACTOR_RANGE = (1.0, 16.0)
"""The playground's context-extension controls: the factor s (a logarithmic slider in quarter
powers of two) and the original context L (powers of two), each (lowest, highest)."""
ORIGINAL_MAX_POSITION_RANGE = (64, 4096)
FACTOR = 4.0
"""What those controls start at: s = 4 on a model taken to be built for L = 1,024 positions."""
ORIGINAL_MAX_POSITION = 1024
LONG_MODE_DISTANCE = 1500
"""Where the first A of [`LONG_MODE_PROMPT`][] sits, counted back from the last letter."""


def _long_mode_prompt(length: int, distance: int, seed: int) -> str:
    """``length`` random letters ``... A B ... A``: ``A`` (a random letter) occurs exactly twice,
    the first ``distance`` letters before the last; the others are uniform over the 25 others."""
    rng = np.random.default_rng(seed)
    a = int(rng.integers(len(VOCAB)))
    others = [i for i in range(len(VOCAB)) if i != a]
    letters = [VOCAB[others[j]] for j in rng.integers(len(others), size=length)]
    letters[length - 1 - distance] = letters[-1] = VOCAB[a]
    return "".join(letters)


LONG_MODE_PROMPT = _long_mode_prompt(LAST_POSITION_MAX_LETTERS, LONG_MODE_DISTANCE, seed=0)
"""The prompt of the playground's "4,096 letters" button: its last letter occurred once
before, [`LONG_MODE_DISTANCE`][] letters back."""

CONFIG_PROMPTS = 8
"""How many prompts the page "Paste your model's config" runs the circuit on, at the length its
recipe extends the circuit to (each ``A B ... A``, from a seeded generator in the page's script)."""
CONFIG_SEED = 1
"""The seed of those prompts."""
CONFIG_DISTANCE_SHARE = 0.75
r"""Where that page measures the circuit: prompts whose two A's lie this share of \(2^k L\)
apart, for each doubling \(2^k\) of the original context up to the recipe's factor \(s\):
inside the reach a recipe that slows the slowest pair by \(2^k\) gives the circuit (about
906 tokens times \(2^k\), under \(2^k L\))."""
