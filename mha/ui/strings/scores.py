"""The scores stage: QKᵀ, ÷√d_k, the mask and softmax, its animation's frames, captions and worked sums."""

from .entry import CHART, MD, PLAIN, S

STRINGS = {
    "scores_title": S(
        en="From QKᵀ to S for head {h}",
        zh="第 {h} 个头：从 QKᵀ 到 S"),
    "scores_mask_title": S(
        en="From QKᵀ to S on the post's example",
        zh="原文的例子：从 QKᵀ 到 S"),
    "scores_text": S(
        en=("Row i of QKᵀ holds the dot products of token i's query with every key. "
            r"Dividing by $\sqrt{{d_k}}$ keeps these numbers moderate as $d_k$ grows. "
            "The causal mask writes −∞ above the diagonal so no token can look ahead, "
            "and softmax turns each row into weights that are ≥ 0 and add up to 1 "
            "(−∞ becomes 0)."),
        zh=(r"QKᵀ 的第 i 行，是第 i 个词元的查询向量与每一个键向量的内积。除以 $\sqrt{{d_k}}$，"
            "是为了 $d_k$ 变大时这些数不至于太大。因果掩码把对角线以上改成 −∞，让词元看不到排在它后面的词元；"
            "softmax 再把每一行变成非负、加起来等于 1 的权重（−∞ 变成 0）。")),
    "inner_note": S(
        en=("Drawn: Q's first {shown} of {d_k} columns and Kᵀ's first {shown} of "
            "{d_k} rows; every score sums all {d_k} products."),
        zh=("图中 Q 只画出 {d_k} 列中的前 {shown} 列，Kᵀ 只画出 {d_k} 行中的前 {shown} "
            "行；每个注意力分数都是全部 {d_k} 项乘积之和。")),
    "scores_play_hint": S(
        en="Pick a step just above the chart ({steps}) to see it, or press ▶ Play to watch them one frame at a time; the slider under the chart names each step.",
        zh="在图正上方选一个环节（{steps}）就能看到它，或者按 ▶ 播放，逐帧看完这些环节；图下方的滑块标出了每个环节。"),
    "list_sep": S(
        en=", ",
        zh="、",
        draws=MD | CHART),
    "phase": S(
        en="Step",
        zh="环节"),
    "phase_qkt": S(
        en="QKᵀ",
        zh="QKᵀ",
        draws=MD | PLAIN | CHART),
    "phase_scaled": S(
        en="÷ √{d_k}",
        zh="÷ √{d_k}",
        draws=MD | PLAIN | CHART),
    "phase_given": S(
        en="given",
        zh="给定",
        draws=MD | PLAIN | CHART),
    "phase_masked": S(  # the picker's and the slider's (audit 2026-12-07 #12: "masked" over "mask")
        en="mask",
        zh="掩码",
        draws=MD | PLAIN | CHART),
    "phase_s": S(
        en="S = softmax",
        zh="S = softmax",
        draws=MD | PLAIN),
    "anim_qkt": S(
        en="QKᵀ: cell (i, j) is row i of Q times column j of Kᵀ",
        zh="QKᵀ：第 (i, j) 格是 Q 的第 i 行与 Kᵀ 的第 j 列的内积",
        draws=CHART),
    "anim_fill": S(
        en="q<sub>{i}</sub> · k<sub>{j}</sub>",
        zh="q<sub>{i}</sub> · k<sub>{j}</sub>",
        draws=CHART),
    "anim_fill_rows": S(
        en="QKᵀ, {rows}",
        zh="计算 QKᵀ 的{rows}",
        draws=CHART),
    "anim_scale": S(
        en="÷ √{d_k}: every score divided by {root}",
        zh="÷ √{d_k}：每个注意力分数都除以 {root}",
        draws=CHART),
    "anim_given": S(
        en="the post's 3×3 example, already divided by √d<sub>k</sub>",
        zh="原文的 3×3 例子，当作已经除以 √d<sub>k</sub>",
        draws=CHART),
    "anim_mask": S(
        en="mask: −∞ above the diagonal",
        zh="掩码：对角线以上改成 −∞",
        draws=CHART),
    "anim_softmax": S(
        en="softmax, {rows}",
        zh="对{rows}做 softmax",
        draws=CHART),
    "anim_s": S(
        en="S: softmax of each row; −∞ became 0, each row sums to 1",
        zh="S：逐行 softmax；−∞ 变成 0，每行加起来等于 1",
        draws=CHART),
    "anim_pending": S(
        en="not computed yet on this frame",
        zh="这一帧还没有算到这一格",
        draws=CHART),
    "drawn_part": S(
        en="first {rows}×{cols} drawn",
        zh="只画出前 {rows}×{cols}",
        draws=CHART),
    "mask_example": S(
        en="The post's mask example",
        zh="原文的掩码例子"),
    "mask_example_help": S(
        en="Put the post's own 3×3 matrix [[1, 2, 3], [4, 5, 6], [7, 8, 9]] in as the scaled scores and watch the mask and softmax act on it.",
        zh="把原文自己举的 3×3 矩阵 [[1, 2, 3], [4, 5, 6], [7, 8, 9]] 当作缩放后的注意力分数，看掩码和 softmax 怎样作用在它上面。"),
    "mask_example_note": S(
        en="A is the post's example: given, not computed from tokens, so Q and Kᵀ do not apply here. Read it as QKᵀ already divided by $\\sqrt{{d_k}}$. The mask turns it into the matrix in the middle, and softmax, row by row, into S.",
        zh="A 是原文举的例子：它是直接给定的，不是由词元算出来的，所以这里没有 Q 和 Kᵀ。把它看作已经除以 $\\sqrt{{d_k}}$ 的 QKᵀ。加上掩码，它变成中间那个矩阵；再逐行做 softmax，就得到 S。"),
    "mask_example_click": S(
        en="Click any cell of S to see its softmax written out.",
        zh="点击 S 的任意一格，看看它的 softmax 是怎样算出来的。"),
    "phone_operands": S(
        en="On a narrow screen the chart leaves Q and Kᵀ out: click a cell to see the row of Q and the column of Kᵀ that made it.",
        zh="屏幕较窄时图里不画 Q 和 Kᵀ：点击任意一格，下方会写出算出它的 Q 的那一行和 Kᵀ 的那一列。"),
    "present_operands": S(
        en="On a projector the chart draws S alone, large enough for the room: click a cell to see the row of Q and the column of Kᵀ that made it.",
        zh="投影模式下图中只画 S，大到全场都看得清：点击任意一格，下方会写出算出它的 Q 的那一行和 Kᵀ 的那一列。"),
    "play": S(
        en="▶ Play",
        zh="▶ 播放",
        draws=CHART),
    "anim_slider": S(
        en="Animation frame",
        zh="动画帧",
        draws=CHART),
    "anim_step_text": S(
        en="Frame {k} of {count}, {step}: {caption}",
        zh="第 {k} 帧（共 {count} 帧），{step}：{caption}",
        draws=CHART),
    "pause": S(
        en="❚❚ Pause",
        zh="❚❚ 暂停",
        draws=CHART),
    "softmax_breakdown": S(
        en=(r"S[{i}, {j}] = $\exp(a_{{{i},{j}}})$ divided by the sum of $\exp(a_{{{i},k}})$ "
            r"over the {count} keys k that row {i} may see, with $a = QK^{{\mathrm T}}/\sqrt{{{d_k}}}$:"),
        zh=(r"S[{i}, {j}] = $\exp(a_{{{i},{j}}})$ ÷ 第 {i} 行中没被掩码的 {count} "
            r"个键 k 的 $\exp(a_{{{i},k}})$ 之和，其中 $a = QK^{{\mathrm T}}/\sqrt{{{d_k}}}$：")),
    "softmax_masked": S(
        en=("S[{i}, {j}] = 0: token {j} comes after token {i}, so the mask set this "
            "score to −∞ and softmax turned it into 0."),
        zh=("S[{i}, {j}] = 0：第 {j} 个词元排在第 {i} 个词元之后，掩码把这个注意力分数改成 "
            "−∞，softmax 再把它变成 0。")),
    "frame_cell": S(
        en="Frame {k} of {count}, step “{step}”: cell [{i}, {j}] shows {value}.",
        zh="第 {k} 帧（共 {count} 帧），环节“{step}”：[{i}, {j}] 这一格显示 {value}。"),
    "frame_value_more": S(
        en="{shown} (more exactly {exact})",
        zh="{shown}（更精确地说是 {exact}）"),
    "frame_cell_empty": S(
        en="Frame {k} of {count}, step “{step}”: cell [{i}, {j}] is not computed yet. Step on, or click it on a later frame.",
        zh="第 {k} 帧（共 {count} 帧），环节“{step}”：[{i}, {j}] 这一格还没有算出来。往后走几帧，或在后面的帧上再点它。"),
    "frame_scaled": S(
        en="Then divided by $\\sqrt{{{d_k}}}$:",
        zh="再除以 $\\sqrt{{{d_k}}}$："),
    "frame_mask_kept": S(
        en="The mask adds 0 where j ≤ i, so the cell keeps {value}; softmax comes next.",
        zh="j ≤ i 的地方掩码加的是 0，所以这一格仍是 {value}；接下来做 softmax。"),
    "frame_masked": S(
        en="Here j > i: token {j} comes after token {i}, so the mask writes −∞ in this cell; softmax will turn it into 0.",
        zh="这里 j > i：第 {j} 个词元排在第 {i} 个之后，掩码在这一格写入 −∞；softmax 之后它会变成 0。"),
    "softmax_breakdown_given": S(
        en=(r"S[{i}, {j}] = $\exp(a_{{{i},{j}}})$ divided by the sum of $\exp(a_{{{i},k}})$ "
            r"over the {count} keys k that row {i} may see, with $a = A$, the post's matrix:"),
        zh=(r"S[{i}, {j}] = $\exp(a_{{{i},{j}}})$ ÷ 第 {i} 行中没被掩码的 {count} "
            r"个键 k 的 $\exp(a_{{{i},k}})$ 之和，其中 $a = A$，即原文的矩阵：")),
}
