"""Shapes that say where they came from: on every default view no two different quantities share a length (the
coda's example texts and the trained model's opening sequence included), a text or sizes that make two share one are
said once, in the sidebar, in the page's language; and the dependency stage writes the post's W with its count of
numbers, for any sizes and heads."""

import re

import pytest

import mha
from mha.ui.strings import EN, ZH
from mha.ui.walk import FFN_STAGES

from .helpers import charts, html_bodies, page_text, rerun, run, z

TRAINED = mha.load_trained()
TABLES = {"en": EN, "zh": ZH}
VIEWS = {"seeded-en": dict(lang="en"), "seeded-zh": dict(lang="zh"), "trained": dict(model="trained")}
# One stage of each kind of lengths: n and the sizes; Concat's h·d_v; the example's tokens and vocabulary; d_ff
STAGES = ("input", "heads", "tokens", "block", "next_token")


def shape(at, name: str) -> tuple[int, int]:
    """The shape of the matrix the page draws under this name."""
    return next(z(tr).shape for spec in charts(at) for tr in spec["data"] if tr.get("name") == name and "z" in tr)


def drawn_lengths(at, stage: str) -> dict[str, int]:
    """The lengths of this view's quantities, read from what the page holds and draws: the sizes it computes with,
    and on the coda's stages the tokens and the vocabulary of the matrices it draws."""
    ss = at.session_state
    out = {k: ss[k] for k in ("n_tokens", "d_model", "d_k", "d_v", "n_heads")}
    if ss["n_heads"] > 1:
        out["h·d_v"] = ss["n_heads"] * ss["d_v"]
    if stage in FFN_STAGES:
        out["d_ff"] = ss["d_ff"]
    if stage == "tokens":
        (vocab, d), (n, _) = shape(at, "E"), shape(at, "E[ids]")
        assert d == ss["d_model"] and n == html_bodies(at)[0].count("<sub>")  # the chips, one a token
        out.update(n_tokens=n, vocab=vocab)
    if stage == "next_token":
        n, vocab = shape(at, "logits")
        out.update(n_tokens=n, vocab=vocab)
    if ss["model"] == "trained":  # the model's own sizes, whether or not this stage draws them
        sizes = TRAINED.meta["sizes"]
        out.update(vocab=len(TRAINED.vocab), n_ctx=sizes["n_ctx"], d_ff=sizes["d_ff"])
        assert out["n_tokens"] == len(ss["text"].split())
    return out


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("view", VIEWS)
def test_no_two_quantities_share_a_length_on_a_default_view(view, stage):
    at = run(stage=stage, **VIEWS[view])
    lengths = drawn_lengths(at, stage)
    shared = {length for length in lengths.values() if list(lengths.values()).count(length) > 1}
    assert not shared, {k: v for k, v in lengths.items() if v in shared}
    table = TABLES[at.session_state["lang"]]
    assert table["lengths_shared"].split("{")[0] not in page_text(at)


def said(lang: str, *groups: tuple[tuple[str, ...], int]) -> str:
    """The sidebar's sentence for these groups of quantities (by the keys of their names) and their lengths."""
    t = TABLES[lang]
    parts = [" = ".join([*(t[f"length_{k}"].replace("{{", "{").replace("}}", "}") for k in keys), str(length)])
             for keys, length in groups]
    return t["lengths_shared"].format(groups=t["lengths_sep"].join(parts))


def sidebar(at) -> str:
    return " ".join(c.value for c in at.sidebar.caption)


@pytest.mark.parametrize("lang, text, stage, groups", [
    ("en", "the cat sat on the mat", "tokens", [(("vocab", "d_model"), 5)]),  # 6 tokens, 5 distinct
    ("zh", "我爱注意力", "next_token", [(("n_tokens", "vocab", "d_model"), 5)]),
    ("zh", "我爱注意力机制", "tokens", [(("n_tokens", "vocab", "d_k"), 7)]),
    ("en", "我爱注意力机制", "qk", [(("n_tokens", "d_k"), 7)]),  # the vocabulary is drawn on the coda's stages only
    ("en", "to be, or not to be, that is the question:", "block", [(("n_tokens", "d_ff"), 13)]),
])
def test_a_text_that_makes_lengths_alike_is_said_once_in_the_sidebar(lang, text, stage, groups):
    at = run(stage=stage, text=text, lang=lang)
    tokens = mha.tokenize(text)
    want = {"n_tokens": len(tokens), "vocab": len(set(tokens)), "d_model": 5, "d_k": 7, "d_ff": 13}
    assert all(want[k] == length for keys, length in groups for k in keys)  # the cases say what they claim
    sentence = said(lang, *groups)
    assert sentence in sidebar(at)
    assert page_text(at).count(TABLES[lang]["lengths_shared"].split("{")[0]) == 1  # said once on the page


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_sizes_alike_and_the_trained_model_s_own_are_said_too(lang):
    at = run(stage="heads", d_k=11, lang=lang)
    assert said(lang, (("d_k", "d_v"), 11)) in sidebar(at)
    at = run(stage="block", d_ff=22, lang=lang)  # Concat's width h·d_v = 2·11
    assert said(lang, (("concat", "d_ff"), 22)) in sidebar(at)
    at = run(stage="tokens", model="trained", text="A B C D A B C D", lang=lang)
    assert said(lang, (("n_tokens", "vocab"), len(TRAINED.vocab))) in sidebar(at)


def test_the_trained_model_s_fresh_sequences_keep_their_own_length():
    at = run(stage="tokens", model="trained")
    sizes = TRAINED.meta["sizes"]
    taken = {len(TRAINED.vocab), sizes["n_ctx"], sizes["n_heads"] * sizes["d_v"],
             *(sizes[k] for k in ("d_model", "d_k", "d_v", "n_heads", "d_ff"))}
    seen = set()
    for _ in range(6):
        letters = at.session_state["text"].split()
        half = len(letters) // 2
        assert letters[:half] == letters[half:] and len(letters) not in taken
        seen.add(at.session_state["text"])
        at.button(key="new_repeat").click()
        at.run()
    assert len(seen) > 1


def tuple_and_count(at) -> tuple[str, list[str], str, int, str]:
    """The dependency stage's W, from the formula under its claim: the words before it, its entries, the count's
    expression, the count it prints, and the words after it."""
    tex = next(f.value for f in at.latex if "W = (" in f.value)
    tex = tex.split(r"\\[0.5em]")[1]  # the claim's line, then W's (on one line or two)
    for mark in ("$$", r"\begin{gathered}", r"\end{gathered}", "\\\\"):
        tex = tex.replace(mark, " ")
    whose, entries, expression, total, words = re.fullmatch(
        r"\s*(.*)W = \((.*)\):(.*)=\s*([\d{},]+)(.*)", tex, re.S).groups()
    entries = [e.strip() for e in entries.replace(r"\ ", " ").split(",")]
    return whose.strip(), entries, expression, int(total.replace("{,}", "")), words.strip()


def evaluate(tex: str) -> int:
    """2\\cdot(5\\cdot 7 + …) + 22\\cdot 5 as a number."""
    plain = tex.replace(r"\qquad", " ").replace(r"\ ", " ").replace(r"\cdot", "*")
    assert re.fullmatch(r"[\d\s*+()]+", plain), plain
    return eval(plain)  # digits, +, * and brackets only (checked above)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("sizes", [
    {}, dict(n_heads=1), dict(n_heads=3, d_k=4), dict(n_heads=4, d_model=6, d_k=3, d_v=2), dict(n_heads=16),
])
def test_the_dependency_stage_writes_w_and_counts_its_numbers(sizes, lang):
    at = run(stage="dependency", lang=lang, **sizes)
    ss = at.session_state
    h, d, d_k, d_v = ss["n_heads"], ss["d_model"], ss["d_k"], ss["d_v"]
    want = h * d * d_k + h * d * d_k + h * d * d_v + (h * d_v) * d  # W_Q, W_K, W_V of every head, and W_O
    whose, entries, expression, total, words = tuple_and_count(at)
    assert total == want and evaluate(expression) == want  # the terms as printed add up to the count printed
    assert whose == "" and words == TABLES[lang]["dependency_w_count"].format()
    heads = [f"W_{{{m}{i}}}" for i in range(1, h + 1) for m in "QKV"]
    if h <= 3:
        assert entries == [*heads, "W_O"]
    else:  # the first head, …, the last, W_O
        assert entries == [*heads[:3], r"\dots", *heads[-3:], "W_O"]
    if sizes == {}:
        assert total == 360  # the post's: 2·(5·7 + 5·7 + 5·11) + 22·5


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("layer", [1, 2])
def test_the_trained_model_s_w_is_its_layer_s(layer, lang):
    at = run(stage="dependency", model="trained", layer=layer, lang=lang)
    attn = TRAINED.weights.blocks[layer - 1].attn
    h, d, d_k = attn.w_q.shape
    d_v = attn.w_v.shape[2]
    want = 2 * h * d * d_k + h * d * d_v + h * d_v * d
    whose, _, expression, total, _ = tuple_and_count(at)
    assert total == want == evaluate(expression)
    assert whose == TABLES[lang]["dependency_w_trained"].format(layer=layer)


# The lengths of the post's view: n, d_model, d_k, d_v, h, h·d_v and the block's d_ff
POST_LENGTHS = {3, 5, 7, 11, 2, 22, 13}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_example_texts_leave_room_for_three_generated_words(lang):
    """Audit #3: "to be or not to be" had 6 tokens, and the first word the KV cache added made n = 7 = d_k. The
    examples' n and the next three, and their vocabulary, are none of the post's lengths; and adding three words on
    the KV stage leaves the sidebar's check with nothing to say."""
    from mha.ui.x_source import EXAMPLE

    tokens = mha.tokenize(EXAMPLE[lang])
    vocab = len(set(tokens))
    assert vocab not in POST_LENGTHS
    for n in range(len(tokens), len(tokens) + 4):
        assert n not in POST_LENGTHS | {vocab}, n
    at = run(stage="kv_cache", text=EXAMPLE[lang], lang=lang)
    for _ in range(3):
        at.button(key="add_token").click()
        rerun(at)
    assert len(mha.tokenize(at.session_state["text"])) == len(tokens) + 3
    assert TABLES[lang]["lengths_shared"].split("{")[0] not in sidebar(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_seeded_tokens_the_cache_adds_are_counted_by_the_check(lang):
    """Audit #3: X₄ and X₅ added to the seeded cache made Y 5×5 while the sidebar said ✓ distinct primes. The rows
    the cache holds are n there: 5 = d_model is said, and the ✓ goes; the way back to 3 rows brings it back."""
    at = run(stage="kv_cache", lang=lang)
    for _ in range(2):
        at.button(key="add_token").click()
        rerun(at)
    assert said(lang, (("n_cached", "d_model"), 5)) in sidebar(at)
    assert TABLES[lang]["primes_yes"] not in sidebar(at)
    at.button(key="kv_reset").click()
    rerun(at)
    assert TABLES[lang]["primes_yes"] in sidebar(at) and "n_cached" not in sidebar(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_windowed_cache_is_counted_by_the_rows_it_holds_and_the_tokens_so_far(lang):
    """Audit 2026-12-06 #6: with the window variant (2 tokens) and X₄, X₅ added, the check counted 5 tokens only,
    while the caches held 2. Both are lengths of the step: the caches' 2 rows (K cache · 2×7), and since the audit of
    12-07 (#8: "Y · 2×5") every token's row of Q, S, H and Y (Y · 5×5). The check counts both, each by its name."""
    at = run(stage="kv_cache", lang=lang)
    at.session_state["kv_variant"] = "window"
    rerun(at)
    assert said(lang, (("n_held", "n_heads"), 2)) in sidebar(at)  # X₁ has left already: 2 held, and 2 heads
    for _ in range(2):
        at.button(key="add_token").click()
        rerun(at)
    assert said(lang, (("n_so_far", "d_model"), 5), (("n_held", "n_heads"), 2)) in sidebar(at)  # Y · 5×5, K · 2×7
    at.session_state["kv_variant"] = "mha"  # every token held: the cache's n = d_model alone
    rerun(at)
    assert said(lang, (("n_cached", "d_model"), 5)) in sidebar(at) and TABLES[lang]["length_n_held"] not in sidebar(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_window_with_sinks_is_counted_by_its_sinks_and_its_window(lang):
    """A window of 2 with 1 sink holds 3 rows once tokens have left (X₁, X₄, X₅): 3 is no other quantity's length,
    so only the 5 tokens so far (= d_model) are said, where counting the window alone (2) would say it holds h."""
    at = run(stage="kv_cache", lang=lang, variant="sinks", window=2, sinks=1)
    for _ in range(2):
        at.button(key="add_token").click()
        rerun(at)
    assert said(lang, (("n_so_far", "d_model"), 5)) in sidebar(at) and TABLES[lang]["length_n_held"] not in sidebar(at)
    at.number_input(key="sinks").set_value(0)  # the window alone: 2 rows, as many as the heads
    rerun(at)
    assert said(lang, (("n_so_far", "d_model"), 5), (("n_held", "n_heads"), 2)) in sidebar(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("stage", ["heads", "output", "block"])
def test_one_head_s_concat_is_its_h_and_no_length_is_said_shared(stage, lang):
    """With one head, Concat is H₁ itself: its width d_v is one quantity's, not two that share a length."""
    at = run(stage=stage, n_heads=1, lang=lang)
    assert TABLES[lang]["lengths_shared"].split("{")[0] not in sidebar(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_tokens_the_cache_drops_at_a_new_width_are_not_counted(lang):
    """X₄ and X₅ added at d_model = 5 no longer fit d_model = 13: the cache drops them (and says so), X's 3 rows are
    all it holds, and the check counts those 3, which no other length is; counting the dropped rows too would say
    n = d_k = 5."""
    at = run(stage="kv_cache", lang=lang)
    for _ in range(2):
        at.button(key="add_token").click()
        rerun(at)
    at.number_input(key="d_model").set_value(13)
    at.number_input(key="d_k").set_value(5)
    rerun(at)
    assert at.session_state["d_model"] == 13 and at.session_state["d_k"] == 5
    assert TABLES[lang]["kv_dropped_rows"].format(d=13) in [w.value for w in at.warning]  # the cache says so
    assert TABLES[lang]["lengths_shared"].split("{")[0] not in sidebar(at)
