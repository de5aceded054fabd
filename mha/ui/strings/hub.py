"""Fetching a GPT-2 from the Hugging Face Hub (issue 45), where the server's operator names a folder for it
(MHA_HUB): the box, what it did, and each reason it did not. A model's name comes bold from the page ({repo},
{name}), as do the two examples and the characters an id may hold, which are code, not words."""

from .entry import S

STRINGS = {
    "hub_label": S(
        en="Or fetch a GPT-2 from the Hugging Face Hub by its name",
        zh="或者按名称从 Hugging Face Hub 下载一个 GPT-2"),
    "hub_help": S(
        en=("A model's name on the Hub, such as {first} or {second}. The server fetches its config.json first and goes on "
            "only if the model fits the {mb} MB it keeps for checkpoints ({variable}); then its tokenizer and "
            "model.safetensors, into {folder}, where it stays for every page of this server. A large model takes "
            "minutes, and the page waits until it is here."),
        zh=("模型在 Hub 上的名称，例如 {first} 或 {second}。服务器先取它的 config.json，只有模型放得进服务器留给检查点的 {mb} MB"
            "（{variable}）时才继续，再把分词器和 model.safetensors 下载到 {folder}；下载后它留在那里，这个服务器的"
            "每个页面都能用。大模型要下载几分钟，页面会一直等到下载完成。")),
    "hub_fetch": S(
        en="Fetch",
        zh="下载"),
    "hub_done": S(
        en="Fetched {name} from the Hub: its heads are below, and this server now offers it to every page.",
        zh="已从 Hub 下载 {name}：下面就是它的注意力头，这个服务器的每个页面现在都能选它。"),
    "hub_bad_id": S(
        en=("“{given}” is not a name on the Hub that this server can fetch: {form}, in letters, digits and {marks}, "
            "at most {most} characters once its “/” is written “--”."),
        zh=("“{given}”不是这个服务器能下载的 Hub 模型名称：应写成 {form}，只用字母、数字和 {marks}，"
            "把“/”写成“--”后不超过 {most} 个字符。")),
    "hub_offline": S(
        en="This server cannot reach the Hugging Face Hub ({host}), so it offers only the checkpoints it already has.",
        zh="这个服务器连不上 Hugging Face Hub（{host}），所以只能提供它已有的检查点。"),
    "hub_busy": S(
        en="Another page is fetching a model from the Hub; try again once it is done (one fetch at a time).",
        zh="另一个页面正在从 Hub 下载模型；等它下载完再试（一次只下载一个）。"),
    "hub_not_found": S(
        en="The Hub has no public model {repo} (or it is private, or gated behind a licence to accept).",
        zh="Hub 上没有公开的模型 {repo}（也可能是私有的，或要先同意许可才能下载）。"),
    "hub_failed": S(
        en="The Hub did not give {repo}'s files, so nothing was kept: {error}",
        zh="没能从 Hub 取到 {repo} 的文件，所以什么也没保留：{error}"),
    "hub_weights_big": S(
        en=("{repo}'s model.safetensors is {size} MB, more than the {need} MB its config.json's numbers take here, "
            "so it was not fetched."),
        zh="{repo} 的 model.safetensors 有 {size} MB，超过了按它的 config.json 算出的 {need} MB，所以没有下载。"),
}
