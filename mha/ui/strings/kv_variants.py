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
    "kv_state_window": S(  # a sliding window alone: no sinks to add (audit 2026-12-07 #12: "s + W = 0 + 2")
        en="It holds {held}, at most W = {w}.",
        zh="缓存里只有 {held}，最多 W = {w} 个。"),
    "kv_state_sinks": S(
        en="It holds {held}, at most s + W = {sinks} + {w} = {most}.",
        zh="缓存里只有 {held}，最多 s + W = {sinks} + {w} = {most} 个。"),
    "kv_state_none_left": S(  # a window not yet full (audit 2026-12-07 #10: sinks at n = 3 kept every token unsaid)
        en="No token has left yet: when X{when} arrives, X{gone} is the first to leave.",
        zh="还没有词元离开：X{when} 到来时，X{gone} 第一个滑出窗口。"),
    "kv_state_left": S(
        en="{gone} left: no later query sees them.",
        zh="{gone} 已经离开：后面的查询看不到它们。"),
    "kv_state_left_one": S(
        en="{gone} left: no later query sees it.",
        zh="{gone} 已经离开：后面的查询看不到它。"),
    "kv_state_int8": S(
        en=("Each number of K and V is kept as an int8 code, one byte, and each row with a float64 scale, 8 bytes: "
            "{kv}·{t}·({d_k} + {d_v} + 2·8) = {nbytes:,} bytes. The figure draws code × scale."),
        zh=("K 和 V 的每个数都存成一个 int8 量化值，占 1 字节；每行另有一个 float64 比例因子，占 8 字节："
            "{kv}·{t}·({d_k} + {d_v} + 2·8) = {nbytes:,} 字节。图中画的是量化值 × 比例因子。")),
    "kv_state_mla": S(
        en=("The cache holds the latent c of {t} tokens, {t}×{d_latent} for all heads at once: {size}. Each head "
            "rebuilds its K and V from c."),
        zh="缓存里存着 {t} 个词元的潜向量 c，所有头共用一份 {t}×{d_latent}：{size}。每个头再从 c 重建自己的 K 和 V。"),
    "kv_state_mla_cut": S(
        en=(r"At width {l} the latent keeps {l} of the {r} directions of every head's $[W_K \mid W_V]$ side by side, "
            "so K, V, S, H and Y differ from the post's attention (the lab's MLA shows what the cut loses)."),
        zh=(r"宽度为 {l} 时，潜向量只保留所有头的 $[W_K \mid W_V]$ 并排后 {r} 个方向中的 {l} 个，所以 K、V、S、H 和 Y "
            "都和原文的注意力不同（变体实验室的 MLA 部分讲了截断丢掉了什么）。")),
    "kv_proof_held": S(
        en="tokens held, at most s + W = {most}",
        zh="缓存里的词元数，最多 s + W = {most}"),
    "kv_proof_held_window": S(
        en="tokens held, at most W = {most}",
        zh="缓存里的词元数，最多 W = {most}"),
    "kv_proof_same": S(
        en="Both sides run the same variant ({variant}): the recompute is forward on all {n} tokens with it.",
        zh="两边用的是同一种变体（{variant}）：整体重算就是用它对全部 {n} 个词元做一次前向计算。"),
    "kv_append_group": S(
        en=("q{t}, k{t}, v{t} = X{t}·W<sub>Q</sub>, X{t}·W<sub>K</sub>, X{t}·W<sub>V</sub>; k{t}, v{t} become row {n} of "
            "group {g}'s caches (heads {heads})."),
        zh=("q{t}、k{t}、v{t} = X{t}·W<sub>Q</sub>、X{t}·W<sub>K</sub>、X{t}·W<sub>V</sub>；k{t} 和 v{t} 成为第 {g} 组"
            "（第 {heads} 个头）缓存的第 {n} 行。"),
        draws=CHART),
    "kv_append_rope": S(
        en=("q{t}, k{t} = X{t}·W<sub>Q</sub>, X{t}·W<sub>K</sub>, turned by position {p} ({r} of {d_k} dims); "
            "v{t} = X{t}·W<sub>V</sub>; k{t} is cached turned, once."),
        zh=("q{t}、k{t} = X{t}·W<sub>Q</sub>、X{t}·W<sub>K</sub>，按位置 {p} 旋转（{d_k} 维中的 {r} 维）；"
            "v{t} = X{t}·W<sub>V</sub>；k{t} 转好后存入缓存，只转一次。"),
        draws=CHART),
    "kv_append_window": S(
        en=("q{t}, k{t}, v{t} = X{t}·W<sub>Q</sub>, X{t}·W<sub>K</sub>, X{t}·W<sub>V</sub>; k{t}, v{t} join the "
            "caches, held to {kept}{gone}."),
        zh=("q{t}、k{t}、v{t} = X{t}·W<sub>Q</sub>、X{t}·W<sub>K</sub>、X{t}·W<sub>V</sub>；k{t}、v{t} 进入缓存，"
            "缓存只留{kept}{gone}。"),
        draws=CHART),
    "kv_keep_window": S(
        en="the last {w}",
        zh="最后 {w} 个",
        draws=CHART),
    "kv_keep_sinks": S(  # "held to the first 1, last 2" read as a typo (audit 2026-12-07 #12)
        en="{s} sinks + the last {w}",
        zh="最前 {s} 个和最后 {w} 个",
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
        en="Row {n} of the scores: q{t}·Kᵀ/√{d_k} − {m}·(i−j), a dot product per cached key, less ALiBi's bias.",
        zh="注意力分数的第 {n} 行：q{t}·Kᵀ/√{d_k} − {m}·(i−j)，与每个缓存键各做一次内积，再减去这个头的 ALiBi 偏置。",
        draws=CHART),
    "kv_append_mla": S(
        en=("c{t} = X{t}·{w_dkv} becomes row {n} of c, the only cache; q{t} = X{t}·W<sub>Q</sub> times {w_uk}ᵀ is a "
            "query in c's space."),
        zh=("c{t} = X{t}·{w_dkv} 成为潜向量缓存 c 的第 {n} 行（只缓存 c）；q{t} = X{t}·W<sub>Q</sub> 再乘 {w_uk}ᵀ，"
            "成为 c 空间里的查询。"),
        draws=CHART),
    "kv_scores_mla": S(
        en="Row {n} of the scores: (q{t}·{w_uk}ᵀ)·cᵀ/√{d_k}, one dot product per cached row of c; no K is built.",
        zh="注意力分数的第 {n} 行：(q{t}·{w_uk}ᵀ)·cᵀ/√{d_k}，与缓存里的每一行潜向量各做一次内积；不必构造 K。",
        draws=CHART),
    "kv_drop_q_mla": S(
        en="Q's {rows}: never needed again. Only q{t}·{w_uk}ᵀ meets the latent cache, a dot product a row.",
        zh="Q 的{rows}再也用不上了：只有 q{t}·{w_uk}ᵀ 还要与潜向量缓存的每一行各做一次内积。",
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
