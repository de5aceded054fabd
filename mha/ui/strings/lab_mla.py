"""The lab's MLA: a small latent cached in place of K and V."""

from .entry import CHART, S

STRINGS = {
    "lab_mla_biased": S(
        en=("MLA keeps one latent per token and rebuilds K and V from it by products alone, so GPT-2's biases on K "
            "and V have no place in it. The page cuts MLA from weights without biases: switch the weights to seeded "
            "in the sidebar to see it."),
        zh=("MLA 每个词元只存一个潜向量，K 和 V 只靠矩阵乘法从它重建，所以 GPT-2 加在 K 和 V 上的偏置在 MLA 里无处安放。"
            "页面只从不带偏置的权重构造 MLA：在侧边栏改用随机权重，就能看到 MLA。")),
    "lab_mla_skip": S(
        en=("Cutting K and V to a latent takes an SVD of about {work:,} operations at these sizes; the page "
            "does it up to {limit:,}. Choose smaller sizes (GPT-2 small's fit) to see MLA."),
        zh=("在这些维度下，把 K 和 V 压成潜向量要做一次约 {work:,} 次运算的 SVD；页面只在不超过 {limit:,} 次时计算。"
            "请选小一些的维度（GPT-2 small 的维度可以）再看 MLA。")),
    "lab_mla_d_latent": S(
        en="Latent width $d_{{latent}}$",
        zh="潜向量宽度 $d_{{latent}}$"),
    "lab_mla_latent": S(
        en="latent",
        zh="潜向量维",
        draws=CHART),
    "lab_mla_title": S(
        en="MLA (DeepSeek-V2): cache one short row per token and rebuild K and V from it.",
        zh="MLA（DeepSeek-V2）：每个词元只缓存一行短向量，K 和 V 由它重建。"),
    "lab_mla_intro": S(
        en=("Each token's row of X is "
            "pressed into a latent row $c = X\\,W_{{DKV}}$ of $d_{{latent}}$ numbers, one row for all heads, and that "
            "row is all the cache keeps. Head $i$ rebuilds its keys and values with up-projections of its own, "
            "$K_i = c\\,W_{{UKi}}$ and $V_i = c\\,W_{{UVi}}$. Here the walk's own weights are put in that form: $W_Q$ "
            "and $W_O$ stay as they are, and every head's $[W_K \\mid W_V]$, side by side a ${d} \\times {kv}$ matrix, "
            "is factored by the SVD into $W_{{DKV}}$ (${d} \\times d_{{latent}}$) times $[W_{{UK}} \\mid W_{{UV}}]$, "
            "keeping its $d_{{latent}}$ strongest directions."),
        zh=("每个词元在 X 中的那一行被压成一行潜向量 "
            "$c = X\\,W_{{DKV}}$，共 $d_{{latent}}$ 个数，所有头共用这一行，缓存里也只存这一行。第 $i$ 个头用自己的上投影把键和值"
            "重建出来：$K_i = c\\,W_{{UKi}}$，$V_i = c\\,W_{{UVi}}$。这里用的是前面各步自己的权重，改写成这种形式：$W_Q$ 和 "
            "$W_O$ 保持不变，把每个头的 $[W_K \\mid W_V]$ 并排，得到一个 ${d} \\times {kv}$ 的矩阵，用 SVD 分解成 "
            "$W_{{DKV}}$（${d} \\times d_{{latent}}$）乘以 $[W_{{UK}} \\mid W_{{UV}}]$，只保留最强的 $d_{{latent}}$ 个方向。")),
    "lab_mla_small_x": S(
        en=("Mind what these sizes do to the idea. X itself holds only ${d}$ numbers per token, fewer than the ${kv}$ "
            "of K and V together, so caching the rows of X would already rebuild K and V exactly: a latent of ${d}$ "
            "numbers or more saves nothing here, and the SVD has only ${d}$ directions to keep. The latent pays where "
            "$d_{{model}}$ is wide: DeepSeek-V2 caches 512 numbers per token (and 64 more for its RoPE key) against "
            "$d_{{model}} = 5120$. The table “{costs}” under “{check}” gives the real sizes."),
        zh=("注意：在这些维度下，这个办法省不下什么。X 本身每个词元只有 ${d}$ 个数，比 K 和 V 合起来的 ${kv}$ 个还少，所以直接缓存 X 的行就已经能把 K 和 V 精确地重建出来：在这里，$"
            "{d}$ 个数或更宽的潜向量什么也省不下，而且 SVD 也只有 ${d}$ 个方向可留。潜向量要在 $d_{{model}}$ 很宽时才划算：DeepSeek-V2 每个词元缓存 512 个数（另有 "
            "64 个给它的 RoPE 键），而它的 $d_{{model}} = 5120$。真实模型的维度见“{check}”里“{costs}”那张表。")),
    "lab_mla_wide_x": S(
        en=("Mind what these sizes do to the idea. K and V together hold ${kv}$ numbers per token, no more than the "
            "${d}$ of X, so the SVD has only ${kv}$ directions: a latent of ${kv}$ numbers or more is exact and saves "
            "nothing against caching K and V. The latent pays where $d_{{model}}$ is wide: DeepSeek-V2 caches 512 "
            "numbers per token (and 64 more for its RoPE key) against $d_{{model}} = 5120$. The table “{costs}” "
            "under “{check}” gives the real sizes."),
        zh=("注意：在这些维度下，这个办法省不下什么。K 和 V 合起来每个词元有 ${kv}$ 个数，不比 X 的 ${d}$ 个多，所以 SVD 只有 ${kv}$ 个方向：${kv}$ 个数或更宽的潜向量是精"
            "确的，但和直接缓存 K、V 相比什么也省不下。潜向量要在 $d_{{model}}$ 很宽时才划算：DeepSeek-V2 每个词元缓存 512 个数（另有 64 个给它的 RoPE 键），而它的 $"
            "d_{{model}} = 5120$。真实模型的维度见“{check}”里“{costs}”那张表。")),
    "lab_mla_cut": S(
        en=("With $d_{{latent}} = {l}$ the cut throws away {dropped} of the {r} directions. The largest of them, "
            "$\\sigma_{{{next}}} = {sigma}$, is why K, V and Y are no longer the walk's; the table “{price}” under "
            "“{check}” says by how much."),
        zh=("取 $d_{{latent}} = {l}$ 时，截断在 {r} 个方向里丢掉了 {dropped} 个。其中最大的 $\\sigma_{{{next}}} = {sigma}$，正是 K、V 和 Y "
            "不再等于前面各步结果的原因；差多少见“{check}”里“{price}”那张表。")),
    "lab_mla_exact": S(
        en="With $d_{{latent}} = {l}$ the cut throws nothing away: K, V and so Y are the walk's, to rounding.",
        zh="取 $d_{{latent}} = {l}$ 时什么都没丢：K、V 以及 Y 都和前面各步的一样，只差舍入误差。"),
    "lab_mla_zero_cols": S(
        en="The last {extra} columns of $c$ are zeros: no direction is left for them.",
        zh="$c$ 的最后 {extra} 列全是零：已经没有方向留给它们了。"),
    "lab_mla_clamped": S(
        en="$d_{{latent}}$ was {asked}; with $d_{{model}} = {d}$ this page offers 1 to {high}, so it uses {high}.",
        zh="$d_{{latent}}$ 原为 {asked}；在 $d_{{model}} = {d}$ 时这一步只提供 1 到 {high}，所以用 {high}。"),
    "lab_mla_orders": S(
        en=("Two orders give the same result. The naive one rebuilds $K_i$ and $V_i$. The absorbed one, the way a "
            "decoder reads its cache, never builds them: $Q_i K_i^{{\\mathrm T}} = (Q_i W_{{UKi}}^{{\\mathrm T}})\\,c^{{\\mathrm T}}$, so "
            "$W_{{UKi}}$ folds into the query $\\tilde Q_i$, which is scored against $c$ itself; and "
            "$S_i\\,(c\\,W_{{UVi}}) = (S_i\\,c)\\,W_{{UVi}}$, so $W_{{UVi}}$ moves past the softmax."),
        zh=("两种计算顺序得到同样的结果。朴素顺序先重建 $K_i$ 和 $V_i$。吸收顺序是解码器读缓存的方式，根本不构造它们："
            "$Q_i K_i^{{\\mathrm T}} = (Q_i W_{{UKi}}^{{\\mathrm T}})\\,c^{{\\mathrm T}}$，所以 $W_{{UKi}}$ 并进查询 $\\tilde Q_i$，直接和 $c$ 本身"
            "算分数；又因为 $S_i\\,(c\\,W_{{UVi}}) = (S_i\\,c)\\,W_{{UVi}}$，$W_{{UVi}}$ 可以挪到 softmax 之后。")),
    "lab_mla_checks_title": S(
        en="Checked live: the two orders on these numbers",
        zh="当场核对：两种顺序在这些数上的结果"),
    "lab_mla_check_what": S(
        en="compared",
        zh="比较的内容"),
    "lab_mla_check_delta": S(
        en="largest difference",
        zh="最大差值"),
    "lab_mla_check_scores": S(
        en="$Q_i K_i^{{\\mathrm T}}$ with K rebuilt, against $\\tilde Q_i\\,c^{{\\mathrm T}}$, every head",
        zh="用重建的 K 算出的 $Q_i K_i^{{\\mathrm T}}$ 与 $\\tilde Q_i\\,c^{{\\mathrm T}}$，所有头"),
    "lab_mla_check_s": S(
        en="$S$ naive against $S$ absorbed, every head",
        zh="朴素顺序的 $S$ 与吸收顺序的 $S$，所有头"),
    "lab_mla_check_y": S(
        en="$Y$ naive against $Y$ absorbed",
        zh="朴素顺序的 $Y$ 与吸收顺序的 $Y$"),
    "lab_mla_price_title": S(
        en="{price}: MLA's Y against the walk's Y, width by width",
        zh="{price}：MLA 的 Y 与前面各步的 Y，逐个宽度比较"),
    "lab_mla_price": S(
        en="The price of the cut",
        zh="截断的代价"),
    "lab_mla_price_l": S(
        en="width $d_{{latent}}$",
        zh="宽度 $d_{{latent}}$"),
    "lab_mla_price_sigma": S(
        en="largest singular value dropped",
        zh="丢掉的最大奇异值"),
    "lab_mla_price_y": S(
        en="max $\\lvert Y_{{MLA}} - Y_{{MHA}}\\rvert$",
        zh="最大 $\\lvert Y_{{MLA}} - Y_{{MHA}}\\rvert$"),
    "lab_mla_none": S(
        en="none",
        zh="无"),
    "lab_mla_price_note": S(
        en=("$Y_{{MHA}}$ is the walk's Y: the post's attention on the same X and weights. Below $d_{{latent}} = {r}$ "
            "the SVD drops directions of $[W_K \\mid W_V]$. No other rank-$d_{{latent}}$ factors come closer to it "
            "(the Eckart–Young theorem), and the largest singular value dropped is how far they miss: a token's K and "
            "V move by at most that much times the length of its row of X. From {r} on nothing is dropped and what is "
            "left is rounding. The width chosen above is in bold."),
        zh=("$Y_{{MHA}}$ 是前面各步的 Y，即原文的注意力在同样的 X 和权重上的结果。$d_{{latent}}$ 小于 {r} 时，SVD 会丢掉 "
            "$[W_K \\mid W_V]$ 的一些方向。没有别的秩为 $d_{{latent}}$ 的分解比它更接近原矩阵（埃卡特–杨定理），丢掉的最大"
            "奇异值正是它偏离的程度：一个词元的 K 和 V 移动的距离，不超过这个值乘以它在 X 中那一行的长度。从 {r} 起什么都不丢，"
            "剩下的只是舍入误差。上面选中的宽度用粗体标出。")),
    "lab_mla_price_some": S(
        en="At $d_{{model}} = {d}$ the table shows {shown} widths spread from 1 to {d}.",
        zh="在 $d_{{model}} = {d}$ 时，表里只列出从 1 到 {d} 之间分布的 {shown} 个宽度。"),
}
