"""Incremental decoding with a KV cache, padding and packing (rope_explained.decoding), and the
numbers and claims of the page real-models/decoding.md.

The decoder is checked against the full forward pass row by row; the two faults against their
formulas, computed independently with apply_rope; padding and packing against separate runs.
"""

from __future__ import annotations

import numpy as np
import pytest
from pages import number, value

from rope_explained.decoding import (
    DecodeStep,
    KVCache,
    decode,
    decode_step,
    document_starts,
    new_cache,
    pack,
    pad_left,
)
from rope_explained.embedding import BOS
from rope_explained.figures.real_models import decoding as page
from rope_explained.model import forward, make_config
from rope_explained.rope import apply_rope

TEXT = page.TEXT


def rows_match(steps, trace, tol=1e-12):
    """Largest differences between the decoded rows and the trace's, per layer."""
    e0 = max(np.abs(s.attention0 - trace.A0[m, : m + 1]).max() for m, s in enumerate(steps))
    e1 = max(np.abs(s.attention1 - trace.A1[m, : m + 1]).max() for m, s in enumerate(steps))
    return e0, e1


# --- decoding reproduces forward ---------------------------------------------------------------


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"layout": "half"},
        {"rotary_pct": 0.5},
        {"bos": False},
        {"head": "rank1"},
        {"scaling": "yarn", "factor": 4.0, "original_max_position": 8},
        {"scaling": "llama3", "factor": 8.0, "original_max_position": 16},
    ],
)
def test_decoding_reproduces_forward(settings):
    text = "thecatsatonthecat"
    steps = decode(text, **settings)
    trace = forward(text, **settings)
    assert [s.token for s in steps] == trace.tokens
    e0, e1 = rows_match(steps, trace)
    assert e0 < 1e-12 and e1 < 1e-12, (e0, e1)
    for m, s in enumerate(steps):
        assert s.prediction == trace.vocab[int(np.argmax(trace.probs[m]))]
        assert np.abs(s.probs - trace.probs[m]).max() < 1e-10


def test_the_page_text_decodes_exactly():
    steps = page.steps(None)
    trace = forward(TEXT)
    e0, e1 = rows_match(steps, trace)
    assert max(e0, e1) < 1e-12
    # the page states a bound on this round-off, which the measurement respects
    assert max(e0, e1) < number(value("decoding-attention-difference"))
    assert int(value("decoding-steps")) == len(trace.tokens) == len(TEXT) + 1
    assert value("decoding-letters") == str(len(TEXT))


def test_cached_keys_are_rotated_once_at_their_own_position():
    steps = decode("abcab")
    cache = steps[-1].cache
    trace = forward("abcab")
    assert np.allclose(cache.k0, trace.k0, atol=1e-14, rtol=0)
    assert np.allclose(cache.k1, trace.k1, atol=1e-13, rtol=0)
    assert cache.positions.tolist() == [0, 1, 2, 3, 4, 5]
    # earlier caches are not changed by later steps
    assert np.array_equal(steps[2].cache.k0, cache.k0[:3])


def test_dynamic_ntk_is_refused():
    settings = {"scaling": "dynamic-ntk", "factor": 2.0, "original_max_position": 4}
    with pytest.raises(ValueError, match="dynamic-ntk"):
        new_cache(**settings)
    with pytest.raises(ValueError, match="dynamic-ntk"):
        decode("abc", **settings)


def test_bad_input_is_refused():
    cache = new_cache()
    for bad in ("ab", "<pad>", 3):
        with pytest.raises(ValueError, match="token"):
            decode_step(cache, bad)
    with pytest.raises(ValueError, match="position"):
        decode_step(cache, "a", position=3.0, fault="restart")
    with pytest.raises(ValueError, match="position"):
        decode_step(cache, "a", position=float("nan"))
    with pytest.raises(ValueError, match="prefill"):
        decode("abc", fault="restart", prefill=4)


# --- the two faults, against their formulas ----------------------------------------------------


def test_rotate_again_turns_key_n_by_p_minus_n_plus_one_times_n():
    text = "abcdefg"
    steps = decode(text, fault="rotate-again")  # the fault on from the first letter
    cfg = make_config()
    k_pre = forward(text).k0_pre  # W_k h_n: layer 0's keys do not depend on the fault
    p = len(steps) - 1
    cache = steps[-1].cache
    for n in range(p + 1):
        turns = p - n + 1 if n >= 1 else p + 1  # the start token is rotated at position 0
        expected = apply_rope(k_pre[n : n + 1], [turns * n], base=cfg.base)
        assert np.allclose(cache.k0[n], expected[0], atol=1e-12), n


def test_restart_puts_every_new_token_at_zero():
    steps = decode(TEXT, fault="restart", prefill=5)
    assert [s.position for s in steps] == [0, 1, 2, 3, 4, 5] + [0] * (len(TEXT) - 5)


def test_fault_values_and_claims():
    correct, rotated, restart = (page.steps(f) for f in page.MODES)
    faulty = [m for m in range(1 + len(page.HALF), len(TEXT) + 1)]
    predictable = [m for m in faulty if m < len(TEXT)]
    assert value("decoding-predictable") == str(len(predictable))
    assert value("decoding-prefill") == str(len(page.HALF))

    def copied(run):
        return sum(run[m].prediction == TEXT[m] for m in predictable)

    assert value("decoding-copied-correct") == str(copied(correct)) == str(len(predictable))
    assert value("decoding-copied-rotate") == str(copied(rotated))
    assert copied(rotated) < len(predictable) / 2
    assert value("decoding-copied-restart") == str(copied(restart))
    early = page.steps("restart", prefill=0)
    assert value("decoding-copied-restart-early") == str(copied(early))
    assert copied(early) < copied(restart)
    rotate_mean = np.mean([rotated[m].attention0[m - 1] for m in faulty])
    assert number(value("decoding-previous-rotate")) == pytest.approx(rotate_mean, rel=0.5)
    assert rotate_mean < 1e-6
    for run, vid in ((correct, "correct"), (restart, "restart")):
        mean = np.mean([run[m].attention0[m - 1] for m in faulty])
        decimals = len(value(f"decoding-previous-{vid}").split(".")[1])
        assert value(f"decoding-previous-{vid}") == f"{mean:.{decimals}f}"
    # rotated again: most of the weight lands on the query itself
    assert np.mean([rotated[m].attention0[m] for m in faulty]) > 0.5
    # restart: evenly spread over the start token and the letters at position 0
    for m in faulty:
        at_zero = [n for n in range(m + 1) if restart[m].cache.positions[n] == 0]
        w = restart[m].attention0[at_zero]
        assert np.allclose(w, w[0], atol=1e-12) and w.sum() > 0.99


# --- padding -------------------------------------------------------------------------------------


def test_counted_masked_pads_change_nothing_but_rounding():
    text, P = "thecatsatonthec", 4
    ref = forward(text)
    for count in (True, False):
        tr = pad_left(text, P, count_pads=count, mask_pads=True)
        body = slice(P, None)
        assert tr.tokens[P:] == ref.tokens
        diff = max(
            np.abs(tr.A0[body, body] - ref.A0).max(), np.abs(tr.A1[body, body] - ref.A1).max()
        )
        assert diff < 1e-12
        assert tr.prediction == ref.prediction
        if not count:  # numbered from the first real token: the unpadded run's positions
            assert tr.positions[P:].tolist() == list(range(len(ref.tokens)))
    tr = pad_left(text, P)
    top = max(np.abs(tr.A0[P:, P:] - ref.A0).max(), np.abs(tr.A1[P:, P:] - ref.A1).max())
    assert top < number(value("padding-shift-difference"))
    assert value("padding-pads") == str(P) == str(page.PADS)


def test_visible_pads_take_weight():
    P = page.PADS
    tr = pad_left(page.FORWARD_PASS_PROMPT, P, mask_pads=False)
    assert tr.tokens[P] == BOS
    assert value("padding-pad-weight-layer0") == f"{tr.A0[P, P - 1]:.3f}"
    rows = int((tr.A1[P:, :P].sum(axis=1) > 0.5).sum())
    assert value("padding-pad-rows-layer1") == str(rows) and rows > 0
    # the prediction survives: a pad embeds like the start token
    assert np.allclose(tr.h0[P - 1], tr.h0[P])
    assert tr.prediction == forward(page.FORWARD_PASS_PROMPT).prediction
    # without the start token, visible pads change predictions
    text = "abcdeab"
    ref = forward(text, bos=False).probs.argmax(axis=1)
    got = pad_left(text, P, mask_pads=False, bos=False).probs[P:].argmax(axis=1)
    changed = int((got != ref).sum())
    assert value("padding-nobos-changed") == str(changed) and changed >= 1
    assert value("padding-nobos-rows") == str(len(text))


# --- packing -------------------------------------------------------------------------------------


def test_document_mask_equals_separate_runs():
    docs = ["acorns", "thecatsatonthec"]
    starts = document_starts(docs)
    assert starts.tolist() == [0, len(docs[0]) + 1]
    for reset in (False, True):
        tr = pack(docs, reset_positions=reset, mask_documents=True)
        for i, doc in enumerate(docs):
            ref = forward(doc)
            rows = slice(starts[i], starts[i] + len(ref.tokens))
            assert np.abs(tr.A1[rows, rows] - ref.A1).max() < 1e-12
            assert np.abs(tr.probs[rows] - ref.probs).max() < 1e-10
            assert tr.A1[rows].sum(axis=1) == pytest.approx(1.0)


def test_packing_values_and_claims():
    docs = list(page.DOCS)
    start = int(document_starts(docs)[1])
    alone = forward(docs[1]).prediction
    assert value("packing-alone-prediction") == alone
    running = pack(docs, reset_positions=False, mask_documents=False)
    reset = pack(docs, reset_positions=True, mask_documents=False)
    assert value("packing-running-prediction") == running.prediction != alone
    assert value("packing-reset-prediction") == reset.prediction == "o"
    assert value("packing-masked-prediction") == alone
    assert value("packing-cross-weight-running") == f"{running.A1[-1, :start].sum():.2f}"
    assert value("packing-cross-weight-reset") == f"{reset.A1[-1, :start].sum():.2f}"
    # the weight on the first text is on its o (the letter after its c)
    o = running.tokens.index("o")
    assert running.A1[-1, o] > 0.99 * running.A1[-1, :start].sum() > 0.4
    # reset positions alias the second text's first positions with the first text's
    assert set(reset.positions[:start]) <= set(reset.positions[start:])
    mean_prev = np.mean([reset.A0[m, m - 1] for m in range(start + 1, len(reset.tokens))])
    assert value("packing-previous-reset") == f"{mean_prev:.2f}"
    assert mean_prev < np.mean(
        [running.A0[m, m - 1] for m in range(start + 1, len(running.tokens))]
    )


def test_records_check_their_fields():
    step = decode("ab")[-1]
    assert isinstance(step, DecodeStep) and isinstance(step.cache, KVCache)
    with pytest.raises(ValueError, match="k0"):
        KVCache(
            step.cache.config, step.cache.tokens, step.cache.positions, step.cache.weights,
            step.cache.k0[:1], step.cache.v0, step.cache.k1, step.cache.v1,
        )  # fmt: skip
    with pytest.raises(ValueError, match="token"):
        DecodeStep(step.cache, "z", step.position, step.attention0, step.attention1, step.probs)


def test_the_page_names_the_texts_it_runs():
    """The page writes its example texts out in words; they are the ones the values use."""
    from pathlib import Path  # noqa: PLC0415

    md = (Path(__file__).parents[1] / "docs/real-models/decoding.md").read_text()
    assert f"Decoding the text {page.HALF} twice" in md
    assert f"running example {page.FORWARD_PASS_PROMPT} gets" in md
    assert f"Take the text {page.DOCS[0]}\n" in md or f"Take the text {page.DOCS[0]} " in md
    assert page.DOCS[1] == page.FORWARD_PASS_PROMPT
    assert "the text abcdeab)" in md  # the text test_visible_pads_take_weight runs


def test_dynamic_ntk_changes_every_frequency_but_the_fastest_beyond_its_context():
    """The page's What if box: below the context L nothing moves; beyond it every new token
    changes every frequency except theta_0 = 1."""
    from rope_explained.model import rope_frequencies  # noqa: PLC0415

    cfg = make_config(scaling="dynamic-ntk", factor=2.0, original_max_position=32)
    theta = {T: rope_frequencies(cfg, seq_len=T)[0] for T in (8, 32, 33, 34)}
    np.testing.assert_array_equal(theta[8], theta[32])
    for a, b in ((32, 33), (33, 34)):
        assert theta[a][0] == theta[b][0] == 1.0
        assert (theta[a][1:] != theta[b][1:]).all()
