"""The lab's ALiBi: a bias that grows with distance, one slope a head."""

from .entry import S

STRINGS = {
    "lab_alibi_text": S(
        en=("ALiBi (BLOOM uses it) puts no positions into X. Each head adds a bias to its scaled scores instead, "
            "$B_{{ij}} = -m_h (i - j)$: 0 on the diagonal, more negative the further back the key, by a slope $m_h$ "
            "of the head's own. S is then $\\operatorname{{softmax}}(QK^{{\\mathrm T}}/\\sqrt{{d_k}} + B)$, the causal mask "
            "still in B."),
        zh=("ALiBi（BLOOM 用的就是它）不往 X 里放位置，而是让每个头在缩放后的分数上加一个偏置 $B_{{ij}} = -m_h (i - j)$：对角线上为 0，键越靠前越负，斜率 $m_h$ 每个"
            "头各有一个。于是 $S = \\operatorname{{softmax}}(QK^{{\\mathrm T}}/\\sqrt{{d_k}} + B)$，因果掩码也包含在 B 里。")),
    "lab_alibi_x_seeded": S(
        en="X here is seeded numbers: it holds no positions to begin with, so nothing needs taking out.",
        zh="这里的 X 是随机种子生成的数，本来就不含位置，不用去掉什么。"),
    "lab_alibi_x_text": S(
        en=("X here comes from a text: it was the tokens' rows of E plus the positions P, so this page takes P back "
            "out and runs on E's rows alone (your edits stay). Without ALiBi these rows would carry no order at "
            "all."),
        zh="这里的 X 来自一段文本：原本是各词元在 E 中的行加上位置 P，所以这一步把 P 减掉，只用 E 的行来算（你的改动保留）。没有 ALiBi 的话，这些行完全不带顺序信息。"),
    "lab_alibi_x_trained": S(
        en=("X here is what the trained layer reads: the model learned with positions added at its input, and the "
            "layers below mix them into X, so they cannot be taken out. The page adds ALiBi on top to show the "
            "arithmetic; the model was not trained with it."),
        zh="这里的 X 是训练好的那一层读到的输入：模型训练时在输入端加了位置，下面几层又把它们混进了 X，没法再去掉。这一步只是在上面再加 ALiBi，用来演示计算；模型训练时并没有用它。"),
    "lab_alibi_col_head": S(
        en="Head",
        zh="头"),
    "lab_alibi_col_slope": S(
        en="Slope $m_h$",
        zh="斜率 $m_h$"),
    "lab_alibi_col_here": S(
        en="Farthest key here ({back} back) loses",
        zh="这里最远的键（往前 {back} 个）分数减少"),
    "lab_alibi_col_spread": S(
        en="This head's scores span",
        zh="这个头的分数跨度"),
    "lab_alibi_col_far": S(
        en="A key {far} tokens back loses",
        zh="往前 {far} 个词元的键分数减少"),
    "lab_alibi_rule_power": S(
        en=("The paper's rule for {h} heads (a power of two): head k gets $m_k = 2^{{-8k/{h}}}$, a geometric series "
            "from $2^{{-8/{h}}}$ down to $2^{{-8}}$."),
        zh="论文的规则（{h} 个头，是 2 的幂）：第 k 个头的斜率 $m_k = 2^{{-8k/{h}}}$，从 $2^{{-8/{h}}}$ 等比缩小到 $2^{{-8}}$。"),
    "lab_alibi_rule_other": S(
        en=("The paper's rule for {h} heads, not a power of two: the largest power of two p below {h} takes its own "
            "p slopes, and the heads left over take every second slope of the rule for 2p heads."),
        zh="论文对 {h} 个头（不是 2 的幂）的规则：先取小于 {h} 的最大的 2 的幂 p，用 p 个头的那组斜率；剩下的头依次取 2p 个头那组斜率里隔一个取一个。"),
    "lab_alibi_small": S(
        en=("On {n} tokens that is tiny: the farthest key loses at most {most}, little next to how far a head's "
            "scores spread, so S barely moves from plain causal attention. ALiBi is made for long texts: a key "
            "{far} tokens back loses {big} in head 1, enough to all but silence it."),
        zh=("在 {n} 个词元上这点偏置很小：最远的键最多只扣 {most}，比起一个头的分数本身的跨度微不足道，所以 S 和普通的因果注意力几乎一样。ALiBi 是为长文本设计的：往前 {far} 个词元的键，在第 "
            "1 个头里要扣掉 {big}，几乎不会再被注意。")),
    "lab_alibi_large": S(
        en=("On {n} tokens the farthest key already loses {most} in head 1, comparable to how far its scores "
            "spread, so S leans toward recent keys. A key {far} tokens back would lose {big}."),
        zh="在 {n} 个词元上，最远的键在第 1 个头里已经要扣掉 {most}，和它的分数跨度相当，所以 S 明显偏向较近的键。往前 {far} 个词元的键会扣掉 {big}。"),
    "lab_alibi_bias_title": S(
        en="Each head's bias B, a matrix of its own (grey: the cells the causal mask hides)",
        zh="每个头的偏置 B，各画成一个矩阵（灰格是因果掩码遮住的）"),
    "lab_alibi_scores_title": S(
        en="Head {h}: the scores with its bias added, and S. Click a score to see how it came to be.",
        zh="第 {h} 个头：加上偏置后的分数，以及 S。点击一个分数，看它是怎么算出来的。"),
    "lab_alibi_click": S(
        en="Click any score of head {h} (left) for its dot product and its bias.",
        zh="点击左图中第 {h} 个头的任意一个分数，看它的内积和偏置。"),
    "lab_alibi_future": S(
        en="Key {j} comes after query {i}: the causal mask hides it (−∞), whatever its bias.",
        zh="键 {j} 在查询 {i} 之后：因果掩码把它遮住（−∞），偏置是多少都一样。"),
    "lab_alibi_cell": S(
        en=("Score ({i}, {j}) of head {h}: the dot product over $\\sqrt{{d_k}}$, minus the slope times how far back "
            "the key is:"),
        zh="第 {h} 个头的分数 ({i}, {j})：内积除以 $\\sqrt{{d_k}}$，再减去斜率乘以这个键往前的距离："),
    "lab_alibi_cell_same": S(
        en="✓ forward's own cell holds {value}: the same.",
        zh="✓ 前向计算得到的这一格也是 {value}：一致。"),
    "lab_alibi_cell_differs": S(
        en="✗ forward's cell holds {value}: not what ALiBi's rule gives.",
        zh="✗ 前向计算得到的这一格是 {value}：和 ALiBi 的规则算出的不一样。"),
    "lab_alibi_check_ok": S(
        en=("Live check: all {cells} visible scores, computed on this page as $q_i \\cdot k_j/\\sqrt{{d_k}} - "
            "m_h(i-j)$, equal forward's scores plus bias (largest difference {diff})."),
        zh="当场核对：这一步自己按 $q_i \\cdot k_j/\\sqrt{{d_k}} - m_h(i-j)$ 算出的全部 {cells} 个可见分数，都等于前向计算的分数加偏置（最大差 {diff}）。"),
    "lab_alibi_check_bad": S(
        en=("Live check failed: computed on this page as $q_i \\cdot k_j/\\sqrt{{d_k}} - m_h(i-j)$, the {cells} "
            "visible scores differ from forward's scores plus bias by up to {diff}."),
        zh="当场核对没通过：这一步自己按 $q_i \\cdot k_j/\\sqrt{{d_k}} - m_h(i-j)$ 算出的 {cells} 个可见分数，与前向计算的分数加偏置最多差 {diff}。"),
    "lab_alibi_outputs": S(
        en=("Head {h}'s output H = S·V with ALiBi's S: click a cell for its dot product, or let the quiz ask you "
            "for one."),
        zh="第 {h} 个头的输出 H = S·V，用的是 ALiBi 的 S：点击一格看它的内积，或者让测验来考你一格。"),
}
