"""The lab's online softmax: one key at a time, a running maximum and sum."""

from .entry import CHART, MD, S

STRINGS = {
    "lab_online_text": S(
        en=("FlashAttention never writes down the n×n scores. The keys arrive in tiles of B, and each query row keeps "
            "three things while they do: m, the largest score it has seen; ℓ, the sum of exp(score − m) over the keys "
            "seen; and acc, the same weights times the value rows. When a tile brings a larger score, m moves up and "
            "the ℓ and acc held so far are multiplied by r = exp(old m − new m), so every term reads as if the final "
            "max had been known from the start. After the last tile, out = acc / ℓ. Here on head {h}'s numbers."),
        zh=("FlashAttention 从不把完整的 n×n 分数矩阵存下来。键按每块 B 个分块到来，每个查询行在此期间只记三样东西：m，它见过的最大分数；ℓ，已见过的键的 exp(分数 − m) 之和；累加"
            "器，同样的权重乘以值的各行。某一块带来更大的分数时，m 随之上升，之前记下的 ℓ 和累加器都乘以 r = exp(旧 m − 新 m)，于是每一项都像是一开始就知道最终的最大值一样。最后一块读完后，输"
            "出 = 累加器 / ℓ。这里用的是第 {h} 个头的数。")),
    "lab_online_tile": S(
        en="Keys per tile B",
        zh="每块的键数 B"),
    "lab_online_tile_kept": S(
        en="A tile of B = {asked} keys is longer than the {n} tokens here, so the page uses B = {n}: one tile holds them all.",
        zh="这里只有 {n} 个词元，装不满 B = {asked} 个键的一块，所以页面用 B = {n}：一块就装下全部。"),
    "lab_online_rules": S(
        en=("What a tile of keys j does to row i, with $s_{{ij}} = q_i \\cdot k_j / \\sqrt{{d_k}}$ "
            "(a masked key, $j > i$, adds nothing):"),
        zh=("一块键 j 对第 i 行做的事，其中 $s_{{ij}} = q_i \\cdot k_j / \\sqrt{{d_k}}$"
            "（被遮住的键，$j > i$，什么也不加）：")),
    "lab_online_play_hint": S(
        en=("Play, or step the slider: one frame a tile ({tiles} of them with B = {b}), then the "
            "division. The figure rests on the last frame."),
        zh=("点播放，或拖动滑块：每块一帧（B = {b} 时共 {tiles} 块），最后一帧做除法。"
            "图停在最后一帧。")),
    "lab_online_click_hint": S(
        en="Click a cell of out to see how it came to be: acc over ℓ, and its row tile by tile.",
        zh="点击输出的某一格，看看它是怎么来的：累加器除以 ℓ，以及这一行逐块累加的过程。"),
    "lab_online_rows_drawn": S(
        en=("The figure draws the first {rows} tokens and keys and the first {cols} columns of acc "
            "and out; the check covers all of them."),
        zh="图里画出前 {rows} 个词元和键，以及累加器和输出的前 {cols} 列；验证覆盖全部。"),
    "lab_online_memory": S(
        en=("While a tile is read: its scores $n B$ = {tile}, m and ℓ $2n$ = {two}, acc "
            "$n\\,d_v$ = {acc}: {held} numbers. The scores S alone would take n² = {s}. The tile grows "
            "with $n B$ and acc with $n\\,d_v$, while S grows with n²: at n = {big} and the same B, "
            "{big_held} against {big_s}."),
        zh=("读一块时：这一块的分数 $n B$ = {tile}，m 和 ℓ 共 $2n$ = {two}，"
            "累加器 $n\\,d_v$ = {acc}：共 {held} 个数。单是分数矩阵 S 就要 n² = {s} 个。"
            "分块随 $n B$ 增长，累加器随 $n\\,d_v$ 增长，而 S 随 n² 增长：n = {big}、B 不变时，"
            "是 {big_held} 对 {big_s}。")),
    "lab_online_check_title": S(
        en=("Computed now: out against H = S·V of head {h} from the walk, for every "
            "tile size."),
        zh=("现场计算：对每种块大小，把输出与这一步之前算出的第 {h} 个头的 "
            "H = S·V 比较。")),
    "lab_online_check_b": S(
        en="keys per tile B",
        zh="每块的键数 B"),
    "lab_online_check_tiles": S(
        en="tiles",
        zh="块数"),
    "lab_online_check_delta": S(
        en="largest |out − H|",
        zh="最大的 |输出 − H|"),
    "lab_online_check_frames": S(
        en=("Every frame's m and ℓ against a plain loop over the keys: largest difference "
            "{frames}. The animation's last frame against H: {last}."),
        zh="每一帧的 m 和 ℓ 与逐个键的普通循环相比：最大差 {frames}。动画的最后一帧与 H 相比：{last}。"),
    "lab_online_cell": S(
        en="out[{i}, {j}], as the last frame shows it: row {i}'s accumulator over its sum.",
        zh="输出[{i}, {j}]，即最后一帧所示：第 {i} 行的累加器除以它的和。"),
    "lab_online_cell_frame": S(
        en="You clicked on frame {k} of {count}.",
        zh="你点击时在第 {k} 帧（共 {count} 帧）。"),
    "lab_online_cell_h": S(
        en="The walk's H[{i}, {j}] = {h}: a difference of {delta}.",
        zh="之前算出的 H[{i}, {j}] = {h}：相差 {delta}。"),
    "lab_online_history": S(
        en=("How row {i} got there, tile by tile (r rescales what was held; a row sees keys 1 to {i} "
            "only):"),
        zh="第 {i} 行是一块一块怎么走到这里的（r 缩放之前记下的值；这一行只看得见键 1 到 {i}）："),
    "lab_online_hist_tile": S(
        en="tile",
        zh="块"),
    "lab_online_hist_keys": S(
        en="keys",
        zh="键"),
    "lab_online_hist_nothing": S(
        en="nothing visible yet",
        zh="还没有看得见的键"),
    "lab_online_out_name": S(
        en="out = acc / ℓ",
        zh="输出 = 累加器 / ℓ"),
    "lab_online_product_name": S(
        en="acc = P·V",
        zh="累加器 = P·V"),
    "lab_online_product": S(
        en=("What the tiles add up to: acc = P·V, where P holds exp(s − m) with each row's final m "
            "(0 where masked). FlashAttention never forms P; it is here to check acc and to click."),
        zh=("各块加起来是什么：累加器 = P·V，P 里是 exp(s − m)，m 取每行最终的值（被遮住处为 0）。"
            "FlashAttention 从不构造 P；这里放出来只为核对累加器，也可以点击。")),
    "lab_online_fig_key": S(
        en="key {a}",
        zh="键 {a}",
        draws=MD | CHART),
    "lab_online_fig_keys": S(
        en="keys {a} to {b}",
        zh="键 {a} 到 {b}",
        draws=MD | CHART),
    "lab_online_fig_s": S(
        en="scores of the tile · {keys}",
        zh="这一块的分数 · {keys}",
        draws=CHART),
    "lab_online_fig_s_none": S(
        en="no tile held",
        zh="没有在读的块",
        draws=CHART),
    "lab_online_fig_scores": S(
        en="score",
        zh="分数",
        draws=CHART),
    "lab_online_fig_acc": S(
        en="acc",
        zh="累加器",
        draws=MD | CHART),
    "lab_online_fig_out": S(
        en="out = acc / ℓ",
        zh="输出 = 累加器 / ℓ",
        draws=CHART),
    "lab_online_fig_out_name": S(
        en="out",
        zh="输出",
        draws=CHART),
    "lab_online_fig_first": S(
        en=("Tile 1 of {count}: {keys}. Each row's m is its largest visible score, ℓ the sum of "
            "exp(score − m), acc those weights times the value rows. A row with no visible key "
            "yet stays empty."),
        zh=("第 1 块（共 {count} 块）：{keys}。每行的 m 是它看得见的最大分数，ℓ 是 exp(分数 − m) 之和，"
            "累加器是这些权重乘以值的各行。还没有看得见的键的行留空。"),
        draws=CHART),
    "lab_online_fig_tile": S(
        en=("Tile {k} of {count}: {keys}. Where a score beats m, m rises and r = exp(old m − new m) "
            "shrinks the ℓ and acc held; r = 1 where m stayed. Then the tile's terms are added."),
        zh=("第 {k} 块（共 {count} 块）：{keys}。某个分数超过 m 时，m 上升，r = exp(旧 m − 新 m) "
            "缩小之前记下的 ℓ 和累加器；m 不变处 r = 1。然后加上这一块的各项。"),
        draws=CHART),
    "lab_online_fig_done": S(
        en=("After the last tile: out = acc / ℓ, row by row. It equals H = S·V of head {h}, and S "
            "was never stored."),
        zh="最后一块之后：输出 = 累加器 / ℓ，一行一行地算。它等于第 {h} 个头的 H = S·V，而 S 从未被存下。",
        draws=CHART),
    "lab_online_fig_step_out": S(
        en="out",
        zh="输出",
        draws=CHART),
    "lab_online_fig_held": S(
        en="Held now: {tile} scores, {two} for m and ℓ, {acc} in acc: {held} numbers; S would be {s}.",
        zh="此刻存着：{tile} 个分数，m 和 ℓ 共 {two} 个，累加器 {acc} 个：共 {held} 个数；S 要 {s} 个。",
        draws=CHART),
}
