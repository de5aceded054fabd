"""The heads stage's parts with the trained model: knock-outs, what each head writes, its circuits."""

from .entry import CHART, S

STRINGS = {
    "heads_offer": S(
        en=("Knocking heads out, what each head writes and its circuits need weights that learned something: "
            "they are on this stage with the trained model."),
        zh="敲掉注意力头、看每个头写了什么、读它的回路，都需要真正学到了东西的权重：换成训练过的模型，这一步就会出现这些部分。"),
    "heads_offer_button": S(
        en="Use the trained model",
        zh="换成训练过的模型"),
    "heads_part": S(
        en="Part of the stage",
        zh="这一步的哪一部分"),
    "heads_part_patterns": S(
        en="Where each head looks",
        zh="每个头看哪里"),
    "heads_part_knock": S(
        en="Knock heads out",
        zh="敲掉注意力头"),
    "heads_part_writes": S(
        en="What each head writes",
        zh="每个头写了什么"),
    "heads_part_circuits": S(
        en="Circuits",
        zh="回路"),
    "heads_part_timeline": S(
        en="Training",
        zh="训练过程"),
    "knock_head": S(
        en="head {name}: {role}",
        zh="头 {name}：{role}"),
    "knock_role_previous": S(
        en="previous-token",
        zh="前一词元头"),
    "knock_role_induction": S(
        en="induction",
        zh="归纳头"),
    "knock_role_none": S(
        en="no named role",
        zh="没有明确角色"),
    "knock_pick": S(
        en="Heads to knock out (layer.head)",
        zh="要敲掉的头（层.头）"),
    "knock_intro": S(
        en=("A head's pattern tells where it reads from, not what the model needs it for. To find out, knock it "
            "out: its output is set to zero before $W_O$, so it adds nothing to the residual stream, while its "
            "pattern stays as it was. Pick any heads above; the scores and predictions follow them."),
        zh=("一个头的注意力模式只说明它从哪里读，不说明模型靠它做什么。要知道这一点，就把它敲掉：在乘 $W_O$ "
            "之前把它的输出置零，它就不再往残差流里加任何东西，而它的注意力模式保持不变。在上面任选几个头，分数和预测都会随之改变。")),
    "knock_set": S(
        en=("Measured on a held-out set: {count} sequences of the task the model learned (4 to 8 random "
            "letters, then the same letters again), drawn with seed {seed}, none of them seen in training. "
            "Accuracy counts the second copy's letters after its first, predicted greedily."),
        zh=("测量用的是一组留出的序列：{count} 条序列，都是模型学过的那种任务（4 到 8 个随机字母，再把这些字母重复一遍），用种子 {seed} 抽取，训练时一条也没见过。准确率只统计第二遍中第一个字母"
            "之后的各个字母，每处取概率最大的猜测。")),
    "knock_none": S(
        en="No head is knocked out yet: this is the whole model.",
        zh="还没有敲掉任何头：这是完整的模型。"),
    "knock_col_acc": S(
        en="accuracy on the second copy",
        zh="第二遍的准确率"),
    "knock_col_loss": S(
        en="loss (nats)",
        zh="损失（奈特）"),
    "knock_row_all": S(
        en="every head",
        zh="所有头都在"),
    "knock_row_without": S(
        en="without {names}",
        zh="敲掉 {names}"),
    "knock_row_chance": S(
        en="guessing (1 of {v} letters)",
        zh="随机猜（{v} 个字母选一个）"),
    "knock_them_one": S(
        en="this head",
        zh="这个头"),
    "knock_them_many": S(
        en="these heads",
        zh="这些头"),
    "knock_needs_chance": S(
        en=("Without {names} the model copies {after} of the letters, about what guessing gets ({chance}); with "
            "them, {before}. It cannot copy without {them}."),
        zh="敲掉 {names} 后，模型只抄对 {after} 的字母，和随机猜（{chance}）差不多；有它们时是 {before}。没有{them}，模型就不会抄了。"),
    "knock_needs": S(
        en=("Without {names} accuracy falls from {before} to {after}, {drop} points: the model needs {them}, "
            "though it still copies some letters without."),
        zh="敲掉 {names} 后，准确率从 {before} 降到 {after}，少了 {drop} 个百分点：模型离不开{them}，只是没有也还能抄对一部分。"),
    "knock_leans": S(
        en=("Without {names} accuracy falls from {before} to {after}, {drop} points: the model leans on {them}, "
            "and other heads make up for part of what was lost."),
        zh="敲掉 {names} 后，准确率从 {before} 降到 {after}，少了 {drop} 个百分点：模型倚重{them}，其他头能补回一部分损失。"),
    "knock_barely": S(
        en=("Without {names} accuracy moves from {before} to {after}, {drop} points: the model barely needs "
            "{them} here; others do the job."),
        zh="敲掉 {names} 后，准确率从 {before} 变为 {after}，变化 {drop} 个百分点：在这里模型几乎用不着{them}，别的头在做这件事。"),
    "knock_next_all": S(
        en="After your whole sequence the model's next letter is {letter} (probability {p}).",
        zh="读完整条序列后，模型猜下一个字母是 {letter}（概率 {p}）。"),
    "knock_next": S(
        en=("After your whole sequence the model's next letter is {letter} (probability {p}) with every head, "
            "and {after} (probability {q}) without {names}."),
        zh="读完整条序列后，所有头都在时模型猜下一个字母是 {letter}（概率 {p}）；敲掉 {names} 后猜 {after}（概率 {q}）。"),
    "knock_seq_title": S(
        en="Your sequence, position by position",
        zh="你的序列，逐个位置"),
    "knock_seq_text": S(
        en="each column: a letter, the letter that really comes next, and the model's guess for it.",
        zh="每一列：一个字母、真正跟在它后面的字母，以及模型对它的猜测。"),
    "knock_seq_changed": S(
        en=("each column: a letter, the letter that really comes next, and the model's guess with every head "
            "and without the knocked heads; {changed} of {n} guesses change (in bold)."),
        zh="每一列：一个字母、真正跟在它后面的字母，以及所有头都在时和敲掉这些头后模型的猜测；{n} 个猜测里有 {changed} 个变了（加粗）。"),
    "knock_composed_title": S(
        en="Layer {layer}'s patterns, heads knocked out",
        zh="敲掉后第 {layer} 层的注意力模式"),
    "knock_composed": S(
        en=("Without {names}, layer {layer}'s heads keep their own weights, yet their queries and keys read "
            "a residual stream that no longer holds what the knocked heads wrote, so where they look "
            "changes too (below: each head with every head in place, and with the knocked ones out). Induction score on your sequence, with every head and without: "
            "{scores}."),
        zh=("敲掉 {names} 后，第 {layer} 层的头自己的权重没变，但它们的查询和键读的是残差流，而残差流里已经没有"
            "被敲掉的头写下的内容，所以它们看的地方也变了（见下图：每个头在所有头都在时与敲掉之后的样子）。你的序列上的归纳分数，所有头都在时与敲掉后："
            "{scores}。")),
    "knock_composed_head": S(
        en="head {name} {before} → {after}",
        zh="头 {name}：{before} → {after}"),
    "heads_colour_only": S(
        en=("Too many tokens for numbers in cells this small: each weight is its colour, on the key at the right. "
            "Hover over a cell, or tap it, for its value."),
        zh="词元太多，格子小得写不下数字：每个权重用颜色表示，对照右边的色标。把鼠标移到格子上或点一下，就能看到数值。"),
    "knock_s_before": S(
        en="every head",
        zh="所有头都在",
        draws=CHART),
    "knock_s_after": S(
        en="heads knocked out",
        zh="敲掉之后",
        draws=CHART),
    "knock_composed_no_repeat": S(
        en=("No letter of your sequence repeats yet, so there is no induction score to compare; "
            "the patterns are drawn below."),
        zh="你的序列里还没有字母重复，没有归纳分数可比；注意力模式画在下面。"),
    "knock_seq_pos": S(
        en="position",
        zh="位置"),
    "knock_seq_letter": S(
        en="letter",
        zh="字母"),
    "knock_seq_next": S(
        en="next letter",
        zh="下一个字母"),
    "knock_seq_all": S(
        en="guess, every head",
        zh="猜测（所有头）"),
    "knock_seq_without": S(
        en="guess, heads knocked out",
        zh="猜测（敲掉后）"),
    "writes_head": S(
        en="Head",
        zh="注意力头"),
    "writes_pos": S(
        en="Position for the sum",
        zh="逐项拆开哪个位置的 logit"),
    "writes_figure": S(
        en="head {name}'s direct effect on the logits",
        zh="头 {name} 对 logit 的直接作用",
        draws=CHART),
    "writes_letter": S(
        en="letter",
        zh="字母",
        draws=CHART),
    "writes_text": S(
        en=("Row $i$, column $b$: how much head {name}'s output at position $i$ raises (red) or lowers (blue) "
            "the logit of letter $b$, going straight through $W_O$ and the final layer norm, with that norm's "
            "scale taken from the whole residual stream at the row. Effects through later layers are not in it. "
            "A dotted box marks, in each row whose letter came earlier, the letter that followed that earlier "
            "copy."),
        zh=("第 $i$ 行、第 $b$ 列：头 {name} 在位置 $i$ 的输出直接经过 $W_O$ 和最终层归一化，把字母 $b$ "
            "的 logit 抬高（红）或压低（蓝）多少；层归一化的缩放取自该行完整的残差流。经由后面各层的间接作用不算在内。"
            "虚线框标出的是：在字母此前出现过的行里，上一次出现时紧跟其后的那个字母。")),
    "writes_whole": S(
        en=("Heads knocked out on the knock-out part ({names}) are not knocked out here: this is the whole "
            "model."),
        zh="在“敲掉注意力头”那一部分敲掉的头（{names}）在这里没有敲掉：这里是完整的模型。"),
    "writes_no_repeat": S(
        en="No letter of your sequence has come before yet, so there is no earlier copy to follow.",
        zh="你的序列里还没有哪个字母出现第二次，所以没有“上一次出现”可以参照。"),
    "writes_copies": S(
        en=("At the {rows} positions whose letter came earlier, head {name} pushes hardest for the letter that "
            "followed that earlier copy at {hits} of {rows}."),
        zh="在字母此前出现过的 {rows} 个位置上，头 {name} 有 {hits} 次最用力推高的，正是上一次出现时紧跟其后的字母。"),
    "writes_sum_title": S(
        en="Position {pos} (letter {token}): the logit of {letter}, the model's guess, part by part",
        zh="位置 {pos}（字母 {token}）：模型所猜字母 {letter} 的 logit，逐项拆开"),
    "writes_sum_text": S(
        en=("The residual stream at the top is a sum (the embedding, the positions, every head, every FFN and "
            "the biases), so the logit is a sum of their parts too."),
        zh="顶层的残差流是若干项之和（词嵌入、位置、每个头、每个前馈网络、偏置），所以 logit 也是它们各自贡献之和。"),
    "writes_col_part": S(
        en="part",
        zh="项"),
    "writes_col_logit": S(
        en="adds to the logit of {letter}",
        zh="对 {letter} 的 logit 的贡献"),
    "writes_part_embedding": S(
        en="the letter's embedding $E$",
        zh="字母的嵌入 $E$"),
    "writes_part_positions": S(
        en="the position's row of $P$",
        zh="位置在 $P$ 中的那一行"),
    "writes_part_head": S(
        en="head {name}",
        zh="头 {name}"),
    "writes_part_ffn": S(
        en="FFN of layer {layer}",
        zh="第 {layer} 层的前馈网络"),
    "writes_part_biases": S(
        en="the biases (the FFNs' and the final layer norm's $\\beta$)",
        zh="偏置（前馈网络的偏置和最终层归一化的 $\\beta$）"),
    "writes_total": S(
        en="sum of the parts",
        zh="各项之和"),
    "writes_logit": S(
        en="the logit from the forward pass",
        zh="前向计算得到的 logit"),
    "circuit_head": S(
        en="Head",
        zh="注意力头"),
    "circuit_kind": S(
        en="Circuit",
        zh="回路"),
    "circuit_ov": S(
        en="OV: what it writes",
        zh="OV：它写什么"),
    "circuit_qk": S(
        en="QK: where it looks",
        zh="QK：它看哪里"),
    "circuit_through": S(
        en="Keys made by",
        zh="键由谁产生"),
    "circuit_through_none": S(
        en="the letters themselves",
        zh="字母本身"),
    "circuit_ov_text": S(
        en="Head {name}'s OV circuit: row $a$ is what the head writes when it reads letter $a$, read out as every letter's logit. $\\hat E$ is each letter's row of $E$ as layer norm 1 hands it on (its $\\gamma$, without $\\beta$); $\\Gamma_f$ is the final layer norm's centring and $\\gamma$. In {hits} of {v} rows the diagonal is the row's largest: reading a letter, the head raises that same letter {hits} times in {v}. Click any cell for its dot product.",
        zh="头 {name} 的 OV 回路：第 $a$ 行是这个头读到字母 $a$ 时写下的内容，再读成每个字母的 logit。$\\hat E$ 是 $E$ 的各行经第一个层归一化之后的样子（乘了它的 $\\gamma$，不加 $\\beta$）；$\\Gamma_f$ 是最终层归一化的去均值和 $\\gamma$。{v} 行中有 {hits} 行对角线是该行最大的：读到一个字母，这个头有 {hits} 次抬高的正是同一个字母。点任意一格可看它的内积。"),
    "circuit_qk_text": S(
        en="Head {name}'s QK circuit: row $a$, column $b$ is the score a query on letter $a$ gives a key on letter $b$ ($\\hat E$: the letters' rows of $E$ as layer norm 1 hands them on). The diagonal is the row's largest in {hits} of {v} rows: this is how much the head looks for its own letter. Click any cell for its dot product.",
        zh="头 {name} 的 QK 回路：第 $a$ 行、第 $b$ 列是字母 $a$ 上的查询给字母 $b$ 上的键打的分（$\\hat E$：$E$ 的各行经第一个层归一化之后的样子）。{v} 行中有 {hits} 行对角线是该行最大的：这就是这个头有多想找它自己的字母。点任意一格可看它的内积。"),
    "circuit_qk_through_text": S(
        en="Head {name}'s QK circuit with its keys made by head {through}: at a position whose previous letter was $b$, head {through} has written about $b$ into the stream ($\\hat O_{{{through}}}$, row $b$: what it writes, centred and scaled as layer norm 1 hands it on), and this is the score a query on letter $a$ gives that key. The diagonal is the row's largest in {hits} of {v} rows: the query on $a$ looks for the position right after an earlier $a$, the letter an induction head then copies. Click any cell for its dot product.",
        zh="头 {name} 的 QK 回路，键由头 {through} 产生：在前一个字母是 $b$ 的位置上，头 {through} 已经把关于 $b$ 的信息写进了残差流（$\\hat O_{{{through}}}$ 的第 $b$ 行：它写下的内容，按第一个层归一化的方式去均值并缩放），这里是字母 $a$ 上的查询给这个键打的分。{v} 行中有 {hits} 行对角线是该行最大的：字母 $a$ 上的查询去找紧跟在更早的 $a$ 后面的位置，归纳头随后抄的就是那里的字母。点任意一格可看它的内积。"),
    "timeline_acc": S(
        en="accuracy, every head",
        zh="准确率（所有头）",
        draws=CHART),
    "timeline_acc_knocked": S(
        en="accuracy without layer {layer}'s heads",
        zh="准确率（敲掉第 {layer} 层的头）",
        draws=CHART),
    "timeline_induction": S(
        en="best induction score in layer {layer}",
        zh="第 {layer} 层最高的归纳分数",
        draws=CHART),
    "timeline_y_acc": S(
        en="share (0 to 1)",
        zh="比例（0 到 1）",
        draws=CHART),
    "timeline_knock_at": S(
        en=("At step {step}, on {count} of those sequences: accuracy {acc} with every head, {without} without "
            "layer {layer}'s heads, a gap of {gap} points; the best induction score in layer {layer} is {ind}. "
            "The gap opens as the induction score rises."),
        zh=("第 {step} 步，在其中 {count} 条序列上：所有头都在时准确率 {acc}，敲掉第 {layer} 层的头后 {without}，相差 {gap} 个百分点；第 {layer} 层最高的归"
            "纳分数是 {ind}。归纳分数上升时，这个差距随之拉开。")),
    "notice_knock_seeded": S(
        en=("Link parameter {key}={value} knocks out heads of the trained model, and this link shows "
            "the seeded weights (it does not choose the trained model); it was left out."),
        zh="链接参数 {key}={value} 敲掉的是训练过的模型里的头，而这个链接显示的是随机权重（没有选训练过的模型），已略去。"),
    "notice_knock": S(
        en=("Link parameter {key}={value} does not name a head of the trained model ({heads}: layer.head); it "
            "was left out."),
        zh="链接参数 {key}={value} 不是训练过的模型里的头（{heads}，写作 层.头），已略去。"),
}
