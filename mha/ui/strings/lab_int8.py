"""The lab's int8 KV cache: each cached row of K and V kept as whole numbers from −127 to 127 and one scale."""

from .entry import CHART, S

STRINGS = {
    "variant_int8": S(
        en="int8 cache",
        zh="int8 缓存"),
    "kv_short_int8": S(
        en="int8",
        zh="int8"),
    "lab_int8_text": S(
        en=("An int8 cache keeps K and V in a quarter of the bytes of float32. Each row of K (after RoPE, where there is "
            "RoPE) and of V is stored for each token and each KV head as {d} whole numbers from −127 to 127, the codes, "
            "and one float, the scale: scale = max|row| / 127 and code = round(value / scale). Attention then reads "
            "every row back as codes × scale. One scale a row, not a column, is what lets a cache work: a row never "
            "changes once it is kept, whatever tokens come after it."),
        zh=("int8 缓存只用 float32 四分之一的字节来存 K 和 V。K（有 RoPE 时取转动之后的）和 V 的每一行，按词元、按 KV 头，"
            "存成 {d} 个 −127 到 127 之间的整数，即量化值，外加一个浮点数，即比例因子：比例因子是这一行绝对值最大的数"
            "除以 127，量化值是数值除以比例因子后四舍五入到最近的整数。注意力再把每一行读回来，用的是量化值 × 比例因子。"
            "每行一个比例因子，而不是每列一个，缓存才能成立：一行存进去以后，不管后面来多少词元，它都不会再变。")),
    "lab_int8_codes_title": S(
        en=("What the cache keeps for KV head {g} (query head {h} reads it): the codes of K and of V, each row with its "
            "scale s beside it."),
        zh="缓存为第 {g} 个 KV 头存下的内容（第 {h} 个查询头读它）：K 和 V 的量化值，每行旁边是它的比例因子 s。"),
    "lab_int8_codes": S(
        en="codes of {m}",
        zh="{m} 的量化值",
        draws=CHART),
    "lab_int8_click": S(
        en=("Head {h}'s scores from the keys the cache gives back, each key row its codes × its scale: click a score "
            "for its sum."),
        zh="第 {h} 个头的分数，用的是缓存读回的键，每一行键都是量化值 × 比例因子：点一个分数，看它怎么加出来。"),
    "lab_int8_check_ok": S(
        en=("✓ Every row read back is within half a step of the row it stands for, the step being its scale: the "
            "largest error is {k} in K (a row's half step is at most {k_half}) and {v} in V (at most {v_half})."),
        zh=("✓ 读回的每一行与它代表的那一行相差都不到半个量化步长（步长就是这一行的比例因子）：K 里最大的误差是 {k}"
            "（各行的半个步长最大为 {k_half}），V 里是 {v}（最大为 {v_half}）。")),
    "lab_int8_check_bad": S(
        en=("A row read back is further than half a step from the row it stands for: {what}. The codes were not "
            "rounded to the nearest step."),
        zh="有一行读回的值离它代表的那一行超过了半个量化步长：{what}。量化值没有四舍五入到最近的整数。"),
    "lab_int8_y": S(
        en=("Y from the int8 cache against the float walk's Y: the largest change is {diff}, where Y's largest number "
            "is {most}."),
        zh="用 int8 缓存算出的 Y 与前面各步用浮点数算出的 Y 相比：最大的变化是 {diff}，而 Y 里最大的数是 {most}。"),
    "lab_costs_why_int8": S(
        en=("An int8 cache keeps one byte a number of K and V, and one scale a row: about half of fp16's two bytes "
            "a number."),
        zh="int8 缓存里 K 和 V 的每个数占一个字节，每行再加一个比例因子：大约是半精度浮点数（每个数两个字节）的一半。"),
    "lab_costs_here_int8": S(
        en=("Here ({sizes}): ${formula}$ numbers. The page's own int8 cache, fed the {n} tokens of X, holds {held} of "
            "them in {nbytes} bytes: {held} × ({floats} codes of a byte each + {scales} scales of 8 bytes)."),
        zh=("这里（{sizes}）：${formula}$ 个数。页面自己的 int8 缓存依次读入 X 的 {n} 个词元后，存着其中 {held} 个，"
            "共 {nbytes} 字节：{held} ×（{floats} 个各占一字节的量化值 + {scales} 个各占 8 字节的比例因子）。")),
    "lab_costs_real_int8": S(
        en=("At {model}'s sizes (${config}$): ${formula}$ numbers of a byte each and {scales} scales of 2 bytes; "
            "over its {layers} layers, {per_token} bytes per token."),
        zh=("按 {model} 的维度（${config}$）：${formula}$ 个各占一字节的数，外加 {scales} 个各占 2 字节的比例因子；"
            "它有 {layers} 层，每个词元共 {per_token} 字节。")),
    "lab_costs_model_int8": S(
        en="Llama-3-8B (int8 cache)",
        zh="Llama-3-8B（int8 缓存）"),
    "kv_cost_note_int8": S(
        en=("int8 counts its products as MHA does. Its cache holds a byte for each number of K and V and two float64 "
            "scales a row, one for K and one for V; reading a row back is one multiplication a number, left out here "
            "as the softmax is."),
        zh=("int8 的乘法次数与 MHA 相同。它的缓存里 K 和 V 的每个数占一个字节，每行另有两个 float64 比例因子，K 一个、"
            "V 一个；把一行读回来是每个数一次乘法，和 softmax 一样不计在这里。")),
}
