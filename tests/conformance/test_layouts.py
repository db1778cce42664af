"""The rotate-half layout and the weight permutation between the layouts, against
transformers' own code: ``rotate_half``, ``apply_rotary_pos_emb`` and
``LlamaRotaryEmbedding`` of ``models/llama/modeling_llama.py``, and the permutation that
transformers applies to q and k weights stored in Meta's interleaved layout
(``core_model_loading.PermuteForRope``, and ``LlamaTensorProcessor`` of the GGUF loader),
against ``rope_explained.conventions``.

The permutations and ``rotate_half`` move numbers without arithmetic: they are compared
exactly. The rotations are compared in float64 on both sides (torch is given float64
tensors), where the two sides differ only in the order of a few roundings: to 1e-12 for
entries of size 1. ``LlamaRotaryEmbedding`` computes its angles in float32 by design;
its cosines are compared with the package's float64 ones to the float32 rounding of an angle
``m * theta`` (relative 2**-24 of up to ``m``, here m < 64: 4e-6) plus one of the cosine.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import LlamaConfig
from transformers.core_model_loading import PermuteForRope
from transformers.modeling_gguf_pytorch_utils import LlamaTensorProcessor
from transformers.models.llama.modeling_llama import (
    LlamaRotaryEmbedding,
    apply_rotary_pos_emb,
)
from transformers.models.llama.modeling_llama import rotate_half as hf_rotate_half

from rope_explained.conventions import (
    half_to_interleaved,
    interleaved_to_half,
    rope_complex,
    rope_rotate_half,
    rotate_half,
)
from rope_explained.rope import apply_rope, frequencies

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("d", [2, 4, 8, 64, 128])
def test_rotate_half_is_transformers_rotate_half(d):
    x = RNG.standard_normal((3, 5, d))
    theirs = hf_rotate_half(torch.from_numpy(x)).numpy()
    np.testing.assert_array_equal(rotate_half(x), theirs)


@pytest.mark.parametrize("d", [8, 64])
@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_apply_rotary_pos_emb_is_rope_in_the_half_layout(d, base):
    seq = 40
    q, k = RNG.standard_normal((2, seq, d))
    positions = np.arange(seq, dtype=np.float64)
    angles = np.outer(positions, frequencies(d, base))  # (seq, d/2), float64
    emb = np.concatenate([angles, angles], axis=-1)  # (seq, d): the angle table twice
    cos, sin = torch.from_numpy(np.cos(emb)), torch.from_numpy(np.sin(emb))
    # transformers' shapes: (batch, heads, seq, d) and cos/sin (batch, seq, d)
    q_hf, k_hf = apply_rotary_pos_emb(
        torch.from_numpy(q)[None, None], torch.from_numpy(k)[None, None], cos[None], sin[None]
    )
    for ours, theirs in (
        (apply_rope(q, positions, base=base, layout="half"), q_hf),
        (rope_rotate_half(k, positions, base=base), k_hf),
    ):
        np.testing.assert_allclose(ours, theirs[0, 0].numpy(), rtol=0, atol=1e-12)


def test_llama_rotary_embedding_forms_its_angles_in_float32():
    """transformers 5.x: the element-wise product ``position_ids[..., None].float() *
    inv_freq.float()`` in float32, cos and sin cast to the input's dtype afterwards."""
    d, seq = 64, 64
    cfg = LlamaConfig(
        hidden_size=2 * d,
        num_attention_heads=2,
        head_dim=d,
        num_hidden_layers=1,
        vocab_size=8,
        max_position_embeddings=seq,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
    )
    rotary = LlamaRotaryEmbedding(cfg)
    positions = torch.arange(seq)[None]
    x64 = torch.zeros(1, seq, d, dtype=torch.float64)
    cos64, sin64 = rotary(x64, positions)
    assert cos64.dtype == torch.float64  # cast to the input's dtype ...
    emb32 = positions[..., None].float() * rotary.inv_freq.float()
    emb32 = torch.cat((emb32, emb32), dim=-1)
    # ... from float32 values: exactly the float32 cosines, widened
    np.testing.assert_array_equal(cos64.numpy(), emb32.cos().double().numpy())
    np.testing.assert_array_equal(sin64.numpy(), emb32.sin().double().numpy())
    bf16 = rotary(torch.zeros(1, seq, d, dtype=torch.bfloat16), positions)[0]
    assert bf16.dtype == torch.bfloat16
    angles = np.outer(np.arange(seq), frequencies(d))  # float64, the package's
    ours = np.cos(np.concatenate([angles, angles], axis=-1))
    np.testing.assert_allclose(cos64[0].numpy(), ours, rtol=0, atol=seq * 2.0**-24 + 2.0**-24)


def _config(n_heads: int, d: int) -> LlamaConfig:
    """A configuration with ``n_heads`` heads of size ``d`` (all PermuteForRope reads is the
    number of heads)."""
    return LlamaConfig(
        hidden_size=n_heads * d,
        num_attention_heads=n_heads,
        head_dim=d,
        num_hidden_layers=1,
        vocab_size=8,
    )


def _permute_for_rope(W: np.ndarray, n_heads: int) -> np.ndarray:
    """transformers' PermuteForRope on one q or k weight, through its public ``convert``."""
    cfg = _config(n_heads, W.shape[0] // n_heads)
    out = PermuteForRope().convert(
        {"q_proj.weight": torch.from_numpy(W)},
        source_patterns=["q_proj.weight"],
        target_patterns=["q_proj.weight"],
        config=cfg,
    )
    return out["q_proj.weight"].numpy()


@pytest.mark.parametrize(("n_heads", "d", "D"), [(1, 8, 8), (4, 16, 64), (8, 128, 32), (2, 2, 3)])
def test_permute_for_rope_is_interleaved_to_half(n_heads, d, D):
    W = RNG.standard_normal((n_heads * d, D))
    theirs = _permute_for_rope(W, n_heads)
    np.testing.assert_array_equal(interleaved_to_half(W, n_heads), theirs)
    # and transformers' inverse is the package's inverse
    cfg = _config(n_heads, d)
    back = (
        PermuteForRope(inverse=True)
        .convert(
            {"k": torch.from_numpy(theirs)},
            source_patterns=["k"],
            target_patterns=["k"],
            config=cfg,
        )["k"]
        .numpy()
    )
    np.testing.assert_array_equal(half_to_interleaved(theirs, n_heads), back)
    np.testing.assert_array_equal(back, W)


@pytest.mark.parametrize(("n_heads", "n_kv_heads"), [(4, 4), (8, 2), (8, 1)])
def test_gguf_reverse_permute_is_interleaved_to_half_for_q_and_grouped_k(n_heads, n_kv_heads):
    d, D = 16, 32
    processor = LlamaTensorProcessor(
        config={"num_attention_heads": n_heads, "num_key_value_heads": n_kv_heads}
    )
    Wq = RNG.standard_normal((n_heads * d, D)).astype(np.float32)
    Wk = RNG.standard_normal((n_kv_heads * d, D)).astype(np.float32)
    q = processor.process(Wq, "blk.0.attn_q.weight").weights
    k = processor.process(Wk, "blk.0.attn_k.weight").weights
    np.testing.assert_array_equal(interleaved_to_half(Wq, n_heads), q)
    np.testing.assert_array_equal(interleaved_to_half(Wk, n_kv_heads), k)


def test_the_permutation_carries_metas_scores_to_transformers_scores():
    """What the permutation is for: Meta's interleaved rotation with W and transformers'
    rotate-half rotation with the permuted W give the same scores (float64, 1e-10 for
    scores of size ~10)."""
    d, D, seq = 16, 24, 30
    Wq, Wk = RNG.standard_normal((2, d, D))
    h = RNG.standard_normal((seq, D))
    positions = np.arange(seq, dtype=np.float64)
    meta = rope_complex(h @ Wq.T, positions) @ rope_complex(h @ Wk.T, positions).T
    angles = np.outer(positions, frequencies(d))
    emb = np.concatenate([angles, angles], axis=-1)
    cos, sin = torch.from_numpy(np.cos(emb))[None], torch.from_numpy(np.sin(emb))[None]
    q = torch.from_numpy(h @ _permute_for_rope(Wq, 1).T)[None, None]
    k = torch.from_numpy(h @ _permute_for_rope(Wk, 1).T)[None, None]
    q, k = apply_rotary_pos_emb(q, k, cos, sin)
    hf = (q[0, 0] @ k[0, 0].T).numpy()
    np.testing.assert_allclose(hf, meta, rtol=0, atol=1e-10)
    # without the permutation the scores differ by far more than that
    q0 = torch.from_numpy(h @ Wq.T)[None, None]
    k0 = torch.from_numpy(h @ Wk.T)[None, None]
    q0, k0 = apply_rotary_pos_emb(q0, k0, cos, sin)
    assert np.abs((q0[0, 0] @ k0[0, 0].T).numpy() - meta).max() > 1e-3
