"""The lab's sliding window and attention sinks."""

from .entry import S

STRINGS = {
    "lab_window_w": S(
        en="Window W",
        zh="窗口 W"),
    "lab_window_s": S(
        en="Sinks s",
        zh="汇聚词元 s"),
    "lab_window_text": S(
        en=("A sliding window (Mistral's) lets query i read only the last W = {w} keys, $i - W < j \\le i$: each "
            "row of the mask keeps no more than {w} of its cells, a band along the diagonal. A key that has left the "
            "band is never read by a later query either, so the cache lets it go: the tokens it holds never number "
            "more than {cap}."),
        zh=("滑动窗口（Mistral 用的）只让查询 i 读最近的 W = {w} 个键，即 $i - W < j \\le i$：掩码的每一行最多留 {w} "
            "格，沿对角线形成一条带。离开这条带的键，之后的查询也不会再读，所以缓存可以把它丢掉：缓存里最多只有 {cap} 个词元。")),
    "lab_window_sinks_text": S(
        en=("StreamingLLM keeps the first s = {s} keys visible beside a window of W = {w}: models pour much of "
            "their attention onto the first tokens (attention sinks), and a window that drops them reads worse. "
            "Query i reads the keys with $i - W < j \\le i$ or $j \\le s$, so the mask is the band plus the first s "
            "columns, and the cache never holds more than s + W = {cap} tokens."),
        zh=("StreamingLLM 在宽度 W = {w} 的窗口之外，让前 s = {s} 个键一直可见：模型会把很多注意力压在最前面的几个词元上（注意力汇聚），窗口若把它们丢掉，效果就会变差。查询 i "
            "读的是满足 $i - W < j \\le i$ 或 $j \\le s$ 的键，所以掩码是那条带再加上最左边的 s 列，缓存里最多只有 s + W = {cap} 个词元。")),
    "lab_window_hidden": S(
        en=("Here the window hides {hidden} of the {kept} scores the causal mask keeps for n = {n} tokens: the grey "
            "cells below the diagonal."),
        zh="这里 n = {n} 个词元，因果掩码留下的 {kept} 个分数中，窗口又遮住了 {hidden} 个：就是对角线下方的灰格。"),
    "lab_window_none": S(
        en=("With n = {n} tokens and W = {w}, every key is still inside the window: nothing is hidden yet, and this "
            "mask is just the causal one. The window starts hiding keys at n = {need} tokens."),
        zh="n = {n} 个词元、W = {w} 时，每个键都还在窗口里：还什么都没遮住，这个掩码就是普通的因果掩码。要到 n = {need} 个词元，窗口才开始遮住键。"),
    "lab_window_none_sinks": S(
        en=("With n = {n} tokens, W = {w} and s = {s}, every key is inside the window or among the sinks: nothing "
            "is hidden yet, and this mask is just the causal one (the post's n = 3 with W = 2 and s = 1 is such a "
            "case). Keys start to be hidden at n = {need} tokens."),
        zh=("n = {n} 个词元、W = {w}、s = {s} 时，每个键不是在窗口里，就是汇聚词元：还没有键被遮住，这个掩码就是普通的因果掩码（原文的 n = 3 配上 W = 2、s = 1 就是这种情况"
            "）。要到 n = {need} 个词元，才开始有键被遮住。")),
    "lab_window_more": S(
        en="Use n = {n} tokens",
        zh="改用 n = {n} 个词元"),
    "lab_window_too_wide": S(
        en="No X this page takes is long enough to hide a key (at most {most} tokens): make W or s smaller.",
        zh="这个页面接受的 X 最多 {most} 个词元，都不够长，遮不住任何键：请把 W 或 s 调小。"),
    "lab_window_text_n": S(
        en=("X comes from a text, so n is its number of tokens: add words to the text, or add tokens one at a time "
            "on the KV-cache stage (its button is under “{check}”)."),
        zh="X 来自一段文本，n 就是它的词元数：可以给文本加词，或者到 KV 缓存那一步逐个加词元（按钮在“{check}”里）。"),
    "lab_window_mask_title": S(
        en=("The mask M, the scores with it added, and S, for head {h}: grey cells are hidden (the future and, with "
            "the window, keys too far back)."),
        zh="第 {h} 个头的掩码 M、加上掩码后的分数，以及 S：灰格是被遮住的（未来的键，以及窗口之外太靠前的键）。"),
    "lab_window_outputs": S(
        en=("Head {h}'s output H = S·V with the window's S: a hidden key's weight is 0, so its row of V adds "
            "nothing. Click a cell of H for its dot product, or let the quiz ask you for one."),
        zh="第 {h} 个头的输出 H = S·V，用的是带窗口的 S：被遮住的键权重为 0，V 中它那一行不参与求和。点击 H 的任意一格看它的内积，或者让测验来考你一格。"),
    "lab_window_check": S(
        en=("Live check: X goes through mha's KV cache (mha.KVCache) one token at a time, and each token's row of Y "
            "is compared with the same row of a full recompute under the same mask (forward on all {n} tokens). The "
            "cache may hold at most {cap} tokens."),
        zh="当场核对：X 一次一个词元地送进 mha 的 KV 缓存，每个词元算出的那一行 Y，与同一掩码下完整重算（对全部 {n} 个词元做一次前向计算）的同一行比较。缓存里最多只能有 {cap} 个词元。"),
    "lab_window_col_token": S(
        en="Token",
        zh="词元"),
    "lab_window_col_held": S(
        en="Tokens in the cache after it",
        zh="之后缓存里的词元"),
    "lab_window_col_len": S(
        en="Cache length",
        zh="缓存长度"),
    "lab_window_col_diff": S(
        en="Largest difference, cached Y against recomputed",
        zh="缓存算出的 Y 与重算的最大差"),
    "lab_window_col_ok": S(
        en="Equal, within the limit",
        zh="相等且不超限"),
    "lab_window_check_ok": S(
        en=("Every row decoded through the cache equals the recompute (largest difference {diff}), and the cache "
            "never held more than {longest} tokens: within its limit of {cap}."),
        zh="经缓存逐个解码的每一行都等于完整重算（最大差 {diff}），缓存里最多时有 {longest} 个词元：没有超过上限 {cap}。"),
    "lab_window_check_bad": S(
        en=("The cache and the recompute disagree (largest difference {diff}), or the cache held {longest} tokens, "
            "more than its limit of {cap}: this window is not what it claims."),
        zh="缓存和完整重算对不上（最大差 {diff}），或者缓存里有过 {longest} 个词元，超过了上限 {cap}：这个窗口没有做到它声称的事。"),
    "lab_window_kv_hint": S(
        en=("The KV-cache stage decodes through this same window: add tokens one at a time there and watch the "
            "oldest leave."),
        zh="KV 缓存那一步用同样的窗口解码：在那里一次加一个词元，看最早的词元离开。"),
    "lab_window_to_kv": S(
        en="Add tokens on the KV-cache stage",
        zh="到 KV 缓存那一步加词元"),
}
