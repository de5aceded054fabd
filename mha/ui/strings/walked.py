"""The walk run on a GPT-2 checkpoint's layer (`model=checkpoint`, issue 45): the weights' name, its sizes, the layer,
what each stage's X and block are, and the biases GPT-2 adds after its products."""

from .entry import S

STRINGS = {
    "model_checkpoint": S(
        en="Checkpoint",
        zh="检查点"),
    "model_help_checkpoint": S(
        en=("Checkpoint: the GPT-2 chosen on the tokens stage or the heads stage. Every stage then shows one of its "
            "layers, on your text in its own tokens."),
        zh="检查点：在“文本 → 词元 → X”这一步或“所有的头”这一步选中的 GPT-2。之后每一步都展示它的某一层，输入是你的文本按它自己的词表切出的词元。"),
    "layer_help_checkpoint": S(
        en=("Which of {name}'s blocks the walk shows. Layer 1 reads the token embeddings plus positions; each later "
            "layer reads them with what the blocks before it have added."),
        zh="选择各步骤展示 {name} 的哪一层（哪一个块）。第 1 层读入词元嵌入加位置编码；之后每一层还读到它之前各块在此基础上加进来的信息。"),
    "checkpoint_sizes": S(
        en=(r"{name} fixes the sizes: $d_{{\text{{model}}}} = {d_model}$, $d_k = {d_k}$, $d_v = {d_v}$, "
            r"$h = {n_heads}$, $d_{{ff}} = {d_ff}$; n is the number of its tokens in your text."),
        zh=(r"{name} 的维度是固定的：$d_{{\text{{model}}}} = {d_model}$、$d_k = {d_k}$、$d_v = {d_v}$、$h = {n_heads}$、"
            r"$d_{{ff}} = {d_ff}$；n 是你的文本按它的词表切出的词元个数。")),
    "input_checkpoint": S(
        en=("On the checkpoint, this X is the input of layer {layer}'s attention: $\\mathrm{{LN}}_1$ of the residual "
            "stream there, from your {n} tokens. An edited cell replaces it for the stages that follow."),
        zh=("用检查点时，这里的 X 是第 {layer} 层注意力的输入：该层残差流经过 $\\mathrm{{LN}}_1$ 的结果，由你的 {n} 个词元算出。"
            "改动某一格，后面各步就用改过的值。")),
    "tokens_x_checkpoint": S(
        en=("This X is the token embeddings plus the positions GPT-2 learned. The stages after this one start "
            "from layer {layer} instead: $\\mathrm{{LN}}_1$ of the residual stream there (at layer 1, of this X)."),
        zh=("这里的 X 是词元嵌入加上 GPT-2 学到的位置编码。但之后各步不从它开始，而是从第 {layer} 层开始："
            "该层残差流经过 $\\mathrm{{LN}}_1$ 的结果（在第 1 层，就是这个 X 经过 $\\mathrm{{LN}}_1$）。")),
    "positions_checkpoint_note": S(
        en="GPT-2 learned these positions along with its other weights: one row per place, {most} places in all.",
        zh="这些位置编码是 GPT-2 和其他权重一起学出来的：每个位置一行，一共 {most} 个位置。"),
    "block_checkpoint": S(
        en="Layer {layer} of the checkpoint, with its own weights, applied to the residual stream that arrives there.",
        zh="检查点的第 {layer} 层：用它自己的权重，作用在到达这一层的残差流上。"),
    "block_checkpoint_pre": S(
        en=("GPT-2 puts each layer norm before its sublayer (pre-LN) and learned its weights that way, so this "
            "page keeps that order here."),
        zh="GPT-2 把每个层归一化放在子层之前（前置层归一化），权重也是按这个顺序学出来的，所以这里保持这个顺序。"),
    "block_attn_is_y_checkpoint": S(
        en=("Attn is the Y of stages {qk} to {output}: on the checkpoint those stages already start from this "
            "layer's attention input, $\\mathrm{{LN}}_1(X)$ of the stream X arriving here. X added back gives $R_1$."),
        zh=("这里的注意力输出就是第 {qk} 至第 {output} 步的 Y：用检查点时，那几步本来就从这一层注意力的输入算起，"
            "即到达这里的残差流 X 的 $\\mathrm{{LN}}_1(X)$。再加回 X，得到 $R_1$。")),
    "next_checkpoint": S(
        en=("These are the checkpoint's own weights, and its logits come from all its layers, not only the one "
            "the walk shows."),
        zh="这里用的是检查点自己的权重，$\\mathrm{{logits}}$ 由它的所有层一起算出，不只是各步展示的那一层。"),
    "bias_row": S(
        en=("GPT-2 adds a bias after this product: ${c}$ plus the row ${b}$ ({n} numbers, the same for every "
            "token) is ${out}$, which the next stages use."),
        zh="GPT-2 在这个乘积之后还要加偏置：${c}$ 的每一行都加上偏置行 ${b}$（{n} 个数，每个词元都一样），得到 ${out}$，后面各步用的就是它。"),
    "notice_ckpt_walk": S(
        en=("The walk cannot run on checkpoint {name} here (it cannot be opened; the tokens stage says why), so it "
            "runs on seeded weights at the post's sizes."),
        zh="各步无法在检查点 {name} 上运行（打不开它；“文本 → 词元 → X”这一步会说明原因），所以改用原文例子维度的随机权重。"),
    "notice_ckpt_walk_none": S(
        en="The walk cannot run on a checkpoint with none chosen, so it runs on seeded weights at the post's sizes.",
        zh="没有选中检查点，各步无法在检查点上运行，所以改用原文例子维度的随机权重。"),
    "notice_ckpt_no_tokens": S(
        en=("Your text is empty or has nothing in {name}'s vocabulary, so its layers have nothing to read; the "
            "walk runs on seeded weights at the post's sizes."),
        zh="你的文本是空的，或者没有任何字符在 {name} 的词表中，所以它的各层没有东西可读；各步改用原文例子维度的随机权重。"),
    "notice_bpe_merged": S(
        en=("{name}'s BPE joined the new piece to the token before it, so your text is now {n} tokens ending in "
            "{last}. X's rows are no longer those of the text before, so X was computed again."),
        zh="{name} 的 BPE 把新追加的片段和前一个词元合并了，所以你的文本现在是 {n} 个词元，最后一个是 {last}。X 的各行已不再对应原来的文本，所以 X 已重新计算。"),
    "next_partial": S(
        en=("The chosen token {token} is only part of a character's UTF-8 bytes. A text cannot hold part of a "
            "character, so it cannot be appended; sampling at another temperature may choose a whole one."),
        zh="选中的词元 {token} 只是某个字符 UTF-8 编码的一部分字节。文本里不能只放一个字符的一部分，所以无法把它追加到文本末尾；换个温度再采样，可能会选到完整的字符。"),
    "tokens_bpe_title_walked": S(
        en="Your text in {name}'s own tokens (byte-level BPE): one row of X each, on every stage from here on",
        zh="你的文本按 {name} 自己的词元（字节级 BPE）切分：每个词元是 X 的一行，从这一步起每一步都如此"),
    "real_walk": S(
        en="Run every stage on this model",
        zh="让每一步都用这个模型"),
    "real_walk_help": S(
        en=("The walk's stages then show this model's layer on your text (the sidebar chooses the layer, and "
            "switches back to seeded weights)."),
        zh="之后各步展示这个模型在你的文本上的某一层（侧边栏里可以选层，也可以切回随机权重）。"),
}
