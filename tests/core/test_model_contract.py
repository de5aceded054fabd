"""The model's refusals word for word (ids, positions past n_ctx, knocked pairs, temperature, badly shaped
weights), its weights stored as float64 that nobody can change, and the trace's fields against their definitions.
Written where mutation testing (bench/mutation.sh) found changes to mha/model.py that no test noticed."""

import re

import numpy as np
import pytest

import mha
from mha.model import check_knocked

CFG = mha.AttentionConfig(d_model=6, d_k=3, d_v=2, n_heads=2, d_ff=5, seed=9)
VOCAB = ["a", "b", "c", "d"]


@pytest.fixture(scope="module")
def mw() -> mha.ModelWeights:
    return mha.init_model(CFG, VOCAB, n_layers=2, positions="learned", n_ctx=5)


@pytest.mark.parametrize("ids, words", [
    ([], r"^ids must be a non-empty list of whole numbers; got float64 of shape \(0,\)\.$"),
    ([[0, 1]], r"^ids must be a non-empty list of whole numbers; got int64 of shape \(1, 2\)\.$"),
    ([0.0, 1.0], r"^ids must be a non-empty list of whole numbers; got float64 of shape \(2,\)\.$"),
    ([0, 4], r"^token ids must be in 0\.\.3; got 0\.\.4\.$"),
    ([-1, 2], r"^token ids must be in 0\.\.3; got -1\.\.2\.$"),
])
def test_bad_ids_are_refused_in_words(mw, ids, words):
    with pytest.raises(mha.InputError, match=words):
        mha.model_forward(ids, mw)


def test_ids_past_the_learned_positions_are_refused_in_words(mw):
    """n_ctx 5: five tokens run, six do not, in a forward or in the cache."""
    assert mha.model_forward([0, 1, 2, 3, 0], mw).logits.shape == (5, 4)
    with pytest.raises(mha.InputError, match=r"^This model has learned positions for 5 tokens; got 6\.$"):
        mha.model_forward([0, 1, 2, 3, 0, 1], mw)
    cache = mha.ModelCache(mw)
    for i in range(5):
        cache.append(i % 4)
    with pytest.raises(mha.InputError, match=r"^This model has learned positions for 5 tokens; got 6\.$"):
        cache.append(0)


@pytest.mark.parametrize("pair", [(2, 0), (0, 2), (-1, 0), (0, -1), (0.5, 0), ("a", 0), (0,), None])
def test_a_knocked_pair_the_model_lacks_is_refused_naming_it_and_the_ranges(mw, pair):
    with pytest.raises(mha.ConfigError, match=f"^knocked: {re.escape(repr(pair))} is not a \\(layer, head\\) pair "
                                              r"of this model, counted from 0: layers 0\.\.1, heads 0\.\.1\.$"):
        mha.model_forward([0, 1], mw, knocked=[pair])


def test_knocked_pairs_may_be_whole_floats_or_numpy_ints_and_repeat(mw):
    """(1.0, 0) and np.int64 pairs name the same head as (1, 0); naming it twice knocks it once."""
    want = mha.model_forward([0, 1, 2], mw, knocked=[(1, 0)]).logits
    for knocked in ([(1.0, 0)], [(np.int64(1), np.int64(0))], [(1, 0), (1, 0)], [[1, 0]]):
        np.testing.assert_array_equal(mha.model_forward([0, 1, 2], mw, knocked=knocked).logits, want)
    assert check_knocked([(1, 1), (0, 1), (1, 0)], mw) == {1: (0, 1), 0: (1,)}


@pytest.mark.parametrize("t", [0, -1.0, float("nan"), float("inf")])
def test_a_temperature_that_is_no_finite_positive_number_is_refused(mw, t):
    with pytest.raises(mha.ConfigError, match=f"^temperature must be a finite number above 0; got {float(t)}.$"):
        mha.model_forward([0, 1], mw, temperature=t)


def test_the_trace_holds_e_p_x_and_probs_by_their_definitions(mw):
    """e = E[ids], p = P[:n], x = e + p, logits = LN_f(x_L)·Eᵀ and probs = softmax(logits / T), by loops."""
    ids = [2, 0, 3]
    t = mha.model_forward(ids, mw, temperature=0.5)
    np.testing.assert_array_equal(t.ids, ids)
    np.testing.assert_array_equal(t.e, mw.wte[ids])
    np.testing.assert_array_equal(t.p, mw.wpe[:3])
    np.testing.assert_allclose(t.x, mw.wte[ids] + mw.wpe[:3], rtol=0, atol=1e-15)
    last = t.layers[-1].y
    for i in range(3):
        row = last[i]
        mean, var = row.mean(), ((row - row.mean()) ** 2).mean()
        final = [(a - mean) / np.sqrt(var + 1e-5) * g + b for a, g, b in zip(row, mw.lnf_g, mw.lnf_b)]
        np.testing.assert_allclose(t.final[i], final, rtol=1e-12, atol=1e-12)
        logits = [sum(f * e for f, e in zip(final, mw.wte[v])) for v in range(4)]
        np.testing.assert_allclose(t.logits[i], logits, rtol=1e-12, atol=1e-12)
        ex = [np.exp((a - max(logits)) / 0.5) for a in logits]
        np.testing.assert_allclose(t.probs[i], [a / sum(ex) for a in ex], rtol=1e-12, atol=1e-15)


def test_sinusoidal_positions_are_used_without_a_learned_table():
    """P[t, 2i] = sin(t·10000^(−2i/d)), P[t, 2i+1] = cos(…), by formula, for an odd d_model too."""
    mw = mha.init_model(mha.AttentionConfig(d_model=5, d_k=3, d_v=2), VOCAB)
    t = mha.model_forward([0, 1, 2, 3], mw)
    for pos in range(4):
        for j in range(5):
            angle = pos * 10000.0 ** (-2 * (j // 2) / 5)
            want = np.sin(angle) if j % 2 == 0 else np.cos(angle)
            assert t.p[pos, j] == pytest.approx(want, abs=1e-12)


def test_model_weights_are_float64_read_only_copies():
    source = mha.init_model(CFG, VOCAB, positions="learned", n_ctx=4)
    ints = {name: np.round(getattr(source, name)).astype(int).tolist() for name in ("wte", "wpe", "lnf_g", "lnf_b")}
    mw = mha.ModelWeights(ints["wte"], ints["wpe"], list(source.blocks), ints["lnf_g"], ints["lnf_b"])
    for name in ("wte", "wpe", "lnf_g", "lnf_b"):
        a = getattr(mw, name)
        assert a.dtype == np.float64, name
        with pytest.raises(ValueError):
            a.flat[0] = 1.0
    assert isinstance(mw.blocks, tuple) and mw.n_ctx == 4 and mw.vocab_size == 4  # blocks given as a list


@pytest.mark.parametrize("name", ["wte", "wpe", "lnf_g", "lnf_b"])
def test_a_model_weight_with_nan_is_refused_by_name(name):
    source = mha.init_model(CFG, VOCAB, positions="learned", n_ctx=4)
    parts = {n: np.array(getattr(source, n)) for n in ("wte", "wpe", "lnf_g", "lnf_b")}
    parts[name].flat[0] = np.inf
    with pytest.raises(mha.InputError, match=f"^{name} holds NaN or infinite values; every weight must be finite.$"):
        mha.ModelWeights(parts["wte"], parts["wpe"], source.blocks, parts["lnf_g"], parts["lnf_b"])


@pytest.mark.parametrize("change, words", [
    (dict(wte=np.zeros((4, 5))), r"^every block must have d_model = 5, E's width; there must be at least one block\.$"),
    (dict(wte=np.zeros(6)), r"^every block must have d_model = -1, E's width; there must be at least one block\.$"),
    (dict(blocks=()), r"^every block must have d_model = 6, E's width; there must be at least one block\.$"),
    (dict(wpe=np.zeros((4, 5))), r"^wpe must be \(n_ctx, 6\); got \(4, 5\)\.$"),
    (dict(wpe=np.zeros(6)), r"^wpe must be \(n_ctx, 6\); got \(6,\)\.$"),
    (dict(lnf_g=np.ones(5)), r"^lnf_g and lnf_b must be \(6,\); got \(5,\), \(6,\)\.$"),
    (dict(lnf_b=np.ones((1, 6))), r"^lnf_g and lnf_b must be \(6,\); got \(6,\), \(1, 6\)\.$"),
])
def test_badly_shaped_model_weights_are_refused_one_at_a_time(change, words):
    source = mha.init_model(CFG, VOCAB, positions="learned", n_ctx=4)
    parts = dict(wte=source.wte, wpe=source.wpe, blocks=source.blocks, lnf_g=source.lnf_g, lnf_b=source.lnf_b)
    with pytest.raises(mha.InputError, match=words):
        mha.ModelWeights(**(parts | change))


def test_the_model_cache_counts_its_tokens_and_takes_edited_rows(mw):
    """len(cache) is the tokens fed; append_x takes a row of X the caller made, refusing a badly shaped one."""
    cache = mha.ModelCache(mw)
    assert len(cache) == 0
    cache.append(1)
    row = mw.wte[2] + mw.wpe[1] + 0.5
    got = cache.append_x(row.tolist())
    assert len(cache) == 2
    x = np.stack([mw.wte[1] + mw.wpe[0], row])
    np.testing.assert_allclose(got, mha.logits_from(x, mw).logits[-1], rtol=1e-9, atol=1e-12)
    with pytest.raises(mha.InputError, match=r"n × 6; got shape \(1, 5\)"):
        cache.append_x(np.zeros(5))
    with pytest.raises(mha.InputError, match=r"^ids must be a non-empty list"):
        cache.append(1.5)
