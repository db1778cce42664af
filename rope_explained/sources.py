r"""The libraries the pages describe, each at the version it was checked against, and the source
lines each statement about them rests on.

Every sentence of the site about what a library does (Hugging Face's `transformers`, Meta's
reference code, PyTorch, `ml_dtypes`) names the version in [`LIBRARIES`][] and links the lines
of [`SOURCES`][] at that version's tag, through [`source_link`][]. The versions of
`transformers` and PyTorch are the ones the conformance tests install
(`requirements/conformance.in`), and that of `ml_dtypes` the one `uv.lock` installs; the tests
check that these agree, and the conformance tests check that each range of an installed library
holds the code it is cited for.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._checks import check_choice


@dataclass(frozen=True)
class Library:
    """A library as the pages cite it."""

    name: str
    """How the pages name it."""
    version: str
    """The version its statements were checked against."""
    repo: str
    """Its GitHub repository, ``owner/name``."""
    tag: str
    """The tag of that version in the repository (permalinks point there), or the commit of a
    repository that has no tags."""


@dataclass(frozen=True)
class Source:
    """A range of lines in a library's source, at the library's pinned tag."""

    library: str
    """The key of the library in [`LIBRARIES`][]."""
    path: str
    """The file, relative to the repository's root."""
    first: int
    """The first line of the range (1-based)."""
    last: int
    """The last line of the range (inclusive)."""
    holds: str
    """A piece of code the range contains, so that a test can find it moved."""

    @property
    def url(self) -> str:
        """The permalink of the range: the file at the library's tag, with its lines."""
        lib = LIBRARIES[self.library]
        lines = f"L{self.first}" if self.first == self.last else f"L{self.first}-L{self.last}"
        return f"https://github.com/{lib.repo}/blob/{lib.tag}/{self.path}#{lines}"


LIBRARIES: dict[str, Library] = {
    "transformers": Library("transformers", "5.24.0", "huggingface/transformers", "v5.24.0"),
    # the last 4.x release, for what the code did before 5.0 (read, not installed)
    "transformers-4": Library("transformers", "4.57.6", "huggingface/transformers", "v4.57.6"),
    "torch": Library("PyTorch", "2.13.0", "pytorch/pytorch", "v2.13.0"),
    "llama": Library("meta-llama/llama", "v2", "meta-llama/llama", "v2"),
    "llama-models": Library(
        "meta-llama/llama-models", "0.2.0", "meta-llama/llama-models", "v0.2.0"
    ),
    "ml_dtypes": Library("ml_dtypes", "0.6.0", "jax-ml/ml_dtypes", "v0.6.0"),
    # YaRN's reference code has no tags: its last commit
    "yarn": Library(
        "jquesnelle/yarn",
        "commit 995db5b",
        "jquesnelle/yarn",
        "995db5b575e75230b3384d658f8b944c9662f775",
    ),
}
"""The libraries the pages describe, by key, each at the version its statements were checked
against."""

_TF = "src/transformers"
SOURCES: dict[str, Source] = {
    # generation: the positions of a left-padded row
    "hf-pad-positions": Source(
        "transformers",
        f"{_TF}/generation/utils.py",
        918,
        921,
        "position_ids = position_ids.masked_fill(attention_mask == 0, 0)",
    ),
    "hf4-pad-positions": Source(
        "transformers-4",
        f"{_TF}/generation/utils.py",
        604,
        605,
        "position_ids.masked_fill_(attention_mask == 0, 1)",
    ),
    # masks: packed documents found from reset position_ids
    "hf-packed-indices": Source(
        "transformers",
        f"{_TF}/masking_utils.py",
        735,
        764,
        "packed_sequence_mask = (position_diff != 1).cumsum(-1)",
    ),
    "hf-packed-when": Source(
        "transformers",
        f"{_TF}/masking_utils.py",
        862,
        870,
        "if position_ids is not None and attention_mask is None and cache is None:",
    ),
    "hf-flattening-collator": Source(
        "transformers",
        f"{_TF}/data/data_collator.py",
        1353,
        1354,
        'batch["position_ids"] += [self.position_ids_start + i for i in range(len(input_ids))]',
    ),
    "hf-flash-packed": Source(
        "transformers",
        f"{_TF}/modeling_flash_attention_utils.py",
        564,
        580,
        "def _is_packed_sequence(position_ids, batch_size):",
    ),
    # Llama's rotary embedding and rotation
    "hf-llama-rotary-forward": Source(
        "transformers",
        f"{_TF}/models/llama/modeling_llama.py",
        109,
        116,
        "freqs = position_ids[..., None].float() * self.inv_freq.to(device=x.device, "
        "dtype=torch.float)",
    ),
    "hf4-llama-rotary-forward": Source(
        "transformers-4",
        f"{_TF}/models/llama/modeling_llama.py",
        94,
        106,
        "with torch.autocast(device_type=device_type, enabled=False):  # Force float32",
    ),
    "hf-rotate-half": Source(
        "transformers",
        f"{_TF}/models/llama/modeling_llama.py",
        119,
        123,
        "return torch.cat((-x2, x1), dim=-1)",
    ),
    "hf-apply-rotary": Source(
        "transformers",
        f"{_TF}/models/llama/modeling_llama.py",
        145,
        149,
        "q_embed = (q * cos) + (rotate_half(q) * sin)",
    ),
    "hf-gpt-neox-rotary-forward": Source(
        "transformers",
        f"{_TF}/models/gpt_neox/modeling_gpt_neox.py",
        91,
        97,
        "return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)",
    ),
    "hf-roformer-rotary": Source(
        "transformers",
        f"{_TF}/models/roformer/modeling_roformer.py",
        221,
        237,
        "sin_pos = torch.stack([sin, sin], dim=-1).reshape_as(sinusoidal_pos)",
    ),
    "hf-roformer-rotary-value": Source(
        "transformers",
        f"{_TF}/models/roformer/modeling_roformer.py",
        180,
        188,
        "if self.rotary_value:",
    ),
    "hf-gptj-rotate-every-two": Source(
        "transformers",
        f"{_TF}/models/gptj/modeling_gptj.py",
        67,
        77,
        "sin = torch.repeat_interleave(sin[:, :, None, :], 2, 3)",
    ),
    # the weight permutation between the layouts
    "hf-permute-for-rope": Source(
        "transformers",
        f"{_TF}/core_model_loading.py",
        465,
        490,
        "head_shape = (2, half_head) if self.inverse else (half_head, 2)",
    ),
    "hf-gguf-reverse-permute": Source(
        "transformers",
        f"{_TF}/modeling_gguf_pytorch_utils.py",
        88,
        115,
        "return w.swapaxes(2, 1).reshape(weights.shape)",
    ),
    # context extension
    "hf-rope-init-functions": Source(
        "transformers",
        f"{_TF}/modeling_rope_utils.py",
        669,
        676,
        '"llama3": _compute_llama3_parameters,',
    ),
    "hf-rope-parameters": Source(
        "transformers",
        f"{_TF}/modeling_rope_utils.py",
        775,
        777,
        "self.rope_parameters = rope_scaling or self.rope_parameters",
    ),
    "hf-original-max-position": Source(
        "transformers",
        f"{_TF}/modeling_rope_utils.py",
        835,
        843,
        'self.rope_parameters.setdefault("original_max_position_embeddings", '
        "self.max_position_embeddings)",
    ),
    "hf-dynamic-ntk": Source(
        "transformers",
        f"{_TF}/modeling_rope_utils.py",
        329,
        343,
        "base = base * ((factor * seq_len / config.max_position_embeddings) - (factor - 1))",
    ),
    "hf-dynamic-update": Source(
        "transformers",
        f"{_TF}/modeling_rope_utils.py",
        101,
        119,
        "if seq_len < self.original_max_seq_len and max_seq_len_cached > "
        "self.original_max_seq_len:",
    ),
    "hf-llama-rotary-max": Source(
        "transformers",
        f"{_TF}/models/llama/modeling_llama.py",
        76,
        77,
        "self.original_max_seq_len = config.max_position_embeddings",
    ),
    "hf-yarn-ramp": Source(
        "transformers",
        f"{_TF}/modeling_rope_utils.py",
        448,
        483,
        "inv_freq_extrapolation_factor = 1 - linear_ramp_factor(low, high, dim // 2)",
    ),
    "hf-llama3": Source(
        "transformers",
        f"{_TF}/modeling_rope_utils.py",
        645,
        663,
        "smooth_factor = (old_context_len / wavelen - low_freq_factor) / "
        "(high_freq_factor - low_freq_factor)",
    ),
    "hf-partial-rotary": Source(
        "transformers",
        f"{_TF}/modeling_rope_utils.py",
        179,
        181,
        "dim = int(head_dim * partial_rotary_factor)",
    ),
    # Meta's reference code
    "meta-precompute-freqs-cis": Source(
        "llama",
        "llama/model.py",
        80,
        104,
        "freqs_cis = torch.polar(torch.ones_like(freqs), freqs)  # complex64",
    ),
    "meta-apply-rotary-emb": Source(
        "llama",
        "llama/model.py",
        132,
        161,
        "xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))",
    ),
    "meta-start-pos": Source(
        "llama",
        "llama/model.py",
        470,
        470,
        "freqs_cis = self.freqs_cis[start_pos : start_pos + seqlen]",
    ),
    "meta-apply-scaling": Source(
        "llama-models",
        "models/llama3/model.py",
        45,
        62,
        "smooth = (old_context_len / wavelen - low_freq_factor) / "
        "(high_freq_factor - low_freq_factor)",
    ),
    "yarn-ramp": Source(
        "yarn",
        "scaled_rope/LlamaYaRNScaledRotaryEmbedding.py",
        8,
        22,
        "low = math.floor(find_correction_dim(",
    ),
    # ml_dtypes: the bfloat16 type numpy lacks
    "ml-dtypes-bfloat16": Source(
        "ml_dtypes",
        "ml_dtypes/_src/dtypes.cc",
        43,
        62,
        'static constexpr const char* kQualifiedTypeName = "ml_dtypes.bfloat16";',
    ),
}
"""The source lines the pages cite, by key."""


def source_link(key: str, label: str | None = None) -> str:
    """A Markdown link to the lines [`SOURCES`][] files under ``key``, at the pinned tag,
    named by the library, its version, the file and the lines.

    ``key`` is one of [`SOURCES`][]; ``label`` replaces the file name in the link's text when
    given (a non-empty string).

    Examples:
        >>> source_link("hf-rotate-half")  # doctest: +ELLIPSIS
        '[transformers 5.24.0, `models/llama/modeling_llama.py` lines 119–123](https://github.com/...)'
    """
    key = check_choice("key", key, tuple(SOURCES))
    if label is not None and (not isinstance(label, str) or not label.strip()):
        raise ValueError(f"label must be a non-empty string or None; got {label!r}")
    src = SOURCES[key]
    lib = LIBRARIES[src.library]
    name = label if label is not None else f"`{src.path.removeprefix(_TF + '/')}`"
    lines = f"line {src.first}" if src.first == src.last else f"lines {src.first}–{src.last}"
    return f"[{lib.name} {lib.version}, {name} {lines}]({src.url})"


def library_version(key: str) -> str:
    """The version of the library ``key`` (one of [`LIBRARIES`][]) the pages describe.

    Examples:
        >>> library_version("transformers")
        '5.24.0'
    """
    key = check_choice("key", key, tuple(LIBRARIES))
    return LIBRARIES[key].version


__all__ = ["LIBRARIES", "SOURCES", "Library", "Source", "library_version", "source_link"]
