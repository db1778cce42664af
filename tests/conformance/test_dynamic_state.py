"""The stateful dynamic-NTK rule of ``rope_explained.extension.dynamic_module_lengths`` against
transformers' ``LlamaRotaryEmbedding`` with ``rope_type`` ``"dynamic"``: the module is run on
batches of several lengths in turn, and after each one its ``inv_freq`` must be the package's
dynamic-NTK frequencies at the length the rule names (float32 against float64: the tolerance of
``test_scaling.py``), and not those of the batch's own length wherever the two differ.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_scaling import RTOL, hf_config
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

from rope_explained.extension import dynamic_module_lengths
from rope_explained.rope import scaled_frequencies

D, BASE, L, FACTOR = 64, 10000.0, 1024, 2.0
SEQUENCES = (
    [3000, 1500, 1024, 1023, 1500],  # grow, keep (also at exactly L), reset below L, grow again
    [800, 1200, 1100, 5000, 2000, 1024, 1025, 100, 1024],
    [1024, 1025, 1024, 1023],
)


def package_inv_freq(seq_len: int) -> np.ndarray:
    return scaled_frequencies(
        D, base=BASE, method="dynamic-ntk", factor=FACTOR, original_max_position=L, seq_len=seq_len
    )[0]


@pytest.mark.parametrize("lengths", SEQUENCES, ids=lambda s: "-".join(map(str, s)))
def test_module_keeps_the_frequencies_the_rule_names(lengths):
    cfg = hf_config(D, BASE, L, rope_type="dynamic", factor=FACTOR)
    module = LlamaRotaryEmbedding(cfg)
    x = torch.zeros(1, 1, D)
    named = dynamic_module_lengths(lengths, L)
    for n, used in zip(lengths, named, strict=True):
        module(x, torch.arange(n)[None, :])
        theirs = module.inv_freq.double().numpy()
        np.testing.assert_allclose(theirs, package_inv_freq(used), rtol=RTOL, atol=0)
        if used != n and max(used, n) > L:  # the stateless frequencies would differ here
            assert not np.allclose(theirs, package_inv_freq(n), rtol=1e-3, atol=0)
