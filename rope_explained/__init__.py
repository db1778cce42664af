"""rope_explained: Rotary Position Embedding, equation by equation.

The RoPE mathematics (:mod:`rope_explained.rope`), the two pairing conventions
(:mod:`rope_explained.conventions`), the demo embedding (:mod:`rope_explained.embedding`), the
hand-built heads (:mod:`rope_explained.heads`), the two-layer model and its traced forward pass
(:mod:`rope_explained.model`), the experiments (:mod:`rope_explained.experiments`), those on
RoPE as released models run it (:mod:`rope_explained.real_models`) and the additive sinusoidal
encoding it replaces (:mod:`rope_explained.sinusoidal`).
"""

from .conventions import half_to_interleaved, interleaved_to_half, rope_complex, rope_rotate_half
from .embedding import (
    BOS,
    VOCAB,
    embed_index,
    embedding_matrix,
    letter_angle,
    plane_basis,
    plane_reader,
    tokenize,
)
from .experiments import (
    InductionPrompt,
    d0_sweep_values,
    induction_accuracy,
    induction_hits,
    induction_prompts,
    pair_horizons,
    previous_token_experiment,
    previous_token_scores,
    semantic_head_experiment,
    semantic_head_inputs,
    semantic_offset_scores,
    semantic_recency,
    stable_pair_count,
)
from .heads import HEADS, Slots, constant_key_vector
from .model import (
    Config,
    LastPosition,
    Trace,
    causal_softmax,
    forward,
    forward_tokens,
    make_config,
    predict_last,
    predict_next,
)
from .real_models import (
    PARTIAL_VARIANTS,
    convention_experiment,
    other_layout,
    partial_rotary_sweep,
    rotary_frequencies,
)
from .rope import (
    LAYOUTS,
    SCALING_METHODS,
    SCHEDULES,
    apply_rope,
    apply_rope_matrix,
    frequencies,
    rotation_matrix,
    scaled_frequencies,
    yarn_keep,
)
from .sinusoidal import additive_score_terms, sinusoidal_positions

__version__ = "0.1.0"

__all__ = [
    "BOS",
    "HEADS",
    "LAYOUTS",
    "PARTIAL_VARIANTS",
    "SCALING_METHODS",
    "SCHEDULES",
    "VOCAB",
    "Config",
    "InductionPrompt",
    "LastPosition",
    "Slots",
    "Trace",
    "additive_score_terms",
    "apply_rope",
    "apply_rope_matrix",
    "causal_softmax",
    "constant_key_vector",
    "convention_experiment",
    "d0_sweep_values",
    "embed_index",
    "embedding_matrix",
    "forward",
    "forward_tokens",
    "frequencies",
    "half_to_interleaved",
    "induction_accuracy",
    "induction_hits",
    "induction_prompts",
    "interleaved_to_half",
    "letter_angle",
    "make_config",
    "other_layout",
    "pair_horizons",
    "partial_rotary_sweep",
    "plane_basis",
    "plane_reader",
    "predict_last",
    "predict_next",
    "previous_token_experiment",
    "previous_token_scores",
    "rope_complex",
    "rope_rotate_half",
    "rotary_frequencies",
    "rotation_matrix",
    "scaled_frequencies",
    "semantic_head_experiment",
    "semantic_head_inputs",
    "semantic_offset_scores",
    "semantic_recency",
    "sinusoidal_positions",
    "stable_pair_count",
    "tokenize",
    "yarn_keep",
]
