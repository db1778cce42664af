"""``rope_explained.rope.DynamicNTKState`` against transformers' ``LlamaRotaryEmbedding`` with
``rope_type`` ``"dynamic"``: both read texts of several lengths in turn, and after each one the
module's ``inv_freq`` must be the state's (float32 against float64: the tolerance of
``test_scaling.py``), and must differ from the stateless frequencies of the text's own length
wherever the rule keeps longer ones (a text of exactly L after a long one among them).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_scaling import RTOL, hf_config
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

from rope_explained.rope import DynamicNTKState, scaled_frequencies

D, BASE, L, FACTOR = 64, 10000.0, 1024, 2.0
SEQUENCES = (
    [3000, 1500, 1024, 1023, 1500],  # grow, keep (also at exactly L), reset below L, grow again
    [800, 1200, 1100, 5000, 2000, 1024, 1025, 100, 1024],
    [1024, 1025, 1024, 1023],
)


@pytest.mark.parametrize("lengths", SEQUENCES, ids=lambda s: "-".join(map(str, s)))
def test_module_keeps_the_frequencies_the_state_keeps(lengths):
    module = LlamaRotaryEmbedding(hf_config(D, BASE, L, rope_type="dynamic", factor=FACTOR))
    state = DynamicNTKState(D, base=BASE, factor=FACTOR, original_max_position=L)
    x = torch.zeros(1, 1, D)
    kept = 0
    for n in lengths:
        module(x, torch.arange(n)[None, :])
        theirs = module.inv_freq.double().numpy()
        ours = state.inv_freq(n)
        np.testing.assert_allclose(theirs, ours, rtol=RTOL, atol=0)
        stateless = scaled_frequencies(
            D, base=BASE, method="dynamic", factor=FACTOR, original_max_position=L, seq_len=n
        )[0]
        if not np.allclose(ours, stateless, rtol=1e-3, atol=0):
            kept += 1
            assert n <= state.max_seq_len_cached and state.max_seq_len_cached > L
    assert kept  # every sequence reads some text with longer frequencies than its own
