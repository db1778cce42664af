"""rope_explained: Rotary Position Embedding, equation by equation.

The RoPE mathematics (:mod:`rope_explained.rope`), the demo embedding
(:mod:`rope_explained.embedding`), the hand-built heads (:mod:`rope_explained.heads`), the
two-layer model and its traced forward pass (:mod:`rope_explained.model`) and Chris Wendler's
experiments (:mod:`rope_explained.experiments`).
"""

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
from .model import Config, Trace, causal_softmax, forward, make_config, predict_next
from .rope import (
    LAYOUTS,
    SCALING_METHODS,
    apply_rope,
    apply_rope_matrix,
    frequencies,
    rotation_matrix,
    scaled_frequencies,
)

__version__ = "0.1.0"

__all__ = [
    "BOS",
    "HEADS",
    "LAYOUTS",
    "SCALING_METHODS",
    "VOCAB",
    "Config",
    "InductionPrompt",
    "Slots",
    "Trace",
    "apply_rope",
    "apply_rope_matrix",
    "causal_softmax",
    "constant_key_vector",
    "d0_sweep_values",
    "embed_index",
    "embedding_matrix",
    "forward",
    "frequencies",
    "induction_accuracy",
    "induction_prompts",
    "letter_angle",
    "make_config",
    "plane_basis",
    "plane_reader",
    "predict_next",
    "pair_horizons",
    "previous_token_experiment",
    "previous_token_scores",
    "rotation_matrix",
    "scaled_frequencies",
    "semantic_head_experiment",
    "semantic_recency",
    "tokenize",
    "semantic_head_inputs",
    "semantic_offset_scores",
    "stable_pair_count",
]
