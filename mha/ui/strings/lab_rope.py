"""The lab's RoPE: Q and K turned pair by pair by their position."""

from .entry import CHART, S

STRINGS = {
    "lab_rope_text": S(
        en=("RoPE (rotary position embedding, used by Llama, Mistral, DeepSeek and most models since) puts each token's "
            "position into Q and K themselves instead of adding it to X. Each pair of dims of a q or k row, taken as a "
            "point in a plane, turns by an angle that grows with the token's position p, counted from 0: pair i turns "
            "by $\\theta_i$ a position. V is not turned."),
        zh=("RoPE（旋转位置编码，Llama、Mistral、DeepSeek 以及此后的大多数模型都在用）不再把位置加进 X，而是把每个词元的"
            "位置直接放进 Q 和 K：q 或 k 的一行里，每两个维度看成平面上的一个点，按词元的位置 p（从 0 数起）转一个角度，"
            "位置越靠后转得越多：第 i 对每个位置转 $\\theta_i$。V 不转。")),
    "lab_rope_none": S(
        en=("With 0 rotating dims nothing turns: Q and K stay as they are, and this is the post's attention. Move the "
            "slider to turn pairs."),
        zh="转动的维数为 0 时什么都不转：Q 和 K 保持原样，这就是原文的注意力。拖动滑块，让一对对维度转起来。"),
    "lab_rope_dims": S(
        en="Dims that rotate, in each q and k head",
        zh="每个 q、k 头里转动的维数"),
    "lab_rope_dims_help": S(
        en=("An even number from 0 to {most}, the largest even number within $d_k = {d_k}$: dims turn in pairs. The "
            "first ones turn; the rest pass through. 0 turns nothing (the post's attention)."),
        zh=("从 0 到 {most} 的偶数（{most} 是不超过 $d_k = {d_k}$ 的最大偶数）：维度成对地转。转的是前面这些维，其余的"
            "原样通过。0 表示什么都不转（原文的注意力）。")),
    "lab_rope_kept_odd": S(
        en="{asked} rotating dims is an odd number, and dims turn in pairs: {used} rotate.",
        zh="{asked} 是奇数，而维度只能成对地转：改为转 {used} 个。"),
    "lab_rope_kept_over": S(
        en="{asked} rotating dims do not fit in a head of $d_k = {d_k}$ dims that turn in pairs: {used} rotate.",
        zh="每个头只有 $d_k = {d_k}$ 维，而且要成对地转，放不下 {asked} 个转动的维度：改为转 {used} 个。"),
    "lab_rope_dk_one": S(
        en=("A head has $d_k = {d_k}$ dim here, and one dim makes no pair, so nothing can rotate. Give $d_k$ at least 2 "
            "in the sidebar to see RoPE."),
        zh="这里每个头只有 $d_k = {d_k}$ 维，一个维度凑不成一对，什么也转不了。在侧边栏把 $d_k$ 设成至少 2，就能看到 RoPE。"),
    "lab_rope_qk_caption": S(
        en=("Head {h}'s Q and K, before and after the turn. Thick lines mark the pairs that turn together, each named "
            "by its rate $\\theta$ under it; of the {d_k} dims the first {r} turn. Row 1 is position 0, which does not turn, so "
            "it is the same in both."),
        zh=("第 {h} 个头的 Q 和 K，转动前后。粗线标出一起转的每一对维度，下面写着它的转速 $\\theta$；{d_k} 维里前 {r} 维转动。"
            "第 1 行是位置 0，不转，所以前后一样。")),
    "lab_rope_qk_caption_wide": S(
        en=("Head {h}'s Q and K, before and after the turn. Of the {d_k} dims the first {r} turn, in pairs of "
            "neighbouring columns (1 and 2, 3 and 4, …); the rest pass through unchanged. Row 1 is position 0, which "
            "does not turn, so it is the same in both."),
        zh=("第 {h} 个头的 Q 和 K，转动前后。{d_k} 维里前 {r} 维转动，相邻的两列配成一对（第 1、2 列，第 3、4 列，……）；"
            "其余的原样通过。第 1 行是位置 0，不转，所以前后一样。")),
    "lab_rope_position": S(
        en="position",
        zh="位置",
        draws=CHART),
    "lab_rope_pair": S(
        en="pair",
        zh="对",
        draws=CHART),
    "lab_rope_angles": S(
        en=("The angles $p\\,\\theta_i$, in radians: a row is a position p (from 0), a column a pair i, with "
            "$\\theta_i = {base}^{{-2i/{r}}}$. Pair 0 turns fastest, one radian a position; each later pair turns "
            "slower, so together they tell near tokens and far ones apart."),
        zh=("角度 $p\\,\\theta_i$，单位是弧度：每一行是一个位置 p（从 0 数起），每一列是一对维度 i，"
            "$\\theta_i = {base}^{{-2i/{r}}}$。第 0 对转得最快，每个位置一弧度；后面的对越转越慢，合起来既能分辨相邻的词元，"
            "也能分辨相隔很远的词元。")),
    "lab_rope_pairs": S(
        en=("A rotation turns a point in a plane, and a point in a plane has two coordinates: RoPE turns "
            "dims two at a time, so the number that rotates must be even."),
        zh="旋转转的是平面上的点，而平面上的点有两个坐标：RoPE 每次转两个维度，所以转动的维数必须是偶数。"),
    "lab_rope_odd": S(
        en=("Here $d_k = {d_k}$ is odd: at most {most} dims make {pairs} pairs, and dim {d_k} has no partner to turn "
            "with."),
        zh="这里 $d_k = {d_k}$ 是奇数：最多 {most} 维组成 {pairs} 对，第 {d_k} 维没有可以一起转的伙伴。"),
    "lab_rope_pass": S(
        en=("What does not turn passes through unchanged, in Q and in K alike: here {rest} of the {d_k} dims. Models do this on purpose too: "
            "GPT-NeoX's $\\texttt{{rotary\\_pct}}$ turns only that fraction of each head (a quarter in GPT-NeoX-20B "
            "and Pythia) and lets the rest pass the same way."),
        zh=("不转的维度原样通过，Q 和 K 都一样：这里是 {d_k} 维里的 {rest} 维。模型也会有意这样做：GPT-NeoX 的 "
            "$\\texttt{{rotary\\_pct}}$ 只转每个头里这个比例的维度（GPT-NeoX-20B 和 Pythia 转四分之一），其余的同样原样通过。")),
    "lab_rope_all": S(
        en="All {d_k} dims turn here; none passes through.",
        zh="这里 {d_k} 维全都转动，没有原样通过的。"),
    "lab_rope_layout": S(
        en=("This page pairs neighbours, dims 2i and 2i + 1 counted from 0 (columns 1 and "
            "2, 3 and 4, …): the interleaved layout of the RoPE paper (RoFormer, Su et al., 2021). Many libraries pair "
            "dim i with dim i + d/2 instead, the \"split halves\" layout (GPT-NeoX, and Llama as ported to Hugging "
            "Face). The two are the same up to a fixed permutation of the dims: permute the columns of $W_Q$ and $W_K$ "
            "once and either layout gives the same scores, which is how the original, interleaved Llama weights were ported."),
        zh=("本页面把相邻的维度配成一对：从 0 数起的第 2i 和 2i + 1 维（第 1、2 列，第 3、4 列，……），"
            "也就是 RoPE 原论文（RoFormer，苏剑林等，2021）的交错布局。很多库改把第 i 维和第 i + d/2 维配成一对，叫“前后两半”布局"
            "（GPT-NeoX，以及移植到 Hugging Face 的 Llama）。两种布局只差一个固定的维度排列：把 $W_Q$ 和 $W_K$ 的列按这个排列"
            "调换一次，两种布局算出的分数就完全一样；Llama 原版发布的交错布局权重正是这样移植过去的。")),
    "lab_rope_scores": S(
        en=("The scores are now those of the turned rows, $Q^{{\\mathrm{{rot}}}} (K^{{\\mathrm{{rot}}}})^{{\\mathrm T}}$. "
            "Click a cell to see its dot product, or press {quiz}."),
        zh=("分数现在是转动后各行的内积 $Q^{{\\mathrm{{rot}}}} (K^{{\\mathrm{{rot}}}})^{{\\mathrm T}}$。点一个格子看它的内积，"
            "或者按“{quiz}”。")),
    "lab_rope_checks": S(
        en=("Head {h}. Two tokens turned by their positions meet at the angle between "
            "them: a score depends on how far apart they are, not on where they are. So, first, give every token the "
            "same vector (every row of X set to X₁): the scores with RoPE can then depend only on i − j, constant "
            "along each diagonal (a Toeplitz matrix: the left figure). Without RoPE every row of Q is the same, and of K "
            "too, so every score is one number (the right figure): nothing tells the positions apart. Second, start the "
            "positions at {shift} instead of 0: no score changes."),
        zh=("第 {h} 个头。两个词元各按自己的位置转动后，相遇时只剩它们之间的夹角：分数只取决于两者相隔"
            "多远，而不取决于它们在哪里。所以，第一，让每个词元都是同一个向量（X 的每一行都设成 X₁）：有 RoPE 时分数只能"
            "取决于 i − j，沿每条对角线不变（一个托普利茨矩阵，见左图）。没有 RoPE 时 Q 的每一行都相同，K 也一样，"
            "所以所有分数都是同一个数（见右图）：位置完全分不出来。第二，让位置从 {shift} 而不是 0 开始：分数一个也不变。")),
    "lab_rope_relative": S(
        en="With $R_p$ the turn at position p (a rotation, so its transpose turns back):",
        zh="记 $R_p$ 为位置 p 处的转动（它是旋转，所以它的转置把它转回去）："),
    "lab_rope_checks_title": S(
        en="Checked on this page",
        zh="在本页面上验证"),
    "lab_rope_cache_title": S(
        en="What the KV cache keeps",
        zh="KV 缓存里存什么"),
    "lab_rope_check": S(
        en="Check",
        zh="验证"),
    "lab_rope_largest": S(
        en="Largest difference",
        zh="最大差值"),
    "lab_rope_check_toeplitz": S(
        en="X₁ in every row, with RoPE: each diagonal's scores against each other",
        zh="每行都是 X₁，有 RoPE：同一条对角线上的分数两两相比"),
    "lab_rope_check_constant": S(
        en="X₁ in every row, without RoPE: every score against the first",
        zh="每行都是 X₁，没有 RoPE：每个分数和第一个相比"),
    "lab_rope_check_shift": S(
        en="Every position moved by {shift}: the scores against those above",
        zh="每个位置都加 {shift}：分数和上面的相比"),
    "lab_rope_check_pass": S(
        en="Dims that do not turn ({rest} of {d_k}): Q and K after against before",
        zh="不转的维度（{d_k} 维里的 {rest} 维）：Q 和 K 转动后和转动前相比"),
    "lab_rope_check_none_pass": S(
        en="Dims that do not turn: none, all {d_k} turn",
        zh="不转的维度：没有，{d_k} 维全都转"),
    "lab_rope_check_cache": S(
        en="Keys in a RoPE KV cache fed X token by token, against the turned K",
        zh="把 X 逐个词元送进带 RoPE 的 KV 缓存，缓存里的键和转动后的 K 相比"),
    "lab_rope_check_note": S(
        en=("Each number is computed as the page is drawn, from the core's pieces. ✓ means within rounding: at most a "
            "billionth of the largest number compared (or of 1, if that is larger), here {largest}."),
        zh=("每个数都是画这个页面时用核心代码的各个部分现算的。✓ 表示差值在舍入误差以内：不超过参与比较的最大数（若它小于 1 则按 1 计）的"
            "十亿分之一，这里这个数是 {largest}。")),
    "lab_rope_cache": S(
        en=("No more than before: RoPE adds no numbers per token. Each key is turned "
            "once, at its own position, when its token arrives, and cached turned. A new query turns at its position "
            "and meets the old keys as they are: no key is turned again, and the cache holds as many keys of the "
            "same width (values are never turned). The last row of the table checks that."),
        zh=("和以前一样多：RoPE 不给每个词元多存一个数。每个键在它的词元到来时，按它自己的位置转一次，"
            "转好后存进缓存。新的查询按它自己的位置转动，再和旧的键原样相乘：没有哪个键需要再转，缓存里键的个数和宽度都不变"
            "（值从来不转）。表格最后一行验证的就是这一点。")),
}
