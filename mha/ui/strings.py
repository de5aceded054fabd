"""Every word the page shows, in English and Chinese, one table per language.

A test fails when a key exists in one table and not the other. Fields in braces are filled by
`Text.__call__`; HTML in chart titles (<sub>) is Plotly's, LaTeX in formulas is st.latex's.
"""

EN = {
    "app_title": "MHA Explorer",
    "app_tagline": "Multi-head causal self-attention, step by step, with real numbers and every shape in view.",
    "sidebar_walk": "The walk",
    "sidebar_sizes": "Sizes",
    "sidebar_view": "View",
    "sidebar_export": "Download every matrix of this view",
    "export_too_big": "This view holds {values:,} numbers; downloads stop at {limit:,}. Smaller sizes can be downloaded.",
    "export_prepare": "Write the files ({values:,} numbers)",
    "export_preparing": "Writing {values:,} numbers…",
    "export_no_trace": "Nothing to download while X cannot be computed (the page says why).",
    "share": "Link to this view",
    "share_help": "The copy button copies it. Opened anywhere, it shows these sizes, this X and this stage.",
    "lang": "Language",
    "preset": "Preset",
    "preset_post": "The post · 3·5·7·11·2",
    "preset_tiny": "Tiny · 2·3·2·2·1",
    "preset_hand": "Hand calculation · whole numbers",
    "preset_gpt2": "GPT-2-small widths · 8·768·64·64·12",
    "preset_custom": "Custom",
    "n_tokens": "Tokens n",
    "d_model": "Embedding size d_model",
    "d_k": "Query/key size d_k",
    "d_v": "Value size d_v",
    "n_heads": "Heads h",
    "seed": "Seed",
    "integers": "Whole numbers (for paper)",
    "integers_help": "X in −2..2 and every weight in −1..1, so products can be checked by hand.",
    "head": "Head shown",
    "cell_values": "Numbers in cells",
    "present": "Presenter mode",
    "present_help": "Larger type for a projector. A link with present=1 also opens with the sidebar folded.",
    "cell_values_help": "Hidden anyway on matrices larger than 16 on a side; hover a cell for its value.",
    "primes_yes": "✓ Distinct primes: every shape says where it came from.",
    "primes_no": "These sizes are not distinct primes, so two shapes can look alike.",
    "primes_fix": "Make them distinct primes",
    "stage": "Stage",
    "stage_matmul": "1 · Matrix product",
    "stage_input": "2 · Input X",
    "stage_qk": "3 · Q and K",
    "stage_scores": "4 · Scores → S",
    "stage_values": "5 · V and H",
    "stage_heads": "6 · All heads",
    "stage_output": "7 · Output Y",
    "stage_dependency": "8 · Who depends on whom",
    "stage_kv_cache": "9 · KV cache",
    "code_title": "The numpy behind this stage (read from mha's source)",
    "prev": "← Previous",
    "next": "Next →",
    "credit": "Built on Mistivia's blog post “Computing multi-head attention” (in Chinese).",
    # notices
    "notices_dismiss": "Dismiss these notes",
    "notice_not_whole": "Link parameter {key}={value} is not a whole number; the default was used.",
    "notice_clamped": "Link parameter {key}={value} is outside what this demo allows; {used} was used.",
    "notice_unknown": "Link parameter {key}={value} is not one of the known values; the default was used.",
    "notice_x_too_long": "The X in this link is {length} characters long (limit {limit}); the seeded X was used.",
    "notice_x_items": "{count} cell(s) of X in this link could not be used (e.g. “{example}”); the rest were.",
    "notice_kv_too_long": "The tokens added to the KV cache in this link take {length} characters (limit {limit}); none were added.",
    "notice_kv_count": "Link parameter kv={value} does not start with a number of added tokens (0 to {most}); none were added.",
    "notice_kv_clamped": "This link adds {count} tokens to the KV cache; this demo adds at most {most}, so the first {most} were used.",
    "notice_kv_items": "{count} cell(s) of the tokens added to the KV cache in this link could not be used (e.g. “{example}”); those cells keep their seeded values.",
    "notice_cells": "Cell {cell} of X is {value}: only finite numbers work. The previous value {kept} was kept.",
    "error_input": "These numbers cannot be computed: {message}",
    "error_overflow": "X is too large: a product overflows float64 (beyond ±1.8e308). Scale X down, e.g. keep |X| below 1e100.",
    # shared
    "shape": "shape",
    "token": "token",
    "feature": "feature",
    "key_pos": "key",
    "click_hint": "Click any cell of {name} to see the dot product that made it.",
    "window_note": "Showing the first {rows}×{cols} of {full_rows}×{full_cols}; hover for values.",
    "breakdown_title": "{name}[{i}, {j}] is row {i} of {a} times column {j} of {b}:",
    "breakdown_more": "… and {more} more terms",
    "breakdown_check": "The terms add up to {total}; the cell holds {value}.",
    "head_word": "head {h}",
    "quiz_start": "Quiz me",
    "quiz_ask": "One cell is hidden: what is {name}[{i}, {j}]? Row {i} of {a} times column {j} of {b}.",
    "quiz_answer": "Your value",
    "quiz_check": "Check",
    "quiz_again": "Another cell",
    "quiz_stop": "Show every cell",
    "quiz_empty": "Type a value first.",
    "quiz_right": "Right: {answer} matches {value} (within 1%).",
    "quiz_wrong": "Not quite: you said {answer}, the cell holds {value}. Here is how it adds up:",
    # matmul
    "matmul_title": "A matrix product, cell by cell",
    "matmul_text": (
        "An a×b matrix times a b×c matrix gives an a×c matrix: the inner sizes must agree and vanish. "
        "Each cell of the result is one dot product: a row of the left matrix against a column of the "
        "right one. Edit A or B, then click a cell of R to watch its row and column meet."
    ),
    "matmul_a": "A (2×3)",
    "matmul_b": "B (3×5)",
    # input
    "input_title": "The input X: one row per token",
    "input_text": (
        "Each token (with its position) is already a vector of d_model numbers, so n tokens make an "
        "n×d_model matrix X. The layer must hand back a matrix Y of the very same shape. Edit any cell: "
        "every later stage recomputes from your numbers."
    ),
    "input_goal": "Goal: Y has the same shape as X · {shape}",
    "input_reset": "Reset X to the seed",
    "input_kept": "Seed {seed}: the weights and X were drawn anew, but your {count} edited cell(s) of X were kept.",
    "input_editor_help": "Numbers only. Rows are tokens, columns are features.",
    # qk
    "qk_title": "Queries and keys for head {h}",
    "qk_text": (
        "Each head owns two d_model×d_k matrices. Multiplying X by W_Q turns every token into a query "
        "(what it looks for); multiplying by W_K turns it into a key (what it offers). Same rows in, "
        "same tokens out: row i of Q and of K both belong to token i."
    ),
    # scores
    "scores_title": "From QKᵀ to S for head {h}",
    "scores_text": (
        "Row i of QKᵀ compares token i's query with every key. Dividing by √d_k keeps these numbers "
        "moderate as d_k grows. The causal mask writes −∞ above the diagonal so no token can look "
        "ahead, and softmax turns each row into weights that are ≥ 0 and add up to 1 (−∞ becomes 0)."
    ),
    "inner_note": "Q and Kᵀ show the first {shown} of their {d_k} columns; every score uses all {d_k}.",
    "scores_play_hint": "Press ▶ Play, or drag the slider under the chart, to step through the four steps.",
    "anim_fill": "q{i} · k{j}",
    "anim_fill_rows": "QKᵀ rows {a}–{b}",
    "anim_scale": "÷ √{d_k}",
    "anim_mask": "mask: −∞ above the diagonal",
    "anim_softmax": "softmax, rows {a}–{b}",
    "play": "▶ Play",
    "pause": "❚❚ Pause",
    "softmax_breakdown": "S[{i}, {j}] = exp(a{i}{j}) ÷ Σ exp(a{i}·) over the {count} visible keys, with a = QKᵀ/√{d_k}:",
    "softmax_masked": "S[{i}, {j}] = 0: key {j} comes after token {i}, so the mask made it −∞ and softmax made it 0.",
    # values
    "values_title": "Values and the head's output for head {h}",
    "values_text": (
        "W_V (d_model×d_v) turns each token into a value: what it hands over when attended to. "
        "H = S·V then mixes the value rows with the weights in S, so row i of H is a weighted average of "
        "the values of tokens 1..i."
    ),
    # heads
    "heads_title": "Every head at once",
    "heads_text": (
        "Each head has its own W_Q, W_K, W_V, so each finds its own pattern of attention. Their outputs "
        "H₁…H_h, each n×d_v, are laid side by side into one n×(h·d_v) matrix."
    ),
    "heads_s": "S of every head",
    "heads_concat": "Concat(H₁…H_h): one block of d_v columns per head",
    # output
    "output_title": "Back to d_model: the output Y",
    "output_text": (
        "W_O is (h·d_v)×d_model, so Concat·W_O is n×d_model again: Y has X's shape. Each head's block of "
        "d_v rows in W_O only ever meets that head's columns of Concat, so Y is a sum with one term per "
        "head."
    ),
    "output_parts": "Y as a sum over heads: H_i · (head i's rows of W_O)",
    # dependency
    "dependency_title": "Row i of Y depends only on rows 1..i of X",
    "dependency_text": (
        "Cell (i, j) measures how strongly Y_i reacts to a change in X_j: the size of the Jacobian block "
        "∂Y_i/∂X_j. Everything above the diagonal is exactly zero: a token's output never sees later "
        "tokens. Nudge a token below and see which rows of Y move."
    ),
    "dependency_map": "‖∂Y_i/∂X_j‖ (Frobenius norm, exact)",
    "dependency_skip": "The exact map costs about {flops:,} operations at these sizes; it is drawn up to {limit:,}.",
    "nudge_token": "Nudge token j",
    "nudge_size": "by adding",
    "nudge_result": "ΔY: the change in Y after adding {eps} to every feature of X{j}",
    "nudge_rows_same": "Rows 1..{last} of Y: largest change {delta} — untouched.",
    "nudge_rows_moved": "Rows {first}..{n} of Y moved (largest change {delta}).",
    "nudge_none_before": "Every row of Y may move: token 1 is seen by all.",
    # kv cache
    "kv_title": "The KV cache: add a token, keep K and V, drop Q",
    "kv_text": (
        "Generating text appends one token at a time. Because row i of Y only depends on rows 1..i of X, "
        "the rows already computed never change: only the new token's row is work. That row needs the new "
        "token's query and the keys and values of every token so far, so K and V are worth keeping, while "
        "old queries are never used again."
    ),
    "kv_next": "Next token X{t} (seeded; edit it before adding if you like)",
    "kv_add": "Add token X{t}",
    "kv_reset": "Back to the {n} tokens of X",
    "kv_added_cap": "This demo adds at most {most} tokens; go back to X to start again.",
    "kv_state": "The cache holds {t} tokens: per head K is {t}×{d_k} and V is {t}×{d_v}, {size} in all.",
    "kv_hint": "These are the rows of X. Add a token to watch one cached step.",
    "kv_arrive": "X{t} arrives; K and V of tokens 1..{p} are already cached",
    "kv_append": "q{t}, k{t}, v{t} = X{t}·W: k{t} and v{t} are appended to the cache",
    "kv_scores": "one new score row: q{t}·Kᵀ/√{d_k} against every cached key",
    "kv_softmax": "softmax of that row → S{t}",
    "kv_drop_q": "Q rows 1..{p} are never needed",
    "kv_output": "H{t} = S{t}·V, then Y{t}; Y₁…Y{ps} stay as they were",
    "kv_part": "Show",
    "kv_tab_step": "The step, checked",
    "kv_window_note": "Drawn: the first {cols} columns of each matrix and the last {rows} tokens; every number uses all of them.",
    "kv_tab_cost": "What it saves",
    "kv_unchanged": "rows 1..{p} untouched",
    "kv_why_q_title": "Why Q is not cached",
    "kv_why_q": (
        "Row t of S is softmax(q_t·Kᵀ/√d_k) and row t of H is that row times V. Only q_t appears; "
        "q_1…q_{t−1} were used for their own rows, which are finished. K and V, in contrast, are read "
        "again by every later token."
    ),
    "kv_proof_title": "Checked live on these numbers",
    "kv_proof_what": "what is compared",
    "kv_proof_delta": "max |Δ|",
    "kv_proof_prefix": "Y₁…Y{ps} before X{t} arrived vs. after (full recompute)",
    "kv_proof_last": "Y{t} from the cache vs. the last row of a full recompute",
    "kv_proof_s": "S row {t} from the cache vs. the last row of the full S (every head)",
    "kv_exact": "0 — exactly",
    "kv_cost_title": "What the cache saves",
    "kv_cost_step": "Producing token {t}",
    "kv_cost_flops": "FLOPs",
    "kv_cost_bytes": "bytes touched",
    "kv_with": "with the cache",
    "kv_without": "recomputing all {t} tokens",
    "kv_cost_note": "Counting matrix products only (a multiply-add is 2 FLOPs), float64. Weights, X and the cache are read once.",
    "kv_cost_chart": "Generating T tokens: cumulative FLOPs",
    "kv_axis_t": "tokens generated T",
    "kv_axis_flops": "FLOPs",
    "kv_series_cached": "{sizes}, with cache",
    "kv_series_full": "{sizes}, recompute",
    "kv_sizes_now": "these sizes",
    "kv_sizes_gpt2": "GPT-2-small shapes",
    "kv_measure_title": "Measure it here",
    "kv_measure_tokens": "tokens to generate",
    "kv_measure": "Time decoding both ways",
    "kv_measure_progress": "Decoding token {t} of {total}…",
    "kv_measure_result": "Total {cached:.1f} ms with the cache, {full:.1f} ms recomputing ({ratio:.1f}× slower).",
    "kv_measure_axis": "milliseconds per token",
    "kv_measure_cap": "At these sizes the recompute is capped at {T} tokens to keep the page responsive.",
    "kv_series_ms_cached": "with the cache",
    "kv_series_ms_full": "recompute",
    "kv_dropped_rows": "Added tokens no longer fit d_model = {d} and were removed.",
    # axis words in hover
    "y_row": "row of Y",
    "x_row": "row of X",
    "rows_of": "row",
    "cols_of": "column",
}

ZH = {
    "app_title": "MHA Explorer · 多头注意力",
    "app_tagline": "一步一步计算多头因果自注意力：真实的数字，每个矩阵的形状都看得见。",
    "sidebar_walk": "步骤",
    "sidebar_sizes": "维度",
    "sidebar_view": "显示",
    "sidebar_export": "下载这一页的全部矩阵",
    "export_too_big": "这一页共有 {values:,} 个数，下载上限是 {limit:,}。维度小一些就可以下载。",
    "export_prepare": "生成下载文件（共 {values:,} 个数）",
    "export_preparing": "正在写出 {values:,} 个数……",
    "export_no_trace": "X 目前无法计算（原因见页面上的提示），暂时没有可下载的文件。",
    "share": "本页链接",
    "share_help": "点复制按钮即可复制。在任何地方打开，都会显示同样的维度、同样的 X 和同样的步骤。",
    "lang": "语言",
    "preset": "预设",
    "preset_post": "原文例子 · 3·5·7·11·2",
    "preset_tiny": "最小例子 · 2·3·2·2·1",
    "preset_hand": "手算练习 · 全是整数",
    "preset_gpt2": "GPT-2 small 宽度 · 8·768·64·64·12",
    "preset_custom": "自定义",
    "n_tokens": "词元数 n",
    "d_model": "嵌入维度 d_model",
    "d_k": "查询/键维度 d_k",
    "d_v": "值维度 d_v",
    "n_heads": "头数 h",
    "seed": "随机种子",
    "integers": "整数模式（方便手算）",
    "integers_help": "X 取 −2..2 的整数，所有权重取 −1..1 的整数，乘积可以在纸上验算。",
    "head": "显示第几个头",
    "cell_values": "格内显示数值",
    "present": "演示模式",
    "present_help": "字号更大，适合投影。带 present=1 的链接打开时会收起侧边栏。",
    "cell_values_help": "矩阵任一边超过 16 时总是隐藏；把鼠标移到格子上可看数值。",
    "primes_yes": "✓ 各维度是互不相同的质数：看形状就知道它从哪来。",
    "primes_no": "这些维度不是互不相同的质数，不同来历的形状可能看起来一样。",
    "primes_fix": "换成互不相同的质数",
    "stage": "阶段",
    "stage_matmul": "1 · 矩阵乘法",
    "stage_input": "2 · 输入 X",
    "stage_qk": "3 · Q 和 K",
    "stage_scores": "4 · 分数 → S",
    "stage_values": "5 · V 和 H",
    "stage_heads": "6 · 所有的头",
    "stage_output": "7 · 输出 Y",
    "stage_dependency": "8 · 谁依赖谁",
    "stage_kv_cache": "9 · KV 缓存",
    "code_title": "这一步背后的 numpy 代码（直接读取自 mha 的源码）",
    "prev": "← 上一步",
    "next": "下一步 →",
    "credit": "本工具依据 Mistivia 的博客文章《计算多头注意力》制作。",
    "notices_dismiss": "关闭这些提示",
    "notice_not_whole": "链接参数 {key}={value} 不是整数，已改用默认值。",
    "notice_clamped": "链接参数 {key}={value} 超出了本演示允许的范围，已改用 {used}。",
    "notice_unknown": "链接参数 {key}={value} 不是可选的值，已改用默认值。",
    "notice_x_too_long": "链接里的 X 有 {length} 个字符（上限 {limit}），已改用随机种子生成的 X。",
    "notice_x_items": "链接里有 {count} 个 X 的格子无法使用（例如“{example}”），其余的已采用。",
    "notice_kv_too_long": "链接里追加到 KV 缓存的词元共有 {length} 个字符（上限 {limit}），因此一个也没有追加。",
    "notice_kv_count": "链接参数 kv={value} 开头不是追加词元的个数（0 到 {most}），因此一个也没有追加。",
    "notice_kv_clamped": "这个链接向 KV 缓存追加了 {count} 个词元；本演示最多追加 {most} 个，已采用前 {most} 个。",
    "notice_kv_items": "链接里追加到 KV 缓存的词元有 {count} 个格子无法使用（例如“{example}”），这些格子保留由种子生成的值。",
    "notice_cells": "X 的第 {cell} 格是 {value}：只接受有限的数字，已保留原来的值 {kept}。",
    "error_input": "这些数字无法计算：{message}",
    "error_overflow": "X 太大了：某个乘积超出了 float64 的范围（±1.8e308）。请把 X 缩小，例如让 |X| 小于 1e100。",
    "shape": "形状",
    "token": "词元",
    "feature": "特征",
    "key_pos": "键",
    "click_hint": "点击 {name} 的任意一格，看看它是由哪一次内积算出来的。",
    "window_note": "只画出 {full_rows}×{full_cols} 中前 {rows}×{cols} 的部分；鼠标悬停可看数值。",
    "breakdown_title": "{name}[{i}, {j}] 等于 {a} 的第 {i} 行乘以 {b} 的第 {j} 列：",
    "breakdown_more": "……还有 {more} 项",
    "breakdown_check": "各项加起来是 {total}；这一格的值是 {value}。",
    "head_word": "第 {h} 个头",
    "quiz_start": "考考我",
    "quiz_ask": "有一格被藏起来了：{name}[{i}, {j}] 是多少？它等于 {a} 的第 {i} 行乘以 {b} 的第 {j} 列。",
    "quiz_answer": "你的答案",
    "quiz_check": "核对",
    "quiz_again": "换一格",
    "quiz_stop": "显示所有格子",
    "quiz_empty": "请先填一个数。",
    "quiz_right": "答对了：{answer} 与 {value} 一致（误差在 1% 以内）。",
    "quiz_wrong": "差一点：你填的是 {answer}，这一格其实是 {value}。下面是它的计算过程：",
    "matmul_title": "矩阵乘法：一格一格地算",
    "matmul_text": (
        "a×b 矩阵乘 b×c 矩阵得到 a×c 矩阵：中间的维度必须相同，乘完就消失了。结果里的每一格都是一次内积——"
        "左边矩阵的一行对上右边矩阵的一列。改一改 A 或 B，再点 R 的某一格，看对应的行和列在哪里相遇。"
    ),
    "matmul_a": "A (2×3)",
    "matmul_b": "B (3×5)",
    "input_title": "输入 X：每个词元占一行",
    "input_text": (
        "每个词元（加上位置信息后）已经是一个 d_model 维的向量，n 个词元就排成 n×d_model 的矩阵 X。"
        "这一层最后要交出一个形状完全相同的矩阵 Y。随便改一格，后面每一步都会用你的数字重新计算。"
    ),
    "input_goal": "目标：Y 与 X 形状相同 · {shape}",
    "input_reset": "把 X 恢复为种子生成的值",
    "input_kept": "随机种子 {seed}：权重和 X 都已重新生成，但你改过的 {count} 个 X 的格子保留了原来的值。",
    "input_editor_help": "只能填数字。每行是一个词元，每列是一个特征。",
    "qk_title": "第 {h} 个头的查询与键",
    "qk_text": (
        "每个头有两个 d_model×d_k 的矩阵。X 乘 W_Q，每个词元变成一个查询（它要找什么）；"
        "X 乘 W_K，每个词元变成一个键（它能提供什么）。输入几行，输出就几行：Q 和 K 的第 i 行都属于第 i 个词元。"
    ),
    "scores_title": "第 {h} 个头：从 QKᵀ 到 S",
    "scores_text": (
        "QKᵀ 的第 i 行，是第 i 个词元的查询和每一个键逐一比较的结果。除以 √d_k，是为了 d_k 变大时这些数不至于太大。"
        "因果掩码把对角线以上写成 −∞，让词元无法偷看后面的词元；softmax 再把每一行变成非负、加起来等于 1 的权重（−∞ 变成 0）。"
    ),
    "inner_note": "Q 和 Kᵀ 只画出 {d_k} 列中的前 {shown} 列；每个分数都用到了全部 {d_k} 列。",
    "scores_play_hint": "按 ▶ 播放，或拖动图下方的滑块，逐步查看这四个步骤。",
    "anim_fill": "q{i} · k{j}",
    "anim_fill_rows": "QKᵀ 第 {a}–{b} 行",
    "anim_scale": "÷ √{d_k}",
    "anim_mask": "掩码：对角线以上变成 −∞",
    "anim_softmax": "softmax：第 {a}–{b} 行",
    "play": "▶ 播放",
    "pause": "❚❚ 暂停",
    "softmax_breakdown": "S[{i}, {j}] = exp(a{i}{j}) ÷ 第 {i} 行 {count} 个可见键的 exp 之和，其中 a = QKᵀ/√{d_k}：",
    "softmax_masked": "S[{i}, {j}] = 0：第 {j} 个键排在第 {i} 个词元之后，掩码把它变成 −∞，softmax 又把它变成 0。",
    "values_title": "第 {h} 个头的值与输出",
    "values_text": (
        "W_V（d_model×d_v）把每个词元变成一个值：被关注时它交出去的内容。H = S·V 用 S 里的权重混合这些值，"
        "所以 H 的第 i 行是第 1..i 个词元的值的加权平均。"
    ),
    "heads_title": "所有的头一起看",
    "heads_text": (
        "每个头都有自己的 W_Q、W_K、W_V，所以各自学出自己的注意力模式。它们的输出 H₁…H_h 都是 n×d_v，"
        "左右拼在一起就成了一个 n×(h·d_v) 的矩阵。"
    ),
    "heads_s": "每个头的 S",
    "heads_concat": "Concat(H₁…H_h)：每个头占 d_v 列",
    "output_title": "回到 d_model：输出 Y",
    "output_text": (
        "W_O 是 (h·d_v)×d_model，所以 Concat·W_O 又是 n×d_model：Y 和 X 形状一样。W_O 中每个头的那 d_v 行"
        "只会和 Concat 里这个头的列相乘，所以 Y 可以写成每个头各贡献一项的和。"
    ),
    "output_parts": "把 Y 拆成各头之和：H_i ·（W_O 中第 i 个头的那些行）",
    "dependency_title": "Y 的第 i 行只取决于 X 的第 1..i 行",
    "dependency_text": (
        "第 (i, j) 格衡量 X_j 变化时 Y_i 反应有多强：也就是雅可比块 ∂Y_i/∂X_j 的大小。"
        "对角线以上全都精确为零：一个词元的输出看不到后面的词元。在下面推一推某个词元，看看 Y 的哪些行会动。"
    ),
    "dependency_map": "‖∂Y_i/∂X_j‖（Frobenius 范数，精确值）",
    "dependency_skip": "在这些维度下精确计算约需 {flops:,} 次运算；只在 {limit:,} 次以内时才画出来。",
    "nudge_token": "推动第 j 个词元",
    "nudge_size": "每个特征加上",
    "nudge_result": "ΔY：给 X{j} 的每个特征加上 {eps} 之后 Y 的变化",
    "nudge_rows_same": "Y 的第 1..{last} 行：最大变化 {delta}——纹丝不动。",
    "nudge_rows_moved": "Y 的第 {first}..{n} 行变了（最大变化 {delta}）。",
    "nudge_none_before": "Y 的每一行都可能变化：第 1 个词元被所有词元看到。",
    "kv_title": "KV 缓存：追加一个词元，留下 K 和 V，丢掉 Q",
    "kv_text": (
        "生成文本时，词元是一个一个追加上去的。Y 的第 i 行只取决于 X 的第 1..i 行，所以已经算好的行永远不会变，"
        "真正要算的只有新词元那一行。这一行需要新词元的查询，以及到目前为止所有词元的键和值——所以 K 和 V 值得留着，"
        "而旧的查询再也用不上了。"
    ),
    "kv_next": "下一个词元 X{t}（由种子生成；追加前可以先改）",
    "kv_add": "追加词元 X{t}",
    "kv_reset": "回到 X 的 {n} 个词元",
    "kv_added_cap": "本演示最多追加 {most} 个词元；回到 X 即可重新开始。",
    "kv_state": "缓存里有 {t} 个词元：每个头的 K 是 {t}×{d_k}，V 是 {t}×{d_v}，共 {size}。",
    "kv_hint": "现在只有 X 的这些行。追加一个词元，看看一次带缓存的计算。",
    "kv_arrive": "X{t} 到来；第 1..{p} 个词元的 K 和 V 已在缓存里",
    "kv_append": "q{t}、k{t}、v{t} = X{t}·W：k{t} 和 v{t} 追加进缓存",
    "kv_scores": "只算一行新的分数：q{t}·Kᵀ/√{d_k}，与缓存里的每个键相乘",
    "kv_softmax": "对这一行做 softmax → S{t}",
    "kv_drop_q": "Q 的第 1..{p} 行再也用不上",
    "kv_output": "H{t} = S{t}·V，再得到 Y{t}；Y₁…Y{ps} 保持原样",
    "kv_part": "显示",
    "kv_tab_step": "这一步，及其验证",
    "kv_window_note": "图中只画出每个矩阵的前 {cols} 列和最后 {rows} 个词元；所有数字都是用全部数据算出来的。",
    "kv_tab_cost": "省下了什么",
    "kv_unchanged": "第 1..{p} 行没有变",
    "kv_why_q_title": "为什么不缓存 Q",
    "kv_why_q": (
        "S 的第 t 行是 softmax(q_t·Kᵀ/√d_k)，H 的第 t 行是这一行乘以 V。式子里只出现 q_t；"
        "q_1…q_{t−1} 早就用来算它们自己那几行了，而那几行已经算完。K 和 V 则不同，之后的每个词元都要再读一遍。"
    ),
    "kv_proof_title": "用这些数字现场验证",
    "kv_proof_what": "比较的内容",
    "kv_proof_delta": "最大 |Δ|",
    "kv_proof_prefix": "X{t} 到来之前与之后（整体重算）的 Y₁…Y{ps}",
    "kv_proof_last": "用缓存算出的 Y{t} 与整体重算的最后一行",
    "kv_proof_s": "用缓存算出的 S 第 {t} 行与完整 S 的最后一行（所有头）",
    "kv_exact": "0——完全相同",
    "kv_cost_title": "缓存省下了什么",
    "kv_cost_step": "生成第 {t} 个词元",
    "kv_cost_flops": "浮点运算次数",
    "kv_cost_bytes": "读写字节数",
    "kv_with": "使用缓存",
    "kv_without": "把 {t} 个词元全部重算",
    "kv_cost_note": "只计矩阵乘法（一次乘加算 2 次浮点运算），float64。权重、X 和缓存各读一次。",
    "kv_cost_chart": "生成 T 个词元：累计浮点运算次数",
    "kv_axis_t": "已生成的词元数 T",
    "kv_axis_flops": "浮点运算次数",
    "kv_series_cached": "{sizes}，使用缓存",
    "kv_series_full": "{sizes}，整体重算",
    "kv_sizes_now": "当前维度",
    "kv_sizes_gpt2": "GPT-2 small 的形状",
    "kv_measure_title": "在这里实测",
    "kv_measure_tokens": "要生成的词元数",
    "kv_measure": "分别计时两种解码方式",
    "kv_measure_progress": "正在解码第 {t} 个词元，共 {total} 个……",
    "kv_measure_result": "使用缓存共 {cached:.1f} 毫秒，整体重算共 {full:.1f} 毫秒（慢 {ratio:.1f} 倍）。",
    "kv_measure_axis": "每个词元的毫秒数",
    "kv_measure_cap": "在这些维度下，为了让页面保持流畅，重算最多只做 {T} 个词元。",
    "kv_series_ms_cached": "使用缓存",
    "kv_series_ms_full": "整体重算",
    "kv_dropped_rows": "追加的词元与 d_model = {d} 不再匹配，已被移除。",
    "y_row": "Y 的行",
    "x_row": "X 的行",
    "rows_of": "行",
    "cols_of": "列",
}

TABLES = {"en": EN, "zh": ZH}


class Text:
    """t("key", field=value) in one language."""

    def __init__(self, lang: str):
        self.lang = lang if lang in TABLES else "en"
        self.table = TABLES[self.lang]

    def __call__(self, key: str, /, **fields) -> str:
        text = self.table[key]
        return text.format(**fields) if fields else text
