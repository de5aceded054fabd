"""The GPT block and the model around it, against a loop-by-loop reference and the post's claims."""

import math
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mha
from mha.block import block_row

from . import reference as ref
from .strategies import configs

BLOCK_FIELDS = ("ln1_g", "ln1_b", "ln2_g", "ln2_b", "w_fc", "b_fc", "w_proj", "b_proj")


def _lists(bw: mha.BlockWeights) -> dict:
    out = {name: getattr(bw, name).tolist() for name in BLOCK_FIELDS}
    out.update(w_q=bw.attn.w_q.tolist(), w_k=bw.attn.w_k.tolist(), w_v=bw.attn.w_v.tolist(), w_o=bw.attn.w_o.tolist())
    return out


@st.composite
def block_configs(draw, max_tokens=6):
    cfg = draw(configs(max_tokens=max_tokens, max_dim=8, max_heads=3))
    d_model = draw(st.integers(2, 8))  # LN of a single feature is 0 whatever the input: keep d_model >= 2
    d_ff = draw(st.integers(1, 12))
    return mha.AttentionConfig(cfg.n_tokens, d_model, cfg.d_k, cfg.d_v, cfg.n_heads, cfg.seed, cfg.init, d_ff)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6), st.integers(1, 9), st.integers(0, 2**31), st.floats(1e-6, 1e-3))
def test_layer_norm_matches_the_loop_formula(n, d, seed, eps):
    rng = np.random.default_rng(seed)
    x, g, b = rng.standard_normal((n, d)) * 3, rng.standard_normal(d), rng.standard_normal(d)
    np.testing.assert_allclose(mha.layer_norm(x, g, b, eps), ref.layer_norm(x.tolist(), g, b, eps), rtol=0, atol=1e-10)


def test_layer_norm_gives_mean_zero_and_biased_variance_one():
    x = np.random.default_rng(1).standard_normal((4, 6)) * 5 + 3
    y = mha.layer_norm(x, np.ones(6), np.zeros(6), eps=0.0)
    np.testing.assert_allclose(y.mean(-1), 0, atol=1e-12)
    np.testing.assert_allclose((y**2).mean(-1), 1, atol=1e-12)  # divided by d, not d - 1


@pytest.mark.parametrize("a", [-6.0, -1.5, -0.3, 0.0, 0.2, 1.0, 2.5, 8.0])
def test_gelu_is_gpt2s_tanh_form(a):
    assert mha.gelu(np.array(a)) == pytest.approx(ref.gelu(a), abs=1e-15)


@pytest.mark.parametrize("a", [-1.5, 1.0, 2.5])
def test_gelu_is_not_the_erf_form(a):
    assert abs(mha.gelu(np.array(a)) - 0.5 * a * (1 + math.erf(a / math.sqrt(2)))) > 1e-5


@settings(max_examples=200, deadline=None)
@given(block_configs())
def test_block_matches_the_loop_reference(cfg):
    bw, x = mha.init_block(cfg), mha.init_input(cfg)
    bt = mha.block(x, bw)
    np.testing.assert_allclose(bt.y, ref.block(x.tolist(), _lists(bw)), rtol=0, atol=1e-10)
    assert bt.hidden.shape == bt.act.shape == (cfg.n_tokens, cfg.d_ff)
    np.testing.assert_array_equal(bt.r1, x + bt.attn.y)
    np.testing.assert_array_equal(bt.y, bt.r1 + bt.ffn)


@settings(max_examples=100, deadline=None)
@given(block_configs(), st.data())
def test_block_rows_ignore_later_rows_of_x(cfg, data):
    """The post's claim for the whole block: LN and the FFN act row by row, so Y_1..i see only X_1..i."""
    bw, x = mha.init_block(cfg), mha.init_input(cfg)
    i = data.draw(st.integers(0, cfg.n_tokens - 1), label="last kept row")
    changed = x.copy()
    changed[i + 1:] = data.draw(st.floats(-20, 20), label="new value") - 3.0
    np.testing.assert_array_equal(mha.block(changed, bw).y[: i + 1], mha.block(x, bw).y[: i + 1])


@settings(max_examples=100, deadline=None)
@given(block_configs())
def test_the_pre_ln_block_is_gpt2s_order_bit_for_bit(cfg):
    """ln="pre" (the default) keeps the block's numbers as they were: LN₁, attention, + x, LN₂, the FFN, + r1, each
    step the same numpy operations in the same order, so equal to the last bit."""
    bw, x = mha.init_block(cfg), mha.init_input(cfg)
    ln1 = mha.layer_norm(x, bw.ln1_g, bw.ln1_b)
    r1 = x + mha.forward(ln1, bw.attn).y
    ln2 = mha.layer_norm(r1, bw.ln2_g, bw.ln2_b)
    hidden = ln2 @ bw.w_fc + bw.b_fc
    ffn = mha.gelu(hidden) @ bw.w_proj + bw.b_proj
    for bt in (mha.block(x, bw), mha.block(x, bw, ln="pre")):
        assert bt.ln == "pre"
        for got, want in ((bt.ln1, ln1), (bt.r1, r1), (bt.ln2, ln2), (bt.hidden, hidden), (bt.ffn, ffn),
                          (bt.y, r1 + ffn), (bt.sum1, r1), (bt.sum2, r1 + ffn), (bt.attn_in, ln1), (bt.ffn_in, ln2)):
            np.testing.assert_array_equal(got, want)


@settings(max_examples=200, deadline=None)
@given(block_configs())
def test_the_post_ln_block_matches_its_loop_reference(cfg):
    """The original GPT's order (the post's figure): r1 = LN₁(x + attn(x)), y = LN₂(r1 + ffn(r1))."""
    bw, x = mha.init_block(cfg), mha.init_input(cfg)
    bt = mha.block(x, bw, ln="post")
    np.testing.assert_allclose(bt.y, ref.block_post(x.tolist(), _lists(bw)), rtol=0, atol=1e-10)
    assert bt.ln == "post" and bt.hidden.shape == (cfg.n_tokens, cfg.d_ff)
    np.testing.assert_array_equal(bt.attn.y, mha.forward(x, bw.attn).y)  # attention reads x itself
    np.testing.assert_array_equal(bt.sum1, x + bt.attn.y)
    np.testing.assert_array_equal(bt.ln1_in, bt.sum1)
    np.testing.assert_array_equal(bt.r1, bt.ln1)
    np.testing.assert_array_equal(bt.ffn_in, bt.r1)
    np.testing.assert_array_equal(bt.sum2, bt.r1 + bt.ffn)
    np.testing.assert_array_equal(bt.ln2_in, bt.sum2)
    np.testing.assert_array_equal(bt.y, bt.ln2)


def test_post_and_pre_differ_on_the_same_weights():
    cfg = mha.AttentionConfig()
    bw, x = mha.init_block(cfg), mha.init_input(cfg)
    assert not np.allclose(mha.block(x, bw, ln="post").y, mha.block(x, bw, ln="pre").y)


@pytest.mark.parametrize("ln", ["Post", "", "gpt2", None])
def test_an_unknown_order_is_a_config_error_naming_the_allowed_values(ln):
    cfg = mha.AttentionConfig()
    with pytest.raises(mha.ConfigError, match="'pre', 'post'"):
        mha.block(mha.init_input(cfg), mha.init_block(cfg), ln=ln)


@settings(max_examples=100, deadline=None)
@given(block_configs(), st.data())
def test_post_ln_rows_ignore_later_rows_of_x(cfg, data):
    """The post's claim holds for its own block too: LN after the sums still acts on each row alone."""
    bw, x = mha.init_block(cfg), mha.init_input(cfg)
    i = data.draw(st.integers(0, cfg.n_tokens - 1), label="last kept row")
    changed = x.copy()
    changed[i + 1:] = data.draw(st.floats(-20, 20), label="new value") - 3.0
    np.testing.assert_array_equal(mha.block(changed, bw, ln="post").y[: i + 1], mha.block(x, bw, ln="post").y[: i + 1])


@pytest.mark.parametrize("ln", ["pre", "post"])
@pytest.mark.parametrize("init", ["gaussian", "integers"])
def test_a_row_through_the_kv_cache_equals_the_whole_block(ln, init):
    """block_row, one token at a time through a KV cache, gives the rows the whole block gives, in both orders."""
    cfg = mha.AttentionConfig(n_tokens=6, init=init)
    bw, x = mha.init_block(cfg), mha.init_input(cfg)
    cache = mha.KVCache(bw.attn)
    rows = [block_row(row, bw, lambda r: cache.append(r).y, ln=ln) for row in x]
    np.testing.assert_allclose(rows, mha.block(x, bw, ln=ln).y, rtol=0, atol=1e-12)


@pytest.mark.parametrize("d_model", [5, 6])
def test_sinusoidal_positions_cell_by_cell(d_model):
    p = mha.sinusoidal_positions(9, d_model)
    assert p.shape == (9, d_model)
    for t in range(9):
        for j in range(d_model):
            assert p[t, j] == pytest.approx(ref.sinusoid(t, j, d_model), abs=1e-15)
    assert p[0].tolist() == [0.0 if j % 2 == 0 else 1.0 for j in range(d_model)]  # position 0: sin 0, cos 0


def test_odd_d_model_ends_on_a_sin_column_with_its_own_frequency():
    p = mha.sinusoidal_positions(4, 5)
    np.testing.assert_allclose(p[:, 4], np.sin(np.arange(4) * 10000 ** (-4 / 5)))


@st.composite
def models(draw):
    cfg = draw(block_configs(max_tokens=5))
    vocab = [f"w{i}" for i in range(draw(st.integers(1, 7)))]
    positions = draw(st.sampled_from(mha.POSITIONS))
    mw = mha.init_model(cfg, vocab, n_layers=draw(st.integers(1, 3)), positions=positions, n_ctx=8)
    ids = draw(st.lists(st.integers(0, len(vocab) - 1), min_size=1, max_size=6))
    return mw, ids


@settings(max_examples=150, deadline=None)
@given(models())
def test_model_logits_match_the_loop_reference(model):
    mw, ids = model
    tr = mha.model_forward(ids, mw)
    wpe = None if mw.wpe is None else mw.wpe.tolist()
    expected = ref.model_logits(ids, mw.wte.tolist(), wpe, [_lists(b) for b in mw.blocks], mw.lnf_g.tolist(),
                                mw.lnf_b.tolist())
    np.testing.assert_allclose(tr.logits, expected, rtol=0, atol=1e-10)
    assert tr.probs.shape == (len(ids), mw.vocab_size)
    np.testing.assert_allclose(tr.probs.sum(-1), 1, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(models())
def test_the_model_is_embed_then_logits_from(model):
    """model_forward is X = E[ids] + P, then logits_from(X): one forward from X to the logits, the UI's too."""
    mw, ids = model
    tr = mha.model_forward(ids, mw)
    x = mha.embed(ids, mw)
    np.testing.assert_array_equal(x, mw.wte[ids] + (mha.sinusoidal_positions(len(ids), mw.d_model)
                                                    if mw.wpe is None else mw.wpe[: len(ids)]))
    top = mha.logits_from(x, mw)
    np.testing.assert_array_equal(tr.x, x)
    np.testing.assert_array_equal(tr.logits, top.logits)
    np.testing.assert_array_equal(tr.final, top.final)
    assert [b.y.tobytes() for b in tr.layers] == [b.y.tobytes() for b in top.layers]


def test_logits_from_takes_any_x_such_as_an_edited_one():
    cfg = mha.AttentionConfig(n_tokens=4, seed=3)
    mw = mha.init_model(cfg, ["a", "b", "c"], n_layers=2)
    x = mha.embed([0, 1, 2, 0], mw)
    x[1, 2] = 7.5  # a learner's edit
    bw = _lists(mw.blocks[0]), _lists(mw.blocks[1])
    h = ref.block(ref.block(x.tolist(), bw[0]), bw[1])
    want = np.array(ref.layer_norm(h, mw.lnf_g, mw.lnf_b, 1e-5)) @ mw.wte.T
    np.testing.assert_allclose(mha.logits_from(x, mw).logits, want, rtol=0, atol=1e-10)
    with pytest.raises(mha.InputError, match="d_model"):
        mha.logits_from(x[:, :4], mw)


@pytest.mark.parametrize("row", [0, 2])
def test_a_row_too_large_for_a_layer_norm_is_refused_not_turned_into_beta(row):
    """Past ~1e154 a row's variance overflows and LN would quietly give β; the block says so instead, and so does
    everything built on it."""
    cfg = mha.AttentionConfig()
    bw, x = mha.init_block(cfg), mha.init_input(cfg)
    x[row, 1] = 1e200
    with pytest.raises(mha.InputError, match="variance overflows float64"):
        mha.block(x, bw)
    mw = mha.init_model(cfg, ["a", "b"], blocks=(bw,))
    with pytest.raises(mha.InputError, match="variance overflows float64"):
        mha.logits_from(x, mw)
    x[row, 1] = 1e100  # its square still fits
    assert np.all(np.isfinite(mha.block(x, bw).y))


def test_temperature_sharpens_and_flattens():
    cfg = mha.AttentionConfig()
    vocab = mha.vocabulary(mha.tokenize("a b c d e"))
    mw = mha.init_model(cfg, vocab)
    cold, warm = (mha.model_forward([0, 1, 2], mw, t).probs[-1] for t in (0.2, 5.0))
    assert cold.max() > mha.model_forward([0, 1, 2], mw).probs[-1].max() > warm.max()
    assert np.argmax(cold) == np.argmax(warm)
    with pytest.raises(mha.ConfigError, match="temperature"):
        mha.model_forward([0], mw, 0.0)


def test_cached_generation_equals_a_full_recompute_over_64_steps_and_2_layers():
    cfg = mha.AttentionConfig(seed=4)
    vocab = mha.vocabulary(mha.tokenize("the cat sat on the mat and then the dog ran off"))
    mw = mha.init_model(cfg, vocab, n_layers=2, positions="learned", n_ctx=80)
    ids = [0, 1, 2]
    cache = mha.ModelCache(mw)
    for i in ids:
        logits = cache.append(i)
    rng = np.random.default_rng(0)
    for _ in range(64):
        np.testing.assert_allclose(logits, mha.model_forward(ids, mw).logits[-1], rtol=0, atol=1e-12)
        ids.append(int(rng.integers(len(vocab))))
        logits = cache.append(ids[-1])
    assert len(cache) == 67 and all(len(c) == 67 for c in cache.layers)


def test_the_cache_fed_rows_of_x_gives_the_logits_of_that_x_and_refuses_a_bad_row():
    """append_x reads any row the first block could read (an edited X): its logits are logits_from's on the rows fed,
    through every layer; append(id) is append_x of E[id] + P[t]."""
    cfg = mha.AttentionConfig(seed=5)
    vocab = mha.vocabulary(mha.tokenize("a b c d"))
    mw = mha.init_model(cfg, vocab, n_layers=2)
    x = mha.embed([0, 1, 2, 1], mw)
    x[1, 3] += 2.5  # an edit: no token's row
    by_rows, by_ids = mha.ModelCache(mw), mha.ModelCache(mw)
    for t, row in enumerate(x):
        logits = by_rows.append_x(row)
        np.testing.assert_allclose(logits, mha.logits_from(x[: t + 1], mw).logits[-1], rtol=0, atol=1e-12)
    clean = mha.ModelCache(mw)
    for i, row in zip((0, 1, 2, 1), mha.embed([0, 1, 2, 1], mw)):
        from_ids, from_rows = by_ids.append(i), clean.append_x(row)
    np.testing.assert_array_equal(from_ids, from_rows)
    with pytest.raises(mha.InputError):
        by_rows.append_x([1.0, float("nan"), 0, 0, 0])
    with pytest.raises(mha.InputError):
        by_rows.append_x([1.0, 2.0])
    assert len(by_rows) == 4  # a refused row adds nothing


def test_generate_greedy_picks_the_argmax_of_the_full_recompute():
    cfg = mha.AttentionConfig(seed=2)
    vocab = mha.vocabulary(mha.tokenize("一 二 三 四 五 六"))
    mw = mha.init_model(cfg, vocab, n_layers=2)
    out = mha.generate([0, 1], mw, 6)
    ids = [0, 1]
    for nxt in out:
        assert nxt == int(np.argmax(mha.model_forward(ids, mw).logits[-1]))
        ids.append(nxt)
    sampled = mha.generate([0, 1], mw, 6, temperature=1.5, greedy=False, seed=7)
    assert sampled == mha.generate([0, 1], mw, 6, temperature=1.5, greedy=False, seed=7)


@pytest.mark.parametrize("text, tokens", [
    ("the cat sat.", ["the", "cat", "sat", "."]),
    ("我爱注意力", ["我", "爱", "注", "意", "力"]),
    ("I love 注意力!", ["I", "love", "注", "意", "力", "!"]),
    ("👍🏽 ok 👨‍👩‍👧", ["👍🏽", "ok", "👨‍👩‍👧"]),
    ("<img src=x onerror=alert(1)>", ["<", "img", "src", "=", "x", "onerror", "=", "alert", "(", "1", ")", ">"]),
    ("  \n\t ", []),
])
def test_tokenize(text, tokens):
    assert mha.tokenize(text) == tokens


# Words whose letters carry combining marks (Unicode category M): Hindi's vowel signs and virama, Arabic's harakat,
# Thai's vowel and tone marks, Vietnamese written decomposed (NFD), Hebrew's points. Python's re leaves marks out of \w
# and split each word at its first mark (the red team's N10).
MARKED = ["नमस्ते दुनिया", "مَرْحَبًا بِكُمْ", "ที่นี่ น้ำ", unicodedata.normalize("NFD", "tiếng Việt"), "שָׁלוֹם עוֹלָם"]


@pytest.mark.parametrize("text", MARKED)
def test_a_word_with_combining_marks_is_one_token(text):
    """Each space-separated word is one token, whole with its marks, and joining the tokens gives the text back."""
    assert any(unicodedata.category(c).startswith("M") for c in text)
    assert mha.tokenize(text) == text.split(" ")


def test_marks_with_no_letter_before_them_are_a_token_and_nothing_is_lost():
    """A mark at the start, or after a CJK character (one token each), cannot join a word: it is a token of its own,
    as Unicode's grapheme rules make it a cluster of its own, rather than dropped or glued to the next word."""
    assert mha.tokenize("\u0301abc") == ["\u0301", "abc"]
    assert mha.tokenize("我\u0301\u0302爱") == ["我", "\u0301\u0302", "爱"]
    assert mha.tokenize("x\u0301y z") == ["x\u0301y", "z"]


FAMILY, RAINBOW, THUMB, KEYCAP, FLAG = "👨\u200d👩\u200d👧", "🏳\ufe0f\u200d🌈", "👍🏽", "1\ufe0f\u20e3", "🇫🇷"
SCOTLAND = "🏴" + "".join(chr(0xE0000 + ord(c)) for c in "gbsct") + "\U000e007f"  # a tag sequence
JOINED = [FAMILY, RAINBOW, THUMB, KEYCAP, FLAG, SCOTLAND, "👩🏽\u200d💻", "#\ufe0f\u20e3", "❤\ufe0f"]


@pytest.mark.parametrize("emoji", JOINED)
def test_an_emoji_drawn_as_one_picture_is_one_token(emoji):
    """What the docstring promises: modifiers, keycaps, flags, tags and zero-width joins stay with their emoji."""
    assert mha.tokenize(emoji) == [emoji]
    assert mha.tokenize(f"hi {emoji} there") == ["hi", emoji, "there"]
    assert mha.tokenize(f"ok{emoji}ok") == ["ok", emoji, "ok"]


def test_emoji_side_by_side_are_a_token_each():
    assert mha.tokenize("🇫🇷🇩🇪" + FAMILY + THUMB + "😀") == ["🇫🇷", "🇩🇪", FAMILY, THUMB, "😀"]
    assert mha.tokenize("room1\ufe0f\u20e3 123") == ["room", KEYCAP, "123"]


def test_an_invisible_character_is_no_token_and_parts_two_words():
    """A zero-width joiner (or space, a bidi mark, a tag, a control, a variation selector) between two letters makes
    no invisible token of its own, and does not glue the two words into one."""
    assert mha.tokenize("a\u200db") == ["a", "b"]
    assert mha.tokenize("\u200d") == []
    invisible = [chr(c) for c in range(0x110000)
                 if unicodedata.category(chr(c)) in ("Cc", "Cf") and not chr(c).isspace()] + ["\ufe0e", "\ufe0f"]
    bad = [hex(ord(ch)) for ch in invisible if mha.tokenize(f"ab{ch}cd") != ["ab", "cd"] or mha.tokenize(ch)]
    assert not bad
    assert mha.tokenize("😀\u200da a\u200d😀 😀\u200d") == ["😀", "a", "a", "😀", "😀"]  # a joiner joins emoji only


def test_a_token_keeps_its_embedding_in_any_text():
    cfg = mha.AttentionConfig()
    a = mha.init_model(cfg, mha.vocabulary(mha.tokenize("the cat")))
    b = mha.init_model(cfg, mha.vocabulary(mha.tokenize("a cat the")))
    np.testing.assert_array_equal(a.wte[1], b.wte[1])  # "cat" in both
    np.testing.assert_array_equal(a.wte[0], b.wte[2])  # "the"
    assert not np.array_equal(a.wte[0], a.wte[1])


def test_bad_model_inputs_raise_actionable_errors():
    cfg = mha.AttentionConfig()
    mw = mha.init_model(cfg, ["a", "b"], positions="learned", n_ctx=3)
    with pytest.raises(mha.InputError, match="0..1"):
        mha.model_forward([0, 2], mw)
    with pytest.raises(mha.InputError, match="3 tokens"):
        mha.model_forward([0, 1, 0, 1], mw)
    with pytest.raises(mha.InputError, match="empty"):
        mha.init_model(cfg, [])
    with pytest.raises(mha.ConfigError, match="positions"):
        mha.init_model(cfg, ["a"], positions="rotary")
    with pytest.raises(mha.ConfigError, match="d_ff"):
        mha.AttentionConfig(d_ff=0)


@pytest.mark.parametrize("init", ["gaussian", "integers"])
def test_a_block_and_a_model_built_on_weights_already_made_share_them_and_equal_their_own(init):
    """The app keeps one copy of the walk's weights for the walk, the block and the coda (mha/ui/models.py)."""
    cfg = mha.AttentionConfig(init=init, d_ff=6)
    w = mha.init_weights(cfg)
    bw = mha.init_block(cfg, 0, attn=w)
    assert bw.attn is w and _lists(bw) == _lists(mha.init_block(cfg))
    vocab = mha.vocabulary(mha.tokenize("the cat sat"))
    mw = mha.init_model(cfg, vocab, blocks=(bw,))
    own = mha.init_model(cfg, vocab)
    assert mw.blocks[0] is bw and _lists(own.blocks[0]) == _lists(bw)
    np.testing.assert_array_equal(mw.wte, own.wte)


def _generator_model():
    cfg = mha.AttentionConfig(seed=2)
    return mha.init_model(cfg, mha.vocabulary(mha.tokenize("一 二 三 四 五 六")), n_layers=2)


def test_sampling_near_zero_temperature_is_greedy_and_at_a_high_one_leaves_it():
    """softmax(logits / T): T = 0.001 puts all the weight on the argmax, so sampling picks the greedy tokens; at
    T = 50 the weights are nearly even over the six tokens, and 30 draws do not all land on the greedy choice."""
    mw = _generator_model()
    greedy = mha.generate([0, 1], mw, 30)
    assert mha.generate([0, 1], mw, 30, temperature=0.001, greedy=False, seed=3) == greedy
    hot = mha.generate([0, 1], mw, 30, temperature=50.0, greedy=False, seed=3)
    assert hot != greedy and len(set(hot)) >= 4


def test_sampling_defaults_to_temperature_1_and_seed_0():
    mw = _generator_model()
    default = mha.generate([0, 1], mw, 30, greedy=False)
    assert default == mha.generate([0, 1], mw, 30, temperature=1.0, greedy=False, seed=0)
    assert default != mha.generate([0, 1], mw, 30, temperature=2.0, greedy=False, seed=0)
    assert default != mha.generate([0, 1], mw, 30, temperature=1.0, greedy=False, seed=1)


def test_integer_token_embeddings_are_whole_numbers_from_minus_2_to_2():
    """init="integers": each row of E holds whole numbers −2..2 (every one of them, over 200 dims), as float64, the
    same for a token in every call; the gaussian init gives other, fractional rows."""
    cfg = mha.AttentionConfig(d_model=200, init="integers", seed=4)
    row = mha.token_embedding("cat", cfg)
    assert row.dtype == np.float64 and row.shape == (200,)
    assert set(row.tolist()) == {-2.0, -1.0, 0.0, 1.0, 2.0}
    np.testing.assert_array_equal(mha.token_embedding("cat", cfg), row)
    assert not np.array_equal(mha.token_embedding("dog", cfg), row)
    gaussian = mha.token_embedding("cat", mha.AttentionConfig(d_model=200, seed=4))
    assert not set(gaussian.tolist()) <= {-2.0, -1.0, 0.0, 1.0, 2.0}
    hundredths = gaussian * 100  # N(0, 1) rounded to 2 decimals: whole hundredths, not all whole tenths
    np.testing.assert_allclose(hundredths, np.round(hundredths), rtol=0, atol=1e-9)
    assert not np.allclose(gaussian * 10, np.round(gaussian * 10), rtol=0, atol=1e-9)
