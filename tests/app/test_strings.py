"""The strings tables: same keys in both languages, same fields, Chinese where Chinese is meant, and
every value written in the markup of whatever draws it."""

import re
import string
from collections import Counter
from pathlib import Path

import pytest

from mha.ui.strings import DRAWS, EN, TABLES, ZH, Text

CJK = re.compile(r"[\u4e00-\u9fff]")

# What draws each value, as each key's entry declares it (mha/ui/strings/entry.py); test_strings_render.py checks on
# the pages that the declarations are true.
PLOTLY, PLAIN, LATEX = ({key for key, draws in DRAWS.items() if kind in draws} for kind in ("plotly", "plain", "latex"))


def renderers(key: str) -> set[str]:
    return set(DRAWS[key])


class _Any(dict):
    """Fills any field with a plausible value: 7 for numbers and words alike."""

    def __missing__(self, key):
        return 7


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def fed(text: str) -> str:
    """The value as its renderer receives it: formatted, fields filled."""
    return text.format_map(_Any())


MATH = re.compile(r"\$([^$]*)\$")
LATEX_BRACE = re.compile(r"(\\[A-Za-z]+|[_^]){(?!{)")  # \sqrt{, _{, ^{ with a single brace


def markup_problems(text: str, kind: str) -> list[str]:
    """What the renderer would show raw or mangle in `text` (already formatted)."""
    problems = []
    if kind == "markdown":
        if text.count("$") % 2:
            problems.append("an unpaired $ (KaTeX would swallow the rest of the line)")
        outside = MATH.sub(" ", text)
        for math in MATH.findall(text):
            if math.count("{") != math.count("}") or not math.strip():
                problems.append(f"broken LaTeX ${math}$")
            if CJK.search(math):
                problems.append(f"Chinese inside math ${math}$")
            if re.search(r"\\\\[A-Za-z]", math):  # \\text: KaTeX reads \\ as a new line, then the word as letters
                problems.append(f"a doubled backslash in ${math}$")
        for mark, why in (("_", "_ outside $…$ is shown raw or starts italics"),
                          ("^", "^ outside $…$ is shown raw"), ("\\", "a backslash outside $…$ is shown raw"),
                          ("*", "* starts bold or italics"), ("~~", "~~ strikes through"), ("`", "` starts code"),
                          ("<", "HTML is not rendered by st.markdown")):
            if mark in outside:
                problems.append(why)
    elif kind == "latex":
        if text.count("{") != text.count("}") or "$" in text:
            problems.append("broken LaTeX")
        if CJK.search(re.sub(r"\\text\{[^{}]*\}", "", text)):
            problems.append("Chinese outside \\text{…} (KaTeX drops it or warns)")
    else:
        allowed_tags = {"b", "/b", "i", "/i", "sub", "/sub", "sup", "/sup", "br"}
        for tag in re.findall(r"<\s*(/?\w+)", text):
            if kind == "plain" or tag not in allowed_tags:
                problems.append(f"<{tag}> is shown raw here")
        for mark in ("$", "_", "\\", "**", "%", "{", "}"):
            if mark in text:
                problems.append(f"{mark!r} is shown raw in a {kind} string")
    return problems


def test_both_languages_have_the_same_keys():
    assert set(EN) - set(ZH) == set(), "missing in zh"
    assert set(ZH) - set(EN) == set(), "missing in en"


# The checks below go over every key in one test each (a test a key made 5,000 items, and xdist's cost per item
# was twice the checks'); each says every key that fails, not only the first.


def test_both_languages_fill_the_same_fields():
    found = []
    for key in sorted(EN):
        if _fields(EN[key]) != _fields(ZH[key]):
            found.append(f"{key}: fields {_fields(EN[key])} in English, {_fields(ZH[key])} in Chinese")
        for text in (EN[key], ZH[key]):  # a single brace of LaTeX would be taken for a field
            if not all(f.isidentifier() for f in _fields(text)):
                found.append(f"{key}: double a literal brace")
            if LATEX_BRACE.search(text):
                found.append(f"{key}: double the braces of {LATEX_BRACE.search(text)[0]}")
    assert not found, "\n".join(found)


SAME_IN_BOTH = {"matmul_a", "matmul_b", "anim_fill", "phase_qkt", "phase_scaled", "phase_s", "kv_step_softmax",
                "list_sep", "lengths_sep", "block_gelu_curve",
                "variant_gqa", "variant_mqa", "variant_alibi", "variant_rope", "variant_mla",
                "kv_short_int8",  # the methods' own names
                "post_qkv", "post_kv",  # the post's headings as it writes them
                "lab_costs_model_bloom", "lab_costs_real_cell",  # a name and a colon, set in Chinese punctuation
                "real_head_score", "kv_rows_drawn"}  # a head and its score, rows drawn: in Chinese brackets
# The post's own headings: an English page quotes them as the post writes them, in Chinese, beside a gloss, for the
# learner who reads the post beside the app (mha/ui/strings/orientation.py)
POST_HEADINGS = ("线性代数复习", "从输入到输出", "Q、K、V", "多头注意力", "输出", "输入输出关系分析", "KV Cache",
                 "尾声")
# symbols only: "A (2×3)", "÷ √{d_k}", "QKᵀ", "S = softmax"
NAMES = {  # Latin words a Chinese value may keep: names, functions, code
    "softmax", "exp", "Concat", "Frobenius", "float", "numpy", "mha", "MHA", "Explorer", "Mistivia", "GPT", "small",
    "medium",  # GPT-2 small and medium: the models' names
    "present", "kv", "GELU", "PNG", "MB", "GB", "int",  # int8: the type's name
    "tanh", "ReLU",  # the functions GELU's formula is written with, and the one it is set against
    # the variant lab: the names of the methods and of the models they come from
    "GQA", "MQA", "ALiBi", "RoPE", "MLA", "FlashAttention", "StreamingLLM", "Llama", "Mistral", "DeepSeek", "Falcon",
    "BLOOM", "NeoX", "Pythia", "SVD", "SRAM", "HBM",
    # a head's two circuits, by the names the interpretability papers give them
    "OV", "QK",
    "Cache",  # the post's heading "KV Cache"
    "logit",  # the next-token stage's logits, one of them
    "BPE", "UTF", "nat", "Transformer", "Olsson",  # a real model: its tokenizer, bytes, the loss's unit, the paper
    "MODELS",  # the variable MHA_MODELS
    "Hub",  # the Hugging Face Hub, a product's name
    # a checkpoint's files and settings, named as they are on the disk (config.json, n_embd, …)
    "config", "json", "JSON", "model", "safetensors", "tokenizer", "vocab", "merges", "txt", "bin", "pt", "NaN",
    "bf", "fp",  # bf16 and fp16, the formats' names
    "Xiong",  # the analysis of pre-LN cited on the block stage
    "Ainslie", "RoFormer", "Hugging", "Face",  # the papers and the library the lab cites (zh review: fidelity drift)
}
MATRICES = set("QKVSHXYW")


def latin_words(text: str) -> list[str]:
    """Words of two or more Latin letters a reader sees in `text` (formatted): \\text{…} counts, the rest of
    the math, HTML tags and LaTeX commands do not."""
    text = re.sub(r"\\text\{([^{}]*)\}", r" \1 ", text)
    text = re.sub(r"<[^>]*>", " ", MATH.sub(" ", text))
    return re.findall(r"[A-Za-z]{2,}", re.sub(r"\\[A-Za-z]+", " ", text))


def english_left_in(text: str) -> list[str]:
    return [w for w in latin_words(text) if w not in NAMES and not set(w) <= MATRICES]


def matrix_letters(text: str) -> Counter:
    """Q K V S H X Y W as the value names them: "QKᵀ" is Q and K, "W_V" is W and V, "KV" is K and V. A stage named
    in Chinese (“文本 → 词元 → X”这一步, where the English says "the tokens stage") names no matrix."""
    text = re.sub(r"\{\w*(?::[^}]*)?\}", " ", text)  # fields: "X{t}" is X
    text = re.sub(r"“[^”]*”这一步", " ", text)
    text = re.sub(r"<[^>]*>", " ", text)
    return Counter(c for run in re.findall(r"[A-Za-z]+", text) if set(run) <= MATRICES for c in run)


def test_english_has_no_chinese_and_chinese_has_some():
    found = [f"{key}: Chinese in English" for key in sorted(EN)
             if CJK.search(re.sub("|".join(f"“{h}”" for h in POST_HEADINGS), "", EN[key]))]
    for key in sorted(EN):
        if key in SAME_IN_BOTH:  # symbols, names and matrix letters only
            if [w for w in latin_words(fed(ZH[key])) if w not in NAMES and not set(w) <= MATRICES]:
                found.append(f"{key}: words in a value that is the same in both")
        elif not (CJK.search(ZH[key]) and ZH[key] != EN[key]):
            found.append(f"{key} is not translated")
    assert not found, "\n".join(found)


def test_chinese_leaves_no_english_words():
    """"K cache (K₁)" or "\\text{ for }" in a Chinese value: only names and symbols may stay in Latin letters."""
    found = [(key, left, ZH[key]) for key in sorted(EN) if (left := english_left_in(fed(ZH[key])))]
    assert not found, "\n".join(map(str, found))


def test_chinese_names_the_same_matrices_as_english():
    """A Chinese value that says V where the English says K (or drops a Q) fails."""
    found = [(key, EN[key], ZH[key]) for key in sorted(EN) if matrix_letters(ZH[key]) != matrix_letters(EN[key])]
    assert not found, "\n".join(map(str, found))


def test_the_language_checks_catch_a_swap_and_english_left_behind():
    assert english_left_in("K cache (K<sub>1</sub>)") == ["cache"]
    assert english_left_in(r"\text{ for } j > i") == ["for"]
    assert english_left_in(r"QKᵀ 的第 7 行，$\operatorname{softmax}(q_t K^\top)$，KV 缓存") == []
    assert matrix_letters("K 缓存（{k}）") != matrix_letters("V cache ({v})")
    assert matrix_letters(r"$W_V$ 把每个词元变成值向量") == matrix_letters(r"$W_V$ turns each token into a value")


@pytest.mark.parametrize("lang", sorted(TABLES))
def test_every_value_is_written_in_its_renderers_markup(lang):
    found = []
    for key in sorted(EN):
        text = fed(TABLES[lang][key])
        found += [(key, kind, problems, text) for kind in renderers(key) if (problems := markup_problems(text, kind))]
    assert not found, "\n".join(map(str, found))


def test_the_markup_check_catches_what_the_page_showed_raw():
    assert markup_problems("Row t of S is softmax(q_t·Kᵀ/√d_k); q_1…q_{t−1} were used", "markdown")
    assert markup_problems(r"$q_1,\dots,q_{t-1}$ and K<sub>1</sub>", "markdown")
    assert markup_problems("costs $5", "markdown")
    assert markup_problems(r"与 $d_{\\text{model}} = 7$ 不再相符", "markdown")  # kv_dropped_rows in Chinese
    assert markup_problems("$d_k$ columns", "plotly")
    assert not markup_problems(r"$\operatorname{softmax}(q_t K^\top/\sqrt{d_k})$ and Kᵀ", "markdown")
    assert not markup_problems("K cache (K<sub>1</sub>)", "plotly")
    assert markup_problems(r"= 0 当 j > i", "latex") and not markup_problems(r"\text{当 } j > i", "latex")


SAID = {
    "en": {(1, 1): "row 1", (1, 3): "rows 1–3", (4, 4): "row 4"},
    "zh": {(1, 1): "第 1 行", (1, 3): "第 1–3 行", (4, 4): "第 4 行"},
}


@pytest.mark.parametrize("lang", sorted(TABLES))
def test_a_range_of_one_row_is_said_as_one_row(lang):
    t = Text(lang)
    for (first, last), rows in SAID[lang].items():
        assert t.rows(first, last) == rows
    assert t.ranged("anim_softmax").format(a=2, b=2) == t("anim_softmax", rows=t.rows(2, 2))  # a figure's frame
    with pytest.raises(ValueError):
        t.rows(3, 2)


AMONG = {  # rows that need not follow one another (a window's with its sinks): runs by their ends, listed
    "en": {(5,): "row 5", (5, 6): "rows 5–6", (1, 5, 6): "rows 1, 5–6", (1, 3, 5, 6, 7): "rows 1, 3, 5–7"},
    "zh": {(5,): "第 5 行", (5, 6): "第 5–6 行", (1, 5, 6): "第 1、5–6 行", (1, 3, 5, 6, 7): "第 1、3、5–7 行"},
}


@pytest.mark.parametrize("lang", sorted(TABLES))
def test_rows_among_others_are_said_run_by_run(lang):
    t = Text(lang)
    for numbers, rows in AMONG[lang].items():
        assert t.rows_among(numbers) == rows
        assert t.ranged("kv_rows_drawn").format(among=numbers) == t("kv_rows_drawn", rows=rows)


RANGE_OF_FIELDS = re.compile(r"([\d₀-₉]|\{\w*\})\s*(–|-|\.\.|…|至)\s*[A-Za-z]?\{")


SPANS = {"span_row", "span_rows", "span_rows_among"}  # the range helper's own words (Text.rows, rows_among)


def test_ranges_are_built_by_the_range_helper_only():
    """"Rows 1..{last}" or "{a}–{b}" in a value would print "rows 1–1" for a one-row range."""
    found = [(key, text) for key in sorted(EN) for text in (EN[key], ZH[key])
             if (key not in SPANS and RANGE_OF_FIELDS.search(text)) or ".." in text]
    assert not found, "\n".join(map(str, found))


def test_unknown_language_falls_back_to_english():
    assert Text("fr")("prev") == EN["prev"] and Text("zh")("prev") == ZH["prev"]
    assert set(TABLES) == {"en", "zh"}


def _gpts(text: str) -> tuple[int, int]:
    """How often a value names GPT-2, and the GPT of the original paper."""
    return len(re.findall(r"GPT-2", text)), len(re.findall(r"GPT(?!-2)", text))


def term_problems(zh: dict[str, str], en: dict[str, str]) -> dict[str, set[str]]:
    """One word per thing in Chinese: for each rule, the keys whose Chinese value breaks it."""
    stages = {v for k, v in zh.items() if k.startswith("stage_")}
    rules = {
        # the sidebar calls the walk 步骤 (上一步 / 下一步): a stage is a 步, never a 页 ("第 7 页", "词元页");
        # 页面 is the browser's page, 标签页 its tab
        "page": lambda k: re.search(r"(?<!标签)页(?!面)", zh[k]),
        # 拼接 is the post's word for Concat; "append" is 追加
        "concat": lambda k: "拼接" in zh[k] and not re.search(r"(?i)concat", en[k]),
        # read after "drawn anew", it says the edits were undone
        "kept": lambda k: "保留了原来的值" in zh[k],
        # sizes (d_model, d_k, …) are 维度, shapes are 形状
        "size": lambda k: "尺寸" in zh[k],
        # GPT-2 where the English says GPT-2, GPT where it says GPT
        "gpt": lambda k: _gpts(zh[k]) != _gpts(en[k]),
        # “…”这一步 names a stage as the sidebar does
        "stage": lambda k: any(name not in stages for name in re.findall(r"“([^”]*)”这一步", zh[k])),
        # the zh review of 2026-12-04, D1–D14: one word for each of these things
        "present": lambda k: "演示模式" in zh[k],  # the projector's mode; the app calls itself 演示 elsewhere
        "gpt2_sizes": lambda k: "GPT-2 small 的形状" in zh[k],  # its sizes are 维度
        "station": lambda k: "这一站" in zh[k],  # a stage is a 步
        "trained": lambda k: "训练好的模型" in zh[k],  # the sidebar's choice says 训练过
        "dot": lambda k: "点积" in zh[k],  # the post's 内积
        "latent": lambda k: "隐向量" in zh[k],  # MLA's latent is 潜向量
        "post": lambda k: "文章" in zh[k] and k != "credit",  # the post is 原文; 文章 only where it is named
        "mha": lambda k: "MHA 原版" in zh[k] or "MHA（文章" in zh[k],  # MHA（原文） in both pickers
        "logit": lambda k: "对数几率" in zh[k],  # log-odds is not a softmax logit: logit, as the next-token stage
        "kv_heads": lambda k: "kv 头" in zh[k],  # KV 头, capitals, as KV 缓存
        "final_norm": lambda k: re.search(r"最后(的|那次)?层归一化", zh[k]),  # LN_f is the 最终层归一化
        "sizes": lambda k: re.search(r"各个(大小|宽度)", zh[k]),  # sizes are 维度
        "bf16": lambda k: "半精度" in zh[k] and "bf16" in en[k],  # 半精度 is fp16, not bf16
        "circuits": lambda k: re.search(r"\$(OV|QK)\$", zh[k]),  # OV and QK upright, as the charts write them
        # the zh review of the strings new since 23e3b1f: the checkpoint's heads drifted from the heads stage's words
        "knock": lambda k: re.search(r"[关去]掉", zh[k]) and re.search(r"(?i)knock|without \{", en[k]),  # 敲掉
        "nats": lambda k: re.search(r"(?i)\bnats?\b", zh[k]),  # a loss in nats says 奈特, as the heads stage's
        "copy": lambda k: "复制" in zh[k] and re.search(r"(?i)\bheads?\b", en[k]),  # a head 照抄s; 复制 is a link's
        "today": lambda k: "今天的" in zh[k],  # today's models are 如今的 (12-04 C1, C2): 今天的 is this very day's
        # the second review of the new strings (twenty-sixth session): the GQA lab's KV heads, as the KV stage's
        "kv_heads_named": lambda k: re.search(r"K 和 V (的)?头", zh[k]),
        "example": lambda k: "示例" in zh[k],  # the example text is 例子, as the tokens stage offers it
        "operator": lambda k: "运行服务器的人" in zh[k],  # 服务器管理员
        "walk": lambda k: "前面步骤" in zh[k],  # the stages before are 前面各步
    }
    return {rule: {k for k in zh if broken(k)} for rule, broken in rules.items()}


def test_chinese_uses_one_term_per_thing():
    found = term_problems(ZH, EN)
    assert not any(found.values()), {rule: {k: ZH[k] for k in keys} for rule, keys in found.items() if keys}


def test_the_term_check_catches_each_slip():
    en = {"a": "Set by the text on the tokens stage.", "b": "Append it to the text", "c": "Concat(H₁, H₂)",
          "d": "your edits were kept", "e": "fixed sizes", "f": "as in GPT-2", "g": "see the input stage"}
    zh = {"a": "由词元页的文本决定。", "b": "把它拼接到文本末尾", "c": "拼接 H₁ 和 H₂", "d": "保留了原来的值",
          "e": "尺寸固定", "f": "和 GPT 一样", "g": "见“输入”这一步", "stage_input": "输入 X"}
    en["stage_input"] = "Input X"
    slips = {"present": "演示模式", "gpt2_sizes": "GPT-2 small 的形状", "station": "这一站的哪一部分",
             "trained": "换成训练好的模型", "dot": "各做一次点积", "latent": "一行隐向量 c", "post": "文章里的注意力",
             "mha": "MHA 原版", "logit": "对数几率", "kv_heads": "2 个 kv 头", "final_norm": "最后层归一化的 β",
             "sizes": "把各个宽度换成质数", "bf16": "2 字节，即半精度", "circuits": "$OV$：它写什么",
             "knock": "要关掉的头（层.头）", "nats": "后一半损失（nat）", "copy": "哪些头在复制",
             "today": "今天的模型对原文的注意力做了哪些改动", "kv_heads_named": "8 个 K 和 V 头",
             "example": "示例文本里没有它的词元", "operator": "运行服务器的人可以调高上限", "walk": "和前面步骤里一样"}
    zh |= {f"slip_{rule}": text for rule, text in slips.items()}
    said = {"gpt2_sizes": "GPT-2 small, 2 bytes, as in bf16", "knock": "Heads to knock out (layer.head)",
            "copy": "Which heads copy"}
    en |= {f"slip_{rule}": said.get(rule, "2 bytes, as in bf16") for rule in slips}
    assert term_problems(zh, en) == {"page": {"a"}, "concat": {"b"}, "kept": {"d"}, "size": {"e"}, "gpt": {"f"},
                                     "stage": {"g"}, **{rule: {f"slip_{rule}"} for rule in slips}}
    fixed = zh | {"a": "由“文本 → 词元 → X”这一步里的文本决定。", "b": "把它追加到文本末尾", "d": "仍是你填的数",
                  "e": "维度固定", "f": "和 GPT-2 一样", "g": "见“输入 X”这一步", "stage_tokens": "文本 → 词元 → X"}
    right = ("投影模式、这一步、训练过的模型、内积、潜向量、原文、MHA（原文）、logit、KV 头、最终层归一化、各个维度、"
             "bf16、OV、要敲掉的头、损失（奈特）、哪些头在照抄、如今的模型、K 和 V 的投影、例子、服务器管理员、"
             "前面各步")
    fixed |= {f"slip_{rule}": ("GPT-2 small 的维度、" if rule == "gpt2_sizes" else "") + right for rule in slips}
    assert term_problems(fixed, en | {"stage_tokens": "Text → tokens → X"}) == {r: set() for r in
                                                                               ("page", "concat", "kept", "size",
                                                                                "gpt", "stage", *slips)}
    # the final norm said as "the last norm" too (block_why), and the words a knock-out or a copy may keep
    assert term_problems({"x": "最后那次层归一化"}, {"x": ""})["final_norm"] == {"x"}
    found = term_problems({"a": "去掉 {heads}", "b": "关掉标签后什么也不保留", "c": "点右上角的按钮即可复制"},
                          {"a": "without {heads}", "b": "once the tab closes", "c": "The copy button copies it"})
    assert found["knock"] == {"a"} and found["copy"] == set()


def test_a_key_declared_in_two_areas_stops_the_import():
    from types import SimpleNamespace

    from mha.ui.strings import gather
    from mha.ui.strings.entry import S

    one = SimpleNamespace(__name__="one", STRINGS={"k": S("a", "甲")})
    other = SimpleNamespace(__name__="other", STRINGS={"k": S("b", "乙")})
    with pytest.raises(ValueError, match=r"other declares keys another area declares: \['k'\]"):
        gather([one, other])
    assert gather([one])["k"].zh == "甲"


def test_a_transpose_is_written_one_way_in_every_formula():
    """Audit 2026-12-04 #12: transposes were written Kᵀ, K^⊤ and K^T. Text and chart titles write ᵀ (or <sup>T</sup>),
    and every formula an upright T, as the post writes K^T: no source of the app writes LaTeX's \\top (⊤)."""
    root = Path(__file__).resolve().parents[2] / "mha"
    found = [f"{p.relative_to(root)}:{k}" for p in root.rglob("*.py")
             for k, line in enumerate(p.read_text().splitlines(), 1) if "\\top" in line]
    assert not found, found


def test_english_says_one_answer_one_layer_and_one_bpe_token():
    """The review of the strings added since 23e3b1f: room_tally said "1 answers", real_knock_left "1 layers" and
    tokens_bpe_count "1 BPE tokens"."""
    t = Text("en")
    assert t("room_tally", n=2, answers=1, right=1, share=1.0) == "Question 2: 1 answer, 1 right (100%)."
    assert "has 1 layer of 1 head;" in t("real_knock_left", names="2.1", name="tiny", layers=1, heads=1)
    assert t("tokens_bpe_count", n=1, cut="", words=1).startswith("1 BPE token where")
    assert t("room_tally", n=1, answers=3, right=2, share=2 / 3).startswith("Question 1: 3 answers, 2 right")


def test_the_apps_own_chinese_words_in_a_field_take_no_spaces_and_a_value_from_outside_keeps_them():
    """The zh templates keep a space around a field for a Latin name ("无法打开 gpt2："); the upload's name is
    Chinese (real_own), and spaces between Chinese characters read as stray (second zh review, finding 2). A link's
    value keeps its spaces: it stands apart from the sentence that names it."""
    t = Text("zh")
    own = t("real_own")
    assert t("real_error", name=own, error="x") == f"无法打开{own}：x"
    assert t("real_error", name="gpt2", error="x") == "无法打开 gpt2：x"
    assert f"按{own}自己的词元切分" in t("real_text", name=own, n=5, cut="")
    sizes = dict(d_model=768, d_k=64, d_v=64, n_heads=12, d_ff=3072)
    assert t("checkpoint_sizes", name=own, **sizes).startswith(f"{own}的维度是固定的")
    assert t.md("notice_not_whole", key="n_heads", value="三") == "链接参数 n\\_heads=三 不是整数，已改用默认值。"
