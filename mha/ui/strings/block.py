"""The coda's block, as in the GPT paper's figure: residuals, layer norm, the feed-forward net."""

from .entry import CHART, S

STRINGS = {
    "block_title": S(
        en="The GPT block around attention",
        zh="注意力所在的 GPT 块"),
    "block_text": S(
        en=("Attention is one part of a GPT block. Around it: two residual connections (a sublayer's output added to "
            "its input), two layer norms (each row to mean 0 and variance 1, then γ and β) and the FFN, a small "
            "two-layer network on each row alone. Every step keeps the shape n×d, so blocks stack."),
        zh=("注意力只是 GPT 块的一部分。它周围有两个残差连接（把子层的输出加回它的输入）、两个层归一化（把每一行变成均值 0、"
            "方差 1，再乘以 γ、加上 β），以及前馈网络：一个对每一行单独运算的两层小网络。每一步都保持 n×d 的形状，所以块可以一层层堆叠。")),
    "block_ln_order": S(
        en="Where the layer norms sit",
        zh="层归一化的位置"),
    "block_ln_post": S(
        en="post-LN: the original GPT (the post's figure)",
        zh="后置：最初的 GPT（原文结尾那张图）"),
    "block_ln_pre": S(
        en="pre-LN: GPT-2",
        zh="前置：GPT-2"),
    "block_order_post": S(
        en=("The original GPT (2018), whose block is the figure the post ends on, puts each layer norm after a residual sum. Attention reads X itself (so $\\mathrm{{Attn}}$ is "
            "exactly the walk's Y), its output is added to X, and the sum is normalised: $R_1 = \\mathrm{{LN}}_1(X + "
            "\\mathrm{{Attn}})$. The FFN reads $R_1$, its output is added to $R_1$, and that sum is normalised again: "
            "$Y = \\mathrm{{LN}}_2(R_1 + \\mathrm{{FFN}})$."),
        zh=("最初的 GPT（2018 年）的块，也就是原文结尾那张图，把每个层归一化放在残差相加之后。注意力直接读 X（所以 $\\mathrm{{Attn}}$ 正是前面各步算出的 Y），"
            "输出加回 X，再对这个和做层归一化：$R_1 = \\mathrm{{LN}}_1(X + \\mathrm{{Attn}})$。前馈网络读 $R_1$，"
            "输出加回 $R_1$，再归一化一次：$Y = \\mathrm{{LN}}_2(R_1 + \\mathrm{{FFN}})$。")),
    "block_order_pre": S(
        en=("GPT-2 (2019) puts each layer norm before its sublayer. Each sublayer reads a normalised copy of the stream and its output is added to "
            "the stream itself: $R_1 = X + \\mathrm{{Attn}}(\\mathrm{{LN}}_1(X))$, $Y = R_1 + "
            "\\mathrm{{FFN}}(\\mathrm{{LN}}_2(R_1))$. GPT-2 also puts one final layer norm after its last block (the next "
            "stage)."),
        zh=("GPT-2（2019 年）把每个层归一化放在它的子层之前。每个子层读的是残差流归一化后的副本，输出直接加回残差流本身："
            "$R_1 = X + \\mathrm{{Attn}}(\\mathrm{{LN}}_1(X))$，$Y = R_1 + \\mathrm{{FFN}}(\\mathrm{{LN}}_2(R_1))$。"
            "GPT-2 还在最后一个块之后再做一次层归一化（见下一步）。")),
    "block_why": S(
        en=("Why pre-LN trains more easily, as Xiong et al. (2020) later analysed it; the GPT-2 paper makes the "
            "change without giving a reason. In pre-LN, the way from X to Y through the residual connections is only "
            "additions, so the input reaches the output, and the gradient reaches the first layers, without being "
            "rescaled by a norm at every block. In post-LN each block's norms sit on that way; deep stacks of them "
            "needed a careful warm-up to train and could still diverge, while pre-LN stacks train stably. The final "
            "norm then keeps the last output's scale in hand."),
        zh=("前置为什么更容易训练（这是 Xiong 等人 2020 年事后给出的分析；GPT-2 的论文只做了这个改动，并没有说明理由）："
            "前置时，沿着残差连接从 X 到 Y 只有加法，输入能沿加法一路到达输出，梯度也能一路传回最前面的层，"
            "中途不会被每个块的归一化重新缩放。后置时，每个块的归一化都挡在这条路上；块叠得很深时，训练要小心地预热学习率，仍可能发散，"
            "而前置的深层堆叠训练得很稳定。最终层归一化再把最后一个块输出的尺度管住。")),
    "block_trained_pre": S(
        en=("This model is pre-LN, as GPT-2 is: it was trained with each norm before its sublayer, and its weights "
            "only mean something in that order, so the order cannot be switched here."),
        zh=("这个模型和 GPT-2 一样是前置层归一化：它训练时每个归一化都在子层之前，权重只在这个顺序下才有意义，"
            "所以这里不能切换顺序。")),
    "block_node_ln1": S(
        en="LN₁",
        zh="层归一化 1"),
    "block_node_attn": S(
        en="Attention",
        zh="注意力"),
    "block_node_ln2": S(
        en="LN₂",
        zh="层归一化 2"),
    "block_node_ffn": S(
        en="FFN",
        zh="前馈网络"),
    "block_to_walk": S(
        en="Open the attention box: the walk, from Q and K",
        zh="展开注意力：从 Q 和 K 开始逐步计算"),
    "block_part": S(
        en="Part of the block (outlined in orange in the diagram)",
        zh="块的哪一部分（图中用橙色边框标出）"),
    "block_part_ln1": S(
        en="LN₁",
        zh="层归一化 1"),
    "block_part_attn": S(
        en="attention, + X",
        zh="注意力，加 X"),
    "block_part_ffn": S(
        en="LN₂, FFN up",
        zh="层归一化 2，前馈网络升维"),
    "block_part_ffn_post": S(
        en="FFN up",
        zh="前馈网络升维"),
    "block_part_gelu": S(
        en="GELU",
        zh="GELU 激活"),
    "block_part_out": S(
        en="FFN down, + R₁",
        zh="前馈网络降维，加 R₁"),
    "block_part_out_post": S(
        en="FFN down, + R₁, LN₂",
        zh="前馈网络降维，加 R₁，层归一化 2"),
    "block_ln": S(
        en="Layer norm: each row to mean 0 and variance 1, then scaled by γ and shifted by β",
        zh="层归一化：每一行变成均值 0、方差 1，再乘以 γ、加上 β"),
    "block_hat_note": S(
        en=("$\\hat x$ is ${input}$ with each row's μ subtracted and then divided by $\\sqrt{{\\sigma^2+\\varepsilon}}$: "
            "every row of $\\hat x$ has mean 0 and variance $\\sigma^2/(\\sigma^2+\\varepsilon)$, which is 1 but for "
            "ε = 10⁻⁵ (the columns μ(x̂) and σ²(x̂)). Then γ scales and β shifts each feature."),
        zh=("$\\hat x$ 是 ${input}$ 的每一行减去 μ、再除以 $\\sqrt{{\\sigma^2+\\varepsilon}}$："
            "$\\hat x$ 每一行的均值为 0，方差为 $\\sigma^2/(\\sigma^2+\\varepsilon)$，只因 ε = 10⁻⁵ 而比 1 略小"
            "（见 μ(x̂) 和 σ²(x̂) 两列）。然后 γ 按特征缩放，β 按特征平移。")),
    "block_attn": S(
        en="Attention, then the first residual connection",
        zh="注意力，然后是第一个残差连接"),
    "block_attn_is_y_pre": S(
        en=("Attn is the walk's computation of stages {qk} to {output}, with the same weights, but on "
            "$\\mathrm{{LN}}_1(X)$ instead of on X, so its numbers are not stage {output}'s Y. Adding X back gives "
            "$R_1$."),
        zh=("这里的注意力就是第 {qk} 至第 {output} 步的那套计算，权重也相同，只是输入换成了 $\\mathrm{{LN}}_1(X)$ 而不是 X，所以算出的数和第 {output} 步的 Y 并不"
            "相同。再加回 X，得到 $R_1$。")),
    "block_attn_is_y_trained": S(
        en=("Attn is the walk's Y, stages {qk} to {output}: with the trained model the walk already runs on what this "
            "layer's attention reads, $\\mathrm{{LN}}_1(X)$ of the residual stream X that reaches it. Adding X back gives $R_1$."),
        zh=("这里的注意力输出就是第 {qk} 至第 {output} 步算出的 Y：用训练过的模型时，前面各步本来就从这一层注意力读到的输入算起，"
            "也就是流到这一层的残差流 X 的 $\\mathrm{{LN}}_1(X)$。再加回 X，得到 $R_1$。")),
    "block_attn_is_y_post": S(
        en=("Attn is the walk's Y, stages {qk} to {output}: the same weights on the same X. Adding X back and "
            "normalising the sum gives $R_1$."),
        zh=("这里的注意力输出就是第 {qk} 至第 {output} 步算出的 Y：同样的权重，同样的 X。加回 X，再对和做层归一化，"
            "得到 $R_1$。")),
    "block_to_output": S(
        en="See how Y is made (stage {output})",
        zh="看 Y 是怎样算出来的（第 {output} 步）"),
    "block_ffn": S(
        en="The feed-forward network, up: every row to $d_{{ff}}$ hidden units",
        zh="前馈网络，升维：每一行变成 $d_{{ff}}$ 个隐藏单元"),
    "block_ln2_stats": S(
        en="Before LN₂ the rows of {what} have means {mean} and variances {var}; after it, 0 and 1 (before γ and β).",
        zh="第二次层归一化之前，{what} 各行的均值为 {mean}，方差为 {var}；之后为 0 和 1（乘 γ、加 β 之前）。"),
    "hidden_unit": S(
        en="hidden unit",
        zh="隐藏单元",
        draws=CHART),
    "block_bias": S(
        en="The chart above is ${up}$; adding the bias row $b_{{fc}}$ ({f} numbers, below) to each of its rows gives H.",
        zh="上图是 ${up}$；它的每一行再加上偏置 $b_{{fc}}$（{f} 个数，见下图）才得到 H。"),
    "block_gelu": S(
        en="GELU, unit by unit",
        zh="逐个单元做 GELU"),
    "block_gelu_about": S(
        en=("GPT-2 computes GELU in this tanh form. A large positive h passes almost unchanged and a large negative h "
            "becomes almost 0; in between the curve bends smoothly. Its lowest value is about −0.17, near h = −0.75: "
            "unlike ReLU, which cuts every negative h to 0 at a corner, a small negative h keeps a little of itself."),
        zh=("GPT-2 用这个 tanh 形式计算 GELU。较大的正数 h 几乎原样通过，绝对值较大的负数 h 几乎变成 0，两者之间曲线平滑地弯过去。它的最小值约为 −0.17，在 h = −0.75 附近：ReLU 在 0 处折成一个角，把所有负数 h 都变成 0；GELU 不同，绝对值较小的负数 h 还会留下一点。")),
    "block_gelu_act_row": S(
        en="row {i} of A",
        zh="A 的第 {i} 行",
        draws=CHART),
    "block_row": S(
        en="Row shown on the curve",
        zh="在曲线上显示的行"),
    "block_gelu_curve": S(
        en="GELU(h)",
        zh="GELU(h)",
        draws=CHART),
    "block_gelu_row": S(
        en="row {i} of H",
        zh="H 的第 {i} 行",
        draws=CHART),
    "block_out_pre": S(
        en="The feed-forward network, down, and the second residual connection",
        zh="前馈网络，降维，然后是第二个残差连接"),
    "block_out_post": S(
        en="The feed-forward network, down, the second residual connection, then LN₂",
        zh="前馈网络，降维，然后是第二个残差连接，最后做第二次层归一化"),
    "block_rows_alone": S(
        en="Layer norm and the FFN treat each row alone, so row i of Y still depends on tokens 1 to i only.",
        zh="层归一化和前馈网络都只对单独一行运算，所以 Y 的第 i 行仍然只依赖第 1 到第 i 个词元。"),
}
