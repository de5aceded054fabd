"""The KV-cache stage's cost part: the formulas, the counts with and without a cache, the timing."""

from .entry import CHART, S

STRINGS = {
    "kv_cost_title": S(
        en="What the cache saves",
        zh="缓存省下了什么"),
    "kv_cost_step": S(
        en="Producing token {t}",
        zh="生成第 {t} 个词元"),
    "kv_cost_flops": S(
        en="FLOPs",
        zh="浮点运算次数"),
    "kv_cost_bytes": S(
        en="bytes touched",
        zh="读写的字节数"),
    "kv_with": S(
        en="with the cache",
        zh="使用缓存"),
    "kv_without": S(
        en="recomputing all {t} tokens",
        zh="把 {t} 个词元全部重算"),
    "kv_cost_note": S(
        en="Counting matrix products only (a multiply-add is 2 FLOPs), float64. Weights, X and the cache are read once.",
        zh="只计矩阵乘法（一次乘加算 2 次浮点运算），float64。权重、X 和缓存都按只读一次计算。"),
    "kv_cost_chart": S(
        en="Generating T tokens: cumulative FLOPs",
        zh="生成 T 个词元：累计浮点运算次数"),
    "kv_cost_cache": S(
        en=("The cache after token {t}, by this count: ${count}$ bytes; a real cache of the same shapes, fed {t} "
            "tokens, holds {nbytes} bytes."),
        zh=("第 {t} 个词元之后的缓存，按公式计算：${count}$ 字节；同样形状的真实缓存读入 {t} 个词元后，占 "
            "{nbytes} 字节。")),
    "kv_cost_note_groups": S(
        en=("{h} query heads share {kv} KV heads: the cache, its bytes and the projections to K and V shrink to "
            "$n_{{kv}}$ heads; each query head still takes a dot product with every key of its group, so the "
            "attention's FLOPs are those of MHA."),
        zh=("{h} 个查询头共用 {kv} 个 KV 头：缓存、它的字节数以及到 K 和 V 的投影都缩减到 $n_{{kv}}$ 个头；但每个"
            "查询头仍要和本组的每个键各做一次内积，所以注意力部分的浮点运算次数与 MHA 相同。")),
    "kv_cost_note_window": S(
        en=("A step reads at most ${bound} = {most}$ cached tokens: from token {most} on, its work and its bytes stop "
            "growing. The recompute runs forward on all t tokens: it computes the whole t×t scores and then hides "
            "those outside the window, so it keeps growing."),
        zh=("每一步最多读取 ${bound} = {most}$ 个缓存的词元：从第 {most} 个词元起，每步的运算量和字节数不再增长。"
            "重算是对全部 t 个词元做前向计算：它算出完整的 t×t 分数，再遮住窗口之外的部分，所以仍在增长。")),
    "kv_cost_note_alibi": S(
        en=("ALiBi counts as MHA does: it adds its bias $-m_h(i-j)$ to each of a step's h·t scores, additions and not "
            "matrix products, so they are left out here, as the softmax is."),
        zh=("ALiBi 的计数与 MHA 相同：它给每一步的 h·t 个分数各加上偏置 $-m_h(i-j)$，这些是逐元素的加法，"
            "不是矩阵乘法，所以和 softmax 一样不计入。")),
    "kv_cost_note_rope": S(
        en=("RoPE counts as MHA does: a step turns the first {r} of the $d_k = {d_k}$ dims of the new q (every head) "
            "and k by their position, a few multiplications per dim and not matrix products, so they are left out "
            "here. The cache keeps k already turned; a recompute turns every row again."),
        zh=("RoPE 的计数与 MHA 相同：每一步按位置旋转新的 q（每个头）和 k 的前 {r} 维（共 $d_k = {d_k}$ 维），"
            "每维只是几次乘法，不是矩阵乘法，所以不计入。缓存里存的是已经旋转过的 k；重算时每一行都要重新旋转。")),
    "kv_cost_note_mla": S(
        en=("MLA is counted in the absorbed order its cache decodes in: $W_{{UK}}$ is folded into the query and "
            r"$W_{{UV}}$ comes after the softmax, so a step reads the latent c, $t \times d_c$ with $d_c = {d_c}$, once "
            r"for all heads, and each head takes $2\,t\,d_c$ multiply-adds with it. The recompute runs the same order "
            "on all t tokens. The SVD that cut the keys' and values' weights to the latent is made once and not counted."),
        zh=("MLA 按它的缓存解码时所用的吸收顺序计数：$W_{{UK}}$ 并入查询，$W_{{UV}}$ 放到 softmax 之后，于是每一步把"
            r"潜向量 c（$t \times d_c$，其中 $d_c = {d_c}$）只读一次，供所有头共用，每个头与它做 $2\,t\,d_c$ 次乘加。"
            "重算对全部 t 个词元按同样的顺序计算。把键和值的权重压成潜向量的 SVD 只做一次，不计入。")),
    "kv_cost_curves": S(
        en=("The curves below count the variant “{variant}” as set on this page: at these sizes {here}; at "
            "GPT-2-small's {gpt2}."),
        zh="下面的曲线按页面上的设置，统计“{variant}”这一变体的开销：当前维度 {here}；GPT-2 small 的维度 {gpt2}。"),
    "kv_cost_timed": S(
        en="Both ways ran the variant “{variant}”: its own cache, against recomputing it on every token so far.",
        zh="两种方式跑的都是“{variant}”这一变体：一种用它自己的缓存，另一种在目前所有词元上把同一变体整体重算。"),
    "kv_axis_t": S(
        en="tokens generated T",
        zh="已生成的词元数 T",
        draws=CHART),
    "kv_axis_flops": S(
        en="FLOPs",
        zh="浮点运算次数",
        draws=CHART),
    "kv_series_cached": S(
        en="{sizes}, with cache",
        zh="{sizes}，使用缓存",
        draws=CHART),
    "kv_series_full": S(
        en="{sizes}, recompute",
        zh="{sizes}，整体重算",
        draws=CHART),
    "kv_sizes_now": S(
        en="these sizes",
        zh="当前维度",
        draws=CHART),
    "kv_sizes_gpt2": S(
        en="GPT-2-small shapes",
        zh="GPT-2 small 的维度",
        draws=CHART),
    "kv_measure_title": S(
        en="Measure it here",
        zh="在这里实测"),
    "kv_measure_tokens": S(
        en="tokens to generate",
        zh="要生成的词元数"),
    "kv_measure": S(
        en="Time decoding both ways",
        zh="给两种解码方式分别计时"),
    "kv_measure_progress": S(
        en="Decoding token {t} of {total}…",
        zh="正在解码第 {t} 个词元，共 {total} 个……"),
    "kv_measure_result": S(
        en="Total {cached:.1f} ms with the cache, {full:.1f} ms recomputing: the recompute takes {ratio:.1f} times as long.",
        zh="使用缓存共 {cached:.1f} 毫秒，整体重算共 {full:.1f} 毫秒：整体重算的耗时是使用缓存的 {ratio:.1f} 倍。"),
    "kv_measure_x": S(  # a step's own time, where the FLOPs' axis counts the T tokens generated so far
        en="token t",
        zh="第 t 个词元",
        draws=CHART),
    "kv_measure_axis": S(
        en="milliseconds per token",
        zh="每个词元的毫秒数",
        draws=CHART),
    "kv_measure_cap": S(
        en="At these sizes the recompute is capped at {T} tokens to keep the page responsive.",
        zh="在这些维度下，为了让页面保持流畅，重算最多只做 {T} 个词元。"),
    "kv_series_ms_cached": S(
        en="with the cache",
        zh="使用缓存",
        draws=CHART),
    "kv_series_ms_full": S(
        en="recompute",
        zh="整体重算",
        draws=CHART),
}
