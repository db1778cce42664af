"""The package against transformers' rotary modules in use, not only their frequencies:
dynamic NTK's memory (``dynamic_rope_update`` on ``LlamaRotaryEmbedding.forward``) against
``rope_explained.rope.DynamicNTKState``, and partial rotary as Phi-3 applies it (the first
``rotary_dim`` coordinates, ``rotate_half`` inside them, the rest passed through) against
``apply_rope(..., rotary_dim=...)`` and ``HFRope.apply``. Frequencies to 2e-6 relative
(test_scaling.py); rotated vectors to float32's rounding of cos and sin at positions below 64
(angles below 64, so an absolute 1e-5 on entries of order 1)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import LlamaConfig, Phi3Config
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding
from transformers.models.phi3.modeling_phi3 import Phi3RotaryEmbedding, apply_rotary_pos_emb

from rope_explained.hf import from_config
from rope_explained.rope import DynamicNTKState, apply_rope, scaled_frequencies

RTOL = 2e-6
ATOL = 1e-5


def _module_inv_freq(module, n: int) -> np.ndarray:
    x = torch.zeros(1, n, 8)
    module(x, torch.arange(n)[None])
    return module.inv_freq.double().numpy().copy()


def _dynamic_llama() -> LlamaRotaryEmbedding:
    config = LlamaConfig(
        hidden_size=16,
        num_attention_heads=2,
        head_dim=8,
        max_position_embeddings=8,
        rope_parameters={"rope_type": "dynamic", "factor": 4.0, "rope_theta": 10000.0},
    )
    return LlamaRotaryEmbedding(config)


def test_dynamic_ntk_state_is_transformers_module():
    """32, 16, 8 and 4 tokens, head 8, L = 8, factor 4: the module keeps the 32-token
    frequencies for 16 tokens and for 8 (not fewer than L), and resets at 4."""
    module = _dynamic_llama()
    state = DynamicNTKState(8, base=10000.0, factor=4.0, original_max_position=8)
    for n in (32, 16, 8, 4, 16):
        theirs = _module_inv_freq(module, n)
        np.testing.assert_allclose(state.inv_freq(n), theirs, rtol=RTOL, atol=0)


def test_the_stateless_reading_is_not_the_module():
    module = _dynamic_llama()
    _module_inv_freq(module, 32)
    theirs = _module_inv_freq(module, 16)
    stateless, _ = scaled_frequencies(
        8, method="dynamic", factor=4.0, original_max_position=8, seq_len=16
    )
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(stateless, theirs, rtol=RTOL, atol=0)


@pytest.mark.parametrize(("head_dim", "p"), [(32, 0.5), (32, 0.75), (40, 0.4)])
def test_partial_rotary_is_phi3s(head_dim, p):
    fields = {
        "hidden_size": 2 * head_dim,
        "num_attention_heads": 2,
        "max_position_embeddings": 64,
        "rope_theta": 10000.0,
        "partial_rotary_factor": p,
    }
    module = Phi3RotaryEmbedding(Phi3Config(**fields))
    seq = 24
    rng = np.random.default_rng(3)
    q = rng.normal(size=(1, 1, seq, head_dim)).astype(np.float32)
    positions = torch.arange(seq)[None]
    cos, sin = module(torch.from_numpy(q), positions)
    theirs, _ = apply_rotary_pos_emb(torch.from_numpy(q), torch.from_numpy(q), cos, sin)
    theirs = theirs.double().numpy()
    rope = from_config(fields)
    w = rope.rotary_dim
    assert w == cos.shape[-1] == int(head_dim * p)
    ours = apply_rope(
        q.astype(np.float64), np.arange(seq), layout="half", inv_freq=rope.inv_freq, rotary_dim=w
    )
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=ATOL)
    np.testing.assert_allclose(rope.apply(q.astype(np.float64), np.arange(seq)), theirs, atol=ATOL)
    assert np.array_equal(theirs[..., w:], q[..., w:])  # transformers passes the tail through
    with pytest.raises(AssertionError):  # the interleaved pairing is another rotation
        wrong = apply_rope(
            q.astype(np.float64), np.arange(seq), layout="interleaved", inv_freq=rope.inv_freq,
            rotary_dim=w,
        )  # fmt: skip
        np.testing.assert_allclose(wrong, theirs, rtol=0, atol=ATOL)
