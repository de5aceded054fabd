"""A real model's checkpoint (issue 45): its own BPE on the tokens stage, its heads on the heads stage (every head's
pattern a layer at a time, the induction probe's scores, heads knocked out)."""

from .entry import CHART, PLAIN, S

STRINGS = {
    "real_pick": S(
        en="A GPT-2 checkpoint on this server",
        zh="本服务器上的 GPT-2 检查点"),
    "real_pick_help": S(
        en=("Checkpoints in the Hugging Face GPT-2 layout (config.json, model.safetensors and its tokenizer) that "
            "the server lists in {variable}. Nothing is downloaded."),
        zh=("服务器在环境变量 {variable} 中列出的检查点，采用 Hugging Face 的 GPT-2 目录格式（config.json、model.safetensors 和分词器文件）。不会下载任何东西。")),
    "real_none": S(
        en="none",
        zh="不用",
        draws=PLAIN),
    "real_offer": S(
        en="Or look for these roles in a real model's heads:",
        zh="也可以到真实模型的注意力头里找这些角色："),
    "real_upload": S(
        en="Your own GPT-2 checkpoint's files (each at most {mb} MB)",
        zh="你自己的 GPT-2 检查点文件（每个最多 {mb} MB）"),
    "real_upload_help": S(
        en=("The files Hugging Face saves for a GPT-2 ({files}); each at most {mb} MB, this server's limit, so a "
            "small model. It stays with this tab: no link carries it, and nothing is kept once the tab closes."),
        zh=("Hugging Face 为 GPT-2 保存的那几个文件（{files}）；每个文件最多 {mb} MB（本服务器的上限），所以只能是小模型。它只属于这个浏览器标签页：链接里不会带上它，关掉标签页后什么也不保留。")),
    "real_own": S(
        en="your upload",
        zh="你上传的模型"),
    "real_own_plain": S(
        en="your upload",
        zh="你上传的模型",
        draws=PLAIN),
    "real_own_link": S(
        en="Your upload stays with this tab: the page's link cannot carry it.",
        zh="你上传的模型只属于这个浏览器标签页：这里的链接带不上它。"),
    "real_title": S(
        en=(r"{name}: {layers} layers × {heads} heads, $d_{{\text{{model}}}} = {d}$, a vocabulary of {vocab} "
            "tokens, {numbers} numbers ({mb} MB in this process)."),
        zh=(r"{name}：{layers} 层 × 每层 {heads} 个头，$d_{{\text{{model}}}} = {d}$，词表 {vocab} 个词元，"
            "共 {numbers} 个参数（在本进程中占 {mb} MB）。")),
    "real_text": S(
        en=("Your text in {name}'s own tokens: {n} of them{cut}. Hover a cell of a pattern for its two tokens. The "
            "sizes in the sidebar are the walk's, for its other stages; this view has the checkpoint's own."),
        zh=("你的文本按 {name} 自己的词元切分，共 {n} 个{cut}。把鼠标停在注意力图的格子上，可以看到它对应的两个词元。"
            "侧边栏里的维度属于其他各步骤；这里用的是检查点自己的维度。")),
    "real_cut": S(
        en=" (the text has {total}; cut to the first {most}: this page's limit and the model's context)",
        zh="（文本共有 {total} 个，只取前 {most} 个：这是本页面的上限，也受模型上下文长度限制）"),
    "real_no_tokens": S(
        en="None of your text is in {name}'s vocabulary, so there is no pattern to draw; the probe below uses its own.",
        zh="你的文本里没有任何字符在 {name} 的词表中，所以画不出注意力图；下面的测量用的是它自己的词元。"),
    "real_no_tokens_example": S(
        en=("You have typed no text, and the example holds none of {name}'s tokens, so there is no pattern to draw: "
            "type a text it knows at stage {tokens}. The probe below uses its own."),
        zh="你还没有输入文本，而例子里没有任何 {name} 词表中的词元，所以画不出注意力图：请在第 {tokens} 步输入它认识的文本。下面的测量用的是它自己的词元。"),
    "real_layer": S(
        en="Layer",
        zh="层"),
    "real_every_title": S(
        en="Every head of every layer on your text",
        zh="你的文本上，每一层的每一个头"),
    "real_every_text": S(
        en=("A row per layer, a square per head: each is that head's S, darker where a token attends more. A "
            "diagonal line is a head attending to the token itself, the line just under it to the one before, and a "
            "stripe further down to earlier tokens. Layer {layer}, boxed, is drawn in full below; pick another "
            "there."),
        zh=("每一行是一层，每个小方块是一个头的 S，格子颜色越深，表示分到那里的注意力权重越大。对角线说明这个头在看词元自己，紧贴在它下面的那条线是在看前一个词元，更靠下的斜条纹则是在看更早的词元。带方框的第 {layer} 层在下面完整画出；可以在那里换一层。")),
    "real_patterns": S(
        en="Every head of layer {layer} on your text (S, each row a query token)",
        zh="第 {layer} 层的每一个头在你的文本上的注意力（S，每一行是一个查询词元）"),
    "real_scores_title": S(
        en="Which heads copy: measured on random tokens repeated",
        zh="哪些头在照抄：用重复的随机词元测量"),
    "real_scores_text": S(
        en=("The probe: {count} sequences of {half} tokens drawn at random from the whole vocabulary, then the same "
            "{half} again. A head's previous-token score is its mean attention from a token to the one just before "
            "it. Its induction score is its mean attention, in the second half, to the token that came after the "
            "earlier copy of the current token: the one to copy next. Random tokens give nothing to go on but the "
            "sequence itself, so only heads that read back through it score high. Olsson et al. (2022) found heads "
            "of this kind in every transformer of two or more layers that they trained."),
        zh=("测量方法：从整个词表里随机抽 {half} 个词元，再把这 {half} 个原样重复一遍，共 {count} 条序列。一个头的“前一词元”分数，是每个词元分给紧挨在它前面那个词元的平均注意力。它的“归纳”分数，是在后一半里，当前词元分给“上一次出现时紧跟在它后面的那个词元”的平均注意力，也就是接下来该照抄的那个。随机词元除了序列本身以外没有任何规律可循，所以只有会回头读前文的头才能得高分。Olsson 等人（2022）在他们训练的所有两层及以上的 Transformer 中都找到了这类头。")),
    "real_scores_prev": S(
        en="previous-token score",
        zh="前一词元分数",
        draws=CHART),
    "real_scores_ind": S(
        en="induction score",
        zh="归纳分数",
        draws=CHART),
    "real_layer_axis": S(
        en="layer",
        zh="层",
        draws=CHART),
    "real_head_axis": S(
        en="head",
        zh="头",
        draws=CHART),
    "real_best_ind": S(
        en="Head {head} scores {score} for induction: it looks back to the token to copy, an induction head.",
        zh="头 {head} 的归纳分数是 {score}：它会回头看该照抄的那个词元，是一个归纳头。"),
    "real_no_ind": S(
        en="No head reaches an induction score of {floor} (the highest is head {head}'s, {score}): none copies this way.",
        zh="没有哪个头的归纳分数达到 {floor}（最高的是头 {head}，{score}）：这个模型里没有这样照抄的头。"),
    "real_best_ind_many": S(
        en=("Heads {heads} score {floor} or more for induction: each looks back to the token to copy, an induction "
            "head."),
        zh="头 {heads} 的归纳分数都不低于 {floor}：每个都会回头看该照抄的那个词元，都是归纳头。"),
    "real_head_score": S(  # a head named with its score, in a list of them
        en="{head} ({score})",
        zh="{head}（{score}）"),
    "real_best_prev": S(
        en="Head {head} scores {score} for the previous token.",
        zh="头 {head} 的前一词元分数是 {score}。"),
    "real_best_prev_many": S(
        en="Heads {heads} score {floor} or more for the previous token.",
        zh="头 {heads} 的前一词元分数都不低于 {floor}。"),
    "real_no_prev": S(
        en="No head reaches a previous-token score of {floor} (the highest is head {head}'s, {score}).",
        zh="没有哪个头的前一词元分数达到 {floor}（最高的是头 {head}，{score}）。"),
    "real_heads_named": S(
        en="Heads are named layer.head.",
        zh="头的编号为 层.头。"),
    "real_probe_too_large": S(
        en=("The probe's runs on {name} would need {probe} MB beside its weights' {weights} MB, and this server keeps "
            "{allowed} MB for checkpoints ({variable}), so which heads copy is not measured here, and no head can be "
            "knocked out. On a machine with room, the server's operator can raise the limit."),
        zh=("在 {name} 上做这项测量需要 {probe} MB，再加上权重的 {weights} MB，超过了本服务器给检查点的 {allowed} MB"
            "（{variable}），所以这里不测量哪些头在照抄，也不能敲掉任何头。在内存充足的机器上，服务器管理员可以调高这个上限。")),
    "real_knock_title": S(
        en="Knock heads out and see whether copying still works",
        zh="敲掉一些头，看模型还能不能照抄"),
    "real_knock_text": S(
        en=("A knocked-out head's output is set to zero before $W_O$. The probe's second half can be predicted only "
            "by copying, so its loss says how much the copying needed the heads you took away. Each run starts "
            "again at the first layer with a head knocked out: the layers before it compute the same as with every "
            "head, and are taken from the run with every head."),
        zh=("被敲掉的头，其输出在乘 $W_O$ 之前置零。测量用的序列，后一半只能靠照抄来预测，所以后一半的损失能说明照抄有多依赖你敲掉的这些头。每次只从第一个有头被敲掉的层开始重新计算：在它之前的各层，结果和所有头都在时相同，直接沿用那次计算。")),
    "real_knock_pick": S(
        en="Heads to knock out (layer.head)",
        zh="要敲掉的头（层.头）"),
    "real_knock_best": S(
        en="The induction heads: {heads}",
        zh="归纳头：{heads}"),
    "real_knock_none": S(
        en="No head knocked out: choose some",
        zh="还没有敲掉任何头：请选择"),
    "real_knock_every": S(
        en="every head",
        zh="所有头都在"),
    "real_knock_without": S(
        en="without {heads}",
        zh="敲掉 {heads}"),
    "real_knock_chance": S(
        en="chance (any token of the vocabulary)",
        zh="随机猜（词表中任一词元）"),
    "real_knock_worse": S(
        en=("With every head, {name} does worse than a uniform guess ({loss} nats against {chance}): it has not learnt "
            "to predict text, as a model with random weights made for testing software has not, so knocking heads "
            "out has nothing to take away."),
        zh="所有头都在时，{name} 比均匀随机猜还差（{loss} 奈特，随机猜是 {chance}）：它和为测试软件而造、权重随机的模型一样，没有学会预测文本，所以敲掉头也削弱不了什么。"),
    "real_knock_row": S(
        en="heads",
        zh="头"),
    "real_knock_acc": S(
        en="second-half accuracy",
        zh="后一半准确率"),
    "real_knock_loss": S(
        en="second-half loss (nats)",
        zh="后一半损失（奈特）"),
    "real_knock_left": S(
        en="{names}: not heads of {name}, which has {layers} layers of {heads} heads; left out.",
        zh="{names}：不是 {name} 的头（它有 {layers} 层，每层 {heads} 个头），已忽略。"),
    "real_error": S(
        en="{name} could not be opened: {error}",
        zh="无法打开 {name}：{error}"),
    "real_upload_again": S(
        en=("The files added to the box before were read and then let go, so this page no longer holds them: clear the "
            "box, then add all of the checkpoint's files together."),
        zh="之前放进上传框的文件读取后已释放，这个页面不再保存它们：请先清空上传框，再把检查点的所有文件一起放进去。"),
    "real_too_large": S(
        en=("{name} needs {need} MB in this process (the core holds every weight in float64, and a run on a page's "
            "tokens keeps their logits over its whole vocabulary), and this server keeps checkpoints up to {allowed} MB "
            "({variable}), so it is not read."),
        zh=("{name} 在本进程中需要 {need} MB（核心代码以 float64 保存每个权重，而在页面的词元上运行一次，还要保存这些词元在"
            "整个词表上的 logit），而本服务器给检查点的上限是 {allowed} MB（{variable}），所以没有读取它。")),
    "real_fits": S(
        en="Of this server's checkpoints, these fit: {names}.",
        zh="本服务器的检查点中，放得下的有：{names}。"),
    "real_fits_none": S(
        en="None of this server's checkpoints fits; on a machine with room, its operator can raise the limit.",
        zh="本服务器的检查点都放不下；在内存充足的机器上，服务器管理员可以调高这个上限。"),
    "real_back": S(
        en="Back to the walk's heads",
        zh="回到各步所用模型的头"),
    "tokens_bpe_title": S(
        en="{name}'s own tokens (byte-level BPE), beside the word split above",
        zh="{name} 自己的词元（字节级 BPE），可与上面按词切分的结果对照"),
    "tokens_bpe_count": S(
        en="{n} BPE tokens{cut} where the word split makes {words}.",
        zh="按词切分得到 {words} 个词元，BPE 则得到 {n} 个{cut}。"),
    "tokens_bpe_space": S(
        en="A space is shown as ␣.",
        zh="空格显示为 ␣。"),
    "tokens_bpe_partial": S(
        en=("Tokens that are only part of a character's UTF-8 bytes ({partial} here) are shown in hex with a dashed "
            "edge, above the character their bytes help spell."),
        zh="其中 {partial} 个只是某个字符 UTF-8 编码的一部分字节：它们用十六进制显示并加虚线边框，下方写着这些字节合起来拼成的字符。"),
}
