"""The lab's GQA and MQA: heads that share a group's K and V."""

from .entry import CHART, S

STRINGS = {
    "lab_groups_map_part": S(
        en="drawn: group {g} of {groups}, with heads {heads}; the others are alike",
        zh="这里只画第 {g} 组（共 {groups} 组）：第 {heads} 个头；其余各组同理"),
    "lab_groups_kv_heads": S(
        en="K and V heads $n_{{kv}}$ (the divisors of $h$)",
        zh="KV 头数 $n_{{kv}}$（$h$ 的因数）"),
    "lab_groups_primes_note": S(
        en=("$h = {h}$ is no prime: GQA needs query heads that split into equal groups, so the lab keeps a composite "
            "$h$. The other sizes are still distinct primes."),
        zh=("$h = {h}$ 不是质数：GQA 要把查询头分成大小相同的组，所以变体实验室留着这个合数 $h$。其余维度仍是互不相同的质数。")),
    "lab_groups_kept": S(
        en=("$h = {h}$ is not a multiple of $n_{{kv}} = {asked}$: the heads cannot split into equal groups, "
            "so the page shows $n_{{kv}} = {used}$, the largest divisor of $h$ below it."),
        zh=("$h = {h}$ 不是 $n_{{kv}} = {asked}$ 的倍数：头没法分成一样大的组，所以这里改用 "
            "$n_{{kv}} = {used}$，也就是比它小的 $h$ 的最大因数。")),
    "lab_groups_fixed": S(  # the trained model's and a checkpoint's: the sidebar's Weights names which
        en=("These weights' sizes are their own: {h} heads in each layer, so their K and V heads can "
            "only number {options}, and no group sits in between. Seeded weights can take 4 heads and "
            "show a real group."),
        zh=("这套权重的维度是固定的：每层 {h} 个头，所以 KV 头数只能是 {options}，没有介于两者之间的组。"
            "换成随机权重就能用 4 个头，看到真正的分组。")),
    "lab_groups_four_gqa": S(
        en=("With {h} heads, GQA has nothing between one K and V for every head (MQA, $n_{{kv}} = 1$) "
            "and one for each (the walk's MHA). A real group, some heads sharing but not all, needs "
            "4 heads."),
        zh=("只有 {h} 个头时，GQA 在所有头共用一份 K 和 V（MQA，$n_{{kv}} = 1$）与每个头各有一份（前面"
            "各步里的 MHA）之间没有别的选择。真正的分组，也就是部分头共用而不是全部，至少要 4 个头。")),
    "lab_groups_four_one": S(
        en=("With a single head there is nothing to share. Sharing K and V needs at least 2 heads, and a "
            "real group, some heads sharing but not all, needs 4."),
        zh=("只有一个头时没有东西可以共用。共用 K 和 V 至少要 2 个头；真正的分组，也就是部分头共用而不是"
            "全部，要 4 个头。")),
    "lab_four_elsewhere": S(
        en=("$h = {h}$ is the variant lab's: its “Use 4 heads” button set it so that GQA could show a real group, and "
            "4 is no prime. The walk had {before} heads before."),
        zh=("$h = {h}$ 来自变体实验室：它的“改成 4 个头”按钮为了让 GQA 显示真正的分组而设，而 4 不是质数。"
            "在此之前，各步用的是 {before} 个头。")),
    "lab_four_back": S(
        en="Back to {before} heads",
        zh="改回 {before} 个头"),
    "lab_groups_four_button": S(
        en="Use 4 heads (X stays)",
        zh="改成 4 个头（X 不变）"),
    "lab_groups_group": S(
        en="group {g} (heads {heads})",
        zh="第 {g} 组（第 {heads} 个头）"),
    "lab_groups_intro": S(
        en=("{h} query heads, {n_kv} K and {n_kv} V. Each group of {size} heads shares one K and one V: "
            "{groups}. Every head keeps its own $W_Q$, so its own Q; each group keeps the $W_K$ and "
            "$W_V$ of its first head in the walk."),
        zh=("{h} 个查询头，{n_kv} 个 K、{n_kv} 个 V。每 {size} 个头一组，共用一个 K 和一个 V：{groups}。"
            "每个头仍有自己的 $W_Q$，因此 Q 各不相同；每组沿用它第一个头在前面各步里的 $W_K$ 和 $W_V$。")),
    "lab_groups_intro_mqa": S(
        en=("{h} query heads, 1 K and 1 V: every head reads the same K and V. Every head keeps its "
            "own $W_Q$, so its own Q; the one K and V come from the $W_K$ and $W_V$ of head 1 in the "
            "walk."),
        zh=("{h} 个查询头，1 个 K 和 1 个 V：所有头读同一个 K 和 V。每个头仍有自己的 $W_Q$，因此 Q "
            "各不相同；这唯一的 K 和 V 来自前面各步里第 1 个头的 $W_K$ 和 $W_V$。")),
    "lab_groups_row1": S(
        en=("See row 1 of H below: it is the same for every head of a group, since the first token sees "
            "only itself and the group's heads read the same V."),
        zh="看下面 H 的第 1 行：同一组的头在这一行完全相同，因为第一个词元只看得到自己，而同组的头读的是同一个 V。"),
    "lab_groups_none": S(
        en=("{h} query heads and {h} K and V heads: each head reads its own K and V, as in the walk. "
            "Nothing is shared ($n_{{kv}} = h$): this is the walk's MHA."),
        zh=("{h} 个查询头，{h} 个 KV 头：每个头读自己的 K 和 V，和前面各步一样。没有共用"
            "（$n_{{kv}} = h$）：这就是前面各步里的 MHA。")),
    "lab_groups_mqa": S(
        en=("This is MQA, the extreme case, which Falcon uses: the smallest cache, and every head has to find "
            "what it needs among the same keys and values."),
        zh="这就是 MQA，最极端的情况，Falcon 用的就是它：缓存最小，但每个头都只能在同一份键和值里找自己要的东西。"),
    "lab_groups_gqa": S(
        en=("Between the two: Llama 3's 8B model has each K and V read by 4 query heads (32 heads, 8 K and "
            "V heads)."),
        zh="介于两者之间：Llama 3 的 8B 模型让每 4 个查询头读同一个 K 和 V（32 个头，8 个 KV 头）。"),
    "lab_groups_map_title": S(
        en="Each group's K and V drawn once, then the Q of every head that reads them",
        zh="每组的 K 和 V 只画一次，后面是读它们的每个头的 Q"),
    "lab_groups_read_by": S(
        en="heads {heads}",
        zh="第 {heads} 个头",
        draws=CHART),
    "lab_groups_read_by_one": S(
        en="head {heads}",
        zh="只给第 {heads} 个头",
        draws=CHART),
    "lab_groups_sh_title": S(
        en="Each head's S, and its H = S·V with its group's V",
        zh="每个头的 S，以及用本组 V 算出的 H = S·V"),
    "lab_groups_h_block": S(
        en="head {i} · group {g}",
        zh="第 {i} 个头 · 第 {g} 组",
        draws=CHART),
    "lab_groups_check_title": S(
        en="Checked live on this page",
        zh="在页面上现算现查"),
    "lab_groups_cache_text": S(
        en=("What a decoder keeps per token: the page feeds the {n} rows of X into a real KV cache "
            "from the core, one by one, then divides its bytes by 8 (one float64) and by the tokens "
            "it holds."),
        zh="解码时每个词元要存多少：页面把 X 的 {n} 行逐个放进核心代码里的一个真实 KV 缓存，再用它的字节数除以 8（一个 float64）和它存的词元数。"),
    "lab_groups_col_cache": S(
        en="K and V per token",
        zh="每个词元的 K 和 V"),
    "lab_groups_col_measured": S(
        en="measured (floats)",
        zh="实测（浮点数个数）"),
    "lab_groups_col_formula": S(
        en="formula",
        zh="公式"),
    "lab_groups_row_mha": S(
        en="the walk's MHA, {h} heads",
        zh="前面各步里的 MHA，{h} 个头"),
    "lab_groups_row_shared": S(
        en="{variant}, K and V heads: {n_kv}",
        zh="{variant}，KV 头数：{n_kv}"),
    "lab_groups_reads_text": S(
        en=("Does every head read its own group's K and V? The page recomputes each head's S and H "
            "from X and the weights with plain numpy, the group taken from the rule $g(i)$ above "
            "rather than from the core; a head reading another group's K or V would leave a "
            "difference far from 0."),
        zh=("每个头读的真是本组的 K 和 V 吗？页面用 numpy 从 X 和权重重新算出每个头的 S 和 H，组号按上面"
            "的规则 $g(i)$ 算，不问核心代码；哪个头读了别组的 K 或 V，差值就会远离 0。")),
    "lab_groups_col_head": S(
        en="head $i$",
        zh="头 $i$"),
    "lab_groups_col_group": S(
        en="its group $g(i)$",
        zh="它的组 $g(i)$"),
    "lab_groups_col_diff": S(
        en=r"difference $\max\lvert H_i - S_i V_{{g(i)}}\rvert$",
        zh=r"差值 $\max\lvert H_i - S_i V_{{g(i)}}\rvert$"),
    "lab_groups_y_same": S(
        en="Nothing is shared, so Y is exactly the walk's Y.",
        zh="没有共用，所以 Y 和前面各步里的 Y 完全一样。"),
    "lab_groups_y_moved": S(
        en=(r"Sharing changes the model: on these weights, $\max\lvert Y - Y_{{\text{{MHA}}}}\rvert = "
            r"{diff}$ against the walk's Y."),
        zh=(r"共用会改变模型：在这些权重上，和前面各步里的 Y 相比，$\max\lvert Y - Y_{{\text{{MHA}}}}\rvert "
            r"= {diff}$。")),
    "lab_groups_trained_with": S(
        en=("Real models do not take a trained MHA and merge its heads like this: they are trained "
            "sharing K and V from the start, or converted and then trained a little more. The "
            "GQA paper (Ainslie et al., 2023) makes each group's K and V projections the mean of "
            "its heads' and uptrains for about 5% of the original training steps; its GQA with 8 "
            "groups comes close to MHA's quality at nearly MQA's speed. Here the first head's are "
            "kept and nothing is retrained, so Y moves."),
        zh=("真正的模型不会这样把训练好的 MHA 的头直接合并：它们要么从一开始就按共用 K、V 的结构来训练，要么先转换"
            "、再补训一小段。提出 GQA 的论文（Ainslie 等，2023）把每组 K 和 V 的投影取成组内各头的平均，再用原来"
            "训练步数的大约 5% 继续训练；分 8 组的 GQA 质量接近 MHA，速度接近 MQA。这里直接沿用第一个头"
            "的投影，也没有重新训练，所以 Y 会变。")),
}
