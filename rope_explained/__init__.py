"""rope_explained: Rotary Position Embedding, equation by equation.

The RoPE mathematics (:mod:`rope_explained.rope`), the two pairing conventions
(:mod:`rope_explained.conventions`), the demo embedding (:mod:`rope_explained.embedding`), the
hand-built heads (:mod:`rope_explained.heads`), the two-layer model and its traced forward pass
(:mod:`rope_explained.model`) and the experiments (:mod:`rope_explained.experiments`).
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

__version__ = "0.1.0"

__all__ = [
    "BOS",
    "HEADS",
    "LAYOUTS",
    "SCALING_METHODS",
    "SCHEDULES",
    "VOCAB",
    "Config",
    "InductionPrompt",
    "LastPosition",
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
    "forward_tokens",
    "frequencies",
    "half_to_interleaved",
    "induction_accuracy",
    "induction_hits",
    "induction_prompts",
    "interleaved_to_half",
    "letter_angle",
    "make_config",
    "pair_horizons",
    "plane_basis",
    "plane_reader",
    "predict_last",
    "predict_next",
    "previous_token_experiment",
    "previous_token_scores",
    "rope_complex",
    "rope_rotate_half",
    "rotation_matrix",
    "scaled_frequencies",
    "semantic_head_experiment",
    "semantic_head_inputs",
    "semantic_offset_scores",
    "semantic_recency",
    "stable_pair_count",
    "tokenize",
    "yarn_keep",
]
