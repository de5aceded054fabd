"""The coda's first stage: a text split into tokens, their ids, and the positions added to X."""

from .entry import CHART, S

STRINGS = {
    "tokens_x_trained": S(
        en=("This X is the letters' embeddings plus their positions. With the trained model the next stages do not "
            "take it as it is: their X is what layer {layer}'s attention reads, $\\mathrm{{LN}}_1$ of the residual "
            "stream at that layer (at layer 1, $\\mathrm{{LN}}_1$ of this X)."),
        zh=("这里的 X 是字母的嵌入加上位置编码。使用训练过的模型时，后面各步的 X 不是它本身，而是第 {layer} 层注意力读到的输入："
            "该层残差流经过 $\\mathrm{{LN}}_1$ 之后的结果（在第 1 层，就是这个 X 经过 $\\mathrm{{LN}}_1$）。")),
    "d_ff": S(
        en="FFN hidden size $d_{{ff}}$",
        zh="前馈网络隐藏维度 $d_{{ff}}$"),
    "d_ff_help": S(
        en="Width of the block's feed-forward network (GPT-2 uses four times the embedding size).",
        zh="块中前馈网络隐藏层的单元数（GPT-2 取嵌入维度的四倍）。"),
    "n_tokens_from_text": S(
        en="Set by the text on the tokens stage: one row of X per token.",
        zh="由“文本 → 词元 → X”这一步里的文本决定：每个词元对应 X 的一行。"),
    "notice_not_number": S(
        en="Link parameter {key}={value} is not a number; the default was used.",
        zh="链接参数 {key}={value} 不是数字，已改用默认值。"),
    "notice_text_capped": S(
        en="The text was cut after its first {most} tokens (or {chars} characters), the most this demo takes.",
        zh="文本只保留了前 {most} 个词元（或前 {chars} 个字符），这是本演示的上限。"),
    "tokens_title": S(
        en="From text to X: tokens, embeddings, positions",
        zh="从文本到 X：词元、嵌入、位置编码"),
    "tokens_text": S(
        en=("Where do the rows of X come from? The text is cut into tokens, each token has an id, and the id picks "
            "a row of the embedding matrix E. Add a position vector to each row and you have X. Type a text: every "
            "later stage then starts from it, with one row per token."),
        zh=("X 的每一行从哪里来？先把文本切成词元，每个词元有一个编号，编号选出嵌入矩阵 E 的一行；"
            "再给每一行加上位置编码，就得到 X。输入一段文本：后面的每一步都从它开始，每个词元一行。")),
    "tokens_box": S(
        en="Your text",
        zh="你的文本"),
    "tokens_box_help": S(
        en="Words, punctuation marks and emoji are one token each; Chinese is cut into characters. At most {most} tokens.",
        zh="每个词、标点和表情各算一个词元；中文按字切分。最多 {most} 个词元。"),
    "tokens_example": S(
        en="No text yet, so here is an example: “{example}”. The walk keeps its seeded X until you type a text or take this one.",
        zh="还没有文本，这里先用一个例子：“{example}”。在你输入文本或采用这个例子之前，后面各步仍使用随机种子生成的 X。"),
    "tokens_use_example": S(
        en="Use this text",
        zh="采用这段文本"),
    "tokens_count": S(
        en="{n} tokens, {vocab} distinct: the vocabulary has {vocab} entries, so E has {vocab} rows.",
        zh="共 {n} 个词元，其中 {vocab} 个互不相同：词表有 {vocab} 项，所以 E 有 {vocab} 行。"),
    "tokens_count_trained": S(
        en=("{n} tokens, {distinct} distinct; the trained model's vocabulary has {vocab} letters, so E "
            "has {vocab} rows."),
        zh="共 {n} 个词元，其中 {distinct} 个互不相同；训练过的模型词表有 {vocab} 个字母，所以 E 有 {vocab} 行。"),
    "token_id": S(
        en="token id",
        zh="词元编号",
        draws=CHART),
    "positions": S(
        en="Position vectors P",
        zh="位置编码 P"),
    "positions_sinusoidal": S(
        en="Sinusoidal",
        zh="正弦"),
    "positions_learned": S(
        en="Learned",
        zh="可学习"),
    "positions_odd": S(
        en=("d = {d} is odd: column 2i takes a sine, column 2i + 1 the cosine of the same frequency, so the last "
            "column has no cosine partner. Count frequencies by column, i = j // 2, not d/2 of each, or the shapes "
            "stop matching."),
        zh=("d = {d} 是奇数：第 2i 列取正弦，第 2i + 1 列取同一频率的余弦，"
            "所以最后一列没有配对的余弦。频率要按列来算，i = j // 2，而不是正弦、余弦各取 d/2 个，否则形状对不上。")),
    "positions_even": S(
        en=("d = {d} is even, so sines and cosines pair up. With an odd width the last column, 2i, would have no "
            "cosine partner, which is why the code counts frequencies by column."),
        zh=("d = {d} 是偶数，正弦和余弦正好成对。若 d 是奇数，最后的第 2i 列就没有配对的余弦，"
            "所以代码按列计算频率。")),
    "positions_trained_note": S(
        en="These are the positions the trained model learned: one row per position, up to {most}, trained with the rest of its weights.",
        zh="这些是训练过的模型学到的位置编码：每个位置一行，最多 {most} 个位置，和其余权重一起训练出来。"),
    "positions_learned_note": S(
        en="Learned positions are a table of one trained row per position (here drawn at random, untrained, like GPT-2's before training).",
        zh="可学习的位置编码是一张表，每个位置一行，随模型一起训练（这里还没训练，是随机生成的，就像训练前的 GPT-2）。"),
    "tokens_x_used": S(
        en="Every stage now starts from this X (n = {n}).",
        zh="现在后面的每一步都从这个 X 开始（n = {n}）。"),
    "tokens_x_edited": S(
        en="You edited X on the input stage: the walk uses your edited X, not this one. Reset X there to use the text's X again.",
        zh="你在“输入 X”这一步改过 X：各步用的是你改过的 X，而不是这个。到那一步重置 X，就会重新使用由文本生成的 X。"),
    "tokens_x_not_used": S(
        en="The example is only shown here: the walk uses the seeded X.",
        zh="这个例子只在这里展示：各步仍使用随机种子生成的 X。"),
    "input_from_text": S(
        en="X is made from your text (n = {n} tokens, on the tokens stage). Editing a cell here overrides it.",
        zh="X 由你的文本生成（n = {n} 个词元，见“文本 → 词元 → X”这一步）。在这里修改任意一格都会覆盖它。"),
    "input_text_edited": S(
        en="Your edits override the X made from the text; reset X to go back to the text's X.",
        zh="你的修改覆盖了由文本生成的 X；重置 X 即可回到文本的 X。"),
}
