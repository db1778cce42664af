"""The trained model: its committed weights, the numpy forward pass that runs them, the task it
was trained on, and what its chapter (``trained/index.md``) states.

numpy only: the training script (JAX) is not imported here. The thresholds of the acceptance
checks are the chapter's claims, not figures copied from a run.
"""

from __future__ import annotations

import ast
import io
import json
import math
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
from pages import DOCS, agrees, number, value

from rope_explained import task, trained
from rope_explained.model import forward as hand_forward
from rope_explained.rope import frequencies, scaled_frequencies

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "rope_explained" / "data"
PAGE = (DOCS / "trained" / "index.md").read_text(encoding="utf-8")
RUNS = [(s, w) for s in trained.SEEDS for w in (True, False)]


@pytest.fixture(scope="module", params=trained.SEEDS)
def seed(request):
    return request.param


# --- the committed weights -------------------------------------------------------------------


@pytest.mark.parametrize(("s", "warm"), RUNS)
def test_committed_weights_match_their_record_and_the_source(s, warm):
    name = f"{'seed' if warm else 'nowarmup'}-{s}"
    rec = json.loads((DATA / f"trained-{name}.json").read_text())
    with np.load(DATA / f"trained-{name}.npz", allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    assert trained.array_hash(arrays) == rec["sha256"] == trained.HASHES[name]
    assert trained.load(s, warmup=warm).sha256 == rec["sha256"]
    assert all(a.dtype == np.float32 for a in arrays.values())
    assert sum(a.size for a in arrays.values()) == rec["parameters"]
    # the record says how it was made
    assert rec["settings"]["seed"] == s
    assert rec["settings"]["warmup_steps"] == (1000 if warm else 0)
    assert {"jax", "jaxlib", "optax", "numpy", "python"} <= set(rec["versions"])
    steps = [step for step, _ in rec["loss_curve"]]
    assert steps == list(range(50, rec["settings"]["steps"] + 1, 50))


def test_npz_files_are_byte_reproducible_zip():
    # fixed timestamps: the training script writes the same bytes for the same arrays
    for path in DATA.glob("trained-*.npz"):
        with zipfile.ZipFile(io.BytesIO(path.read_bytes())) as zf:
            assert {i.date_time for i in zf.infolist()} == {(1980, 1, 1, 0, 0, 0)}


def test_hashes_in_the_source_are_the_records():
    assert set(trained.HASHES) == {f"{r}-{s}" for r in trained.RUNS for s in trained.SEEDS}
    for name, digest in trained.HASHES.items():
        rec = json.loads((DATA / f"trained-{name}.json").read_text())
        assert rec["sha256"] == digest


def test_weights_are_small():
    total = sum(p.stat().st_size for p in DATA.glob("trained-*"))
    assert total < 1_000_000


def test_loaded_weights_are_frozen():
    w = trained.load(0)
    with pytest.raises(ValueError):
        w.embedding[0, 0] = 1.0
    with pytest.raises(AttributeError):
        w.name = "other"  # type: ignore[misc]
    assert trained.load(0) is w


def test_the_package_stays_numpy_only():
    for path in (ROOT / "rope_explained").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            assert not any(n.split(".")[0] in ("jax", "jaxlib", "optax") for n in names), path


# --- the task ---------------------------------------------------------------------------------


@pytest.mark.parametrize("clean", [False, True])
def test_every_scored_position_has_one_right_answer(clean):
    b = task.batch(5, 64, 64, clean=clean)
    assert (b.tokens[:, 0] == 0).all() and (b.tokens[:, 1:] >= 1).all()
    for row in range(b.tokens.shape[0]):
        t = b.tokens[row]
        for m in np.nonzero(b.mask[row])[0]:
            earlier = np.nonzero(t[:m] == t[m])[0]
            assert earlier.size == 1 and earlier[0] == b.source[row, m]
            assert t[earlier[0] + 1] == t[m + 1] == b.targets[row, m] + 1
        seg = int(b.segment[row])
        assert len(set(t[-seg:].tolist())) == seg  # distinct letters
        if clean:
            # every position of the copy but its last is scored
            assert b.mask[row].sum() == seg - 1
            # and the filler avoids the segment's letters: each occurs in the two copies only
            assert all((t == x).sum() == 2 for x in t[-seg:])


def test_the_gap_is_random():
    b = task.batch(0, 256, 64)
    offsets = {int(s) for s in b.source[b.mask] - np.nonzero(b.mask)[1]}
    assert len(offsets) > 20  # no fixed offset finds the earlier copy


def test_task_refuses_bad_input():
    with pytest.raises(ValueError, match="size"):
        task.batch(0, 0, 64)
    with pytest.raises(ValueError, match="length"):
        task.batch(0, 1, 10)
    with pytest.raises(ValueError, match="segment"):
        task.batch(0, 1, 64, segment=(5,))
    with pytest.raises(ValueError, match="tokens"):
        task.token_ids(["<s>", "A"])


# --- the forward pass -------------------------------------------------------------------------


def plain_forward(E, heads, W_out, ids, base=10000.0):
    """The two-layer model written out with loops, its own rotation and its own softmax."""
    T = len(ids)
    h = np.array([E[i] for i in ids], dtype=np.float64)
    patterns = []
    for W_q, W_k, W_v, W_o in heads:
        d = W_q.shape[0]
        q, k = h @ W_q.T, h @ W_k.T
        for x in (q, k):
            for m in range(T):
                for i in range(d // 2):
                    a = m * base ** (-2 * i / d)
                    c, s = math.cos(a), math.sin(a)
                    x0, x1 = x[m, 2 * i], x[m, 2 * i + 1]
                    x[m, 2 * i], x[m, 2 * i + 1] = c * x0 - s * x1, s * x0 + c * x1
        A = np.zeros((T, T))
        for m in range(T):
            s = [float(q[m] @ k[n]) for n in range(m + 1)]
            e = [math.exp(v - max(s)) for v in s]
            A[m, : m + 1] = [v / sum(e) for v in e]
        h = h + (A @ (h @ W_v.T)) @ W_o.T
        patterns.append(A)
    logits = h @ W_out.T
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    return patterns, p / p.sum(axis=1, keepdims=True)


def test_forward_equals_a_plain_computation_on_a_tiny_case():
    rng = np.random.default_rng(3)
    d, D = 4, 6
    E = rng.normal(size=(27, D))
    heads = [tuple(rng.normal(size=s) for s in ((d, D), (d, D), (d, D), (D, d))) for _ in (0, 1)]
    W_out = rng.normal(size=(26, D))
    w = trained.TrainedWeights(
        embedding=E,
        weights=trained.Weights(
            L0=trained.HeadWeights(*heads[0]),
            L1=trained.HeadWeights(*heads[1]),
            readout=trained.Readout(W_out=W_out, b_out=np.zeros(26)),
        ),
    )
    text = "cabbage"
    ids = [0, *(1 + "abcdefghijklmnopqrstuvwxyz".index(c) for c in text)]
    (A0, A1), probs = plain_forward(E, heads, W_out, ids)
    tr = trained.forward(w, text)
    # float64 throughout, a handful of terms per entry: agreement to rounding
    for got, want in ((tr.A0, A0), (tr.A1, A1), (tr.probs, probs)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_one_forward_runs_the_hand_built_weights():
    text = "qxzqxabcdefgabcde"
    hand = trained.forward(trained.hand_built(), text)
    ref = hand_forward(text)
    for name in ("A0", "A1", "probs"):
        # the same float64 operations in another order: agreement to rounding
        np.testing.assert_allclose(getattr(hand, name), getattr(ref, name), rtol=1e-9, atol=1e-12)
    assert hand.prediction == ref.prediction
    assert hand.tokens == ref.tokens


def test_forward_ids_batches_agree_with_single_texts():
    w = trained.load(1)
    b = task.batch(2, 3, 40, clean=True)
    batched = trained.forward_ids(w, b.tokens)
    for row, text in enumerate(b.texts()):
        single = trained.forward(w, text)
        np.testing.assert_allclose(batched.probs[row], single.probs, rtol=1e-9, atol=1e-12)


def test_zero_pairs_zero_those_coordinates_only():
    w = trained.load(0)
    tr = trained.forward(w, "abcdefabc", zero_pairs={0: [0, 3], 1: range(30, 32)})
    assert (tr.q0[:, [0, 1, 6, 7]] == 0).all() and (tr.k0[:, [0, 1, 6, 7]] == 0).all()
    assert (tr.q1[:, 60:] == 0).all() and (tr.k1[:, 60:] == 0).all()
    assert (tr.q0[:, 2:6] != 0).any() and (tr.q1[:, :60] != 0).any()


def test_scaling_uses_the_package_frequencies():
    w = trained.load(0)
    tr = trained.forward(w, "abcdef", scaling="linear", factor=4.0)
    want, _ = scaled_frequencies(64, method="linear", factor=4.0, original_max_position=64)
    np.testing.assert_array_equal(tr.theta, want)
    np.testing.assert_array_equal(trained.forward(w, "abcdef").theta, frequencies(64))


@pytest.mark.parametrize(
    ("kwargs", "exc", "named"),
    [
        ({"zero_pairs": {2: [0]}}, ValueError, "layer"),
        ({"zero_pairs": {0: [32]}}, ValueError, r"\[0, 31\]"),
        ({"zero_pairs": {0: "ab"}}, TypeError, "zero_pairs"),
        ({"zero_pairs": [0]}, TypeError, "zero_pairs"),
        ({"scaling": "cubic", "factor": 2.0}, ValueError, "scaling"),
        ({"scaling": "linear"}, ValueError, "factor"),
        ({"factor": 2.0}, ValueError, "factor"),
        ({"scaling": "linear", "factor": 0.5}, ValueError, "factor"),
        ({"cut": "everything"}, ValueError, "cut"),
    ],
)
def test_forward_refuses_bad_arguments(kwargs, exc, named):
    with pytest.raises(exc, match=named):
        trained.forward(trained.load(0), "abcabc", **kwargs)


def test_bad_weights_text_and_seed_are_refused():
    with pytest.raises(TypeError, match="weights"):
        trained.forward("seed-0", "abc")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="text"):
        trained.forward(trained.load(0), "")
    with pytest.raises(ValueError, match="seed"):
        trained.load(3)
    with pytest.raises(ValueError, match="warmup"):
        trained.load(0, warmup="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ids"):
        trained.forward_ids(trained.load(0), np.array([0, 27]))
    with pytest.raises(ValueError, match="hand_built"):
        trained.hand_built(layout="half")
    with pytest.raises(ValueError, match="original_max_position"):
        trained.forward(trained.hand_built(), "abc", scaling="linear", factor=2.0)


# --- the acceptance checks ------------------------------------------------------------------


def test_induction_at_the_training_length(seed):
    assert trained.evaluate(trained.load(seed)).accuracy >= 0.97


def test_layer0_needs_its_fast_pairs_and_layer1_does_not(seed):
    w = trained.load(seed)
    assert trained.evaluate(w, zero_pairs={0: range(8)}).accuracy <= 0.3
    assert trained.evaluate(w, zero_pairs={1: range(8)}).accuracy >= 0.9


def test_extension_interpolation_breaks_layer0_ntk_keeps_more(seed):
    w = trained.load(seed)
    kw = {"length": 4 * w.length, "prompts": 32}
    linear = trained.evaluate(w, scaling="linear", factor=4.0, **kw)
    ntk = trained.evaluate(w, scaling="ntk", factor=4.0, **kw)
    assert linear.previous < 0.5
    assert ntk.previous > linear.previous and ntk.accuracy > linear.accuracy


def test_pair_contributions_add_up_and_match_the_scores():
    w = trained.load(2)
    share = trained.pair_contributions(w, 0, prompts=4)
    assert share.shape == (32,)
    assert math.isclose(share.sum(), 1.0, rel_tol=1e-12)
    # the per-pair terms add up to the score: checked on one trace
    tr = trained.forward(w, "abcdefghijklmnabcdefg")
    s = np.einsum("mic,nic->mn", tr.q0.reshape(-1, 32, 2), tr.k0.reshape(-1, 32, 2))
    np.testing.assert_allclose(s, tr.scores0, rtol=1e-12, atol=1e-9)


def test_wavelength_pair():
    i = trained.wavelength_pair(64)
    theta = frequencies(64)
    assert 2 * math.pi / theta[math.floor(i)] < 64 < 2 * math.pi / theta[math.ceil(i)]


# --- the chapter's values and claims --------------------------------------------------------


@pytest.fixture(scope="module")
def study():
    from rope_explained.figures import trained as page

    return page.study()


def seeds_of(study, key):
    return [key(study, f"seed-{s}") for s in trained.SEEDS]


def test_page_states_no_typed_measurement():
    # every number the prose compares the models by is a macro: no decimal fraction typed
    prose = re.sub(r"\{\{.*?\}\}|\\\(.*?\\\)|\$\$.*?\$\$|`[^`]*`", "", PAGE, flags=re.S)
    assert not re.findall(r"\b0\.\d+|\d+\s?%", prose)


def test_base_values_are_the_seeds_worst(study):
    for field in ("accuracy", "previous", "induction"):
        lo = min(getattr(study["base"][f"seed-{s}"], field) for s in trained.SEEDS)
        assert value(f"trained-{field}").split("–")[0] == figures_floor(lo, 3)
    # accuracy recomputed text by text through forward (not the batched path of evaluate)
    w = trained.load(0)
    b = task.batch(trained.EVAL_SEED, trained.PROMPTS, w.length, clean=True)
    right = total = 0
    for row, text in enumerate(b.texts()):
        probs = trained.forward(w, text).probs
        for m in np.nonzero(b.mask[row])[0]:
            right += int(np.argmax(probs[m]) == b.targets[row, m])
            total += 1
    assert total == study["base"]["seed-0"].scored
    assert right / total == pytest.approx(study["base"]["seed-0"].accuracy, abs=1e-12)


def figures_floor(x, digits):
    from rope_explained.figures import floor_to

    return floor_to(x, digits)


def test_each_layer_lives_in_its_band(study):
    for s in trained.SEEDS:
        l0, l1 = study["pairs"][f"seed-{s}"]
        assert np.argmax(l0) == 0  # pair 0 gives the largest share
        assert l0[:8].sum() > 0.9 and l0[:4].sum() > 0.75
        assert abs(l1[:8].sum()) < 0.05 and l1[16:].sum() > 0.5
        first = math.floor(trained.wavelength_pair(64)) + 1
        assert l1[first:].sum() > 0.85
        assert l1[31] < 0.2  # not the slowest pair alone


def test_band_ablation_claims(study):
    for s in trained.SEEDS:
        a = study["ablation"][f"seed-{s}"]
        base = study["base"][f"seed-{s}"].accuracy
        assert a["l0-no-fast8"].accuracy <= 0.3
        assert a["l0-only-fast8"].accuracy >= 0.95
        assert a["l1-no-fast16"].accuracy >= 0.95
        hand = study["ablation"]["hand-built"]["l1-no-slow16"].accuracy
        assert hand + 0.2 < a["l1-no-slow16"].accuracy < base - 0.1  # part of its skill
    assert study["ablation"]["hand-built"]["l1-no-slow16"].accuracy < 0.1  # nothing left


def test_k_composition(study):
    for name in (*(f"seed-{s}" for s in trained.SEEDS), "hand-built"):
        assert study["cut"][name]["keys"].accuracy < 0.1
        assert study["cut"][name]["queries"].accuracy >= 0.95


def test_context_extension_claims(study):
    hand = study["ext"]["hand-built"]
    assert hand[None].accuracy >= 0.99 and hand["linear"].previous < 0.5
    for s in trained.SEEDS:
        e = study["ext"][f"seed-{s}"]
        assert e["linear"].previous < 0.5 and e["linear"].accuracy < 0.1
        for method in ("ntk", "yarn"):
            assert e[method].previous > 0.5 and e[method].accuracy > e["linear"].accuracy
        assert e[None].accuracy < hand[None].accuracy
    f, _ = scaled_frequencies(64, method="ntk", factor=4.0, original_max_position=64)
    assert f[0] == 1.0  # NTK-aware keeps pair 0 exactly: base'^0 = 1
    agrees("trained-linear-pair0", 1 / 4.0)


def test_the_ghost(study):
    from rope_explained.figures import trained as page

    seed = int(value("trained-ghost-seed"))
    offset = int(value("trained-ghost-offset"))
    weight, _ = study["profile"][f"seed-{seed}"]
    assert offset >= 64 and weight[offset] == weight[64:].max()
    agrees("trained-ghost-weight", 100 * weight[offset])
    assert weight[offset] > 0.01  # a visible echo, at an offset never trained on
    hand, _ = study["profile"]["hand-built"]
    assert hand[64:].max() < weight[offset] / 100
    # the pairs named line up: (offset - 1) theta_i within half a radian of a full turn
    pairs = [int(p) for p in re.split(r", | and ", value("trained-ghost-pairs"))]
    theta = frequencies(64)
    for i in pairs:
        angle = (offset - 1) * theta[i]
        assert abs(angle - 2 * math.pi * round(angle / (2 * math.pi))) < 0.5
    assert page.GHOST_FROM == 64


def test_exercise_answers(study):
    w = trained.load(0)
    d, D = w.d, w.D
    assert number(value("trained-parameters")) == 27 * D + 2 * 4 * d * D + 26 * D
    assert number(value("trained-parameters")) == sum(a.size for a in w.arrays().values())
    theta = frequencies(64)
    first = next(i for i in range(32) if 2 * math.pi / theta[i] > 64)
    assert number(value("trained-first-slow-pair")) == first
    agrees("trained-pair8-wavelength", 2 * math.pi / 0.1)
    # Position Interpolation: the peak of layer 0 lands near offset s, not at 1
    peaks = [int(p) for p in re.split(r", | and ", value("trained-pi-peak"))]
    assert all(abs(p - 4) <= 1 for p in peaks)
    assert number(value("trained-hand-cut-keys")) < 0.1
    assert number(value("trained-hand-cut-queries")) >= 0.99


def test_without_the_warmup(study):
    runs = study["nowarmup"]
    warm_previous = min(study["base"][f"seed-{s}"].previous for s in trained.SEEDS)
    learned = [s for s in trained.SEEDS if runs[s]["eval"].accuracy >= 0.97]
    assert learned, "the page says some runs without the warm-up learn induction"
    for s in learned:
        weight, _ = runs[s]["profile"]
        assert runs[s]["offset"] == 1
        assert runs[s]["eval"].previous < warm_previous  # softer
        assert weight[32:].max() > 0.05  # part of it at long offsets
    # the other circuit: layer 0 looks back a fixed offset, layer 1 the key that far after
    fixed = int(value("trained-fixed-seed"))
    run = runs[fixed]
    weight, _ = run["profile"]
    delta = run["offset"]
    assert delta > 1 and run["eval"].previous < 0.1 and run["eval"].accuracy < 0.97
    assert sorted(np.argsort(weight)[-2:]) == [delta - 1, delta]  # the blend of two offsets
    assert run["layer1_at_offset"] > 0.9
    assert run["far_accuracy"] > 0.95 > 0.2 > run["near_accuracy"]
    # overall accuracy is the mix of the two cases
    mix = run["far_share"] * run["far_accuracy"] + (1 - run["far_share"]) * run["near_accuracy"]
    assert mix == pytest.approx(run["eval"].accuracy, abs=1e-9)
    for s in trained.SEEDS:  # every run with the warm-up ends in the textbook circuit
        assert study["base"][f"seed-{s}"].previous > 0.99
    # at the warm-up length the copies sit close: the filler has at most 3 letters in all
    b = task.batch(0, 512, 24)
    assert (23 - 2 * b.segment).max() <= 3
