"""The words as the page shows them. Every string is tagged with its key, the app is driven through
every stage in AppTest, and each tag is found in the element that shows it: the markup rules of
test_strings.py are only as good as what each key's entry says draws it (mha/ui/strings/entry.py), and this keeps
those declarations true. The same walk reads every range the page prints."""

import itertools
import json
import os
import re
from unittest import mock

import pytest
from google.protobuf.json_format import MessageToDict

from mha.ui import chart, checkpoints, classroom
from mha.ui import settings as S
from mha.ui.rooms import RoomUnreachable
from mha.ui.strings import EN, Text
from tests.checkpoints import bad_checkpoints

from .helpers import block_parts, chart_data, rerun, run
from .test_strings import LATEX, MATRICES, NAMES, PLAIN, PLOTLY, latin_words, renderers

TAG = "@@{}@@"
BIG = 10**8  # numbers said yes to: the large views of the walk are drawn


def _walk():
    """Every stage, then the states that show more words: the view options open, scores for 6 tokens, a clicked
    score, a quiz, a nudge of token 1, a first token into an empty cache, an added token, the cost tab and a timing,
    a link with bad parameters, sizes drawn in part, the coda's states, and the variant lab's."""
    for stage in S.STAGES:
        yield run(stage=stage)
    at = run(stage="input")
    at.session_state["options_open"] = True  # the sidebar's view options, built while open
    yield rerun(at)
    yield run(stage="scores", n_tokens=6)  # rows of scores fill in groups from 5 tokens on
    at = run(stage="scores")
    at.session_state["sel_scores"] = (2, 1)
    yield rerun(at)
    at.session_state["sel_scores"] = (0, 2)
    yield rerun(at)
    for frame in (0, 3, 6, 10):  # a cell clicked during the animation: not filled yet, ÷√d_k, masked
        for cell in ((2, 1), (0, 2)):
            at.session_state["sel_scores"], at.session_state["frame_scores"] = cell, frame
            yield rerun(at)
    at = run(stage="matmul")
    at.button(key="quiz_start_mm").click()
    rerun(at)
    at.number_input(key="quiz_answer_mm").set_value(1e6)
    at.button(key="quiz_check_mm").click()
    yield rerun(at)
    at = run(stage="dependency")
    at.number_input(key="nudge_j").set_value(1)
    yield rerun(at)
    yield run(stage="kv_cache", n_tokens=1)
    at = run(stage="kv_cache")
    at.button(key="add_token").click()
    yield rerun(at)
    at.session_state["kv_part"] = "cost"
    yield rerun(at)
    at.number_input(key="kv_measure_T").set_value(2)
    at.button(key="kv_measure").click()
    yield rerun(at)
    yield run(stage="kv_cache", kv=2, present=1)  # more tokens than a projector's step draws: its titles say which
    yield run(stage="input", n_tokens="lots", d_k=999, preset="huge")
    yield run(stage="variants", variant="gqa", n_heads=4, kv_heads=2, phone=True)  # Concat: two heads not drawn
    for item in ("oops", "1.1~abc", "1.1~1e400", "9.9~1"):  # a refused cell of X, each reason said
        yield run(stage="input", x=item)
    yield run(stage="input", x="1.1~2_oops")  # a refused cell beside a kept one
    yield run(stage="input", n_tokens=4)  # n is no prime: make-primes would leave it
    yield run(stage="input", d_k=8)  # not primes: the button, with its help
    big = dict(n_tokens=20, d_model=1024, d_k=64, d_v=64, n_heads=16)  # drawn in part, costly, too big to export
    yield run(stage="scores", **big)  # asked first
    for stage in ("scores", "dependency"):
        yield run(stage=stage, cleared=BIG, **big)
    at = run(stage="qk", cleared=BIG, **big)
    at.session_state["sel_qk_q"] = (0, 0)
    yield rerun(at)
    at = run(stage="scores", example="mask")  # the post's matrix: a given step instead of QKᵀ
    yield at
    at.session_state["sel_scores"] = (1, 0)
    yield rerun(at)
    yield run(stage="kv_cache", kv="x" * 5000, x="y" * 5000)  # links too long to read
    yield run(stage="kv_cache", kv="many")
    yield run(stage="kv_cache", kv="99_abc", x="abc")  # too many tokens, cells that are not numbers
    yield run(stage="qk", n_tokens=64)  # Q and K trimmed in rows only
    yield run(stage="output", n_tokens=64, d_model=256, n_heads=8)  # heads 5 to 8 of W_O not drawn
    yield run(stage="output", n_heads=5)  # head 5 alone not drawn
    at = run(stage="kv_cache", cleared=BIG, **big)
    yield at
    at.session_state["kv_part"] = "cost"
    yield rerun(at)
    # the coda: a text of one's own (even width), a text cut to the limit with learned positions, the input
    # stage with the text's X and with edits over it (and the tokens stage saying so), a sampled next token
    # from a link with a bad temperature, a full text, the block on a text
    yield run(stage="tokens", text="the cat sat", d_model=4)
    yield run(stage="tokens", text=" ".join(["w"] * 70), positions="learned")
    at = run(stage="input", text="the cat sat")
    yield at
    at.session_state["x_editor"] = {"edited_rows": {0: {"c0": 9.5}}, "added_rows": [], "deleted_rows": []}
    yield rerun(at)
    at.session_state["stage"] = "tokens"
    yield rerun(at)
    yield run(stage="next_token", text="the cat sat", choice="sample", temperature="hot")
    yield run(stage="next_token", text=" ".join(["w"] * 64), lang="zh")
    for lang, ln in (("zh", "post"), ("en", "post"), ("en", "pre")):  # the block on a text, each part, both orders
        for _, at in block_parts(run(stage="block", text="the cat sat", lang=lang, ln=ln)):
            yield at
    yield run(stage="block", d_ff=5)  # d_ff shares d_model's length
    yield run(stage="kv_cache", d_v=23)  # columns drawn in part
    for choice in ("greedy", "sample"):  # the next word into the cache, then added
        at = run(stage="kv_cache", text="the cat sat", choice=choice)
        yield at
        at.button(key="add_token").click()
        yield rerun(at)
    yield run(stage="kv_cache", text="the cat sat", kv="2")  # an old link: tokens added after a text
    for stage in ("tokens", "input", "heads", "dependency", "block", "next_token"):  # the trained model, its sidebar
        yield run(stage=stage, model="trained", layer=2)
    yield run(stage="heads", model="trained", text="A B C D")  # no letter repeats yet
    yield run(stage="input", model="trained", phone=True)  # 13 columns on a phone: swipe
    yield run(stage="tokens", model="trained", text="a b z 9 " + "C" * 20, lang="zh", layer=9)  # unknown, cut, bad
    yield run(stage="next_token", model="trained", text="A B C D E F G H A B C D E F G H")  # the context is full
    # what a hand does to X and the boxes: a refused cell, many, a box emptied and out of range, edits set aside
    # and back, edits too long for a link (on the stage and in the share panel)
    at = run(stage="input")
    at.session_state["x_editor"] = {"edited_rows": {2: {"c1": "x"}}, "added_rows": [], "deleted_rows": []}
    yield rerun(at)
    at.session_state["x_editor"] = {"edited_rows": {2: {"c1": "7.5", "c2": "x", "c3": ""}}, "added_rows": [],
                                    "deleted_rows": []}
    yield rerun(at)
    for value in (None, 100, 2, 3):
        at.number_input(key="n_tokens").set_value(value)
        yield rerun(at)
    # the variant lab: every variant, with 4 heads (a real group), on a text (ALiBi takes P out) and on the trained
    # model; the KV cache through every variant, a token added
    for variant in S.VARIANTS:
        for part in S.LAB_PARTS:
            yield run(stage="variants", variant=variant, n_heads=4, part=part)
    for part in S.LAB_PARTS:  # ALiBi's parts on a text and on the trained model; the window's and sinks' parts
        yield run(stage="variants", variant="alibi", text="the cat sat", part=part)
        yield run(stage="variants", variant="alibi", model="trained", layer=2, part=part)
        for variant in ("window", "sinks"):
            yield run(stage="variants", variant=variant, n_tokens=6, part=part)
    for variant in S.KV_VARIANTS[1:]:
        at = run(stage="kv_cache", variant=variant, n_heads=4)
        at.button(key="add_token").click()
        yield rerun(at)
    at = run(stage="kv_cache", variant="window", window=1)  # a window of one: every earlier row leaves
    at.button(key="add_token").click()
    yield rerun(at)
    # and its other states: a clicked score of ALiBi (and a later key), a clicked cell of the online softmax's
    # output, ALiBi's slopes for 3 heads, RoPE turning nothing and asked for an odd count, MLA at full width, a window
    # wider than X (a text's, and every X), ALiBi on 40 tokens, KV heads that do not divide h (every part), MQA's
    # single head, the trained model's heads
    at = run(stage="variants", variant="alibi", part="click")
    for cell in ((2, 0), (0, 2)):
        at.session_state["sel_lab_alibi_scores"] = cell
        yield rerun(at)
    at.session_state["lab_product_alibi"] = "h"  # its other product
    yield rerun(at)
    at = run(stage="variants", variant="online", part="click")
    at.session_state["sel_lab_online"] = (1, 0)
    yield rerun(at)
    at.session_state["lab_product_online"] = "acc"  # the online softmax's other product, P·V
    yield rerun(at)
    yield run(stage="variants", variant="alibi", n_heads=3, n_tokens=8, part="check")
    for dims in (0, 5):
        for part in S.LAB_PARTS:
            yield run(stage="variants", variant="rope", rotary_dims=dims, part=part)
    for part in S.LAB_PARTS[1:]:  # the online softmax's click and check, with 4 heads
        yield run(stage="variants", variant="online", part=part, n_heads=4)
    for part in S.LAB_PARTS:  # MLA at full width, each part of it
        yield run(stage="variants", variant="mla", d_latent=64, part=part)
    yield run(stage="variants", variant="window", window=3, part="change")
    yield run(stage="variants", variant="window", text="the cat", part="change")  # a text's n: no button
    yield run(stage="variants", variant="sinks", window=S.LIMITS["n_tokens"], part="change")  # no X long enough
    yield run(stage="variants", variant="alibi", n_tokens=40, part="check")  # the bias already large
    for part in S.LAB_PARTS:  # GQA's every part, its knob kept valid in each
        yield run(stage="variants", variant="gqa", n_heads=4, kv_heads=3, part=part)
    yield run(stage="variants", variant="mqa", n_heads=1)
    yield run(stage="variants", variant="gqa", model="trained", layer=1)
    at = run(stage="variants", variant="gqa")  # the lab's 4 heads, then another stage: said, and the way back
    at.button(key="lab_groups_four").click()
    rerun(at)
    at.session_state["stage"] = "block"
    yield rerun(at)
    for part in S.HEADS_PARTS:  # the heads stage's parts with the trained model, two heads knocked out
        yield run(stage="heads", model="trained", part=part, knock="1.2,2.1")
    at = run(stage="heads", model="trained", part="timeline")  # a retrained seed this server no longer keeps
    at.session_state["train_seed"] = 999
    yield rerun(at)
    at = run(stage="heads", model="trained", part="circuits")  # the QK circuit, its keys through head 1.2
    at.session_state["circuit"] = "qk"
    at.session_state["circuit_head"] = "2.1"
    yield rerun(at)
    # the classroom: its panel with no room, a presenter's panel, a follower following (its panel open) and exploring,
    # a room that is gone, a code that is none, a key that is not the room's
    at = run(stage="qk")
    at.session_state["room_panel_open"] = True
    yield rerun(at)
    at = run(room="new", stage="qk")
    at.session_state["room_panel_open"] = True
    yield rerun(at)
    at.button(key="room_show_link").click()  # the presenter's own link, in its dialog
    yield rerun(at)
    code = at.session_state["room"]
    for stage in ("scores", "values", "heads", "output", "dependency"):  # faster than the room's pace: said
        at.session_state["stage"] = stage
        yield rerun(at)
    at = run(room=code)
    yield at
    at.session_state["n_tokens"] = 4  # a change of its own: it explores on its own from then on, and says so
    yield rerun(at)
    at.session_state["room_panel_open"] = True
    yield rerun(at)
    lead = run(room="new", stage="qk")  # a clicked cell the presenter may ask; a quiz asked of the room: the
    lead.session_state["sel_qk_q"] = (0, 1)  # button, an answer, the count
    yield rerun(lead)
    lead.button(key="quiz_start_qk_q").click()
    rerun(lead)
    lead.session_state["room_panel_open"] = True
    yield rerun(lead)
    lead.button(key="room_ask").click()
    yield rerun(lead)
    reader = run(room=lead.session_state["room"])
    reader.number_input(key="quiz_answer_qk_q").set_value(1.0)
    reader.button(key="quiz_check_qk_q").click()
    yield rerun(reader)
    yield rerun(lead)
    with mock.patch.object(classroom.STORE, "exists", side_effect=RoomUnreachable()):  # the rooms' Redis is away
        away = rerun(reader)
    yield away
    yield run(room="ZZZZZ")
    yield run(room="no!")
    yield run(room=code, key="forged")
    at = run(stage="input", n_tokens=8, d_model=128)
    at.session_state["share_open"] = True
    at.session_state["x_editor"] = {"edited_rows": {r: {f"c{c}": "1.2345678901234567" for c in range(128)}
                                                    for r in range(8)}, "added_rows": [], "deleted_rows": []}
    yield rerun(at)


def _parts(node) -> dict[str, list]:
    """An element's words by renderer: a chart's texts and labels (Plotly's, or the matrix charts' SVG, which reads
    the same markup), a formula, a select box's options (plain text), and Markdown for everything else."""
    fields = MessageToDict(node.proto)
    if node.type == "plotly_chart":
        return {"plotly": _chart_words(json.loads(fields.get("spec", "{}")))}
    if (chart := chart_data(node)) is not None:  # Plotly's markup, in an SVG
        return {"plotly": _chart_words(json.loads(chart["spec"]))}
    if node.type == "bidi_component" and node.proto.component_name == "mha_mark":  # a chart's chosen cell: no words
        return {}
    if node.type == "latex":
        return {"latex": [fields.get("body", "")]}
    if node.type == "bidi_component":  # a component's script is no words of the page
        fields.pop("jsContent", None)
    if node.type == "bidi_component" and node.proto.component_name == "mha_screen":  # the style sheet's words: the
        data = json.loads(fields.pop("json"))  # CSS strings of its `content`s (screen.css_string), plain text
        css = re.sub(r"\\([0-9a-f]+) ", lambda m: chr(int(m.group(1), 16)), data.pop("css"))
        return {"plain": re.findall(r'content: "([^"]*)"', css), "markdown": _strings(data) + _strings(fields)}
    if node.type == "selectbox":
        return {"plain": [*fields.pop("options", []), fields.pop("rawValue", "")], "markdown": _strings(fields)}
    return {"markdown": _strings(fields)}


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _chart_words(spec) -> list[str]:
    """Every string a chart shows: titles, annotations (frames' too), button and slider labels, names,
    hover templates. Cell values and base64 arrays are not words."""
    if isinstance(spec, dict):
        return [s for k, v in spec.items() if k not in ("z", "x", "y", "customdata", "bdata")
                for s in (_chart_words(v) if not isinstance(v, str) else [v])]
    if isinstance(spec, list):
        return [s for v in spec for s in _chart_words(v)]
    return [spec] if isinstance(spec, str) else []  # a trace's text array holds strings too


def _checkpoints(mp, root):
    """A real model's pages (MHA_MODELS set by the fixture): its BPE on the tokens stage, its heads and their scores
    (with induction heads and without), a text longer than its context, a knock-out with a head it lacks, a text in
    none of its tokens, a checkpoint the link names wrongly, and one too large for the server (some fitting, none)."""
    yield run(stage="tokens", ckpt="tiny-gpt2", text="多头 attention")
    yield run(stage="heads", ckpt="trained-gpt2", text="A B C D E F G H A B C D E F G H A B", ckpt_knock="2.1,9.9",
              ckpt_layer=2)
    yield run(stage="heads", ckpt="trained-gpt2", text="none of these")
    yield run(stage="heads", ckpt="tiny-gpt2")
    yield run(stage="heads", ckpt="nope")
    yield run(stage="heads")  # the offer
    for mb in ("2", "0.5", "0"):  # its weights and a run fit and its probe does not; some fitting; none
        checkpoints._held.clear()  # read again, under this budget
        mp.setenv("MHA_MODEL_MB", mb)
        yield run(stage="heads", ckpt="tiny-gpt2")
    mp.delenv("MHA_MODEL_MB")
    broken = bad_checkpoints(root)
    mp.setenv("MHA_MODELS", f"{root}{os.pathsep}{broken}")
    for folder in sorted(broken.iterdir()):  # what is wrong with each, said
        yield run(stage="heads", ckpt=folder.name)
    mp.setenv("MHA_MODELS", str(root))
    files = [(p.name, p.read_bytes(), "application/octet-stream") for p in sorted((root / "trained-gpt2").iterdir())]
    at = run(stage="heads", text="C F A H B C F A H B")  # a learner's own checkpoint: its heads, then its tokens
    at.file_uploader(key="ckpt_files").set_value(files)
    yield rerun(at)
    at.session_state["stage"] = "tokens"
    yield rerun(at)
    cut = ("model.safetensors", b"\0" * 7, "application/octet-stream")  # too short to be one
    for wrong in (files[1:], [*files, files[0]], [*files, ("notes.json", b"{}", "application/json")],
                  [files[0], cut, files[2]]):
        at = run(stage="heads")  # an upload without config.json, with one file twice, with a file of no checkpoint
        at.file_uploader(key="ckpt_files").set_value(wrong)
        yield rerun(at)


def _walked():
    """The walk on a checkpoint's layer: a product GPT-2 adds a bias after, every stage that says what its X or its
    block is there, MLA that has no place for the biases, a model whose heads form no group, a token a text cannot
    hold, a piece BPE joins to the one before, a checkpoint the link names but the server lacks, and the heads stage's
    offer to walk the checkpoint."""
    on = dict(model="checkpoint", ckpt="tiny-gpt2", text="the cat sat")
    for stage in ("qk", "input", "tokens", "output", "next_token"):
        yield run(stage=stage, **on)
    at = run(stage="block", part="attn", **on)
    yield at
    yield run(stage="variants", variant="mla", **on)
    yield run(stage="variants", variant="gqa", model="checkpoint", ckpt="trained-gpt2", text="A B C D")
    yield run(stage="next_token", **dict(on, text="the dog"))
    at = run(stage="next_token", **dict(on, text="a ea"))
    at.button(key="append_token").click()
    yield rerun(at)
    yield run(stage="qk", model="checkpoint", ckpt="nope")
    yield run(stage="heads", ckpt="tiny-gpt2")


def _hub(mp, root, folder):
    """A server that fetches from the Hub (MHA_HUB), with a stand-in Hub (test_hub.py's): the box, a model fetched,
    and each reason a fetch does not happen."""
    from mha.ui import hub

    from .test_hub import Stand, fetch

    stand = Stand({"someone/tiny-gpt2": root / "tiny-gpt2"})
    mp.setattr(hub, "CLIENT", stand)
    mp.setenv("MHA_HUB", str(folder))
    hub._reach.clear()
    yield fetch(run(stage="heads"), "someone/tiny-gpt2")  # the box, and the model fetched, above its heads
    for name in ("a/b/c", "someone/missing"):
        yield fetch(run(stage="heads"), name)
    stand.breaks = "tokenizer.json"
    yield fetch(run(stage="heads"), "someone/tiny-gpt2-again")
    stand.repos["someone/tiny-gpt2-again"] = root / "tiny-gpt2"
    yield fetch(run(stage="heads"), "someone/tiny-gpt2-again")
    stand.breaks, stand.sizes = None, {"model.safetensors": 10**9}
    yield fetch(run(stage="heads"), "someone/tiny-gpt2-again")
    with hub._one:
        yield fetch(run(stage="heads"), "someone/tiny-gpt2-again")
    stand.up = False
    hub._reach.clear()
    yield fetch(run(stage="heads"), "someone/tiny-gpt2-again")
    hub._reach.clear()
    mp.delenv("MHA_HUB")
    checkpoints.forget_offered()


@pytest.fixture(scope="module")
def pages(checkpoint_root, tmp_path_factory):
    """[(renderer, text)] of every element of every page of the walk, each string tagged with its key.

    Figures are shared across sessions by what they show, not by how a Text is patched: the walk starts and
    ends with an empty store, so that it draws its own tagged figures and leaves none to other tests."""
    fill, template = Text._fill, Text.template
    shown = []
    chart.FIGURES.clear()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MHA_MODELS", str(checkpoint_root))
        mp.setattr(Text, "_fill", lambda self, key, f, snug: TAG.format(key) + fill(self, key, f, snug))
        mp.setattr(Text, "template", lambda self, key: TAG.format(key) + template(self, key))
        try:
            for at in itertools.chain(_walk(), _checkpoints(mp, checkpoint_root), _walked(),
                                      _hub(mp, checkpoint_root, tmp_path_factory.mktemp("hub"))):
                for node in at._tree:
                    if getattr(node, "proto", None) is not None:
                        shown += [(kind, text) for kind, texts in _parts(node).items() for text in texts]
        finally:
            chart.FIGURES.clear()
    return shown


# Frames that fill QKᵀ one score at a time are chosen only when the slider has room for every label; the tags
# this test adds lengthen the labels, so on its pages QKᵀ fills by rows. test_scores_figure checks those frames.
ONE_SCORE_AT_A_TIME = {"anim_fill", "anim_qkt"}


def test_each_string_is_drawn_by_a_renderer_its_markup_is_checked_for(pages):
    found: dict[str, set[str]] = {}
    for kind, text in pages:
        for key in re.findall(r"@@(\w+)@@", text):
            found.setdefault(key, set()).add(kind)
    wrong = {key: kinds for key, kinds in found.items() if not kinds <= renderers(key)}
    assert wrong == {}, "declare what draws these keys in their entries (mha/ui/strings/)"
    lists = {"plotly": PLOTLY - ONE_SCORE_AT_A_TIME, "plain": PLAIN, "latex": LATEX}
    for kind, keys in lists.items():
        assert keys <= set(found), f"{kind} keys never seen on a page: {sorted(keys - set(found))}"
    assert len(found) >= 0.9 * len(EN), ", ".join(sorted(set(EN) - set(found)))


SUB = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
ONE_ROW_RANGE = re.compile(r"(?<![\d.])(\d+)\s*(?:–|-|\.\.|…|至)\s*[A-Za-z]?(\1)(?![\d.])")


def test_no_range_on_any_page_starts_and_ends_at_the_same_row(pages):
    """"rows 5–5", "Rows 1..1", "Y₁…Y₁", "第 1..1 行": one row is said as one row, and ".." is not prose."""
    for _, text in pages:
        words = re.sub(r"@@\w+@@", "", text).translate(SUB)
        assert not ONE_ROW_RANGE.search(words), words
        assert not re.search(r"\d\.\.\d|\.\.[a-z]\b", words), words


def test_the_range_check_reads_ranges_the_way_the_page_printed_them():
    for bad in ("rows 5–5", "Rows 1..1 of Y", "Y₁…Y₁ stay", "第 1..1 行", "第 3 至 3 个词元"):
        assert ONE_ROW_RANGE.search(bad.translate(SUB)), bad
    for fine in ("rows 1–3", "row 1", "3×3", "1.5–1.55", "0.11–1.1"):
        assert not ONE_ROW_RANGE.search(fine), fine


SHOWN = {"hovertemplate", "text", "label", "ticktext"}  # the strings of a chart a reader sees (title and annotation
# texts are "text" too); names, fonts, colours and modes are not


def _shown_in_chart(spec, key: str = "") -> list[str]:
    if isinstance(spec, dict):
        return [s for k, v in spec.items() if k not in ("z", "x", "y", "customdata", "bdata")
                for s in _shown_in_chart(v, k)]
    if isinstance(spec, list):
        return [s for v in spec for s in _shown_in_chart(v, key)]
    return [spec] if isinstance(spec, str) and key in SHOWN else []


# The page's notation, the same in both languages: subscripts (d_model, W_fc, W_proj), E[ids], Attn, LN, FFN (the
# post's word), logits, PE; the variant lab's W_DKV, W_UK, W_UV (MLA's down- and up-projections, DeepSeek's names)
# and Q^rot, K^rot (after RoPE)
NOTATION = {"model", "ff", "fc", "proj", "ids", "Attn", "LN", "FFN", "logits", "pos", "PE", "DKV", "UK", "UV", "rot"}


def _english(text: str) -> list[str]:
    """Latin words a reader sees in `text`: words in formulas too (\\text{…}, which the math around it would hide)."""
    words = " ".join(re.findall(r"\\text\{([^{}]*)\}", text))
    text = re.sub(r"%\{[^}]*\}", " ", re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)) + " " + words  # Plotly's fields
    text = re.sub(r":\w+\[", " ", text)  # Streamlit's directives: :gray[…], :small[…]
    return [w for w in latin_words(text) if w not in NAMES | NOTATION and not set(w) <= MATRICES]


ZH_TEXT = "人人为我，我为人人"  # a text in Chinese: its tokens are the reader's words, not the code's


def latin_shown_zh_pages() -> dict[str, set[tuple[str, str]]]:
    """Latin words on the Chinese pages of every stage (and the KV cache's cost, the block's parts, every variant of
    the lab, the KV cache through each variant), outside the strings tables' checks: what the code writes into charts
    (hover labels), formulas' \\text{…} and Markdown."""
    found: dict[str, set[tuple[str, str]]] = {}

    def scan(at, where):
        for node in at._tree:
            if getattr(node, "proto", None) is None:
                continue
            fields = MessageToDict(node.proto)
            texts = []
            if node.type == "plotly_chart":
                texts = _shown_in_chart(json.loads(fields.get("spec", "{}")))
            elif (data := chart_data(node)) is not None:
                texts = _shown_in_chart(json.loads(data["spec"]))
            elif node.type == "latex":
                texts = re.findall(r"\\text\{([^{}]*)\}", fields.get("body", ""))
            elif node.type == "markdown":
                texts = [fields.get("body", "")]
            for text in texts:
                for word in _english(text):
                    found.setdefault(word, set()).add((where, text))

    for stage in S.STAGES:
        scan(run(stage=stage, lang="zh"), stage)
    at = run(stage="kv_cache", lang="zh")
    at.session_state["kv_part"] = "cost"
    scan(rerun(at), "kv_cache cost")
    for part, at in block_parts(run(stage="block", lang="zh")):
        scan(at, f"block {part}")
    for variant in S.VARIANTS:  # the variant lab, each variant with a real group of 4 heads, in every part
        for part in S.LAB_PARTS:
            scan(run(stage="variants", variant=variant, part=part, n_heads=4, lang="zh"), f"variants {variant} {part}")
    for part in S.HEADS_PARTS:  # the heads stage's parts with the trained model
        scan(run(stage="heads", model="trained", part=part, knock="2.2", lang="zh"), f"heads {part}")
    for part in S.LAB_PARTS:  # ALiBi's parts on a text, the window's and sinks' parts
        scan(run(stage="variants", variant="alibi", text=ZH_TEXT, lang="zh", part=part), f"alibi {part} on a text")
        for variant in ("window", "sinks"):
            scan(run(stage="variants", variant=variant, n_tokens=6, lang="zh", part=part), f"{variant} {part}")
    for variant in S.KV_VARIANTS[1:]:  # the KV cache through each variant, a token added
        at = run(stage="kv_cache", variant=variant, n_heads=4, lang="zh")
        at.button(key="add_token").click()
        scan(rerun(at), f"kv_cache {variant}")
    return found


def test_chinese_pages_show_no_english_the_code_wrote():
    """"token · feature" in a hover label, \\text{cached} in a formula: words the code writes are the tables' too."""
    assert latin_shown_zh_pages() == {}
