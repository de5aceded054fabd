"""Issue 35's core: knocking heads out, the logits split into the parts that add up to them, and a head's OV and QK
circuits, each against a computation written here (or in reference.py) apart from mha's."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mha

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
