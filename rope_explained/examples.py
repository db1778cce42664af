"""The site's running examples and the playground's limits: one source for pages, tests and JS.

Every page that runs the model on "the" example uses :data:`FORWARD_PASS_PROMPT`; the
playground's prompts and input limits live here too, and the site build exports them (with the
:class:`~rope_explained.model.Config` defaults, the vocabulary and the head names) into the data
file the playground's JavaScript reads, so nothing is copied by hand.
"""

from __future__ import annotations

from .experiments import induction_prompts

#: The prompt of the forward-pass pages and of the home page's circuit: "the cat sat on the c".
#: The earlier "c" was followed by "a", so an induction head should predict "a".
FORWARD_PASS_PROMPT = "thecatsatonthec"

#: The prompt the playground opens with: the working head copies "a" (as in "heads").
OPENING_PROMPT = "inductionheadsinductionhe"
#: The prompt of the playground's "rank-1 fails" button: the working head copies "h", the
#: rank-1 head does not.
RANK1_FAILS_PROMPT = "abcdefghijabcdefg"
#: The prompt of the playground's "256 letters" button: 256 random letters whose last one was
#: seen exactly once before; ``induction_prompts(1, 256, 256, seed=7)``.
LONG_PROMPT = induction_prompts(1, min_len=256, max_len=256, seed=7)[0].text

#: The longest text the playground accepts.
MAX_LETTERS = 256
#: The playground's logarithmic sliders: (lowest, highest) value.
ALPHA_RANGE = (0.1, 1000.0)
BASE_RANGE = (10.0, 1e6)
