"""The KV-cache stage's step: a token arrives, K and V are kept, Q is thrown away, and the proof that Y₁..ₙ stay."""

from .entry import CHART, MD, TEX, S

STRINGS = {
    "kv_title": S(
        en="The KV cache: add a token, keep K and V, drop Q",
        zh="KV 缓存：追加一个词元，留下 K 和 V，丢掉 Q"),
    "kv_text": S(
        en=("Generating text appends one token at a time. Because row i of Y only "
            "depends on rows 1 to i of X, the rows already computed never change: "
            "only the new token's row is new work. That row needs the new token's "
            "query and the keys and values of every token so far, so K and V are "
            "worth keeping, while old queries are never used again."),
        zh=("生成文本时，词元是一个一个追加上去的。Y 的第 i 行只取决于 X 的第 1 至 "
            "i 行，所以已经算好的行永远不会变，真正要算的只有新词元那一行。这一行需要新词元的查询向量，"
            "以及到目前为止所有词元的键和值，所以 K 和 V 值得缓存，而旧的查询向量再也用不上了。")),
    "kv_next": S(
        en="Next token X{t} (seeded; edit it before adding if you like)",
        zh="下一个词元 X{t}（由种子生成；追加前可以先改）"),
    "kv_add": S(
        en="Add token X{t}",
        zh="追加词元 X{t}"),
    "kv_reset": S(
        en="Back to the {n} tokens of X",
        zh="回到 X 的 {n} 个词元"),
    "kv_added_cap": S(
        en="This demo adds at most {most} tokens; go back to X to start again.",
        zh="本演示最多追加 {most} 个词元；回到 X 即可重新开始。"),
    "kv_state": S(
        en=("The cache holds {t} tokens' K and V: per head, K is {t}×{d_k} and V "
            "is {t}×{d_v}; {size} in all."),
        zh="缓存里存着 {t} 个词元的 K 和 V：每个头的 K 是 {t}×{d_k}，V 是 {t}×{d_v}，一共 {size}。"),
    "kv_hint": S(
        en=("Nothing added yet: the chart replays the step in which the last row "
            "of X entered the cache. Add a token to take the next step."),
        zh="还没有追加词元：图中演示的是 X 的最后一行进入缓存的那一步。追加一个词元，就走到下一步。"),
    "kv_arrive_evict": S(
        en="X{t} arrives, and {gone} leaves the window: the cache keeps the K and V rows of {tokens}.",
        zh="X{t} 到来，{gone} 滑出窗口：缓存里留下的是 {tokens} 的 K 行和 V 行。",
        draws=CHART),
    "kv_arrive_evict_all": S(
        en="X{t} arrives, and {gone} leaves the window: no earlier row stays in the cache.",
        zh="X{t} 到来，{gone} 滑出窗口：缓存里没有留下更早的行。",
        draws=CHART),
    "kv_weight_gone": S(
        en="Row {row} of {s} also gave {w} to {gone}, no longer in the cache: that weight is not drawn, so the row adds up to {kept} here.",
        zh="{s} 的第 {row} 行当时还把共 {w} 的权重给了 {gone}（已不在缓存里）：这部分没有画出，所以图中这一行加起来是 {kept}。"),
    "kv_arrive": S(
        en="X{t} arrives. The cache already holds the K and V rows of {tokens}.",
        zh="X{t} 到来。缓存里已经存着 {tokens} 的 K 行和 V 行。",
        draws=CHART),
    "kv_arrive_mla": S(
        en="X{t} arrives. The cache already holds the latent rows c of {tokens}, and no K or V.",
        zh="X{t} 到来。缓存里已经存着 {tokens} 的潜向量 c，没有 K，也没有 V。",
        draws=CHART),
    "kv_arrive_first": S(
        en="X{t} arrives; the cache is still empty.",
        zh="X{t} 到来，此时缓存还是空的。",
        draws=CHART),
    "kv_append": S(
        en="q{t}, k{t}, v{t} = X{t}·W<sub>Q</sub>, X{t}·W<sub>K</sub>, X{t}·W<sub>V</sub>; k{t} and v{t} become row {n} of the K and V caches.",
        zh="q{t}、k{t}、v{t} = X{t}·W<sub>Q</sub>、X{t}·W<sub>K</sub>、X{t}·W<sub>V</sub>；k{t} 和 v{t} 成为 K 缓存和 V 缓存的第 {n} 行。",
        draws=CHART),
    "kv_scores": S(
        en="Row {n} of the scores: q{t}·Kᵀ/√{d_k}, one dot product per cached key (no later key to mask).",
        zh="注意力分数的第 {n} 行：q{t}·Kᵀ/√{d_k}，与缓存里的每个键各做一次内积（不用掩码：后面的键还不存在）。",
        draws=CHART),
    "kv_softmax": S(
        en="Softmax of that row is row {n} of {s}; the rows above it are {s} as it was.",
        zh="对这一行做 softmax，得到 {s} 的第 {n} 行；上面各行仍是原来的 {s}。",
        draws=CHART),
    "kv_drop_q": S(
        en="Q's {rows}: never needed again. Only q{t} meets the K cache, in one dot product with each key.",
        zh="Q 的{rows}再也用不上了：只有 q{t} 还要与 K 缓存里的每个键各做一次内积。",
        draws=CHART),
    "kv_drop_q_first": S(
        en="Q is not cached: q{t} serves this row only, then it is dropped.",
        zh="Q 不进缓存：q{t} 只为这一行服务，用完就丢掉。",
        draws=CHART),
    "kv_output": S(
        en="Row {n} of {h} = row {n} of {s} times V, then Y{t}; {ys} unchanged.",
        zh="{h} 的第 {n} 行 = {s} 的第 {n} 行乘以 V，再得到 Y{t}；{ys} 保持不变。",
        draws=CHART),
    "kv_output_first": S(
        en="Row {n} of {h} = row {n} of {s} times V, then Y{t}.",
        zh="{h} 的第 {n} 行 = {s} 的第 {n} 行乘以 V，再得到 Y{t}。",
        draws=CHART),
    "kv_legend": S(
        en="Dotted: {rows}, as before X{t} arrived. Solid: row {n}, new, outlined once computed.",
        zh="虚线框：{rows}，与 X{t} 到来之前相同。实线框：新的第 {n} 行，算出后框出。",
        draws=MD | CHART),  # a projector's under the figure, in the page
    "kv_legend_first": S(
        en="Solid: row {n}, new, outlined once computed.",
        zh="实线框：新的第 {n} 行，算出后框出。",
        draws=CHART),
    "kv_scores_where": S(
        en="Until the softmax, these scores stand in row {n} of {s}, on a colour scale of their own.",
        zh="做 softmax 之前，这些分数暂时画在 {s} 的第 {n} 行，用自己的色阶。",
        draws=CHART),
    "kv_drop_q_note": S(
        en="Q's {rows}: never needed again",
        zh="Q 的{rows}：再也用不上",
        draws=CHART),
    "kv_step_arrive": S(
        en="arrive",
        zh="到来",
        draws=CHART),
    "kv_step_append": S(
        en="append",
        zh="追加",
        draws=CHART),
    "kv_step_scores": S(
        en="score",
        zh="打分",
        draws=CHART),
    "kv_step_softmax": S(
        en="softmax",
        zh="softmax",
        draws=CHART),
    "kv_step_drop_q": S(
        en="drop Q",
        zh="丢弃 Q",
        draws=CHART),
    "kv_step_output": S(
        en="output",
        zh="输出",
        draws=CHART),
    "kv_last_rows": S(
        en="last {n} of {total} rows",
        zh="最后 {n} 行（共 {total} 行）",
        draws=CHART),
    "kv_rows_drawn": S(  # a projector's title, after the shape: the rows its panel draws (S's columns: the same)
        en="({rows})",
        zh="（{rows}）",
        draws=CHART),
    "kv_first_cols": S(
        en="first {n} of {total} columns",
        zh="前 {n} 列（共 {total} 列）",
        draws=CHART),
    "kv_last_cols": S(
        en="last {n} of {total} columns",
        zh="最后 {n} 列（共 {total} 列）",
        draws=CHART),
    "kv_part": S(
        en="Show",
        zh="显示"),
    "kv_part_step": S(
        en="The step, checked",
        zh="单步解码与验证"),
    "kv_window_cols": S(
        en=("Drawn: the first {cols} columns of each matrix wider than that; "
            "every number is computed from the whole matrices."),
        zh="超过 {cols} 列的矩阵，图中只画出前 {cols} 列；所有数字都是用完整的矩阵算出来的。"),
    "kv_window_rows": S(
        en=("Drawn: the last {rows} tokens, so S shows its last {rows} rows and its last {rows} columns; "
            "every number is computed from the whole matrices."),
        zh="图中只画出最后 {rows} 个词元，所以 S 只显示最后 {rows} 行和最后 {rows} 列；所有数字都是用完整的矩阵算出来的。"),
    "kv_window_both": S(
        en=("Drawn: the last {rows} tokens, so S shows its last {rows} rows and its last {rows} columns, and the first "
            "{cols} columns of every other matrix wider than that; every number is computed from the whole matrices."),
        zh=("图中只画出最后 {rows} 个词元，所以 S 只显示最后 {rows} 行和最后 {rows} 列；其余矩阵超过 {cols} 列的，"
            "只画出前 {cols} 列。所有数字都是用完整的矩阵算出来的。")),
    "kv_part_cost": S(
        en="What it saves",
        zh="省下了什么"),
    "kv_name_k": S(
        en="K cache ({k})",
        zh="K 缓存（{k}）",
        draws=CHART),
    "kv_name_v": S(
        en="V cache ({v})",
        zh="V 缓存（{v}）",
        draws=CHART),
    "kv_why_q_title": S(
        en="Why Q is not cached",
        zh="为什么不缓存 Q"),
    "kv_why_q": S(
        en=("Row t of S is softmax(qₜKᵀ/√dₖ) and "
            "row t of H is that row times V. Only qₜ appears; q₁, …, qₜ₋₁ "
            "were used for their own rows, which are finished. K and V, in contrast, "
            "are read again by every later token."),
        zh=("S 的第 t 行是 softmax(qₜKᵀ/√dₖ)，H "
            "的第 t 行是这一行乘以 V。式子里只出现 qₜ；q₁, …, qₜ₋₁ 已经在算它们各自那一行时用过，"
            "那些行也早已算完。K 和 V 则不同，之后的每个词元都要再读一遍。")),
    "kv_proof_title": S(
        en="Checked live on these numbers",
        zh="用这些数字现场验证"),
    "kv_proof_what": S(
        en="what is compared",
        zh="比较的内容"),
    "kv_proof_delta": S(
        en="max |Δ|",
        zh="最大 |Δ|"),
    "kv_proof_prefix": S(
        en="{rows} of Y before X{t} arrived vs. after (full recompute)",
        zh="X{t} 到来之前与之后（整体重算）Y 的{rows}"),
    "kv_proof_last": S(
        en="Y{t} from the cache vs. the last row of a full recompute",
        zh="用缓存算出的 Y{t} 与整体重算的最后一行"),
    "kv_proof_s": S(
        en="S row {t} from the cache vs. the last row of the full S (every head)",
        zh="用缓存算出的 S 第 {t} 行与完整 S 的最后一行（所有头）"),
    "kv_exact": S(
        en="0\u00a0—\u00a0exactly",  # one piece: a phone's narrow table broke it "0 — / exactly" (audit 12-07 #12)
        zh="0——完全相同"),
    "kv_rounding": S(  # a recompute in another order of sums: the last bits differ
        en="{value} — float rounding",
        zh="{value}——浮点舍入误差"),
    "kv_dropped_rows": S(
        en=r"Added tokens no longer fit $d_{{\text{{model}}}} = {d}$ and were removed.",
        zh=r"追加词元的行宽与 $d_{{\text{{model}}}} = {d}$ 不再相符，已被移除。"),
    "kv_add_word": S(
        en="Add the next token, X{t}",
        zh="追加下一个词元 X{t}"),
    "kv_next_word_greedy": S(
        en=("The model's next token is “{token}” (probability {p}; greedy, as on the next-token stage), decoded through "
            "the model's KV cache, layer by layer. Adding it appends it to the text: the same act as appending it on the "
            "next-token stage."),
        zh=("模型选出的下一个词元是“{token}”（概率 {p}；贪心选择，与“下一个词元”这一步相同），由模型每一层的 KV 缓存"
            "逐层解码得到。追加它就是把它接到文本末尾，与在“下一个词元”这一步追加是同一件事。")),
    "kv_next_word_sample": S(
        en=("The model's next token is “{token}” (probability {p}; sampled with the seed at temperature {temperature}, "
            "as on the next-token stage), decoded through the model's KV cache, layer by layer. Adding it appends it to "
            "the text: the same act as appending it on the next-token stage."),
        zh=("模型选出的下一个词元是“{token}”（概率 {p}；在温度 {temperature} 下按种子采样，与“下一个词元”这一步相同），"
            "由模型每一层的 KV 缓存逐层解码得到。追加它就是把它接到文本末尾，与在“下一个词元”这一步追加是同一件事。")),
    "kv_hint_word": S(
        en="The chart replays the step in which the text's last token, X{t} “{token}”, entered the cache.",
        zh="图中演示的是文本的最后一个词元 X{t}“{token}”进入缓存的那一步。"),
    "kv_tex_cached": S(
        en=r"\text{{cached}}",
        zh=r"\text{{用缓存}}",
        draws=TEX),
    "kv_tex_recompute": S(
        en=r"\text{{recompute}}",
        zh=r"\text{{重算}}",
        draws=TEX),
}
