"""The variant lab: its opening and picker, and the cost of what each variant caches."""

from .entry import S

STRINGS = {
    "variants_title": S(
        en="The variant lab: what today's models change, on these numbers",
        zh="变体实验室：如今的模型改了什么（仍用这些数）"),
    "variants_text": S(
        en=("The cache keeps K and V for every head and every token, and that memory is what limits how long a model "
            "can read. The models people use today change the post's attention to need less of it, or to know where "
            "each token sits. Pick one change: it runs on the same X and weights as the walk, drawn on the same "
            "figures, with a check that it computes what it claims and what it caches per token."),
        zh=("缓存为每个头、每个词元都留着 K 和 V，这份内存决定了模型一次能读多长。如今常用的模型改动了原文的注意力："
            "有的为了少占内存，有的为了让词元知道自己的位置。选一种改动：它用的 X 和权重与前面各步相同，画在同样的图上，"
            "并当场核对它算出的是否和它声称的一样，以及每个词元要缓存多少数。")),
    "variant": S(
        en="Variant",
        zh="变体"),
    "variant_mha": S(
        en="MHA (the post)",
        zh="MHA（原文）"),
    "variant_gqa": S(
        en="GQA",
        zh="GQA"),
    "variant_mqa": S(
        en="MQA",
        zh="MQA"),
    "variant_window": S(
        en="Sliding window",
        zh="滑动窗口"),
    "variant_sinks": S(
        en="Window + sinks",
        zh="窗口 + 汇聚词元"),
    "variant_alibi": S(
        en="ALiBi",
        zh="ALiBi"),
    "variant_rope": S(
        en="RoPE",
        zh="RoPE"),
    "variant_mla": S(
        en="MLA",
        zh="MLA"),
    "variant_online": S(
        en="Online softmax",
        zh="在线 softmax"),
    "lab_part": S(
        en="Part of the lab",
        zh="实验室的哪一部分"),
    "lab_part_change": S(
        en="What changes",
        zh="改了什么"),
    "lab_part_click": S(
        en="Click a product",
        zh="点开乘积"),
    "lab_part_check": S(
        en="Check and cost",
        zh="验证与缓存代价"),
    "lab_product": S(
        en="Product",
        zh="乘积"),
    "lab_costs_model_bloom": S(
        en="BLOOM (176B)",
        zh="BLOOM（176B）"),
    "lab_costs_model_sinks": S(
        en="StreamingLLM on Llama-2-7B",
        zh="StreamingLLM（基于 Llama-2-7B）"),
    "lab_costs_title": S(
        en="What it caches, per token and per layer: {variant}",
        zh="缓存多少（每个词元、每一层）：{variant}"),
    "lab_costs_here": S(
        en=("Here ({sizes}): ${formula}$ floats. The page's own KV cache, fed the {n} tokens of X, "
            "holds {held} of them in {nbytes} bytes: {held} × {floats} floats × 8 bytes (float64)."),
        zh=("这里（{sizes}）：${formula}$ 个浮点数。页面自己的 KV 缓存依次读入 X 的 {n} 个词元后，"
            "存着其中 {held} 个，共 {nbytes} 字节：{held} × {floats} 个浮点数 × 8 字节（float64）。")),
    "lab_costs_here_mla": S(
        en=("Here ({sizes}): ${formula}$ floats. The page's own latent cache, fed the {n} tokens "
            "of X, holds {held} rows in {nbytes} bytes: {held} × {floats} floats × 8 bytes (float64)."),
        zh=("这里（{sizes}）：${formula}$ 个浮点数。页面自己的潜向量缓存依次读入 X 的 {n} 个词元后，"
            "存着 {held} 行，共 {nbytes} 字节：{held} × {floats} 个浮点数 × 8 字节（float64）。")),
    "lab_costs_real": S(
        en=("At {model}'s sizes (${config}$): ${formula}$ floats; over its {layers} layers at 2 bytes a "
            "float, {per_token} bytes per token."),
        zh=("按 {model} 的维度（${config}$）：${formula}$ 个浮点数；它有 {layers} 层，每个浮点数 2 字节，"
            "每个词元共 {per_token} 字节。")),
    "lab_costs_why_gqa": S(
        en=("The query heads of a group read one shared K and V, so only the KV heads are cached: "
            "$n_{{kv}}$ of them instead of $h$."),
        zh="同一组的查询头共用一份 K 和 V，所以缓存里只存 KV 头的：$n_{{kv}}$ 个，而不是 $h$ 个。"),
    "lab_costs_why_mqa": S(
        en="Every query head reads the same single K and V, so one head's worth is cached.",
        zh="所有查询头读同一份 K 和 V，所以只缓存一个头的量。"),
    "lab_costs_why_window": S(
        en=("A token costs what it costs without the window, but once it falls out of the window no "
            "query reads it again, so the cache lets it go: it never holds more than $W$ tokens."),
        zh=("每个词元的花费和不加窗口时一样；但词元一旦滑出窗口，就再没有查询会读它，缓存便把它丢掉："
            "缓存里最多只有 $W$ 个词元。")),
    "lab_costs_why_sinks": S(
        en=("A token costs what it costs without the window, but the cache holds only the $s$ sinks and "
            "the last $W$ tokens: never more than $s + W$."),
        zh="每个词元的花费和不加窗口时一样，但缓存只存 $s$ 个汇聚词元和最近的 $W$ 个：最多 $s + W$ 个。"),
    "lab_costs_why_alibi": S(
        en=("ALiBi adds its bias to the scores when they are computed; nothing of it is cached, so a "
            "token costs what it costs in MHA."),
        zh="ALiBi 在算分数时才加上偏置，偏置本身不进缓存，所以每个词元的花费和 MHA 一样。"),
    "lab_costs_why_rope": S(
        en=("RoPE turns each key before it goes into the cache, and a turned key is as long as before, "
            "so a token costs what it costs in MHA."),
        zh="RoPE 在键进入缓存之前先把它旋转，旋转后的键长度不变，所以每个词元的花费和 MHA 一样。"),
    "lab_costs_why_mla": S(
        en=("Only the latent row c of each token is cached, one for all heads; every head rebuilds its "
            "K and V from it."),
        zh="每个词元只缓存一行潜向量 c，所有头共用；每个头再从它重建自己的 K 和 V。"),
    "lab_costs_why_online": S(
        en=("The online softmax changes how S is computed, not what is cached: a token costs what "
            "it costs in MHA."),
        zh="在线 softmax 改变的是 S 怎么算，而不是缓存什么：每个词元的花费和 MHA 一样。"),
    "lab_costs_cap": S(
        en="At most {cap} tokens are held, {cap_bytes} for all layers, however long the text.",
        zh="缓存最多存 {cap} 个词元，所有层合计 {cap_bytes}，文本再长也不变。"),
    "lab_costs_naive": S(
        en=("Its heads' own K and V would take ${naive}$ floats, {times}× as many. DeepSeek also caches "
            "one short key for RoPE, shared by all heads; the page's MLA leaves it out."),
        zh=("若按每个头各存自己的 K 和 V，需要 ${naive}$ 个浮点数，是它的 {times} 倍。DeepSeek 还为 RoPE "
            "缓存一个所有头共用的短键；页面上的 MLA 省去了它。")),
    "lab_costs_saved": S(
        en=("What it saves is S: the $n × n$ scores of every head are never stored, $h\\,n^2 = {saved}$ "
            "floats per layer here."),
        zh="它省下的是 S：每个头的 $n × n$ 分数从不存下来，这里每层 $h\\,n^2 = {saved}$ 个浮点数。"),
    "lab_costs_saved_real": S(
        en=("At its {context}-token context that is ${saved}$ floats per layer never stored, "
            "{saved_bytes} at 2 bytes a float."),
        zh=("在它 {context} 个词元的上下文里，每层有 ${saved}$ 个浮点数从不存下来，按每个浮点数 2 字节"
            "算是 {saved_bytes}。")),
    "lab_costs_compare": S(
        en="Every variant side by side: floats cached per token per layer",
        zh="所有变体并排比较：每个词元每层缓存的浮点数"),
    "lab_costs_col_variant": S(
        en="Variant",
        zh="变体"),
    "lab_costs_col_here": S(
        en="Here",
        zh="这里"),
    "lab_costs_col_real": S(
        en="A real model",
        zh="真实模型"),
    "lab_costs_real_cell": S(
        en="{model}: {floats}",
        zh="{model}：{floats}"),
    "lab_costs_col_fit": S(
        en="Tokens in {gb} $\\mathrm{{GB}}$",
        zh="{gb} $\\mathrm{{GB}}$ 能存的词元数"),
    "lab_costs_capped": S(
        en="{floats}, at most {cap} tokens",
        zh="{floats}，最多 {cap} 个词元"),
    "lab_costs_any": S(
        en="any length (at most {size})",
        zh="任意长度（最多占 {size}）"),
    "lab_memory_gb": S(
        en="Memory for the KV cache, in $\\mathrm{{GB}}$",
        zh="给 KV 缓存的内存（$\\mathrm{{GB}}$）"),
    "lab_costs_assume": S(
        en=("Tokens that fit: the memory ÷ (floats per token per layer × the model's layers × 2 bytes, "
            "as in bf16), for one sequence, with $1\\,\\mathrm{{GB}} = 10^9$ bytes and the weights not "
            "counted. With a window or sinks the cache stops growing, so a text of any length fits "
            "once the full cache does. The page's own cache holds 8-byte floats (float64). Each model's "
            "sizes are from its published config, cited in the README."),
        zh=("能存的词元数 = 内存 ÷（每词元每层的浮点数 × 模型层数 × 2 字节，即 bf16 这类 16 位格式），按一条序列算，$1\\,\\mathrm{{GB}} = 10^9$ 字节，不计权重。有窗口"
            "或汇聚词元时缓存不再增长，所以只要装得下满的缓存，多长的文本都行。页面自己的缓存用 8 字节浮点数（float64）。每个模型的维度都取自它公开的配置，出处见项目的说明文件。")),
}
