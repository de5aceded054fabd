"""The app's frame: its title, the sidebar (sizes, presets, view options, language), the link to share, the downloads, the budget's words, the walk's stage names."""

from .entry import PLAIN, S

STRINGS = {
    "app_title": S(
        en="MHA Explorer",
        zh="MHA Explorer · 多头注意力"),
    "app_tagline": S(
        en="Multi-head causal self-attention, step by step, with real numbers and every shape in view.",
        zh="用真实的数字一步一步计算多头因果自注意力，每个矩阵的形状都看得见。"),
    "sidebar_walk": S(
        en="The walk",
        zh="步骤"),
    "sidebar_view": S(
        en="View options",
        zh="显示选项"),
    "sidebar_export": S(
        en="Download every matrix of this view",
        zh="下载当前视图的全部矩阵"),
    "export_too_big": S(
        en="This view holds {values:,} numbers; downloads stop at {limit:,}. Smaller sizes can be downloaded.",
        zh="当前视图共有 {values:,} 个数，下载上限是 {limit:,} 个。把维度调小一些就可以下载。"),
    "export_after_ask": S(
        en="The files can be written once the view is drawn.",
        zh="这个视图画出来之后才能生成下载文件。"),
    "export_prepare": S(
        en="Write the files ({values:,} numbers)",
        zh="生成下载文件（共 {values:,} 个数）"),
    "export_preparing": S(
        en="Writing {values:,} numbers…",
        zh="正在生成下载文件（{values:,} 个数）……"),
    "export_no_trace": S(
        en="Nothing to download while X cannot be computed (the page says why).",
        zh="X 目前无法计算（原因见页面上的提示），暂时没有可下载的文件。"),
    "export_let_go": S(
        en="The files written for this view were let go to make room for another page's, so their buttons are gone. Write them again with the button below.",
        zh="为了给另一个页面的下载文件腾出内存，这个视图之前生成的文件已被释放，下载按钮也随之撤下。可以用下面的按钮重新生成。"),
    "share": S(
        en="Link to this view",
        zh="当前视图的链接"),
    "share_help": S(
        en="The copy button copies it. Opened anywhere, it shows these sizes, this X and this stage.",
        zh="点右上角的按钮即可复制。打开这个链接，会看到同样的维度、同样的 X 和同一个步骤。"),
    "lang": S(
        en="Language",
        zh="语言"),
    "preset": S(
        en="Sizes",
        zh="维度"),
    "preset_post": S(
        en="The post · 3·5·7·11·2",
        zh="原文例子 · 3·5·7·11·2",
        draws=PLAIN),
    "preset_mask": S(
        en="The post's mask example · 3×3",
        zh="原文的掩码例子 · 3×3",
        draws=PLAIN),
    "preset_tiny": S(
        en="Tiny · 2·3·2·2·1",
        zh="最小例子 · 2·3·2·2·1",
        draws=PLAIN),
    "preset_hand": S(
        en="Hand calculation · whole numbers",
        zh="手算练习 · 全是整数",
        draws=PLAIN),
    "preset_gpt2": S(
        en="GPT-2-small widths · 8·768·64·64·12",
        zh="GPT-2 small 的维度 · 8·768·64·64·12",
        draws=PLAIN),
    "preset_custom": S(
        en="Custom",
        zh="自定义",
        draws=PLAIN),
    "n_tokens": S(
        en="Tokens n",
        zh="词元数 n"),
    "d_model": S(
        en=r"Embedding size $d_{{\text{{model}}}}$",
        zh=r"嵌入维度 $d_{{\text{{model}}}}$"),
    "d_k": S(
        en="Query/key size $d_k$",
        zh="查询/键维度 $d_k$"),
    "d_v": S(
        en="Value size $d_v$",
        zh="值维度 $d_v$"),
    "n_heads": S(
        en="Heads h",
        zh="头数 h"),
    "seed": S(
        en="Seed",
        zh="随机种子"),
    "integers": S(
        en="Whole numbers (for paper)",
        zh="整数模式（方便手算）"),
    "integers_help": S(
        en=("X holds whole numbers from −2 to 2 and every weight one from −1 to 1, "
            "so products can be checked by hand."),
        zh="X 取 −2 到 2 之间的整数，所有权重取 −1 到 1 之间的整数，乘积可以在纸上验算。"),
    "head": S(
        en="Head shown",
        zh="显示第几个头"),
    "head_pill": S(
        en="head {i}",
        zh="第 {i} 个头"),
    "cell_values": S(
        en="Numbers in cells",
        zh="格内显示数值"),
    "present": S(
        en="Presenter mode",
        zh="投影模式"),
    "present_help": S(
        en="Larger type for a projector. A link with present=1 also opens with the sidebar folded.",
        zh="字号更大，适合投影。带 present=1 的链接打开时会收起侧边栏。"),
    "upload_button": S(
        en="Upload",
        zh="上传",
        draws=PLAIN),
    "png_save": S(
        en="Save this chart as a PNG image",
        zh="把这张图存成 PNG 图片"),
    "cell_values_help": S(
        en=("Left out anyway where a matrix is more than 16 on a side or its cells "
            "are too small to read; hover a cell for its value."),
        zh="即使打开这一项，行数或列数超过 16、或者格子小得看不清的矩阵也不显示数值；把鼠标移到格子上就能看到。"),
    "primes_yes": S(
        en="✓ Distinct primes: every shape says where it came from.",
        zh="✓ 各维度是互不相同的质数：看形状就知道它从哪来。"),
    "primes_no": S(
        en="These sizes are not distinct primes, so two shapes can look alike.",
        zh="这些维度不是互不相同的质数，不同来历的形状可能看起来一样。"),
    "lengths_shared": S(
        en=("Different quantities share a length here, so the shape no longer says which one it came from: "
            "{groups}."),
        zh="这里有不同的量长度相同，单看形状，分不出一个长度来自哪个量：{groups}。"),
    "lengths_sep": S(
        en="; ",
        zh="；"),
    "length_n_tokens": S(
        en="tokens $n$",
        zh="词元数 $n$"),
    "length_n_cached": S(
        en="tokens in the cache $n$",
        zh="缓存里的词元数 $n$"),
    "length_n_so_far": S(  # a window's: the tokens decoded, a row each of Q, S, H and Y
        en="tokens so far $n$",
        zh="目前的词元数 $n$"),
    "length_n_held": S(  # a window's: the rows its K and V caches hold
        en="tokens the window holds",
        zh="窗口里留下的词元数"),
    "length_vocab": S(
        en="vocabulary size",
        zh="词表大小"),
    "length_d_model": S(
        en=r"embedding size $d_{{\text{{model}}}}$",
        zh=r"嵌入维度 $d_{{\text{{model}}}}$"),
    "length_d_k": S(
        en="query/key size $d_k$",
        zh="查询/键维度 $d_k$"),
    "length_d_v": S(
        en="value size $d_v$",
        zh="值维度 $d_v$"),
    "length_n_heads": S(
        en="heads $h$",
        zh="头数 $h$"),
    "length_concat": S(
        en=r"Concat's width $h\cdot d_v$",
        zh=r"Concat 的宽度 $h\cdot d_v$"),
    "length_d_ff": S(
        en="FFN hidden size $d_{{ff}}$",
        zh="前馈网络隐藏维度 $d_{{ff}}$"),
    "primes_fix": S(
        en="Make them distinct primes",
        zh="换成互不相同的质数"),
    "primes_fix_help": S(
        en="Moves the widths and the number of heads to the nearest distinct primes. n stays: it is X's rows, the tokens you have.",
        zh="把各个维度和头数换成最近的、互不相同的质数。n 不变：它是 X 的行数，也就是你现有的词元个数。"),
    "primes_but_n": S(
        en="✓ No two sizes are equal, and all but n are primes: n = {n} is the number of tokens, which stays as X has it.",
        zh="✓ 各个维度互不相等，除 n 以外都是质数：n = {n} 是词元个数，保持 X 现有的行数不变。"),
    "stage_matmul": S(
        en="Matrix product",
        zh="矩阵乘法"),
    "stage_tokens": S(
        en="Text → tokens → X",
        zh="文本 → 词元 → X"),
    "stage_input": S(
        en="Input X",
        zh="输入 X"),
    "stage_qk": S(
        en="Q and K",
        zh="Q 和 K"),
    "stage_scores": S(
        en="Scores → S",
        zh="注意力分数 → S"),
    "stage_values": S(
        en="V and H",
        zh="V 和 H"),
    "stage_heads": S(
        en="All heads",
        zh="所有的头"),
    "stage_output": S(
        en="Output Y",
        zh="输出 Y"),
    "stage_dependency": S(
        en="Who depends on whom",
        zh="谁依赖谁"),
    "stage_kv_cache": S(
        en="KV cache",
        zh="KV 缓存"),
    "stage_variants": S(
        en="Variant lab: today's attention",
        zh="变体实验室：当今模型里的注意力"),
    "stage_block": S(
        en="The GPT block",
        zh="GPT 块"),
    "stage_next_token": S(
        en="The next token",
        zh="下一个词元"),
    "code_title": S(
        en="The numpy behind this stage (read from mha's source)",
        zh="这一步背后的 numpy 代码（直接读取自 mha 的源码）"),
    "prev": S(
        en="← Previous",
        zh="← 上一步"),
    "next": S(
        en="Next →",
        zh="下一步 →"),
    "prev_part": S(
        en="← Back: {part}",
        zh="← 上一步：{part}"),
    "next_part": S(
        en="Next: {part} →",
        zh="下一步：{part} →"),
    "credit": S(
        en="Built on Mistivia's blog post “Computing multi-head attention” (in Chinese).",
        zh="本工具依据 Mistivia 的博客文章《计算多头注意力》制作。"),
}
