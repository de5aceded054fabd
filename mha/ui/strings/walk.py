"""The post's walk, shared words first (rows, clicks, the quiz, the worked sums), then each stage but the scores: the refresher, X, Q and K, V, the heads, Y, what Y depends on."""

from .entry import CHART, MD, TEX, S

STRINGS = {
    "token": S(
        en="token",
        zh="词元",
        draws=CHART),
    "feature": S(
        en="feature",
        zh="特征",
        draws=CHART),
    "key_pos": S(
        en="key",
        zh="键",
        draws=CHART),
    "span_row": S(
        en="row {a}",
        zh="第 {a} 行",
        draws=MD | CHART),
    "span_rows": S(
        en="rows {a}–{b}",
        zh="第 {a}–{b} 行",
        draws=MD | CHART),
    "span_rows_among": S(  # rows that do not follow one another: their numbers, a run by its ends ("1, 5–6")
        en="rows {rows}",
        zh="第 {rows} 行",
        draws=MD | CHART),
    "click_hint": S(
        en="Click any cell of ${name}$ to see the dot product that made it.",
        zh="点击 ${name}$ 的任意一格，看看它是由哪一次内积算出来的。"),
    "window_note": S(
        en="Showing the first {rows}×{cols} of {full_rows}×{full_cols}; hover for values.",
        zh="只画出 {full_rows}×{full_cols} 中前 {rows}×{cols} 的部分；鼠标悬停可看数值。"),
    "trim_rows": S(
        en="first {rows} rows drawn",
        zh="只画出前 {rows} 行",
        draws=CHART),
    "trim_cols": S(
        en="first {cols} columns drawn",
        zh="只画出前 {cols} 列",
        draws=CHART),
    "trim_both": S(
        en="first {rows} rows and {cols} columns drawn",
        zh="只画出前 {rows} 行、前 {cols} 列",
        draws=CHART),
    "blocks_hidden": S(
        en="heads {first} to {last} not drawn",
        zh="第 {first} 个到第 {last} 个头未画出",
        draws=CHART),
    "block_hidden": S(
        en="head {first} not drawn",
        zh="第 {first} 个头未画出",
        draws=CHART),
    "blocks_two_hidden": S(
        en="heads {first} and {last} not drawn",
        zh="第 {first} 个和第 {last} 个头未画出",
        draws=CHART),
    "breakdown_title": S(
        en="${name}[{i}, {j}]$ is row {i} of ${a}$ times column {j} of ${b}$:",
        zh="${name}[{i}, {j}]$ 是 ${a}$ 的第 {i} 行与 ${b}$ 的第 {j} 列的内积："),
    "breakdown_more": S(
        en="… and {more} more terms",
        zh="……另外还有 {more} 项"),
    "breakdown_check": S(
        en="The terms add up to {total}; the cell holds {value}.",
        zh="各项加起来是 {total}；这一格的值是 {value}。"),
    "breakdown_check_rounded": S(
        en="The products of the factors as written ({digits} significant digits each) add up to {total}; the cell, computed from the unrounded numbers, holds {value}.",
        zh="按上面写出的因子（各取 {digits} 位有效数字）相乘再相加，得到 {total}；这一格用未经舍入的数算出，值是 {value}。"),
    "head_word": S(
        en="head {h}",
        zh="第 {h} 个头",
        draws=CHART),
    "quiz_start": S(
        en="Quiz me",
        zh="考考我"),
    "quiz_ask": S(
        en="One cell is hidden: what is ${name}[{i}, {j}]$? Row {i} of ${a}$ times column {j} of ${b}$.",
        zh="有一格被藏起来了：${name}[{i}, {j}]$ 是多少？它是 ${a}$ 的第 {i} 行与 ${b}$ 的第 {j} 列的内积。"),
    "quiz_answer": S(
        en="Your value",
        zh="你的答案"),
    "quiz_check": S(
        en="Check",
        zh="核对"),
    "quiz_again": S(
        en="Another cell",
        zh="换一格"),
    "quiz_stop": S(
        en="Show every cell",
        zh="显示所有格子"),
    "quiz_empty": S(
        en="Type a value first.",
        zh="请先填一个数。"),
    "quiz_right": S(
        en="Right: {answer} matches {value} (within 1%).",
        zh="答对了：{answer} 与 {value} 一致（误差在 1% 以内）。"),
    "quiz_wrong": S(
        en="Not quite: you said {answer}, the cell holds {value}. Here is how it adds up:",
        zh="不对：你填的是 {answer}，这一格其实是 {value}。下面是它的计算过程："),
    "matmul_title": S(
        en="A matrix product, cell by cell",
        zh="矩阵乘法：一格一格地算"),
    "matmul_text": S(
        en=("An a×b matrix times a b×c matrix gives an a×c matrix: the inner sizes must agree and vanish. "
            "Each cell of the result is one dot product: a row of the left matrix against a column of the "
            "right one. Edit A or B, then click a cell of R to watch its row and column meet."),
        zh=("a×b 矩阵乘以 b×c 矩阵得到 a×c 矩阵：中间的维度必须相同，相乘之后就消失了。"
            "结果的每一格都是一次内积：左边矩阵的一行与右边矩阵的一列。改一改 A 或 "
            "B，再点击 R 的任意一格，看看是哪一行和哪一列算出了它。")),
    "matmul_a": S(
        en="A (2×3)",
        zh="A (2×3)"),
    "matmul_b": S(
        en="B (3×5)",
        zh="B (3×5)"),
    "input_title": S(
        en="The input X: one row per token",
        zh="输入 X：每个词元占一行"),
    "input_text": S(
        en=(r"Each token (with its position) is already a vector of $d_{{\text{{model}}}}$ "
            r"numbers, so n tokens make an $n\times d_{{\text{{model}}}}$ matrix X. "
            "The layer must hand back a matrix Y of the very same shape. Edit any "
            "cell: every later stage recomputes from your numbers."),
        zh=(r"每个词元加上位置编码之后，已经嵌入成一个 $d_{{\text{{model}}}}$ 维的行向量，"
            r"n 个词元就排成 $n\times d_{{\text{{model}}}}$ 的矩阵 X。这一层最后要交出一个形状完全相同的矩阵 "
            "Y。随便改一格，后面的每一步都会用你的数字重新计算。")),
    "input_goal": S(
        en="Goal: Y has the same shape as X · {shape}",
        zh="目标：Y 与 X 形状相同 · {shape}"),
    "input_reset": S(
        en="Reset X to its seeded values",
        zh="把 X 恢复为随机种子生成的值"),
    "input_reset_text": S(
        en="Reset X to the text's X",
        zh="把 X 恢复为由文本得到的 X"),
    "input_reset_trained": S(
        en="Reset X to the model's X",
        zh="把 X 恢复为模型给出的 X"),
    "input_aside": S(
        en="X is {shape} now, so your edits beyond it are set aside ({count} cells); they come back if X grows again.",
        zh="X 现在是 {shape}：你改过的格子中有 {count} 个在它之外，先放在一边，X 再变大时会回来。"),
    "input_back": S(
        en="X is {shape} now, so the edits set aside earlier are back ({count} cells).",
        zh="X 现在是 {shape}：之前放在一边的 {count} 个改过的格子回来了。"),
    "input_kept": S(
        en="Seed {seed}: the weights and X were drawn anew, but your edits to X were kept ({count} cells).",
        zh="随机种子 {seed}：权重和 X 都已重新生成，但你在 X 里改过的 {count} 格仍是你填的数。"),
    "input_editor_help": S(
        en="Numbers only. Rows are tokens, columns are features.",
        zh="只能填数字。每行是一个词元，每列是一个特征。"),
    "input_swipe": S(
        en="X has {d} columns, more than a phone shows at once: swipe the grid sideways to see the rest.",
        zh="X 有 {d} 列，手机一屏放不下：在表格上左右滑动，就能看到其余的列。"),
    "qk_title": S(
        en="Queries and keys for head {h}",
        zh="第 {h} 个头的查询与键"),
    "qk_text": S(
        en=(r"Each head owns two $d_{{\text{{model}}}}\times d_k$ matrices, $W_Q$ "
            "and $W_K$. Multiplying X by $W_Q$ turns every token into a query vector "
            "(what it looks for); multiplying X by $W_K$ turns it into a key vector "
            "(what it offers). Same rows in, same tokens out: row i of Q and row "
            "i of K both belong to token i."),
        zh=(r"每个头有两个 $d_{{\text{{model}}}}\times d_k$ 的矩阵 $W_Q$ 和 $W_K$。"
            "X 乘以 $W_Q$，每个词元得到一个查询向量（它要找什么）；X 乘以 $W_K$，"
            "每个词元得到一个键向量（它能提供什么）。输入几行，输出就几行：Q 的第 "
            "i 行和 K 的第 i 行都属于第 i 个词元。")),
    "values_title": S(
        en="Values and the head's output for head {h}",
        zh="第 {h} 个头的值与输出"),
    "values_text": S(
        en=(r"$W_V$ ($d_{{\text{{model}}}}\times d_v$) turns each token into a value "
            "vector of $d_v$ numbers: what the token hands over when attended to. "
            "H = S·V then mixes the rows of V with the weights in S, so row i of "
            "H is a weighted average of the value vectors of tokens 1 to i."),
        zh=(r"$W_V$（$d_{{\text{{model}}}}\times d_v$）把每个词元变成一个 $d_v$ 维的值向量："
            "这个词元被关注时交出去的内容。H = S·V 用 S 里的权重把 V 的各行加权混合，"
            "所以 H 的第 i 行是第 1 至 i 个词元的值向量的加权平均。")),
    "heads_title": S(
        en="Every head at once",
        zh="所有的头一起看"),
    "heads_text": S(
        en=("Each head has its own $W_Q$, $W_K$, $W_V$, so each spreads its attention "
            r"in its own way. Their outputs $H_1,\dots,H_h$, each $n\times d_v$, are "
            r"concatenated side by side into one $n\times(h\cdot d_v)$ matrix."),
        zh=("每个头都有自己的 $W_Q$、$W_K$、$W_V$，所以每个头的注意力分布各不相同。"
            r"它们的输出 $H_1,\dots,H_h$ 都是 $n\times d_v$，左右拼接起来，就得到一个 "
            r"$n\times(h\cdot d_v)$ 的矩阵。")),
    "heads_s": S(
        en="S of every head",
        zh="每个头的 S"),
    "heads_concat": S(
        en=r"$\operatorname{{Concat}}({heads})$: one block of $d_v$ columns per head",
        zh=r"$\operatorname{{Concat}}({heads})$：每个头占 $d_v$ 列"),
    "output_title": S(
        en=r"Back to $d_{{\text{{model}}}}$: the output Y",
        zh=r"回到 $d_{{\text{{model}}}}$：输出 Y"),
    "output_text": S(
        en=(r"$W_O$ is $(h\cdot d_v)\times d_{{\text{{model}}}}$, so $\operatorname{{Concat}}\cdot "
            r"W_O$ is $n\times d_{{\text{{model}}}}$ again: Y has X's shape. Each "
            "head's block of $d_v$ rows in $W_O$ only ever meets that head's columns "
            "of Concat, so Y is a sum with one term per head."),
        zh=(r"$W_O$ 是 $(h\cdot d_v)\times d_{{\text{{model}}}}$，所以 $\operatorname{{Concat}}\cdot "
            r"W_O$ 又是 $n\times d_{{\text{{model}}}}$：Y 和 X 形状相同。$W_O$ 中属于某个头的那 "
            "$d_v$ 行，只会和 Concat 里这个头的那些列相乘，所以 Y 可以写成每个头各贡献一项的和。")),
    "output_drawn": S(
        en=("Concat and $W_O$ are drawn to two decimals, so a sum worked from the drawn numbers can miss a cell of Y "
            "by a few hundredths; a click on the cell writes its terms to four significant digits, and their sum."),
        zh=("Concat 和 $W_O$ 只画到两位小数，用画出来的数自己相加，可能和 Y 的某一格相差零点零几；点击这一格，会以四位有效数字"
            "写出它的各项及其和。")),
    "output_parts": S(
        en="Y as a sum over heads: $H_i$ · (head i's rows of $W_O$)",
        zh="把 Y 拆成各个头的贡献之和：$H_i$ ·（$W_O$ 中属于第 i 个头的那些行）"),
    "dependency_title": S(
        en="Row i of Y depends only on rows 1 to i of X",
        zh="Y 的第 i 行只取决于 X 的第 1 至 i 行"),
    "dependency_text": S(
        en=("Cell (i, j) measures how strongly $Y_i$ reacts to a change in $X_j$: "
            r"the size of the block $\partial Y_i/\partial X_j$ of the Jacobian. Everything "
            "above the diagonal is exactly zero: a token's output never sees later "
            "tokens. Nudge one token (add the same number to each of its features) "
            "and see which rows of Y move."),
        zh=("第 (i, j) 格衡量 $X_j$ 变化时 $Y_i$ 跟着变化的程度，也就是雅可比矩阵中 $\\partial Y_i/\\partial X_j$ 这一块的大小。对角线以上全都恰好为零：一个词元的输"
            "出看不到排在它后面的词元。扰动一个词元（给它的每个特征加上同一个数），看看 Y 的哪些行会随之变化。")),
    "dependency_zero_when": S(
        en=r"\text{{for }} j > i",
        zh=r"\text{{当 }} j > i \text{{ 时}}",
        draws=TEX),
    "dependency_w_count": S(
        en=r"\text{{ parameters}}",
        zh=r"\text{{ 个参数}}",
        draws=TEX),
    "dependency_w_trained": S(
        en=r"\text{{layer {layer}'s }}",
        zh=r"\text{{第 {layer} 层的 }}",
        draws=TEX),
    "dependency_map": S(
        en=r"$\lVert\partial Y_i/\partial X_j\rVert$ (Frobenius norm, exact)",
        zh=r"$\lVert\partial Y_i/\partial X_j\rVert$（Frobenius 范数，精确值）"),
    "dependency_skip": S(
        en="The exact map costs about {flops:,} operations at these sizes; it is drawn up to {limit:,}.",
        zh="在这些维度下，精确计算约需 {flops:,} 次运算；只有不超过 {limit:,} 次时才画出来。"),
    "nudge_token": S(
        en="Nudge token j",
        zh="扰动第 j 个词元"),
    "nudge_size": S(
        en="by adding",
        zh="每个特征加上"),
    "nudge_result": S(
        en="ΔY: the change in Y after adding {eps} to every feature of X{j}",
        zh="ΔY：给 X{j} 的每个特征加上 {eps} 之后，Y 的变化"),
    "nudge_rows_same": S(
        en="Untouched: {rows} of Y (largest change {delta}).",
        zh="Y 的{rows}纹丝不动（最大变化 {delta}）。"),
    "nudge_rows_moved": S(
        en="Moved: {rows} of Y (largest change {delta}).",
        zh="Y 的{rows}随之变化（最大变化 {delta}）。"),
    "nudge_none_before": S(
        en="Every row of Y may move: token 1 is seen by all.",
        zh="Y 的每一行都可能变化：所有词元都看得到第 1 个词元。"),
    "y_row": S(
        en="row of Y",
        zh="Y 的行",
        draws=CHART),
    "x_row": S(
        en="row of X",
        zh="X 的行",
        draws=CHART),
    "rows_of": S(
        en="row",
        zh="行",
        draws=CHART),
    "cols_of": S(
        en="column",
        zh="列",
        draws=CHART),
}
