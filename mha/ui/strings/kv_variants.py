"""The KV-cache stage with a variant of the lab: what its cache keeps, drops and shares."""

from .entry import CHART, S

STRINGS = {
    "kv_variant": S(
        en="Cache of",
        zh="哪种注意力的缓存"),
    "kv_short_mha": S(
        en="MHA",
        zh="MHA（原文）"),
    "kv_short_window": S(
        en="Window",
        zh="窗口"),
    "kv_short_sinks": S(
        en="Sinks",
        zh="汇聚词元"),
    "kv_knob_kv_heads": S(
        en="KV heads",
        zh="KV 头数"),
    "kv_knob_window": S(
        en="window W",
        zh="窗口 W"),
    "kv_knob_sinks": S(
        en="sinks s",
        zh="汇聚词元 s"),
    "kv_knob_rotary_dims": S(
        en="dims that rotate",
        zh="旋转的维数"),
    "kv_knob_d_latent": S(
        en="latent width",
        zh="潜向量宽度"),
    "kv_bytes": S(
        en="{n} bytes",
        zh="{n} 字节"),
    "kv_state_heads": S(
        en="The cache holds {t} tokens' K and V per KV head ({kv} in all), {t}×{d_k} and {t}×{d_v}: {size}.",
        zh="缓存里存着 {kv} 个 KV 头 × {t} 个词元的 K 和 V，每个分别是 {t}×{d_k} 和 {t}×{d_v}：一共 {size}。"),
    "kv_state_group": S(
        en="Head {i} reads KV head {g}, which heads {heads} share (group {g}); the figure shows its K and V.",
        zh="第 {i} 个头读第 {g} 个 KV 头，第 {heads} 个头共用它（第 {g} 组）；图中画的就是它的 K 和 V。"),
    "kv_state_no_group": S(
        en="With {h} heads and {kv} KV heads no two heads share: set fewer KV heads, or more heads.",
        zh="{h} 个头配 {kv} 个 KV 头，没有两个头共用：减少 KV 头数，或者增加头数。"),
    "kv_state_window": S(
        en="It holds {held}, at most s + W = {sinks} + {w} = {most}.",
        zh="缓存里只有 {held}，最多 s + W = {sinks} + {w} = {most} 个。"),
    "kv_state_left": S(
        en="{gone} left: no later query sees them.",
        zh="{gone} 已经离开：后面的查询看不到它们。"),
    "kv_state_mla": S(
        en=("The cache holds the latent c of {t} tokens, {t}×{d_latent} for all heads at once: {size}. Each head "
            "rebuilds its K and V from c."),
        zh="缓存里存着 {t} 个词元的潜向量 c，所有头共用一份 {t}×{d_latent}：{size}。每个头再从 c 重建自己的 K 和 V。"),
    "kv_proof_held": S(
        en="tokens held, at most s + W = {most}",
        zh="缓存里的词元数，最多 s + W = {most}"),
    "kv_proof_same": S(
        en="Both sides run the same variant ({variant}): the recompute is forward on all {n} tokens with it.",
        zh="两边用的是同一种变体（{variant}）：整体重算就是用它对全部 {n} 个词元做一次前向计算。"),
    "kv_fig_group": S(
        en="Heads {heads} share this k and v: group {g}.",
        zh="第 {heads} 个头共用这一对 k 和 v：第 {g} 组。",
        draws=CHART),
    "kv_append_rope": S(
        en=("q{t} = X{t}·W<sub>Q</sub> and k{t} = X{t}·W<sub>K</sub>, each turned by position {p} ({r} of {d_k} dims, "
            "in pairs 2i, 2i+1); v{t} = X{t}·W<sub>V</sub>. The turned k{t} and v{t} become row {n} of the caches: a "
            "key turns once, as it arrives."),
        zh=("q{t} = X{t}·W<sub>Q</sub>，k{t} = X{t}·W<sub>K</sub>，两者都按位置 {p} 旋转（{d_k} 维中的 {r} 维，"
            "按 2i、2i+1 两两成对）；v{t} = X{t}·W<sub>V</sub>。旋转后的 k{t} 和 v{t} 成为缓存的第 {n} 行："
            "每个键只在到来时旋转一次。"),
        draws=CHART),
    "kv_append_window": S(
        en=("q{t}, k{t}, v{t} = X{t}·W<sub>Q</sub>, X{t}·W<sub>K</sub>, X{t}·W<sub>V</sub>; k{t} and v{t} join the K "
            "and V caches, which keep {kept}{gone}."),
        zh=("q{t}、k{t}、v{t} = X{t}·W<sub>Q</sub>、X{t}·W<sub>K</sub>、X{t}·W<sub>V</sub>；k{t} 和 v{t} 进入 K 缓存"
            "和 V 缓存，缓存只保留{kept}{gone}。"),
        draws=CHART),
    "kv_keep_window": S(
        en="the last {w} tokens only",
        zh="最后 {w} 个词元",
        draws=CHART),
    "kv_keep_sinks": S(
        en="the first {s} and the last {w} tokens only",
        zh="最前面 {s} 个和最后 {w} 个词元",
        draws=CHART),
    "kv_gone": S(
        en=": X{x} leaves",
        zh="：X{x} 离开",
        draws=CHART),
    "kv_rows_held": S(
        en="the rows of {tokens}",
        zh="{tokens} 的行",
        draws=CHART),
    "kv_scores_alibi": S(
        en=("Row {n} of the scores: q{t}·Kᵀ/√{d_k} − {m}·(i−j), ALiBi's bias with this head's slope {m}; one dot "
            "product with every cached key."),
        zh="注意力分数的第 {n} 行：q{t}·Kᵀ/√{d_k} − {m}·(i−j)，减去的是 ALiBi 的偏置（这个头的斜率是 {m}）；与缓存里的每个键各做一次内积。",
        draws=CHART),
    "kv_append_mla": S(
        en=("c{t} = X{t}·{w_dkv} becomes row {n} of the latent cache c, all that is kept; q{t} = "
            "X{t}·W<sub>Q</sub> is folded into q{t}·{w_uk}ᵀ, a query in c's space."),
        zh=("c{t} = X{t}·{w_dkv} 成为潜向量缓存 c 的第 {n} 行，缓存里只留下它；q{t} = X{t}·W<sub>Q</sub> 与 {w_uk}ᵀ 合并为 q{t}·{w_uk}ᵀ，"
            "成为 c 所在空间里的查询。"),
        draws=CHART),
    "kv_scores_mla": S(
        en=("Row {n} of the scores: (q{t}·{w_uk}ᵀ)·cᵀ/√{d_k}, one dot product with every cached latent row; "
            "no K is built."),
        zh="注意力分数的第 {n} 行：(q{t}·{w_uk}ᵀ)·cᵀ/√{d_k}，与缓存里的每一行潜向量各做一次内积；不必构造 K。",
        draws=CHART),
    "kv_output_mla": S(
        en="Row {n} of {h} = (row {n} of {s} · c)·{w_uv}, then Y{t}; {ys} unchanged.",
        zh="{h} 的第 {n} 行 = ({s} 的第 {n} 行 · c)·{w_uv}，再得到 Y{t}；{ys} 保持不变。",
        draws=CHART),
    "kv_mla_c": S(
        en="latent cache c",
        zh="潜向量缓存 c",
        draws=CHART),
    "kv_mla_v": S(
        en="{v} = c·{w_uv}, rebuilt",
        zh="{v} = c·{w_uv}（由 c 重建）",
        draws=CHART),
}
