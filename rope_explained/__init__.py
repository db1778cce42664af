"""rope_explained: Rotary Position Embedding, equation by equation.

The RoPE mathematics (``rope_explained.rope``), the two pairing conventions
(``rope_explained.conventions``), the demo embedding (``rope_explained.embedding``), the
hand-built heads (``rope_explained.heads``), the two-layer model and its traced forward pass
(``rope_explained.model``), the experiments (``rope_explained.experiments``), those on
RoPE as released models run it (``rope_explained.real_models``), the additive sinusoidal
encoding it replaces (``rope_explained.sinusoidal``), incremental decoding, padding and
packing (``rope_explained.decoding``), RoPE in low-precision formats
(``rope_explained.precision``), context extension measured on the model
(``rope_explained.extension``) and a Hugging Face configuration read as RoPE
(``rope_explained.hf``).
"""

from .conventions import half_to_interleaved, interleaved_to_half, rope_complex, rope_rotate_half
from .decoding import (
    FAULTS,
    DecodeStep,
    KVCache,
    decode,
    decode_step,
    document_starts,
    new_cache,
    pack,
    pad_left,
)
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
from .precision import (
    PIPELINES,
    angle_error,
    angles,
    cos_sin_error,
    first_failure,
    log_positions,
    previous_token_attention,
    rotate_in,
    score_drift,
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
    "FAULTS",
    "HEADS",
    "LAYOUTS",
    "PARTIAL_VARIANTS",
    "PIPELINES",
    "SCALING_METHODS",
    "SCHEDULES",
    "VOCAB",
    "Config",
    "DecodeStep",
    "InductionPrompt",
    "KVCache",
    "LastPosition",
    "Slots",
    "Trace",
    "additive_score_terms",
    "angle_error",
    "angles",
    "apply_rope",
    "apply_rope_matrix",
    "causal_softmax",
    "constant_key_vector",
    "convention_experiment",
    "cos_sin_error",
    "d0_sweep_values",
    "decode",
    "decode_step",
    "document_starts",
    "embed_index",
    "embedding_matrix",
    "first_failure",
    "forward",
    "forward_tokens",
    "frequencies",
    "half_to_interleaved",
    "induction_accuracy",
    "induction_hits",
    "induction_prompts",
    "interleaved_to_half",
    "letter_angle",
    "log_positions",
    "make_config",
    "new_cache",
    "other_layout",
    "pack",
    "pad_left",
    "pair_horizons",
    "partial_rotary_sweep",
    "plane_basis",
    "plane_reader",
    "predict_last",
    "predict_next",
    "previous_token_attention",
    "previous_token_experiment",
    "previous_token_scores",
    "rope_complex",
    "rope_rotate_half",
    "rotary_frequencies",
    "rotate_in",
    "rotation_matrix",
    "scaled_frequencies",
    "score_drift",
    "semantic_head_experiment",
    "semantic_head_inputs",
    "semantic_offset_scores",
    "semantic_recency",
    "sinusoidal_positions",
    "stable_pair_count",
    "tokenize",
    "yarn_keep",
]
