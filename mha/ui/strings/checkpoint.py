"""What is wrong with a folder or upload that is not a GPT-2 checkpoint the core can run (mha.gpt2.CheckpointError's
keys), said after the checkpoint's name in the page's language."""

from .entry import S

STRINGS = {
    "ckpt_err_no_folder": S(
        en="there is no such folder.",
        zh="没有这个文件夹。"),
    "ckpt_err_no_config": S(
        en="it has no config.json; a GPT-2 checkpoint has config.json, model.safetensors and its tokenizer.",
        zh="缺少 config.json；GPT-2 检查点应包含 config.json、model.safetensors 和它的分词器。"),
    "ckpt_err_config_big": S(
        en="its config.json is {size:,} bytes, too large to be a model's settings.",
        zh="它的 config.json 有 {size:,} 字节，太大了，不可能是模型的配置。"),
    "ckpt_err_config_json": S(
        en="its config.json is not a table of settings in JSON.",
        zh="它的 config.json 不是 JSON 格式的配置表。"),
    "ckpt_err_not_gpt2": S(
        en="config.json says it is a {kind} model, not GPT-2; only GPT-2's architecture runs here.",
        zh="config.json 说它是 {kind} 模型，不是 GPT-2；这里只能运行 GPT-2 架构的模型。"),
    "ckpt_err_bad_size": S(
        en="config.json's {name} must be a whole number of at least 1; it is {value}.",
        zh="config.json 中的 {name} 必须是不小于 1 的整数，而它是 {value}。"),
    "ckpt_err_too_deep": S(
        en=("it has {layers} layers and {heads} heads in all; this server reads checkpoints of up to {most_layers} "
            "layers and {most_heads} heads (GPT-2 medium's), since the all-heads stage draws every head."),
        zh=("它一共有 {layers} 层、{heads} 个头；本服务器只读取最多 {most_layers} 层、{most_heads} 个头的检查点"
            "（GPT-2 medium 的大小），因为“所有的头”这一步要把每个头都画出来。")),
    "ckpt_err_not_multiple": S(
        en="its model width, {d}, is not a multiple of its {h} heads.",
        zh="它的嵌入维度 {d} 不是头数 {h} 的整数倍。"),
    "ckpt_err_differs": S(
        en="config.json's {name} is {value}, which the GPT-2 block here does not compute.",
        zh="config.json 中的 {name} 是 {value}，这里的 GPT-2 块不按这个设置计算。"),
    "ckpt_err_no_safetensors": S(
        en="it has no model.safetensors (the weights are read from safetensors only, not .bin or .pt).",
        zh="缺少 model.safetensors（这里只读取 safetensors 格式的权重，不读 .bin 或 .pt）。"),
    "ckpt_err_not_safetensors": S(
        en="model.safetensors is not a safetensors file.",
        zh="model.safetensors 不是 safetensors 格式的文件。"),
    "ckpt_err_header_big": S(
        en="model.safetensors says its header is {length:,} bytes, more than a checkpoint's (at most {most:,}).",
        zh="model.safetensors 声称它的文件头有 {length:,} 字节，超过了检查点文件头的上限（{most:,} 字节）。"),
    "ckpt_err_lacks": S(
        en="model.safetensors lacks {count} of the tensors config.json's sizes need, among them {names}.",
        zh="model.safetensors 缺少 config.json 所给维度需要的 {count} 个张量，其中有 {names}。"),
    "ckpt_err_shape": S(
        en="in model.safetensors, {name} has shape {got}; config.json's sizes make it {shape}.",
        zh="model.safetensors 中 {name} 的形状是 {got}，而按 config.json 的维度应为 {shape}。"),
    "ckpt_err_dtype": S(
        en="in model.safetensors, {name} is stored as {dtype}; only {dtypes} are read here.",
        zh="model.safetensors 中 {name} 的存储类型是 {dtype}；这里只读取 {dtypes}。"),
    "ckpt_err_not_finite": S(
        en="in model.safetensors, {name} holds NaN or infinite values.",
        zh="model.safetensors 中 {name} 含有 NaN 或无穷大。"),
    "ckpt_err_no_tokenizer": S(
        en="it has no tokenizer: it needs tokenizer.json, or vocab.json and merges.txt.",
        zh="缺少分词器：需要 tokenizer.json，或者 vocab.json 加 merges.txt。"),
    "ckpt_err_bad_tokenizer": S(
        en="its tokenizer could not be read.",
        zh="无法读取它的分词器。"),
    "ckpt_err_tokenizer_big": S(
        en="its tokenizer has {tokens:,} tokens, more than the {vocab:,} rows of its embedding.",
        zh="它的分词器有 {tokens:,} 个词元，多于嵌入矩阵的 {vocab:,} 行。"),
    "ckpt_err_not_a_file": S(
        en="{file} is not a file of a GPT-2 checkpoint ({files}).",
        zh="{file} 不是 GPT-2 检查点的文件（检查点的文件是 {files}）。"),
    "ckpt_err_twice": S(
        en="{file} is given twice.",
        zh="{file} 上传了两次。"),
}
