"""Issue 35's core: knocking heads out, the logits split into the parts that add up to them, and a head's OV and QK
circuits, each against a computation written here (or in reference.py) apart from mha's."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mha
from mha.circuits import copies, knockout_table
from mha.train import held_out

from . import reference as ref
from .test_block import _lists, models

SHIPPED_IDS = np.array([0, 3, 3, 7, 1, 0, 3, 3, 7, 1])


@pytest.fixture(scope="module")
def shipped() -> mha.ModelWeights:
    return mha.load_trained().weights


def _before_knocking(ids, mw: mha.ModelWeights) -> tuple[np.ndarray, np.ndarray]:
    """The shipped model's logits and patterns by the forward as it was before `knocked` (573302d), kept here as the
    reference: each pre-LN block from the core's pieces, x + MHA(LN₁(x)), then + FFN(LN₂(·)); final LN, ·Eᵀ."""
    x, patterns = mw.wte[ids] + mw.wpe[: len(ids)], []
    for bw in mw.blocks:
        attn = mha.forward(mha.layer_norm(x, bw.ln1_g, bw.ln1_b), bw.attn)
        r1 = x + attn.y
        hidden = mha.layer_norm(r1, bw.ln2_g, bw.ln2_b) @ bw.w_fc + bw.b_fc
        x = r1 + (mha.gelu(hidden) @ bw.w_proj + bw.b_proj)
        patterns.append(attn.probs)
    return mha.layer_norm(x, mw.lnf_g, mw.lnf_b) @ mw.wte.T, np.stack(patterns)


def test_knocking_out_nothing_is_todays_forward_bit_for_bit(shipped):
    """Bit for bit against the forward before knock-outs, both computed in this run on this machine's kernels (a
    digest taken on one CPU fails on another whose BLAS rounds the last bit differently)."""
    logits, patterns = _before_knocking(SHIPPED_IDS, shipped)
    for knocked in ((), [], set()):
        t = mha.model_forward(SHIPPED_IDS, shipped, knocked=knocked)
        assert t.logits.tobytes() == logits.tobytes(), knocked
        assert np.stack([layer.attn.probs for layer in t.layers]).tobytes() == patterns.tobytes(), knocked


@st.composite
def knocked_models(draw):
    mw, ids = draw(models())
    heads = mw.blocks[0].attn.n_heads
    pairs = st.tuples(st.integers(0, mw.n_layers - 1), st.integers(0, heads - 1))
    return mw, ids, draw(st.lists(pairs, max_size=4))


@settings(max_examples=60, deadline=None)
@given(knocked_models())
def test_a_knocked_forward_matches_the_loop_reference(model):
    """Layer l's heads in `knocked` write zeros: the loop reference leaves their H out of Concat."""
    mw, ids, knocked = model
    tr = mha.model_forward(ids, mw, knocked=knocked)
    wpe = None if mw.wpe is None else mw.wpe.tolist()
    expected = ref.model_logits(ids, mw.wte.tolist(), wpe, [_lists(b) for b in mw.blocks], mw.lnf_g.tolist(),
                                mw.lnf_b.tolist(), knocked)
    np.testing.assert_allclose(tr.logits, expected, rtol=0, atol=1e-10)


def zero_rows(mw: mha.ModelWeights, knocked) -> mha.ModelWeights:
    """The model with each knocked head's rows of W_O set to 0 (its block of d_v rows)."""
    blocks = []
    for layer, bw in enumerate(mw.blocks):
        w_o = bw.attn.w_o.copy()
        for la, h in knocked:
            if la == layer:
                w_o[h * bw.attn.d_v:(h + 1) * bw.attn.d_v] = 0
        attn = mha.Weights(bw.attn.w_q, bw.attn.w_k, bw.attn.w_v, w_o)
        blocks.append(mha.BlockWeights(attn, *(getattr(bw, f) for f in ("ln1_g", "ln1_b", "ln2_g", "ln2_b", "w_fc",
                                                                          "b_fc", "w_proj", "b_proj"))))
    return mha.ModelWeights(mw.wte, mw.wpe, blocks, mw.lnf_g, mw.lnf_b)


@pytest.mark.parametrize("knocked", [[(0, 1)], [(1, 0)], [(1, 1)], [(1, 0), (1, 1)], [(0, 0), (1, 1)]])
def test_knocking_out_a_head_is_zeroing_its_rows_of_w_o(shipped, knocked):
    """i ≠ j on purpose: layer 2 head 1 and layer 1 head 2 are different heads, and each must be the one named."""
    knocked_trace = mha.model_forward(SHIPPED_IDS, shipped, knocked=knocked)
    zeroed = mha.model_forward(SHIPPED_IDS, zero_rows(shipped, knocked))
    np.testing.assert_allclose(knocked_trace.logits, zeroed.logits, rtol=0, atol=1e-12)
    assert np.abs(knocked_trace.logits - mha.model_forward(SHIPPED_IDS, shipped).logits).max() > 1e-3
    for la, h in knocked:  # the pattern stays, what the head writes is gone
        assert not knocked_trace.layers[la].attn.heads[h].any()


@pytest.mark.parametrize("pair", [(2, 0), (0, 2), (-1, 0), (0.5, 1), ("a", 0), (1,)])
def test_a_pair_the_model_lacks_is_refused_by_name(shipped, pair):
    with pytest.raises(mha.ConfigError, match="knocked"):
        mha.model_forward(SHIPPED_IDS, shipped, knocked=[pair])


def direct(part_row, last_row, g, wte):
    """A part's direct logits at one row, by loops: centred, over the full residual's σ, times γ_f, dotted with E."""
    d = len(part_row)
    mean, full_mean = sum(part_row) / d, sum(last_row) / d
    sigma = (sum((a - full_mean) ** 2 for a in last_row) / d + 1e-5) ** 0.5
    scaled = [(a - mean) / sigma * gj for a, gj in zip(part_row, g)]
    return [sum(a * e for a, e in zip(scaled, row)) for row in wte]


@settings(max_examples=60, deadline=None)
@given(knocked_models())
def test_the_logit_parts_add_up_to_the_logits(model):
    mw, ids, knocked = model
    tr = mha.model_forward(ids, mw, knocked=knocked)
    parts = mha.logit_parts(tr, mw)
    heads = mw.blocks[0].attn.n_heads
    assert list(parts) == mha.part_names(mw.n_layers, heads)
    np.testing.assert_allclose(sum(parts.values()), tr.logits, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(mha.head_logits(tr, mw), np.stack(
        [[parts[f"head {la + 1}.{h + 1}"] for h in range(heads)] for la in range(mw.n_layers)]))
    for la, h in knocked:
        assert not parts[f"head {la + 1}.{h + 1}"].any()


@pytest.mark.parametrize("layer, head", [(0, 1), (1, 0)])
def test_a_heads_part_is_its_own_output_through_w_o_and_the_final_norm(shipped, layer, head):
    """Layer 1 head 2 and layer 2 head 1 (i ≠ j): each part is that head's own H·W_O rows, by loops."""
    tr = mha.model_forward(SHIPPED_IDS, shipped)
    part = mha.head_logits(tr, shipped)[layer, head]
    bw = shipped.blocks[layer]
    d_v = bw.attn.d_v
    written = ref.matmul(tr.layers[layer].attn.heads[head].tolist(),
                         bw.attn.w_o[head * d_v:(head + 1) * d_v].tolist())
    for i in (0, 4, 9):
        np.testing.assert_allclose(part[i], direct(written[i], tr.layers[-1].y[i].tolist(), shipped.lnf_g.tolist(),
                                                   shipped.wte.tolist()), rtol=0, atol=1e-12)


def test_post_ln_blocks_do_not_split(shipped):
    tr = mha.model_forward(SHIPPED_IDS, shipped)
    post = type(tr)(**{**vars(tr), "layers": tuple(mha.block(layer.x, bw, ln="post")
                                                   for layer, bw in zip(tr.layers, shipped.blocks))})
    with pytest.raises(mha.ConfigError, match="pre-LN"):
        mha.logit_parts(post, shipped)


def ln_rows(e, g):
    """layer_norm(E, γ, 0) by loops."""
    out = []
    for row in e:
        d = len(row)
        mean = sum(row) / d
        sd = (sum((a - mean) ** 2 for a in row) / d + 1e-5) ** 0.5
        out.append([(a - mean) / sd * gj for a, gj in zip(row, g)])
    return out


def written_by(mw, layer, head):
    bw = mw.blocks[layer]
    d_v = bw.attn.d_v
    return ref.matmul(ref.matmul(ln_rows(mw.wte.tolist(), bw.ln1_g.tolist()), bw.attn.w_v[head].tolist()),
                      bw.attn.w_o[head * d_v:(head + 1) * d_v].tolist())


def centred(rows, g):
    return [[(a - sum(r) / len(r)) * gj for a, gj in zip(r, g)] for r in rows]


@pytest.mark.parametrize("layer, head", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_the_ov_circuit_is_its_definition(shipped, layer, head):
    expected = ref.matmul(centred(written_by(shipped, layer, head), shipped.lnf_g.tolist()),
                          ref.transpose(shipped.wte.tolist()))
    np.testing.assert_allclose(mha.ov_circuit(shipped, layer, head), expected, rtol=0, atol=1e-12)
    a, b = mha.ov_factors(shipped, layer, head)  # the page's product: Ê·W_V·W_O, then the final norm's read-out
    np.testing.assert_allclose(a, written_by(shipped, layer, head), rtol=0, atol=1e-12)
    np.testing.assert_allclose(a @ b, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("head, through", [(0, None), (1, (0, 1)), (0, (0, 0))])
def test_the_qk_circuit_is_its_definition(shipped, head, through):
    bw = shipped.blocks[1]
    q = ref.matmul(ln_rows(shipped.wte.tolist(), bw.ln1_g.tolist()), bw.attn.w_q[head].tolist())
    keys = (ln_rows(shipped.wte.tolist(), bw.ln1_g.tolist()) if through is None
            else centred(written_by(shipped, *through), bw.ln1_g.tolist()))
    k = ref.matmul(keys, bw.attn.w_k[head].tolist())
    expected = [[a / bw.attn.d_k ** 0.5 for a in row] for row in ref.matmul(q, ref.transpose(k))]
    np.testing.assert_allclose(mha.qk_circuit(shipped, 1, head, through), expected, rtol=0, atol=1e-12)
    with pytest.raises(mha.ConfigError, match="earlier layer"):
        mha.qk_circuit(shipped, 0, head, (0, 1))


def test_post_ln_blocks_are_refused_in_words_that_say_why(shipped):
    tr = mha.model_forward(SHIPPED_IDS, shipped)
    post = type(tr)(**{**vars(tr), "layers": tuple(mha.block(layer.x, bw, ln="post")
                                                   for layer, bw in zip(tr.layers, shipped.blocks))})
    with pytest.raises(mha.ConfigError, match=r"^The logits split into parts only where the residual stream is a sum: "
                                              r"pre-LN blocks \(GPT-2's order\)\. A post-LN block normalises the "
                                              r"stream after each sum\.$"):
        mha.logit_parts(post, shipped)


def test_the_final_norms_beta_goes_into_the_biases_part(shipped):
    """With β_f ≠ 0 (the shipped model's is trained, but small): the parts still add up to the logits, and "biases"
    is the FFNs' b_proj through the final norm plus β_f·Eᵀ, by loops."""
    rng = np.random.default_rng(0)
    mw = mha.ModelWeights(shipped.wte, shipped.wpe, shipped.blocks, shipped.lnf_g,
                          shipped.lnf_b + rng.standard_normal(shipped.d_model))
    tr = mha.model_forward(SHIPPED_IDS, mw)
    parts = mha.logit_parts(tr, mw)
    np.testing.assert_allclose(sum(parts.values()), tr.logits, rtol=0, atol=1e-10)
    b_proj = sum(bw.b_proj for bw in mw.blocks).tolist()
    beta = [sum(b * e for b, e in zip(mw.lnf_b.tolist(), row)) for row in mw.wte.tolist()]
    for i in (0, 5, 9):
        through = direct(b_proj, tr.layers[-1].y[i].tolist(), mw.lnf_g.tolist(), mw.wte.tolist())
        np.testing.assert_allclose(parts["biases"][i], np.add(through, beta), rtol=0, atol=1e-12)


def _loss_and_hits(logits, target):
    """-log softmax(logits)[target] by log-sum-exp in Python floats, shifted by the row's own largest logit."""
    top = max(logits)
    lse = top + math.log(sum(math.exp(a - top) for a in logits))
    return lse - logits[target], int(max(range(len(logits)), key=lambda j: logits[j]) == target)


def test_task_score_is_the_second_copys_accuracy_and_loss_even_for_huge_logits(monkeypatch):
    """A model sure of itself: logits in the thousands, and rows far apart. Each row's loss is still its own
    log-softmax (no exp overflowing to inf, no row shifted by another's maximum and underflowing to 0)."""
    seqs = [np.array([0, 1, 2, 0, 1, 2]), np.array([3, 2, 3, 2])]
    logits = {6: np.array([[0.0, 0, 0, 0]] * 3 + [[9.0, 1000.0, 990.0, -5.0], [-2000.0, -1500.0, -1000.0, -1003.0],
                                                   [0.0, 0, 0, 0]]),
              4: np.array([[0.0, 0, 0, 0]] * 2 + [[700.0, 0.0, 710.0, 720.0], [0.0, 0, 0, 0]])}
    seen = []

    def forward(row, mw, knocked=()):
        seen.append(tuple(knocked))
        return type("Trace", (), {"logits": logits[len(row)]})

    monkeypatch.setattr(mha.circuits, "model_forward", forward)
    got = mha.task_score(None, seqs, knocked=[(0, 1)])
    rows = [(logits[6][3], 1), (logits[6][4], 2), (logits[4][2], 2)]
    want = [_loss_and_hits(r.tolist(), t) for r, t in rows]
    assert got.predictions == 3 and seen == [((0, 1),), ((0, 1),)]
    assert got.accuracy == pytest.approx(np.mean([h for _, h in want]), abs=1e-12)
    assert got.loss == pytest.approx(np.mean([loss for loss, _ in want]), rel=1e-12)


def test_the_knockout_table_scores_each_set(shipped):
    """One (knocked, task_score) row per set, in order, each set as a tuple."""
    seqs = held_out(4)
    sets = [[], [(0, 1)], [(1, 0), (1, 1)]]
    table = knockout_table(shipped, seqs, sets)
    assert [k for k, _ in table] == [(), ((0, 1),), ((1, 0), (1, 1))]
    for (_, score), knocked in zip(table, sets):
        losses, hits = [], []
        for row in seqs:
            logits = mha.model_forward(row, shipped, knocked=knocked).logits
            half = len(row) // 2
            for i in range(half, len(row) - 1):
                loss, hit = _loss_and_hits(logits[i].tolist(), int(row[i + 1]))
                losses.append(loss)
                hits.append(hit)
        assert score == mha.TaskScore(pytest.approx(np.mean(hits)), pytest.approx(np.mean(losses), rel=1e-9),
                                      len(hits))


def test_python_m_mha_knockouts_prints_the_readmes_table(shipped, monkeypatch, capsys):
    """`python -m mha.knockouts` on 5 held-out sequences: the count, the header, one row per set (none, each head,
    the last layer's heads together) with accuracy and loss to 3 decimals, then each head's copying count."""
    from mha import knockouts

    seqs = held_out(5)
    monkeypatch.setattr(knockouts, "held_out", lambda: seqs)
    knockouts.main()
    lines = capsys.readouterr().out.splitlines()
    sets = {"none": [], "1.1": [(0, 0)], "1.2": [(0, 1)], "2.1": [(1, 0)], "2.2": [(1, 1)],
            "2.1, 2.2": [(1, 0), (1, 1)]}
    want = ["held-out: 5 sequences (mha.train.held_out)", "knocked (layer.head from 1)   accuracy   loss"]
    for name, knocked in sets.items():
        s = mha.task_score(shipped, seqs, knocked)
        want.append(name.ljust(29) + " " + f"{s.accuracy:.3f}".rjust(8) + " " + f"{s.loss:.3f}".rjust(7))
    for la in range(2):
        for h in range(2):
            want.append(f"head {la + 1}.{h + 1}: its OV circuit copies {copies(mha.ov_circuit(shipped, la, h))} "
                        f"of {shipped.vocab_size} tokens")
    assert lines == want
