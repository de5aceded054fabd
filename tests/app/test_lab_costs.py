"""The variant lab's cache costs (mha/ui/lab/costs.py), in both languages: the floats per token per layer and the
bytes the page shows at its own sizes equal the formulas worked here from the sizes and knobs; the real models' equal
their published sizes (typed here from their configs, not read from the module); the tokens that fit follow the
memory box, which keeps its value on a bad entry and says why; every real model the page names is cited in the
README. The variants' own parts are other files' subject: they are left out here (lab.render does nothing), so every
number read is costs' own."""

import math
import re
from pathlib import Path

import pytest

import mha
from mha.ui import lab
from mha.ui.lab import costs
from mha.ui.strings import Text

from .helpers import page_text, rerun, run, warnings

README = Path(__file__).resolve().parents[2] / "README.md"
ROWS = ("mha", "gqa", "mqa", "window", "sinks", "alibi", "rope", "mla", "online")

# Published sizes, from each model's config (see the README's sources): layers, KV heads, d_k + d_v per KV head
# (MLA: the latent and the shared RoPE key), and the tokens a window or sinks keep.
PUBLISHED = {
    "mha": ("GPT-2 small", 12, 12 * (64 + 64), 0),
    "gqa": ("Llama-3-8B", 32, 8 * (128 + 128), 0),
    "mqa": ("Falcon-7B", 32, 1 * (64 + 64), 0),
    "window": ("Mistral-7B-v0.1", 32, 8 * (128 + 128), 4096),
    "sinks": ("StreamingLLM on Llama-2-7B", 32, 32 * (128 + 128), 4 + 2000),
    "alibi": ("BLOOM (176B)", 70, 112 * (128 + 128), 0),
    "rope": ("GPT-NeoX-20B", 44, 64 * (96 + 96), 0),
    "mla": ("DeepSeek-V2", 60, 512 + 64, 0),
    "online": ("Llama-3-8B", 32, 8 * (128 + 128), 0),
}

# names said in the page's language: one with words in it ("on"), one with Chinese brackets
WORDS = {"sinks": "lab_costs_model_sinks", "alibi": "lab_costs_model_bloom"}


@pytest.fixture(autouse=True)
def costs_alone(monkeypatch):
    monkeypatch.setattr(lab, "render", lambda v, variant, part: "")


def expected_here(variant: str, h: int, d_k: int, d_v: int, n: int, knobs: dict) -> tuple[int, int]:
    """(floats per token per layer, tokens held after n) at the page's sizes, worked from the sizes and knobs."""
    window = knobs.get("window", 2)
    sinks = knobs.get("sinks", 1)
    if variant == "mla":
        return knobs.get("d_latent", 4), n
    kv = {"gqa": max(d for d in range(1, knobs.get("kv_heads", 2) + 1) if h % d == 0), "mqa": 1}.get(variant, h)
    held = {"window": min(n, window), "sinks": min(n, window + sinks)}.get(variant, n)
    return kv * (d_k + d_v), held


def table(at, t: Text) -> dict[str, list[str]]:
    """The comparison table's cells by variant (its row's first cell, bold or not, is the variant's name)."""
    (md,) = [m.value for m in at.markdown if "| --- |" in m.value]
    names = {t(f"variant_{x}"): x for x in ROWS}
    rows = {}
    for line in md.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        name = cells[0].strip("*")
        if name in names:
            rows[names[name]] = cells[1:]
    assert set(rows) == set(ROWS), rows
    return rows


def first_int(cell: str) -> int:
    return int(re.search(r"\d[\d,]*", cell)[0].replace(",", ""))


def tokens_fit(variant: str, memory_gb: float) -> int | None:
    _, layers, floats, cap = PUBLISHED[variant]
    per_token = floats * layers * 2
    if cap and cap * per_token <= memory_gb * 1e9:
        return None
    return math.floor(memory_gb * 1e9 / per_token)


CASES = [  # sizes, variant, knobs
    (dict(), "gqa", dict(kv_heads=1)),
    (dict(), "mqa", dict()),
    (dict(), "window", dict(window=2)),
    (dict(), "sinks", dict(window=1, sinks=1)),
    (dict(), "mla", dict(d_latent=4)),
    (dict(), "online", dict()),
    (dict(n_tokens=6, d_model=5, d_k=3, d_v=5, n_heads=4), "gqa", dict(kv_heads=2)),
    (dict(n_tokens=6, d_model=5, d_k=3, d_v=5, n_heads=4), "gqa", dict(kv_heads=3)),  # 3 does not divide 4: 2
    (dict(n_tokens=6, d_model=5, d_k=3, d_v=5, n_heads=4), "sinks", dict(window=3, sinks=2)),
    (dict(n_tokens=6, d_model=5, d_k=3, d_v=5, n_heads=4), "mla", dict(d_latent=7)),
    (dict(n_tokens=6, d_model=5, d_k=4, d_v=5, n_heads=4), "rope", dict(rotary_dims=4)),
    (dict(n_tokens=5), "alibi", dict()),
    (dict(n_tokens=4, d_model=64, d_k=64, d_v=64, n_heads=16), "gqa", dict(kv_heads=4)),  # MHA here: 2,048
    (dict(n_tokens=2, d_model=8), "mla", dict(d_latent=1024)),
]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("sizes", "variant", "knobs"), CASES)
def test_the_page_numbers_equal_the_formulas(lang, sizes, variant, knobs):
    at = run(stage="variants", part="check", variant=variant, lang=lang, **sizes, **knobs)
    t = Text(lang)
    n, h = sizes.get("n_tokens", 3), sizes.get("n_heads", 2)
    d_k, d_v = sizes.get("d_k", 7), sizes.get("d_v", 11)
    rows = table(at, t)
    for row in ROWS:  # every variant's cost here, with the knobs of this session
        floats, held = expected_here(row, h, d_k, d_v, n, knobs)
        assert first_int(rows[row][0]) == floats, (row, rows[row])
        cap = {"window": knobs.get("window", 2), "sinks": knobs.get("window", 2) + knobs.get("sinks", 1)}.get(row)
        assert (t("lab_costs_capped", floats=f"{floats:,}", cap=f"{cap:,}") if cap else f"{floats:,}") == rows[row][0]
    # the chosen variant's own lines: the formula's result, the measured cache's tokens and bytes
    floats, held = expected_here(variant, h, d_k, d_v, n, knobs)
    (chosen,) = [m.value for m in at.markdown if t("lab_costs_title", variant=t(f"variant_{variant}")) in m.value]
    assert "= " + f"{floats:,}".replace(",", "{,}") + "$" in chosen
    here_key = "lab_costs_here_mla" if variant == "mla" else "lab_costs_here"
    said = t(here_key, sizes="@", formula="@", n=n, held=f"{held:,}", nbytes=f"{held * floats * 8:,}",
             floats=f"{floats:,}")
    assert said.split("$@$")[-1] in chosen, (said, chosen)
    model, layers, real, cap = PUBLISHED[variant]
    assert f"{real:,}".replace(",", "{,}") + "$" in chosen and f"{real * layers * 2:,}" in chosen
    if variant == "online":  # what it never stores: h n² here, and at the real model's 8192-token context
        assert f"h\\,n^2 = {h * n * n}$" in chosen and f"{32 * 8192 ** 2:,}".replace(",", "{,}") in chosen


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_real_models_and_the_memory_box(lang):
    t = Text(lang)
    at = run(stage="variants", part="check", variant="window", lang=lang)
    for memory in (1.0, 0.25, 100.0):
        if memory != 1.0:
            at.number_input(key="lab_memory_gb").set_value(memory)
            rerun(at)
        rows = table(at, t)
        assert t("lab_costs_col_fit", gb=f"{memory:g}") in page_text(at)
        for variant, (model, layers, floats, cap) in PUBLISHED.items():
            model = t(WORDS[variant]) if variant in WORDS else model  # in English, the published name again
            real = rows[variant][1]
            assert real.startswith(t("lab_costs_real_cell", model=model, floats="")) and \
                first_int(real.removeprefix(model)) == floats, real
            if cap:
                assert real == t("lab_costs_real_cell", model=model,
                                     floats=t("lab_costs_capped", floats=f"{floats:,}", cap=f"{cap:,}"))
            fit = tokens_fit(variant, memory)
            if fit is None:
                assert rows[variant][2] == t("lab_costs_any", size=costs.size(cap * floats * layers * 2))
            else:
                assert rows[variant][2] == f"{fit:,}", (variant, memory, rows[variant])
    assert tokens_fit("window", 0.25) is not None and tokens_fit("window", 1.0) is None  # both cases were seen


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("bad", [None, -2.0, 0.0, 1e9])
def test_a_bad_memory_keeps_the_last_value_and_says_why(lang, bad):
    t = Text(lang)
    at = run(stage="variants", part="check", variant="mla", lang=lang)
    at.number_input(key="lab_memory_gb").set_value(2.0)
    rerun(at)
    at.number_input(key="lab_memory_gb").set_value(bad)
    rerun(at)
    assert at.session_state["lab_memory_gb"] == 2.0
    (said,) = warnings(at)
    label = t("lab_memory_gb")
    assert said.startswith(label.split("$")[0].strip()) and "2" in said
    assert ("needs a number" in said or "takes" in said) if lang == "en" else re.search(r"[\u4e00-\u9fff]", said)
    assert first_int(table(at, t)["gqa"][2]) == math.floor(2e9 / (2048 * 32 * 2))  # the table kept 2 GB


def test_every_real_model_on_the_page_is_cited_in_the_readme():
    """Each model the page names has its sources in the README's list, by its key, with an address or an arXiv id."""
    text = README.read_text()
    sources = text[text.index("### Sources of the real models' sizes"):]
    sources = sources[: sources.index("\n## ")]
    at = run(stage="variants", part="check", variant="gqa")
    shown = {cell[1].split(": ")[0] for cell in table(at, Text("en")).values()}
    assert shown == {r.model for r in costs.REAL.values()}
    for real in costs.REAL.values():
        assert real.model in sources, real.model
        for key in real.cite:
            (line,) = [ln for ln in sources.splitlines() if ln.startswith(f"- `[{key}]`")]
            assert "https://" in line or "arXiv" in line, line


def test_a_caches_measure_is_keyed_by_every_field_of_the_config_but_the_page_s_sizes():
    """The measure is shared by every page of the process: a field left out of its key would give one page the bytes
    of another's cache. Each field of the config but those set aside for it (NOT_THE_CACHE, and n, fed apart),
    changed alone, is measured anew."""
    from dataclasses import fields, replace

    base = mha.AttentionConfig(n_heads=4, n_kv_heads=2, window=2, sinks=1, rotary_dims=2)
    costs.measured(base, 6)
    for field in fields(mha.AttentionConfig):
        if field.name in costs.NOT_THE_CACHE or field.name == "n_tokens":
            continue
        value = getattr(base, field.name)
        for other in ([not value] if isinstance(value, bool) else [value * 2, value + 1, value - 1, 0, 8]):
            if other == value:
                continue
            try:
                changed = replace(base, **{field.name: other})
                break
            except mha.ConfigError:
                continue
        before = costs._measured.cache_info().currsize
        costs.measured(changed, 6)
        assert costs._measured.cache_info().currsize == before + 1, f"{field.name} is not in the measure's key"


@pytest.mark.parametrize("variant, knobs", [("gqa", dict(kv_heads=1)), ("mqa", {}), ("mla", {})])
def test_a_symbol_is_written_alike_wherever_the_chosen_variants_lines_name_it(variant, knobs):
    """n_kv (a subscript) and MLA's d^R_h (R above, h below) are written the same in the sizes and in the formula:
    a superscript where the other line has a subscript would read as another quantity."""
    at = run(stage="variants", part="check", variant=variant, lang="en", **knobs)
    t = Text("en")
    (chosen,) = [m.value for m in at.markdown if t("lab_costs_title", variant=t(f"variant_{variant}")) in m.value]
    if variant != "mla":
        kv = re.findall(r"n[_^]\{kv\}", chosen)
        assert kv and set(kv) == {"n_{kv}"}, kv
    rope = re.findall(r"d[_^]R[_^]h", chosen)
    assert rope == (["d^R_h"] * 2 if variant == "mla" else []), rope  # MLA: the formula's and the sizes'
