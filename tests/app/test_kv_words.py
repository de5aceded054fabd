"""The KV cache generates: with a text, or the trained model, adding a token appends the next word, the one the
next-token stage chooses, and the cache's new K and V rows are a full recompute's on the extended ids. Adding it on
either stage is one act: the same link, the same pages. The downloads hold the cache the page shows.

Every expected number is computed again from mha's core (model_forward, forward, embed), not read from the app."""

import io
import re

import numpy as np
import pytest

import mha
from mha.ui import exports, prepared
from mha.ui import settings as S
from tests.figures.test_cache_figure import _frame_traces, drawn

from .helpers import charts, page_text, rerun, run, warnings
from .test_coda import TEXT, model
from .test_kv_cache import _animation_panels, _matrix

TRAINED = mha.load_trained()
REPEAT = "B C G A E B C"  # the trained model continues it with G


def _kv(at, t: int, d_k: int, d_v: int) -> tuple[np.ndarray, np.ndarray]:
    animation, axes = _animation_panels(at)
    last = _frame_traces(animation, len(animation["frames"]) - 1)
    return _matrix(drawn(last, axes["K"]), t, d_k), _matrix(drawn(last, axes["V"]), t, d_v)


def _sentence(at) -> str:
    """The hint under the cache's state, which names the word adding appends."""
    return next(m.value for m in at.markdown if "The model's next token" in m.value or "下一个词元是" in m.value)


@pytest.mark.parametrize("choice, temperature", [("greedy", 1.0), ("sample", 2.5)])
def test_with_a_text_adding_appends_the_word_next_token_chooses_and_the_cache_is_a_recompute(choice, temperature):
    at = run(stage="kv_cache", text=TEXT, choice=choice, temperature=temperature)
    tokens, vocab, ids, mw, x, cfg = model(TEXT)
    probs = mha.model_forward(ids, mw, temperature).probs[-1]  # the next-token stage's distribution
    if choice == "sample":
        best = int(np.random.default_rng([cfg.seed, len(ids)]).choice(len(vocab), p=probs))
    else:
        best = int(np.argmax(probs))
    assert f"“{vocab[best]}” (probability {probs[best]:.4f};".replace(".", "\\.") in _sentence(at)
    k_before, v_before = _kv(at, len(ids), 7, 11)
    at.button(key="add_token").click()
    rerun(at)
    assert at.query_params["text"] == f"{TEXT} {vocab[best]}" and at.session_state["n_tokens"] == len(ids) + 1
    ext = np.append(ids, best)
    full = mha.forward(mha.embed(ext, mw), mw.blocks[0].attn)  # a full recompute on the extended ids
    k, v = _kv(at, len(ext), 7, 11)
    np.testing.assert_allclose(k, full.k[0], atol=1e-12, rtol=0)
    np.testing.assert_allclose(v, full.v[0], atol=1e-12, rtol=0)
    np.testing.assert_array_equal(k[:-1], k_before)  # rows 1..n of the cache are as they were
    np.testing.assert_array_equal(v[:-1], v_before)
    np.testing.assert_array_equal(at.session_state["x_base"][-1], mw.wte[best] + mha.sinusoidal_positions(7, 5)[6])
    assert "0\u00a0—\u00a0exactly" in page_text(at)  # the proof: Y₁..ₙ unchanged
    layout = next(c for c in charts(at) if c.get("frames"))["layout"]
    assert layout["yaxis"]["ticktext"] == [*tokens, vocab[best]]  # the rows of Q, K and V beside it, by word
    assert layout["xaxis4"]["ticktext"] == [*tokens, vocab[best]]  # S's keys


@pytest.mark.parametrize("layer", [1, 2])
def test_with_the_trained_model_adding_appends_its_next_letter_and_the_layers_cache_is_a_recompute(layer):
    at = run(stage="kv_cache", model="trained", text=REPEAT, layer=layer)
    mw, vocab = TRAINED.weights, TRAINED.vocab
    ids = np.array([vocab.index(c) for c in REPEAT.split()])
    probs = mha.model_forward(ids, mw).probs[-1]
    best = int(np.argmax(probs))
    assert vocab[best] == "G"
    assert f"“G” (probability {probs[best]:.4f};".replace(".", "\\.") in _sentence(at)
    sizes = TRAINED.meta["sizes"]
    k_before, _ = _kv(at, len(ids), sizes["d_k"], sizes["d_v"])
    at.button(key="add_token").click()
    rerun(at)
    assert at.query_params["text"] == REPEAT + " G"
    ext = np.append(ids, best)
    ln1 = mha.model_forward(ext, mw).layers[layer - 1].ln1  # what that layer's attention reads, recomputed whole
    full = mha.forward(ln1, mw.blocks[layer - 1].attn)
    k, v = _kv(at, len(ext), sizes["d_k"], sizes["d_v"])
    np.testing.assert_allclose(k, full.k[0], atol=1e-12, rtol=0)
    np.testing.assert_allclose(v, full.v[0], atol=1e-12, rtol=0)
    np.testing.assert_array_equal(k[:-1], k_before)
    np.testing.assert_allclose(at.session_state["x_base"][-1], ln1[-1], atol=1e-12, rtol=0)


def _without_stage(params) -> dict:
    return {k: v for k, v in dict(params).items() if k != "stage"}


ONE_ACT = [dict(text=TEXT), dict(text="我爱注意力", lang="zh"), dict(model="trained", text=REPEAT),
           dict(text=TEXT, choice="sample", temperature=3)]


@pytest.mark.parametrize("params", ONE_ACT)
def test_adding_on_either_stage_is_one_act_and_its_link_reloads_to_the_same_pages(params):
    on_kv = run(stage="kv_cache", **params)
    on_kv.button(key="add_token").click()
    rerun(on_kv)
    on_next = run(stage="next_token", **params)
    on_next.button(key="append_token").click()
    rerun(on_next)
    assert _without_stage(on_kv.query_params) == _without_stage(on_next.query_params)  # one link
    assert "kv" not in on_kv.query_params
    for stage, here in (("kv_cache", on_kv), ("next_token", on_next)):
        reloaded = run(**dict(here.query_params))
        assert charts(reloaded) == charts(here) and page_text(reloaded) == page_text(here), stage
    on_next.session_state["stage"] = "kv_cache"  # from next_token after appending, to the cache: the word is there
    rerun(on_next)
    assert charts(on_next) == charts(on_kv)
    on_kv.session_state["stage"] = "next_token"  # and the other way
    rerun(on_kv)
    assert charts(on_kv) == charts(run(**{**dict(on_kv.query_params)}))


def test_edits_of_x_stay_when_the_word_is_added_and_the_word_is_read_from_the_edited_x():
    at = run(stage="input", text=TEXT)
    at.session_state["x_editor"] = {"edited_rows": {1: {"c2": 4.5}}, "added_rows": [], "deleted_rows": []}
    rerun(at)
    at.session_state["stage"] = "kv_cache"
    rerun(at)
    tokens, vocab, ids, mw, x, cfg = model(TEXT)
    x[1, 2] = 4.5
    best = int(np.argmax(mha.logits_from(x, mw).logits[-1]))  # the next-token stage's logits on the edited X
    at.button(key="add_token").click()
    rerun(at)
    assert at.query_params["text"] == f"{TEXT} {vocab[best]}"
    assert at.session_state["x_base"][1, 2] == 4.5 and "x" in at.query_params
    np.testing.assert_array_equal(at.session_state["x_base"][:-1], x)


@pytest.mark.parametrize("lang, words", [("en", "the text now ends with them"), ("zh", "文本现在以它们结尾")])
def test_an_old_link_adding_tokens_after_a_text_gets_the_models_next_words_and_says_so(lang, words):
    at = run(stage="kv_cache", text="the cat sat", kv="2_1.1~3", lang=lang)
    tokens, vocab, ids, mw, x, cfg = model("the cat sat")
    want = mha.generate(ids, mw, 2)  # greedy, through the core's per-layer cache
    assert at.query_params["text"] == " ".join(["the cat sat", *(vocab[i] for i in want)])
    assert "kv" not in at.query_params and any(words in w for w in warnings(at))
    assert f"{5}×7" in page_text(at)


def test_an_old_link_near_the_context_adds_every_word_that_fits():
    """Two tokens short of the page's 64, `kv=2` adds both words, and the notice names both (planted p11: one fewer
    added while the notice said two)."""
    text = " ".join(f"w{i}" for i in range(S.LIMITS["n_tokens"] - 2))
    at = run(stage="kv_cache", text=text, kv="2")
    assert at.session_state["n_tokens"] == S.LIMITS["n_tokens"] == len(mha.tokenize(at.query_params["text"]))
    [said] = [n for n in at.session_state["notices"] if n.key == "notice_kv_words"]
    assert said.fields["count"] == 2 and len(said.fields["words"].split()) == 2


def test_an_old_links_sampled_words_are_each_read_from_the_text_with_the_word_before():
    """Planted 2026-12-07 (p20): X brought up to date before each word was appended, not after, so each word after the
    first was read from X a word behind. Greedy words of this untrained model repeat the last one, which hides that;
    sampled ones differ. Each is drawn here as the page draws (a generator of the seed and n) from the core's
    logits on the text so far."""
    text, count, temperature = "the cat sat on the mat", 3, 1.0  # at 4 the draws are flat enough to hide it too
    at = run(stage="kv_cache", text=text, kv=str(count), choice="sample", temperature=temperature)
    words = text.split()
    for _ in range(count):
        tokens, vocab, ids, mw, x, cfg = model(" ".join(words))
        probs = mha.softmax(mha.logits_from(x, mw).logits[-1] / temperature)
        words.append(vocab[int(np.random.default_rng([cfg.seed, len(tokens)]).choice(len(probs), p=probs))])
    assert len(set(words[-count:])) > 1  # not the one word greedy repeats (an X a word behind gave "mat cat mat"
    # where these draws give "mat cat cat"; the words are not pinned here: they rest on floats near a draw's bounds)
    assert at.query_params["text"] == " ".join(words)


def test_without_a_text_the_cache_still_adds_the_seeded_row():
    at = run(stage="kv_cache")
    at.button(key="add_token").click()
    rerun(at)
    assert at.query_params["kv"] == "1" and "text" not in at.query_params
    cfg = mha.AttentionConfig()
    np.testing.assert_array_equal(at.session_state["kv_added"][0], mha.next_token(cfg, 3))


def test_a_chinese_page_writes_the_cache_figures_and_formulas_in_chinese():
    at = run(stage="kv_cache", lang="zh", text="我爱注意力")
    animation = next(c for c in charts(at) if c.get("frames"))
    hovers = {tr["hovertemplate"] for tr in animation["data"] if tr.get("hovertemplate")}
    assert hovers and all("词元 %{y} · 列 %{x}" in h and "token" not in h and "col " not in h for h in hovers)
    assert "追加下一个词元 X₆" == at.button(key="add_token").label
    tokens, vocab, ids, mw, x, cfg = model("我爱注意力")
    best = int(np.argmax(mha.model_forward(ids, mw).logits[-1]))
    assert f"模型选出的下一个词元是“{vocab[best]}”（概率" in _sentence(at)
    at.session_state["kv_part"] = "cost"
    rerun(at)
    formulas = " ".join(e.value for e in at.get("markdown") + at.get("latex") if "text{" in e.value)
    assert r"\text{用缓存}" in formulas and r"\text{重算}" in formulas
    assert "cached" not in formulas and "recompute" not in formulas


def test_the_cache_figure_writes_its_numbers_as_every_other_figure_does():
    """At most three decimals with trailing zeros dropped and a true minus sign: "3", "0.2", "−0.45", never
    "3.00" or "0.20"."""
    at = run(stage="kv_cache", integers=1)
    animation = next(c for c in charts(at) if c.get("frames"))
    written = [s for tr in animation["data"] for row in tr.get("text") or () for s in row if s]
    assert written and all(re.fullmatch(r"−?\d+(\.\d{0,2}[1-9])?", s) for s in written), written[:20]


def _exported(monkeypatch, at) -> tuple:
    """Open the downloads panel: the X, weights and sizes its files were written from, and their .npz."""
    seen = []
    real = exports.files
    monkeypatch.setattr(exports, "files", lambda x, w, cfg, *rest: seen.append((x, w, cfg)) or real(x, w, cfg, *rest))
    prepared.FILES.clear()
    at.session_state["downloads_open"] = True
    rerun(at)
    x, w, cfg = seen[-1]
    return x, w, cfg, np.load(io.BytesIO(real(x, w, cfg)["npz"]))


def test_the_downloads_on_the_kv_stage_hold_the_cache_the_page_shows(monkeypatch):
    at = run(stage="kv_cache", kv=2)
    assert "The cache holds 5 tokens" in page_text(at)
    x, w, cfg, npz = _exported(monkeypatch, at)
    base = mha.AttentionConfig()
    rows = np.stack([mha.next_token(base, i) for i in range(5)])  # X₁..X₃ and the two seeded tokens added
    assert cfg.n_tokens == 5
    np.testing.assert_array_equal(npz["X"], rows)
    np.testing.assert_array_equal(npz["K"], mha.forward(rows, mha.init_weights(base)).k)
    assert npz["Y"].shape == (5, 5)
    at.button(key="add_token").click()  # a fragment's rerun: the open panel follows the cache
    rerun(at)
    x, w, cfg, npz = _exported(monkeypatch, at)
    assert npz["X"].shape == (6, 5)


def test_the_texts_last_token_and_the_next_one_are_written_literally():
    """Tokens reach the hint's Markdown escaped: "<" and "*" are shown, not read as HTML or emphasis."""
    at = run(stage="kv_cache", text="* a * <")
    hint = _sentence(at)
    assert "“&lt;”" in hint and "<" not in hint
    assert re.search(r"next token is “(\\\*|a|&lt;)”", hint)


def test_the_work_of_the_cache_stage_counts_the_ffn_it_runs_for_the_next_word():
    """With a text the cache stage runs the whole block (its FFN too) to decode the next word: a view whose FFN
    takes it past the work budget asks first, as the block stage does; without a text it runs no FFN."""
    sizes = dict(d_model=512, d_k=64, d_v=64, n_heads=8, d_ff=4096)
    assert "budget_draw" in [b.key for b in run(stage="kv_cache", text="a b c d e f g h", **sizes).button]
    assert "budget_draw" not in [b.key for b in run(stage="kv_cache", n_tokens=8, **sizes).button]


EDIT = {"edited_rows": {1: {"c2": 4.5}}, "added_rows": [], "deleted_rows": []}


def _appended(at, stage: str) -> None:
    at.session_state["stage"] = stage
    rerun(at)
    at.button(key="add_token" if stage == "kv_cache" else "append_token").click()
    rerun(at)


@pytest.mark.parametrize("stage", ["kv_cache", "next_token"])
def test_a_word_appended_after_an_edit_keeps_the_edit_and_adds_the_texts_row(stage):
    """The text grows by one token: X's rows so far stay (the edit with them), the new row is the text's own, n follows,
    and the link carries the edit and nothing else of X, whichever stage appended it."""
    from .test_x_edits import x_source_base

    at = run(stage="input", text=TEXT)
    at.session_state["x_editor"] = EDIT
    rerun(at)
    before, generation = at.session_state["x_base"].copy(), at.session_state.get("x_generation", 0)
    _appended(at, stage)
    n = len(mha.tokenize(at.session_state["text"]))
    assert n == len(before) + 1 == at.session_state["n_tokens"]
    x, text_x = at.session_state["x_base"], x_source_base(at)
    np.testing.assert_array_equal(x[:-1], before)
    np.testing.assert_array_equal(x[-1], text_x[-1])
    assert at.query_params["x"] == "2.3~4.5"
    at.session_state["stage"] = "input"
    rerun(at)
    # nothing was drawn anew (planted 2026-12-07, p19: X's source recorded before the text grew, and the input
    # stage then said "Seed 0: the weights and X were drawn anew, but your edits to X were kept")
    assert "drawn anew" not in page_text(at) and at.session_state.get("x_generation", 0) == generation
    at.session_state["x_editor"] = {"edited_rows": {n - 1: {"c0": -2.0}}, "added_rows": [], "deleted_rows": []}
    rerun(at)  # an edit of the new row after the append is kept beside the first
    assert at.query_params["x"] == f"2.3~4.5_{n}.1~-2.0"


def test_taking_the_example_makes_it_the_text_and_x_starts_from_it():
    """Without a text of one's own the next-token stage runs the walk's seeded X and scores the example's words; the
    example taken as the text, X starts again from that text (no edits), and an append adds one token to it."""
    from .test_x_edits import x_source_base

    at = run(stage="next_token", x="1.1~2.5")
    at.button(key="next_use_example").click()
    rerun(at)
    text = at.session_state["text"]
    assert len(mha.tokenize(text)) == at.session_state["n_tokens"] == len(at.session_state["x_base"])
    np.testing.assert_array_equal(at.session_state["x_base"], x_source_base(at))
    assert "x" not in at.query_params and at.query_params["text"] == text
    at.button(key="append_token").click()
    rerun(at)
    assert at.session_state["n_tokens"] == len(mha.tokenize(text)) + 1
