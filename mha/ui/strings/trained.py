"""The tiny GPT trained here: its sizes and task, the heads' roles, its training curve, training it again."""

from .entry import CHART, S

STRINGS = {
    "model": S(
        en="Weights",
        zh="权重"),
    "model_help": S(
        en=("Seeded: X and the weights are random numbers drawn from a seed, at any sizes: the post's setting, "
            "which gives shapes but no numbers. Trained: a two-layer model trained in this repository on sequences "
            "that repeat, at fixed sizes."),
        zh=("随机：X 和权重都是按种子生成的随机数，维度任意；这正是原文的设定，原文只给形状，不给具体的数。"
            "训练过：在本仓库里训练的两层模型，训练数据是会重复的序列，维度固定。")),
    "model_seeded": S(
        en="Seeded (the post)",
        zh="随机（原文）"),
    "model_trained": S(
        en="Trained",
        zh="训练过"),
    "layer": S(
        en="Layer",
        zh="层"),
    "layer_help": S(
        en=("Which block's attention the walk shows. Layer 1 reads the letters and their positions; layer 2 "
            "reads what layer 1 added to them."),
        zh="选择各步骤展示哪一层（哪一个块）的注意力。第 1 层读入字母和它们的位置；第 2 层读第 1 层在此基础上加进来的信息。"),
    "trained_sizes": S(
        en=(r"The trained model fixes the sizes: $d_{{\text{{model}}}} = {d_model}$, $d_k = {d_k}$, $d_v = {d_v}$, "
            r"$h = {n_heads}$, $d_{{ff}} = {d_ff}$; n is the number of letters."),
        zh=(r"训练过的模型维度固定：$d_{{\text{{model}}}} = {d_model}$、$d_k = {d_k}$、$d_v = {d_v}$、$h = {n_heads}$、"
            r"$d_{{ff}} = {d_ff}$；n 就是字母的个数。")),
    "trained_tokens_note": S(
        en=("The trained model reads one letter per token, {first} to {last} (spaces are skipped, at most "
            "{most} letters), with positions it learned. It was trained on {task} followed by "
            "the same letters again."),
        zh=("训练过的模型每个字母算一个词元，只认 {first} 到 {last}（空格跳过，最多 {most} 个字母），位置编码是学出来的。"
            "它的训练数据是{task}，后面再把同样的字母重复一遍。")),
    "trained_unknown": S(
        en="The trained model only knows the letters {first} to {last}; left out: {chars}.",
        zh="训练过的模型只认识 {first} 到 {last} 这些字母；没有用上的字符：{chars}。"),
    "trained_task_distinct": S(
        en="a few distinct letters",
        zh="几个互不相同的字母"),
    "trained_task_repeats": S(
        en="a run of random letters (a letter may come back)",
        zh="一串随机字母（同一个字母可能出现不止一次）"),
    "trained_cut": S(
        en="The trained model reads at most {most} letters; the rest is left out.",
        zh="训练过的模型最多读 {most} 个字母，多出来的部分没有用上。"),
    "trained_random": S(
        en="Draw a repeated sequence",
        zh="随机生成一个重复序列"),
    "input_trained": S(
        en=("With the trained model, this X is what layer {layer}'s attention reads: $\\mathrm{{LN}}_1$ of the residual "
            "stream at that layer, computed from your {n} letters. Editing a cell overrides it for the walk."),
        zh=("使用训练过的模型时，这里的 X 是第 {layer} 层注意力读到的输入：该层残差流经过 $\\mathrm{{LN}}_1$ 之后的结果，"
            "由你的 {n} 个字母算出。修改任意一格，后面各步就改用你修改后的值。")),
    "block_trained": S(
        en="Layer {layer} of the trained model: its own weights, on the residual stream that reaches it.",
        zh="训练过的模型的第 {layer} 层：用它自己的权重，作用在流到这一层的残差流上。"),
    "next_trained": S(
        en=("These weights were trained on repeated sequences. Once the second copy has begun, the most "
            "likely next letter should be the one that followed this letter in the first copy."),
        zh="这些权重是在重复序列上训练出来的。进入第二遍之后，最可能的下一个字母应当是第一遍里紧跟在当前字母后面的那个。"),
    "roles_title": S(
        en="What does each head do? Measured on this sequence",
        zh="每个头在做什么？在当前序列上实测"),
    "roles_text": S(
        en=("Previous-token score: the mean weight a row puts on the token just before it. Induction score: "
            "the mean weight on the token that came right after an earlier copy of the current letter, over "
            "the rows that have such a copy. A head is named by a score only when it reaches that score's "
            "threshold, the higher of {floor} and {margin} above the best score of that kind any head of the "
            "untrained model (step 0) reaches on this same sequence: here {bars}."),
        zh=("前一词元分数：每一行分给紧挨在它前面那个词元的权重，取平均。归纳分数：对于当前字母在前面出现过的那些行，分给前面那次出现的下一个词元的权重，取平均。某项分数达到它的门槛，才按这项分数给这个头命名；门槛取 {floor} 与“未训练的模型（第 0 步）在同一序列上所有头在这一项上的最高分再加 {margin}”中较大的那个；这里{bars}。")),
    "roles_bars": S(
        en="{prev_bar} for the previous-token score and {ind_bar} for the induction score",
        zh="前一词元分数的门槛是 {prev_bar}，归纳分数的门槛是 {ind_bar}"),
    "roles_bars_same": S(
        en="{bar} for both",
        zh="两项的门槛都是 {bar}"),
    "roles_layer": S(
        en="Layer",
        zh="层"),
    "roles_head": S(
        en="Head",
        zh="头"),
    "roles_prev": S(
        en="previous-token score",
        zh="前一词元分数"),
    "roles_induction": S(
        en="induction score",
        zh="归纳分数"),
    "roles_role": S(
        en="what it does here",
        zh="在这里的作用"),
    "role_previous": S(
        en="previous-token head",
        zh="前一词元头"),
    "role_induction": S(
        en="induction head",
        zh="归纳头"),
    "role_both": S(
        en="previous-token and induction",
        zh="既看前一词元，也做归纳"),
    "role_none": S(
        en="no clear pattern",
        zh="没有明显的模式"),
    "roles_no_repeat": S(
        en="no letter repeats yet",
        zh="还没有重复的字母"),
    "timeline_title": S(
        en="Training, step by step",
        zh="训练过程，一步一步看"),
    "timeline_text": S(
        en=("The model was saved {count} times while it trained for {steps} steps. Pick a moment: the loss "
            "at that point (on a fixed set of repeated sequences), and what this layer's heads did then "
            "on your sequence. While no head does induction the loss stays high; it falls as one forms."),
        zh=("模型训练了 {steps} 步，途中保存了 {count} 次。选一个时刻：看看那时的损失（在一组固定的重复序列上算的），"
            "以及这一层的各个头当时在你的序列上怎么分配注意力。还没有头做归纳时，损失一直很高；归纳头形成的过程中，损失随之下降。")),
    "timeline_step": S(
        en="Training step",
        zh="训练到第几步"),
    "timeline_x": S(
        en="training step",
        zh="训练步数",
        draws=CHART),
    "timeline_y": S(
        en="loss on the second copy",
        zh="第二遍的损失",
        draws=CHART),
    "timeline_at": S(
        en="At step {step}, every head on your sequence (layer {layer}'s patterns under the table):",
        zh="第 {step} 步时，各个头在你的序列上的表现（第 {layer} 层的注意力模式在表格下方）："),
    "retrain_title": S(
        en="Train it again",
        zh="再训练一次"),
    "retrain_text": S(
        en=("Train the same model from scratch with another seed: {steps} steps, about a minute. Other "
            "seeds can end with different heads, or none that does induction; the table above then says so."),
        zh=("换一个种子，从头训练同一个模型：{steps} 步，大约一分钟。换了种子，头的分工可能不同，"
            "也可能没有一个头学会归纳；上面的表格会如实显示。")),
    "retrain_seed": S(
        en="Seed",
        zh="随机种子"),
    "retrain_button": S(
        en="Train with this seed",
        zh="用这个种子训练"),
    "retrain_running": S(
        en="Training with seed {seed} …",
        zh="正在用种子 {seed} 训练……"),
    "retrain_busy": S(
        en=("Another page's model is training in this app right now, and only one trains at a time: the next "
            "run can start in about {s} s."),
        zh="本应用里正有别的页面的模型在训练，同一时间只能训练一个：大约 {s} 秒后才能开始下一次。"),
    "retrain_resting": S(
        en=("The trainer rests for a minute between runs, so that a whole class's pages stay quick: the "
            "next run can start in {s} s."),
        zh="两次训练之间，训练程序要歇一分钟，好让全班的页面都保持流畅：{s} 秒后才能开始下一次。"),
    "retrain_failed": S(
        en="Training with seed {seed} stopped: {error}",
        zh="用种子 {seed} 的训练中断了：{error}"),
    "notice_retrain_gone": S(
        en=("The model retrained with seed {seed} is not on this server, which keeps the last {kept} seeds trained "
            "on it: the page shows the shipped model. Train seed {seed} again to see it."),
        zh="用种子 {seed} 重新训练的模型不在这个服务器上（它只保留最近训练的 {kept} 个种子）：页面显示的是自带的模型。再用种子 {seed} 训练一次就能看到它。"),
    "retrain_showing": S(
        en=("Showing the model retrained with seed {seed}. Measured after training as means over {count} "
            "fresh sequences of its task, not on this page's sequence (so they differ from the table "
            "above): accuracy on the second copy {acc}, best previous-token score in layer 1 {prev}, best "
            "induction score in layer 2 {ind}."),
        zh=("当前显示的是用种子 {seed} 重新训练的模型。下面几个数是训练结束后在 {count} 条新抽的任务序列上求的平均，不是在当前页面的这条序列上测的，所以和上面表格里的数不同：第二遍的准确率 {ac"
            "c}，第 1 层最高的前一词元分数 {prev}，第 2 层最高的归纳分数 {ind}。")),
    "retrain_back": S(
        en="Back to the shipped model",
        zh="换回自带的模型"),
}
