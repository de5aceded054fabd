"""What the page says when it reads a link, a hand edit or a size it cannot take as given (settings.Notice)."""

from .entry import S

STRINGS = {
    "notices_dismiss": S(
        en="Dismiss these notes",
        zh="关闭这些提示"),
    "notice_not_whole": S(
        en="Link parameter {key}={value} is not a whole number; the default was used.",
        zh="链接参数 {key}={value} 不是整数，已改用默认值。"),
    "notice_clamped": S(
        en="Link parameter {key}={value} is outside what this demo allows; {used} was used.",
        zh="链接参数 {key}={value} 超出了本演示允许的范围，已改用 {used}。"),
    "notice_ckpt": S(
        en="Link parameter {key}={value} names no checkpoint this server offers (it offers: {offered}).",
        zh="链接参数 {key}={value} 不是本服务器提供的检查点（本服务器提供：{offered}）。"),
    "notice_unknown": S(
        en="Link parameter {key}={value} is not one of the known values; the default was used.",
        zh="链接参数 {key}={value} 不在可选的值之中，已改用默认值。"),
    "notice_link_over": S(
        en="This link is longer than the server reads ({chars:,} characters in {fields:,} parameters; it reads at most {max_chars:,} and {max_fields:,}), so the page opened on its default view.",
        zh="这个链接超出了服务器能读取的长度（{fields:,} 个参数共 {chars:,} 个字符；最多读取 {max_fields:,} 个参数、{max_chars:,} 个字符），所以页面打开的是默认视图。"),
    "link_left_out": S(
        en="A link to this view leaves out {what}: {length:,} characters, more than a link carries ({limit:,}). Download the matrices to keep them.",
        zh="当前视图的链接没有带上{what}：它有 {length:,} 个字符，超过了链接能携带的 {limit:,} 个。要保留它们，请下载矩阵。"),
    "link_left_out_x": S(
        en="your edits of X",
        zh="你对 X 的修改"),
    "link_left_out_kv": S(
        en="the tokens added to the KV cache",
        zh="追加到 KV 缓存的词元"),
    "notice_x_too_long": S(
        en="The X in this link is {length} characters long (limit {limit}); the seeded X was used.",
        zh="链接里的 X 有 {length} 个字符（上限 {limit}），已改用随机种子生成的 X。"),
    "notice_x_items": S(
        en="{count} cells of X in this link could not be used (e.g. “{example}”: {why}); the rest were.",
        zh="链接里的 X 有 {count} 格无法使用（例如“{example}”：{why}），其余各格已采用。"),
    "notice_x_items_none": S(
        en="None of this link's cells of X could be used (e.g. “{example}”: {why}); X keeps the values the link's other settings give it.",
        zh="链接里 X 的各格都无法使用（例如“{example}”：{why}），X 取链接中其他设置给出的值。"),
    "why_form": S(
        en="not of the form row.col~value",
        zh="不是“行.列~值”的写法"),
    "why_number": S(
        en="its value is not a plain decimal number",
        zh="它的值不是普通的十进制数"),
    "why_finite": S(
        en="its value is beyond ±1.8e308, more than float64 holds",
        zh="它的值超出 ±1.8e308，float64 装不下"),
    "why_cell": S(
        en="there is no such cell",
        zh="没有这一格"),
    "notice_kv_too_long": S(
        en="The tokens added to the KV cache in this link take {length} characters (limit {limit}); none were added.",
        zh="链接里追加到 KV 缓存的词元共有 {length} 个字符（上限 {limit}），因此一个也没有追加。"),
    "notice_kv_count": S(
        en="Link parameter kv={value} does not start with a number of added tokens (0 to {most}); none were added.",
        zh="链接参数 kv={value} 开头不是追加词元的个数（0 到 {most}），因此一个也没有追加。"),
    "notice_kv_clamped": S(
        en="This link adds {count} tokens to the KV cache; this demo adds at most {most}, so the first {most} were used.",
        zh="这个链接要向 KV 缓存追加 {count} 个词元；本演示最多追加 {most} 个，所以只追加了前 {most} 个。"),
    "notice_kv_items": S(
        en="{count} cells of the tokens added to the KV cache in this link could not be used (e.g. “{example}”: {why}); those cells keep their seeded values.",
        zh="链接里追加到 KV 缓存的词元有 {count} 格无法使用（例如“{example}”：{why}），这些格仍用随机种子生成的值。"),
    "notice_kv_words": S(
        en="This link adds tokens to the KV cache after a text ({count} of them). With a text, the cache adds the model's next tokens to the text itself, so the text now ends with them: “{words}”.",
        zh="这个链接在文本之后向 KV 缓存追加 {count} 个词元。有文本时，缓存追加的是模型接下来选出的词元，而且直接接在文本末尾，所以文本现在以它们结尾：“{words}”。"),
    "notice_cells": S(
        en="Cell ({cell}) is {value}: only finite numbers work, so its previous value {kept} was kept.",
        zh="第 ({cell}) 格填的是 {value}：这里只能填有限的数值，所以这一格仍是之前的 {kept}。"),
    "budget_ask": S(
        en="This view computes {numbers:,} numbers, more than {budget:,}. On a demo many people share, drawing it slows everyone's page for a moment, so it waits for your go.",
        zh="这个视图要计算 {numbers:,} 个数，超过了 {budget:,} 个。这个演示由很多人共用，画它会让每个人的页面都慢上一会儿，所以要等你确认再画。"),
    "budget_draw": S(
        en="Draw it",
        zh="画出来"),
    "budget_full": S(
        en="This view would hold {needs:,} MB while it is shown, and the views shown on this server already hold {held:,} of the {budget:,} MB its memory keeps for them. A page gives its share up once it goes {idle} s without a click, or once it has kept it {hold} s while another page waits, so there is room in {wait} s if those pages stay untouched until then. You can also choose smaller sizes, or a seed already shown: pages on the same weights share them.",
        zh="这个视图显示期间要占用 {needs:,} MB 内存，而服务器为视图留出的 {budget:,} MB 内存中，正在显示的视图已经占用了 {held:,} MB。页面连续 {idle} 秒没有操作，或者在别的页面等待时已经占用了 {hold} 秒，就会让出它占的内存：如果那些页面在这段时间里没人操作，{wait} 秒后就能腾出空间。也可以把维度调小一些，或者用别人正在看的随机种子（相同的权重只占一份内存）。"),
    "budget_retry": S(
        en="Try again",
        zh="再试一次"),
    "budget_waiting": S(
        en="Another large view is being drawn on this server; yours comes next…",
        zh="服务器正在画另一个大视图，画完就轮到你的……"),
    "budget_pace": S(
        en=("This page has asked for a lot of computing in the last few seconds, so it takes turns with the other "
            "busy pages on this server; yours is drawn next…"),
        zh="这个页面在过去几秒里要求了大量计算，所以要和服务器上其他繁忙的页面轮流进行；接下来就画你的……"),
    "number_empty": S(
        en="{label} needs a number from {low} to {high}; the box was empty or held no number, so it keeps {kept}.",
        zh="{label} 需要 {low} 到 {high} 之间的数；输入框是空的或不是数字，所以仍用 {kept}。"),
    "number_outside": S(
        en="{label} takes {low} to {high}; {value} is outside that, so it keeps {kept}.",
        zh="{label} 的取值范围是 {low} 到 {high}；{value} 超出了这个范围，所以仍用 {kept}。"),
    "notice_cells_many": S(
        en="{count:,} cells are empty or not finite numbers (the first, ({cell}), is {value}); each kept its previous value.",
        zh="有 {count:,} 格是空的或不是有限的数值（第一格 ({cell}) 是 {value}），这些格都仍是之前的值。"),
    "error_input": S(
        en="These numbers cannot be computed: {message}",
        zh="这些数字无法计算：{message}"),
    "error_overflow": S(
        en="X is too large: a product overflows float64 (beyond ±1.8e308). Scale X down, e.g. keep |X| below 1e100.",
        zh="X 太大了：某个乘积超出了 float64 的范围（±1.8e308）。请把 X 缩小，例如让 |X| 小于 1e100。"),
}
