"""The KV-cache stage's cost part with a variant (issue 34): step t's FLOPs and bytes, the cache's bytes, the
generation curves and the timing follow the variant chosen on the stage.

The expected numbers are not the page's formulas: FLOPs are summed over the matrix products each decoding step and
each recompute run, listed here one by one from mha/cache.py, mha/mla.py and the walk (a product of (m×k)·(k×n) is
2mkn FLOPs); bytes are the sizes of the arrays a real cache, a real step and a real forward hold."""

import re

import numpy as np
import pytest

import mha
from mha.ui.kv import cost as kv_cost
from mha.ui.prose import tex_int

from .helpers import keyed_charts, page_text, rerun, run

H = 4  # four heads: GQA's knob (2 KV heads) shares for real
KNOBS = dict(kv_heads=2, window=2, sinks=1, d_latent=4)  # the knobs' defaults, as the page reads them
CHANGE = dict(mha={}, gqa=dict(n_kv_heads=2), mqa=dict(n_kv_heads=1), window=dict(window=2),
              sinks=dict(window=2, sinks=1), alibi=dict(alibi=True), rope=dict(rotary_dims=6), mla={})
LANGS = ("en", "zh")
ITEM = 8


def _cfg(variant: str, base: mha.AttentionConfig) -> mha.AttentionConfig:
    from dataclasses import replace

    return replace(base, **CHANGE[variant])


def _products_cached(cfg: mha.AttentionConfig, variant: str, held: int, c: int) -> list[tuple[int, int, int]]:
    """(m, k, n) of every matrix product one cached step runs."""
    h, d, dk, dv, g = cfg.n_heads, cfg.d_model, cfg.d_k, cfg.d_v, cfg.kv_heads
    if variant == "mla":
        return [(1, d, c), (1, d, h * dk), *[(1, dk, c)] * h, *[(1, c, held)] * h, *[(1, held, c)] * h,
                *[(1, c, dv)] * h, (1, h * dv, d)]
    return [(1, d, h * dk + g * (dk + dv)), *[(1, dk, held)] * h, *[(1, held, dv)] * h, (1, h * dv, d)]


def _products_recompute(cfg: mha.AttentionConfig, variant: str, t: int, c: int) -> list[tuple[int, int, int]]:
    """(m, k, n) of every matrix product a recompute on t rows runs (all t×t scores, the mask applied after)."""
    h, d, dk, dv, g = cfg.n_heads, cfg.d_model, cfg.d_k, cfg.d_v, cfg.kv_heads
    if variant == "mla":
        return [(t, d, c), (t, d, h * dk), *[(t, dk, c)] * h, *[(t, c, t)] * h, *[(t, t, c)] * h,
                *[(t, c, dv)] * h, (t, h * dv, d)]
    return [(t, d, h * dk), (t, d, g * dk), (t, d, g * dv), *[(t, dk, t)] * h, *[(t, t, dv)] * h, (t, h * dv, d)]


def _flops(products) -> int:
    return sum(2 * m * k * n for m, k, n in products)


def _held(cfg: mha.AttentionConfig, t: int) -> int:
    """Keys a step t reads: every token, or those a window keeps (the sinks and the last W)."""
    return len([p for p in range(t) if not cfg.window or p < cfg.sinks or p > t - 1 - cfg.window])


def _expected(variant: str, t: int) -> dict:
    """Step t of the variant on the page's sizes (four heads, the seeded weights), from real arrays."""
    cfg = _cfg(variant, mha.AttentionConfig(n_heads=H))
    w = mha.share_kv(mha.init_weights(mha.AttentionConfig(n_heads=H)), cfg.kv_heads)
    x = np.stack([mha.next_token(cfg, i) for i in range(t)])
    c = KNOBS["d_latent"] if variant == "mla" else 0
    if variant == "mla":
        w_mla = mha.mla_from(w, c)
        cache = mha.MLACache(w_mla)
        steps = [cache.append(r) for r in x]
        tr = mha.mla_forward(x, w_mla)
        weights = sum(a.size for a in (w_mla.w_q, w_mla.w_dkv, w_mla.w_uk, w_mla.w_uv, w_mla.w_o))
        made = tr.latent.size + tr.q.size + tr.q_absorbed.size + H * t * c  # c, Q, Q·W_UKᵀ, S·c
        scores, heads = tr.probs_absorbed.size, tr.heads.size
    else:
        cache = mha.KVCache(w, cfg if variant != "mha" else None)
        steps = [cache.append(r) for r in x]
        tr = mha.forward(x, w, cfg if variant != "mha" else None)
        weights = sum(a.size for a in (w.w_q, w.w_k, w.w_v, w.w_o))
        made, scores, heads = tr.q.size + tr.k.size + tr.v.size, tr.scores.size, tr.heads.size
    held = len(cache)
    assert held == _held(cfg, t) and steps[-1].probs.shape == (H, held)
    d = cfg.d_model
    return dict(
        flops_cached=_flops(_products_cached(cfg, variant, held, c)),
        flops_recompute=_flops(_products_recompute(cfg, variant, t, c)),
        bytes_cached=ITEM * (weights + d + cache.nbytes // ITEM + steps[-1].probs.size + steps[-1].y.size),
        bytes_recompute=ITEM * (weights + tr.x.size + made + scores + heads + tr.y.size),
        nbytes=cache.nbytes,
    )


def _opened(variant: str, lang: str):
    return run(stage="kv_cache", part="cost", variant=variant, lang=lang, n_heads=H)


def _table(at) -> list[list[int]]:
    """The cost table's two rows (with the cache, recomputing): FLOPs and bytes, as numbers."""
    text = next(m.value for m in at.markdown if m.value.startswith("| "))
    rows = [line.strip("|").split(" | ") for line in text.split("\n") if line.startswith("|")][2:]
    return [[int(cell.replace(",", "")) for cell in row[1:]] for row in rows]


def _cache_line(at) -> tuple[int, int]:
    """The cache check under the table: the count's bytes and the real cache's."""
    text = next(m.value for m in at.markdown if m.value.startswith("| "))
    line = text.split("\n\n")[1]
    counted = re.search(r"= ([\d{},]+)\$", line)[1].replace("{,}", "")
    real = re.findall(r"([\d,]+) (?:bytes|字节)", line.split("$")[-1])[0]
    return int(counted), int(real.replace(",", ""))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("variant", ["mha", "gqa", "mqa", "window", "sinks", "alibi", "rope", "mla"])
def test_the_cost_table_counts_what_the_variants_step_and_recompute_run(variant, lang):
    at = _opened(variant, lang)
    want = _expected(variant, 3)
    assert _table(at) == [[want["flops_cached"], want["bytes_cached"]],
                          [want["flops_recompute"], want["bytes_recompute"]]]
    if variant == "mha":  # the post's page as it was: mha.cost's numbers, no cache line
        c = mha.cost(mha.AttentionConfig(n_heads=H), 3)
        assert _table(at) == [[c.step_flops_cached, c.step_bytes_cached], [c.step_flops_recompute,
                                                                            c.step_bytes_recompute]]
        assert "$" not in next(m.value for m in at.markdown if m.value.startswith("| "))
    else:
        assert _cache_line(at) == (want["nbytes"], want["nbytes"])
    if variant in ("alibi", "rope"):  # MHA's products; what they add is said, not counted
        assert ("counts as MHA does" if lang == "en" else "的计数与 MHA 相同") in page_text(at)
    spelled = re.findall(r"n[_^]\{kv\}|d[_^]R[_^]h", page_text(at))  # one way each, wherever the part names it
    assert set(spelled) <= {"n_{kv}", "d^R_h"} and ("n_{kv}" in spelled) == (variant in ("gqa", "mqa")), spelled


def test_the_posts_cost_part_is_written_as_before():
    """MHA's formulas, word for word as the page wrote them before it followed a variant."""
    at = _opened("mha", "en")
    c, h, d, dk, dv = mha.cost(mha.AttentionConfig(n_heads=H), 3), H, 5, 7, 11
    tex = [m.value for m in at.latex]
    assert tex == [
        "$$\n" + rf"P = 2\,d_{{model}}\,h\,(2d_k + d_v) = {tex_int(2 * d * h * (2 * dk + dv))},\qquad "
        rf"O = 2\,h\,d_v\,d_{{model}} = {tex_int(2 * h * dv * d)}" + "\n$$",
        "$$\n" + rf"\text{{cached}}_{{3}} = P + 2h\,t\,(d_k + d_v) + O = {tex_int(c.step_flops_cached)}\qquad "
        rf"\text{{recompute}}_{{3}} = t\,(P + O) + 2h\,t^2(d_k + d_v) = {tex_int(c.step_flops_recompute)}" + "\n$$",
    ]
    captions = [m.value for m in at.caption]
    assert "Counting matrix products only (a multiply-add is 2 FLOPs), float64. Weights, X and the cache are read " \
           "once." in captions and not any("The curves below count" in x for x in captions)


@pytest.mark.parametrize("lang", LANGS)
def test_a_window_stops_a_steps_work_growing_but_not_the_recomputes(lang):
    """Tokens added: at t = 6 a window of 2 (and one sink) still reads 3 keys; the recompute reads all 6."""
    at = run(stage="kv_cache", variant="sinks", lang=lang, n_heads=H)
    for _ in range(3):
        at.button(key="add_token").click()
        rerun(at)
    at.session_state["kv_part"] = "cost"
    rerun(at)
    want = _expected("sinks", 6)
    assert _table(at) == [[want["flops_cached"], want["bytes_cached"]],
                          [want["flops_recompute"], want["bytes_recompute"]]]
    assert _cache_line(at)[1] == want["nbytes"] == ITEM * H * 3 * (7 + 11)


def _independent_curve(variant: str, cfg: mha.AttentionConfig, lengths, c: int) -> tuple[list, list]:
    """Generation FLOPs for T in lengths: the steps' products summed (at most one product list per distinct L)."""
    cached, full, total_c, total_f = {}, {}, 0, 0
    for t in range(1, int(lengths[-1]) + 1):
        total_c += _flops(_products_cached(cfg, variant, _held(cfg, t) if cfg.window else t, c))
        total_f += _flops(_products_recompute(cfg, variant, t, c))
        cached[t], full[t] = total_c, total_f
    return [cached[int(n)] for n in lengths], [full[int(n)] for n in lengths]


@pytest.mark.parametrize("variant", ["mha", "mqa", "window", "mla"])
def test_the_curves_sum_the_variants_steps_at_these_sizes_and_gpt2s(variant):
    at = _opened(variant, "en")
    spec = next(s for k, s in keyed_charts(at) if k == "kv_cost")
    lengths = np.array(spec["data"][0]["x"])
    np.testing.assert_array_equal(lengths, kv_cost.LENGTHS)
    short = lengths[lengths <= 300]  # the independent sum, step by step, kept short
    c = KNOBS["d_latent"] if variant == "mla" else 0
    here = _cfg(variant, mha.AttentionConfig(n_heads=H))
    gpt2 = _cfg(variant, mha.AttentionConfig(n_tokens=1, d_model=768, d_k=64, d_v=64, n_heads=12))
    # MLA on GPT-2's sizes with DeepSeek-V2's latent of 4 head widths, 256, not the page's 4 (audit 2026-12-07 #12)
    for (cached, full), cfg, width in (((0, 1), here, c), ((2, 3), gpt2, 4 * 64 if c else 0)):
        want_c, want_f = _independent_curve(variant, cfg, short, width)
        assert spec["data"][cached]["y"][: len(short)] == want_c
        assert spec["data"][full]["y"][: len(short)] == want_f
    if variant != "mha":
        assert "${h = 12}" in page_text(at)  # the caption names GPT-2's sizes the curve counts
    assert ("{d_c = 256}" in page_text(at)) == (variant == "mla")  # one group: no line breaks inside it


class _Recorded:
    """Every cache the page makes and every recompute it runs, with the variant they run."""

    def __init__(self, monkeypatch):
        self.caches, self.recomputes = [], []
        kv, latent, forward = mha.KVCache, mha.MLACache, mha.forward
        recorded = self

        class KVCache(kv):
            def __init__(self, w, cfg=None, capacity=16):
                super().__init__(w, cfg, capacity)
                recorded.caches.append(self)

        class MLACache(latent):
            def __init__(self, w):
                super().__init__(w)
                recorded.caches.append(self)

        def recompute(x, w, cfg=None):
            recorded.recomputes.append((len(x), w.n_kv_heads, cfg))
            return forward(x, w, cfg)

        monkeypatch.setattr(mha, "KVCache", KVCache)
        monkeypatch.setattr(mha, "MLACache", MLACache)
        monkeypatch.setattr(mha, "forward", recompute)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("variant", ["mha", "mqa", "window", "mla"])
def test_measuring_times_the_variants_own_cache_and_recompute(variant, lang, monkeypatch):
    recorded = _Recorded(monkeypatch)
    at = _opened(variant, lang)
    at.number_input(key="kv_measure_T").set_value(12)
    at.button(key="kv_measure").click()
    rerun(at)
    _, (cached, full) = at.session_state["kv_timing"]
    assert len(cached) == len(full) == 12
    cache = recorded.caches[-1]  # the last cache made: the timing's (the page's own and the counted are made first)
    if variant == "mla":
        assert isinstance(cache, mha.MLACache) and cache.latent.shape == (12, 4)
    else:
        cfg = _cfg(variant, mha.AttentionConfig(n_heads=H))
        assert (cache.w.n_kv_heads, cache.cfg.window, len(cache)) == (cfg.kv_heads, cfg.window, _held(cfg, 12))
        assert cache.positions[-1] == 11
        calls = recorded.recomputes[-12:]  # forward on 1..12 rows, with the variant
        assert [n for n, _, _ in calls] == list(range(1, 13))
        assert all(kv == cfg.kv_heads and (c.window if c else 0) == cfg.window for _, kv, c in calls)
    assert (("Both ways ran" if lang == "en" else "两种方式跑的都是") in page_text(at)) == (variant != "mha")


def test_mlas_recompute_is_the_absorbed_order_on_every_row():
    cfg = mha.AttentionConfig(n_heads=H)
    w = mha.mla_from(mha.init_weights(cfg), 4)
    x = np.stack([mha.next_token(cfg, i) for i in range(6)])
    np.testing.assert_allclose(kv_cost.mla_recompute(x, w), mha.mla_forward(x, w).y_absorbed, atol=1e-12, rtol=0)


def test_mla_beyond_the_svds_budget_says_so_instead_of_costing():
    from mha.ui import lab

    sizes = dict(d_model=1024, n_heads=16, d_k=128, d_v=128)
    assert not lab.mla_fits(mha.AttentionConfig(**sizes))
    at = run(cleared=10**9, stage="kv_cache", part="cost", variant="mla", lang="en", **sizes)
    assert "takes an SVD" in page_text(at) and "What the cache saves" not in page_text(at)
    assert not [b for b in at.button if b.key == "kv_measure"]
