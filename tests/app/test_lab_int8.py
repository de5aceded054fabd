"""The int8 cache as the page shows it, against a computation written here (each row's scale max|row|/127 and its
codes, by a loop) rather than the core's: the codes and scales drawn for the chosen head's KV head, the check's
largest errors and Y's largest change, and the KV stage's proof and byte count, in both languages."""

import numpy as np
import pytest

import mha
from mha.ui.prose import fmt
from mha.ui.strings import TABLES, Text

from .helpers import keyed_charts, page_text, run, z

POST = mha.AttentionConfig()  # the post's sizes: n 3, d_model 5, d_k 7, d_v 11, 2 heads


def kept(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, scales) of each row, one row at a time."""
    codes, scales = np.zeros(rows.shape), np.zeros(len(rows))
    for i, row in enumerate(rows):
        scales[i] = max(abs(a) for a in row) / 127
        codes[i] = [0 if scales[i] == 0 else max(-127, min(127, round(a / scales[i]))) for a in row]
    return codes, scales


def float_rows(head: int):
    """K and V of `head` at the post's sizes, in float64, from X and the weights."""
    w, x = mha.init_weights(POST), mha.init_input(POST)
    return x @ w.w_k[head], x @ w.w_v[head], x, w


@pytest.mark.parametrize("lang, head", [("en", 1), ("zh", 2)])
def test_the_change_draws_the_codes_and_scales_of_the_chosen_heads_rows(lang, head):
    at = run(stage="variants", variant="int8", part="change", lang=lang, head=head)
    spec = dict(keyed_charts(at))["lab_int8_codes"]
    panels = [z(tr) for tr in spec["data"] if tr["type"] == "heatmap"]
    k, v, _, _ = float_rows(head - 1)
    (kc, ks), (vc, vs) = kept(k), kept(v)
    assert len(panels) == 4
    np.testing.assert_array_equal(panels[0], kc)
    np.testing.assert_allclose(panels[1][:, 0], ks, rtol=1e-12)
    np.testing.assert_array_equal(panels[2], vc)
    np.testing.assert_allclose(panels[3][:, 0], vs, rtol=1e-12)
    assert np.abs(panels[0]).max() == 127  # each row's largest number is a whole step: ±127


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_check_says_the_largest_errors_and_ys_change(lang):
    text = page_text(run(stage="variants", variant="int8", part="check", lang=lang))
    errors = {"K": [], "V": [], "half_K": [], "half_V": []}
    for head in range(POST.n_heads):
        k, v, x, w = float_rows(head)
        for m, rows in (("K", k), ("V", v)):
            codes, scales = kept(rows)
            errors[m].append(np.abs(codes * scales[:, None] - rows).max())
            errors["half_" + m].append(scales.max() / 2)
    for m in ("K", "V"):
        assert max(errors[m]) <= max(errors["half_" + m])
        assert fmt(float(max(errors[m]))) in text and fmt(float(max(errors["half_" + m]))) in text
    assert "✓" in text
    deq = mha.forward(x, w, mha.AttentionConfig(kv_bits=8))
    assert fmt(float(np.abs(deq.y - mha.forward(x, w).y).max())) in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_kv_stage_proves_the_int8_cache_and_counts_its_bytes(lang):
    at = run(stage="kv_cache", variant="int8", part="cost", n_tokens=4, lang=lang)
    text = page_text(at)
    per_token = POST.n_heads * (POST.d_k + POST.d_v + 2 * 8)  # a byte a code, two float64 scales a row
    count, measured = f"= {4 * per_token:,}$".replace(",", "{,}"), f"{4 * per_token:,}"
    assert count in text and measured in text.replace(count, "")  # the page's count, and the bytes a cache held
    rule = rf"h\,t\,(d_k + d_v + 2 \cdot 8) = {POST.n_heads} \cdot 4 \cdot {per_token // POST.n_heads}"
    assert rule in text  # the count's rule (a byte a code, a float64 scale for the row of K and of V) and its numbers
    proof = page_text(run(stage="kv_cache", variant="int8", n_tokens=4, lang=lang))
    assert TABLES[lang]["kv_exact"] in proof  # the rows before the new token: not one bit changed


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_cost_counts_a_byte_a_code_and_the_scales(lang):
    """Here: 3 tokens × (h (d_k + d_v) codes + 2h float64 scales); Llama-3-8B: 32 layers × (8 · 256 codes + 16 fp16
    scales), about half its fp16 cache's 32 · 8 · 256 · 2 bytes."""
    text = page_text(run(stage="variants", variant="int8", part="check", lang=lang))
    h, numbers = POST.n_heads, POST.n_heads * (POST.d_k + POST.d_v)
    assert f"{3 * (numbers + 2 * h * 8):,}" in text and f"{32 * (8 * 256 + 16 * 2):,}" in text
    assert 32 * (8 * 256 + 16 * 2) / (32 * 8 * 256 * 2) < 0.51


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_int8_cost_sentences_count_two_scales_for_each_kv_head(lang):
    """The lab's cost lines break the bytes into codes and scales: at the post's sizes 3 tokens × (36 codes + 4
    scales of 8 bytes), and Llama-3-8B's 32 layers × (8 kv heads × 256 codes + 16 scales of 2 bytes); a scale per K
    row and one per V row of every kv head. A plausible wrong count (one scale a head) would still read as bytes."""
    t = Text(lang)
    text = page_text(run(stage="variants", variant="int8", part="check", lang=lang))
    h, numbers = POST.n_heads, POST.n_heads * (POST.d_k + POST.d_v)
    here = t("lab_costs_here_int8", sizes="@", formula="@", n=3, held="3", nbytes=f"{3 * (numbers + 2 * h * 8):,}",
             floats=f"{numbers:,}", scales=2 * h)
    assert here.split("$@$")[-1] in text
    real = t("lab_costs_real_int8", model="@", config="@", formula="@", scales=16, layers=32,
             per_token=f"{32 * (8 * 256 + 16 * 2):,}")
    assert real.split("$@$")[-1] in text
