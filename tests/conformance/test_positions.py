"""Positions and masks that transformers derives from the batch, against the package: the
positions of a left-padded row (``GenerationMixin._prepare_position_ids_for_generation``)
against ``pad_left(count_pads=False)``, and the document mask that ``masking_utils`` builds
from reset ``position_ids`` when no attention mask and no cache are given
(``find_packed_sequence_indices``, ``create_causal_mask``) against ``pack``.

Positions are small integers on both sides and masks are booleans: compared exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import LlamaConfig
from transformers.generation.utils import GenerationMixin
from transformers.masking_utils import create_causal_mask, find_packed_sequence_indices

from rope_explained.decoding import document_starts, pack, pad_left

TEXTS = ["thecatsatonthec", "abcab", "xyz"]


def hf_generation_positions(attention_mask: np.ndarray) -> np.ndarray:
    """The position_ids transformers' ``generate`` gives a batch with this attention mask."""
    mask = torch.from_numpy(attention_mask.astype(np.int64))
    ids = GenerationMixin._prepare_position_ids_for_generation(
        None, torch.zeros_like(mask), {"attention_mask": mask}
    )
    return ids.numpy()


@pytest.mark.parametrize("pads", [0, 1, 4, 9])
@pytest.mark.parametrize("bos", [True, False])
def test_left_padded_positions_are_transformers_positions(pads, bos):
    text = "thecatsatonthec"
    tr = pad_left(text, pads, count_pads=False, bos=bos)
    T = len(tr.tokens)
    attention_mask = np.r_[np.zeros(pads), np.ones(T - pads)][None]
    np.testing.assert_array_equal(tr.positions, hf_generation_positions(attention_mask)[0])
    # counting the pads instead is what transformers does for a row without pads only
    counted = pad_left(text, pads, count_pads=True, bos=bos).positions
    assert np.array_equal(counted, hf_generation_positions(attention_mask)[0]) == (pads == 0)


def test_a_left_padded_batch_row_by_row():
    rows = [("thecatsatonthec", 0), ("abcab", 10), ("xyz", 12)]
    width = len(pad_left(*rows[0]).tokens)
    attention_mask = np.zeros((len(rows), width))
    for i, (text, pads) in enumerate(rows):
        assert len(pad_left(text, pads).tokens) == width
        attention_mask[i, pads:] = 1
    hf = hf_generation_positions(attention_mask)
    for i, (text, pads) in enumerate(rows):
        np.testing.assert_array_equal(pad_left(text, pads, count_pads=False).positions, hf[i])


def hf_packed_mask(position_ids: np.ndarray, implementation: str) -> np.ndarray:
    """The mask transformers' ``create_causal_mask`` builds from ``position_ids`` alone (no
    attention mask, no cache), as booleans (True: the query sees the key). None, which sdpa
    receives when the mask is only causal (it then runs with ``is_causal``), is the causal
    mask."""
    T = position_ids.shape[-1]
    cfg = LlamaConfig(
        hidden_size=8, num_attention_heads=1, num_hidden_layers=1, vocab_size=8,
        max_position_embeddings=4096,
    )  # fmt: skip
    cfg._attn_implementation = implementation
    mask = create_causal_mask(
        config=cfg,
        inputs_embeds=torch.zeros(1, T, 8),
        attention_mask=None,
        cache=None,
        position_ids=torch.from_numpy(position_ids.astype(np.int64))[None],
    )
    if mask is None:
        return np.tri(T, dtype=bool)
    mask = mask[0, 0]
    return mask.numpy() if mask.dtype == torch.bool else (mask == 0).numpy()


@pytest.mark.parametrize("bos", [True, False])
def test_reset_positions_give_transformers_the_document_ids(bos):
    tr = pack(TEXTS, reset_positions=True, bos=bos)
    ids = find_packed_sequence_indices(torch.from_numpy(tr.positions.astype(np.int64))[None])
    starts = document_starts(TEXTS, bos=bos)
    expected = np.searchsorted(starts, np.arange(len(tr.tokens)), side="right") - 1
    np.testing.assert_array_equal(ids[0].numpy(), expected)
    # positions running on: one document, which transformers reports as None
    running = pack(TEXTS, reset_positions=False, bos=bos).positions.astype(np.int64)
    assert find_packed_sequence_indices(torch.from_numpy(running)[None]) is None


@pytest.mark.parametrize("implementation", ["sdpa", "eager"])
@pytest.mark.parametrize("bos", [True, False])
def test_transformers_builds_the_document_mask_from_reset_positions(implementation, bos):
    tr = pack(TEXTS, reset_positions=True, mask_documents=True, bos=bos)
    np.testing.assert_array_equal(hf_packed_mask(tr.positions, implementation), tr.mask)
    # and positions running on give the causal mask only, which pack has without documents
    running = pack(TEXTS, reset_positions=False, mask_documents=False, bos=bos)
    np.testing.assert_array_equal(hf_packed_mask(running.positions, implementation), running.mask)
    assert not np.array_equal(tr.mask, running.mask)
