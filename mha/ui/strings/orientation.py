"""Where the learner is: each stage's place in the walk, the post's section it follows (its heading as the post writes
it, quoted in Chinese on the English page too, with a gloss: the learner reads the post beside the app), the asides
the post does not have, and how many views a stage in parts holds."""

from .entry import S

STRINGS = {
    "where_stage": S(
        en="Stage {num} of {last} · the post's section {section}",
        zh="第 {num} 步，共 {last} 步 · 对应原文的{section}"),
    "where_aside": S(
        en="Aside {num}, beside stage {base} of {last} · not in the post: {what}",
        zh="支线 {num}，在第 {base} 步旁边（共 {last} 步）· 原文里没有：{what}"),
    "where_opening": S(
        en=("{line}. Next → walks the post in order. Stage 1 is its linear-algebra refresher, to skip if you know it; "
            "1b and 9b are asides."),
        zh="{line}。点“下一步 →”就按原文的顺序往下走。第 1 步是原文开头的线性代数复习，熟悉的话可以跳过；1b 和 9b 是支线。"),
    "post_refresher": S(
        en="“线性代数复习” (linear algebra refresher)",
        zh="“线性代数复习”一节"),
    "post_io": S(
        en="“从输入到输出” (from input to output)",
        zh="“从输入到输出”一节"),
    "post_qkv": S(
        en="“Q、K、V”",
        zh="“Q、K、V”一节"),
    "post_multi": S(
        en="“多头注意力” (multi-head attention)",
        zh="“多头注意力”一节"),
    "post_output": S(
        en="“输出” (output)",
        zh="“输出”一节"),
    "post_analysis": S(
        en="“输入输出关系分析” (how the output depends on the input)",
        zh="“输入输出关系分析”一节"),
    "post_kv": S(
        en="“KV Cache”",
        zh="“KV Cache”一节"),
    "post_coda": S(
        en="“尾声” (coda) and its GPT block figure",
        zh="“尾声”一节和其中的 GPT 架构框图"),
    "post_coda_next": S(
        en="“尾声” (coda), one step past its figure",
        zh="“尾声”一节，并比其中的框图再多走一步"),
    "aside_tokens": S(
        en="where the rows of X come from",
        zh="X 的每一行从哪里来"),
    "aside_variants": S(
        en="what today's models change in the post's attention",
        zh="如今的模型对原文的注意力做了哪些改动"),
    "walk_parts": S(
        en="{parts} parts",
        zh="{parts} 个部分"),
    "walk_variant_parts": S(
        en="{variants} variants × {parts} parts",
        zh="{variants} 种变体 × {parts} 个部分"),
}
