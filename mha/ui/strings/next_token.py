"""The coda's last stage: logits, temperature, the next token chosen and appended."""

from .entry import CHART, S

STRINGS = {
    "next_token_title": S(
        en="From the last row to the next token",
        zh="从最后一行到下一个词元"),
    "next_token_text": S(
        en=("After the last block, a final layer norm, then each row is compared with every row of E by a dot "
            "product: the logits, one score per vocabulary entry. Divide the last row by a temperature T and take "
            "its softmax: that is the distribution of the next token."),
        zh=("最后一个块之后，先做一次层归一化，再让每一行与 E 的每一行做内积：这就是 $\\mathrm{{logits}}$，词表中每一项一个分数。"
            "最后一行除以温度 T 再做 softmax，就是下一个词元的概率分布。")),
    "next_example": S(
        en="No text yet: this stage runs the walk's X ({n} rows, as the sidebar says) through the block and scores it against the {vocab} words of the example “{example}”. These rows are not words yet, so the choice has no text to join: type a text on the tokens stage, or take the example's.",
        zh="还没有文本：这一步把前面各步用的 X（{n} 行，和侧边栏一致）送进这个块，再给例子“{example}”里的 {vocab} 个词逐一打分。这些行还不是词，选出的词也就没有文本可接：在“文本 → 词元 → X”这一步输入你自己的文本，或者直接采用例子。"),
    "next_tied": S(
        en="E is used twice (tied weights, as in GPT-2): to look tokens up, and transposed to score the {vocab} vocabulary entries.",
        zh="E 用了两次（权重共享，和 GPT-2 一样）：查出词元的向量，以及转置后给词表中 {vocab} 项打分。"),
    "next_order": S(
        en="The blocks here are in GPT-2's order (pre-LN, the previous stage's second choice), and GPT-2's final norm $\\mathrm{{LN}}_f$ follows the last one; the original GPT of the post's figure normalises after each sum instead, and has no final norm.",
        zh="这里的块按 GPT-2 的顺序排列（前置层归一化，即上一步的第二个选项），最后一个块之后再做 GPT-2 的最终层归一化 $\\mathrm{{LN}}_f$；原文结尾那张图里最初的 GPT 则是在每次相加之后归一化，也没有最终的 $\\mathrm{{LN}}_f$。"),
    "next_order_chosen": S(
        en=("Stage {block} shows the post's order (post-LN) now; this model keeps GPT-2's, so its block is not the one "
            "drawn there."),
        zh="第 {block} 步现在显示的是原文的顺序（后置层归一化）；这里的模型固定用 GPT-2 的顺序，所以它的块和那一步画出的不是同一个。"),
    "next_order_see": S(
        en="See stage {block} in GPT-2's order",
        zh="在第 {block} 步改看 GPT-2 的顺序"),
    "temperature": S(
        en="Temperature T",
        zh="温度 T"),
    "temperature_help": S(
        en="Below 1 sharpens the distribution, above 1 flattens it.",
        zh="小于 1 让分布更尖锐，大于 1 让分布更平缓。"),
    "choice": S(
        en="Choice",
        zh="选择方式"),
    "choice_greedy": S(
        en="Greedy (most likely)",
        zh="贪心（概率最大）"),
    "choice_sample": S(
        en="Sampled (seeded)",
        zh="随机采样（固定种子）"),
    "next_probs_title": S(
        en="Next-token probabilities after token {i}",
        zh="第 {i} 个词元之后，下一个词元的概率",
        draws=CHART),
    "next_chosen_greedy": S(
        en="Greedy choice: “{token}” (id {id}), probability {p}.",
        zh="贪心选择：“{token}”（编号 {id}），概率 {p}。"),
    "next_chosen_sample": S(
        en="Sampled with the seed: “{token}” (id {id}), probability {p}.",
        zh="按种子采样得到：“{token}”（编号 {id}），概率 {p}。"),
    "next_use_example": S(
        en="Use the example as the text",
        zh="把例子用作文本"),
    "append_token": S(
        en="Append it to the text",
        zh="把它追加到文本末尾"),
    "next_full": S(
        en="The text holds {most} tokens, the most this demo takes.",
        zh="文本已有 {most} 个词元，达到本演示的上限。"),
    "next_untrained": S(
        en="These weights are random, not trained: the choice shows the mechanics, not a sensible sentence.",
        zh="这些权重是随机的，没有训练过：这里展示的是计算过程，而不是通顺的句子。"),
}
