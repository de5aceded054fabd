"""Every word the page shows, in English and Chinese, one table per language.

A test fails when a key exists in one table and not the other. Every value is a format string:
fields in braces are filled by `Text.__call__` (or, for a template a figure fills, by the figure),
so a literal brace, as in LaTeX, is doubled. How a value may be written depends on what draws it
(tests/app/test_strings.py knows which key goes where): text that Streamlit renders as Markdown
(st.markdown, captions, alerts, labels) writes math as inline LaTeX, `$\\sqrt{{d_k}}$`, never as
`d_k` or `q_{t}` outside dollars; text inside a Plotly chart uses Unicode and Plotly's HTML
(<sub>, <b>) and no dollars; text inside st.latex is LaTeX.
"""

import html
import re

EN = {
    "app_title": "MHA Explorer",
    "app_tagline": "Multi-head causal self-attention, step by step, with real numbers and every shape in view.",
    "sidebar_walk": "The walk",
    "sidebar_view": "View options",
    "sidebar_export": "Download every matrix of this view",
    "export_too_big": "This view holds {values:,} numbers; downloads stop at {limit:,}. Smaller sizes can be downloaded.",
    "export_after_ask": "The files can be written once the view is drawn.",
    "export_prepare": "Write the files ({values:,} numbers)",
    "export_preparing": "Writing {values:,} numbers…",
    "export_no_trace": "Nothing to download while X cannot be computed (the page says why).",
    "export_let_go": "The files written for this view were let go to make room for another page's, so their buttons are gone. Write them again with the button below.",
    "share": "Link to this view",
    "share_help": "The copy button copies it. Opened anywhere, it shows these sizes, this X and this stage.",
    "lang": "Language",
    "preset": "Sizes",
    "preset_post": "The post · 3·5·7·11·2",
    "preset_mask": "The post's mask example · 3×3",
    "preset_tiny": "Tiny · 2·3·2·2·1",
    "preset_hand": "Hand calculation · whole numbers",
    "preset_gpt2": "GPT-2-small widths · 8·768·64·64·12",
    "preset_custom": "Custom",
    "n_tokens": "Tokens n",
    "d_model": r"Embedding size $d_{{\text{{model}}}}$",
    "d_k": "Query/key size $d_k$",
    "d_v": "Value size $d_v$",
    "n_heads": "Heads h",
    "seed": "Seed",
    "integers": "Whole numbers (for paper)",
    "integers_help": (
        "X holds whole numbers from −2 to 2 and every weight one from −1 to 1, "
        "so products can be checked by hand."
    ),
    "head": "Head shown",
    "cell_values": "Numbers in cells",
    "present": "Presenter mode",
    "present_help": "Larger type for a projector. A link with present=1 also opens with the sidebar folded.",
    "png_save": "Save this chart as a PNG image",
    "cell_values_help": (
        "Left out anyway where a matrix is more than 16 on a side or its cells "
        "are too small to read; hover a cell for its value."
    ),
    "primes_yes": "✓ Distinct primes: every shape says where it came from.",
    "primes_no": "These sizes are not distinct primes, so two shapes can look alike.",
    "lengths_shared": "Different quantities share a length here, so the shape no longer says which one it came from: "
                      "{groups}.",
    "lengths_sep": "; ",
    "length_n_tokens": "tokens $n$",
    "length_vocab": "vocabulary size",
    "length_d_model": r"embedding size $d_{{\text{{model}}}}$",
    "length_d_k": "query/key size $d_k$",
    "length_d_v": "value size $d_v$",
    "length_n_heads": "heads $h$",
    "length_concat": r"Concat's width $h\cdot d_v$",
    "length_d_ff": "FFN hidden size $d_{{ff}}$",
    "primes_fix": "Make them distinct primes",
    "primes_fix_help": "Moves the widths and the number of heads to the nearest distinct primes. n stays: it is X's rows, the tokens you have.",
    "primes_but_n": "✓ No two sizes are equal, and all but n are primes: n = {n} is the number of tokens, which stays as X has it.",
    # the walk's stages, by id (walk.py orders and numbers them)
    "stage_matmul": "Matrix product",
    "stage_tokens": "Text → tokens → X",
    "stage_input": "Input X",
    "stage_qk": "Q and K",
    "stage_scores": "Scores → S",
    "stage_values": "V and H",
    "stage_heads": "All heads",
    "stage_output": "Output Y",
    "stage_dependency": "Who depends on whom",
    "stage_kv_cache": "KV cache",
    "stage_variants": "Variant lab: today's attention",
    "stage_block": "The GPT block",
    "stage_next_token": "The next token",
    "code_title": "The numpy behind this stage (read from mha's source)",
    "prev": "← Previous",
    "next": "Next →",
    "credit": "Built on Mistivia's blog post “Computing multi-head attention” (in Chinese).",
    # notices
    "notices_dismiss": "Dismiss these notes",
    "notice_not_whole": "Link parameter {key}={value} is not a whole number; the default was used.",
    "notice_clamped": "Link parameter {key}={value} is outside what this demo allows; {used} was used.",
    "notice_unknown": "Link parameter {key}={value} is not one of the known values; the default was used.",
    "notice_link_over": "This link is longer than the server reads ({chars:,} characters in {fields:,} parameters; it reads at most {max_chars:,} and {max_fields:,}), so the page opened on its default view.",
    "link_left_out": "A link to this view leaves out {what}: {length:,} characters, more than a link carries ({limit:,}). Download the matrices to keep them.",
    "link_left_out_x": "your edits of X",
    "link_left_out_kv": "the tokens added to the KV cache",
    "notice_x_too_long": "The X in this link is {length} characters long (limit {limit}); the seeded X was used.",
    "notice_x_items": "{count} cell(s) of X in this link could not be used (e.g. “{example}”: {why}); the rest were.",
    "why_form": "not of the form row.col~value",
    "why_number": "its value is not a plain decimal number",
    "why_finite": "its value is beyond ±1.8e308, more than float64 holds",
    "why_cell": "there is no such cell",
    "notice_kv_too_long": "The tokens added to the KV cache in this link take {length} characters (limit {limit}); none were added.",
    "notice_kv_count": "Link parameter kv={value} does not start with a number of added tokens (0 to {most}); none were added.",
    "notice_kv_clamped": "This link adds {count} tokens to the KV cache; this demo adds at most {most}, so the first {most} were used.",
    "notice_kv_items": "{count} cell(s) of the tokens added to the KV cache in this link could not be used (e.g. “{example}”: {why}); those cells keep their seeded values.",
    "notice_kv_words": "This link adds tokens to the KV cache after a text ({count} of them). With a text, the cache adds the model's next tokens to the text itself, so the text now ends with them: “{words}”.",
    "notice_cells": "Cell ({cell}) is {value}: only finite numbers work, so its previous value {kept} was kept.",
    "budget_ask": "This view computes {numbers:,} numbers, more than {budget:,}. On a demo many people share, drawing it slows everyone's page for a moment, so it waits for your go.",
    "budget_draw": "Draw it",
    "budget_full": "This view would hold {needs:,} MB while it is shown, and the views shown on this server already hold {held:,} of the {budget:,} MB its memory keeps for them. A page that goes {idle} s without a click gives its share up, so there is room in {wait} s if those pages stay untouched until then. You can also choose smaller sizes, or a seed already shown: pages on the same weights share them.",
    "budget_retry": "Try again",
    "budget_waiting": "Another large view is being drawn on this server; yours comes next…",
    "number_empty": "{label} needs a number from {low} to {high}; the box was empty or held no number, so it keeps {kept}.",
    "number_outside": "{label} takes {low} to {high}; {value} is outside that, so it keeps {kept}.",
    "notice_cells_many": "{count:,} cells are empty or not finite numbers (the first, ({cell}), is {value}); each kept its previous value.",
    "error_input": "These numbers cannot be computed: {message}",
    "error_overflow": "X is too large: a product overflows float64 (beyond ±1.8e308). Scale X down, e.g. keep |X| below 1e100.",
    # shared
    "token": "token",
    "feature": "feature",
    "key_pos": "key",
    "span_row": "row {a}",
    "span_rows": "rows {a}–{b}",
    "click_hint": "Click any cell of ${name}$ to see the dot product that made it.",
    "window_note": "Showing the first {rows}×{cols} of {full_rows}×{full_cols}; hover for values.",
    "trim_rows": "first {rows} rows drawn",
    "trim_cols": "first {cols} columns drawn",
    "trim_both": "first {rows} rows and {cols} columns drawn",
    "blocks_hidden": "heads {first} to {last} not drawn",
    "block_hidden": "head {first} not drawn",
    "breakdown_title": "${name}[{i}, {j}]$ is row {i} of ${a}$ times column {j} of ${b}$:",
    "breakdown_more": "… and {more} more terms",
    "breakdown_check": "The terms add up to {total}; the cell holds {value}.",
    "breakdown_check_rounded": "The products of the factors as written ({digits} significant digits each) add up to {total}; the cell, computed from the unrounded numbers, holds {value}.",
    "head_word": "head {h}",
    "quiz_start": "Quiz me",
    "quiz_ask": "One cell is hidden: what is ${name}[{i}, {j}]$? Row {i} of ${a}$ times column {j} of ${b}$.",
    "quiz_answer": "Your value",
    "quiz_check": "Check",
    "quiz_again": "Another cell",
    "quiz_stop": "Show every cell",
    "quiz_empty": "Type a value first.",
    "quiz_right": "Right: {answer} matches {value} (within 1%).",
    "quiz_wrong": "Not quite: you said {answer}, the cell holds {value}. Here is how it adds up:",
    # matmul
    "matmul_title": "A matrix product, cell by cell",
    "matmul_text": (
        "An a×b matrix times a b×c matrix gives an a×c matrix: the inner sizes must agree and vanish. "
        "Each cell of the result is one dot product: a row of the left matrix against a column of the "
        "right one. Edit A or B, then click a cell of R to watch its row and column meet."
    ),
    "matmul_a": "A (2×3)",
    "matmul_b": "B (3×5)",
    # input
    "input_title": "The input X: one row per token",
    "input_text": (
        r"Each token (with its position) is already a vector of $d_{{\text{{model}}}}$ "
        r"numbers, so n tokens make an $n\times d_{{\text{{model}}}}$ matrix X. "
        "The layer must hand back a matrix Y of the very same shape. Edit any "
        "cell: every later stage recomputes from your numbers."
    ),
    "input_goal": "Goal: Y has the same shape as X · {shape}",
    "input_reset": "Reset X to its seeded values",
    "input_aside": "X is {shape} now: your {count} edited cell(s) beyond it are set aside, and come back if X grows again.",
    "input_back": "X is {shape} now: {count} edited cell(s) set aside earlier are back.",
    "input_kept": "Seed {seed}: the weights and X were drawn anew, but your {count} edited cell(s) of X were kept.",
    "input_editor_help": "Numbers only. Rows are tokens, columns are features.",
    # qk
    "qk_title": "Queries and keys for head {h}",
    "qk_text": (
        r"Each head owns two $d_{{\text{{model}}}}\times d_k$ matrices, $W_Q$ "
        "and $W_K$. Multiplying X by $W_Q$ turns every token into a query vector "
        "(what it looks for); multiplying X by $W_K$ turns it into a key vector "
        "(what it offers). Same rows in, same tokens out: row i of Q and row "
        "i of K both belong to token i."
    ),
    # scores
    "scores_title": "From QKᵀ to S for head {h}",
    "scores_mask_title": "From QKᵀ to S on the post's example",
    "scores_text": (
        "Row i of QKᵀ holds the dot products of token i's query with every key. "
        r"Dividing by $\sqrt{{d_k}}$ keeps these numbers moderate as $d_k$ grows. "
        "The causal mask writes −∞ above the diagonal so no token can look ahead, "
        "and softmax turns each row into weights that are ≥ 0 and add up to 1 "
        "(−∞ becomes 0)."
    ),
    "inner_note": (
        "Drawn: Q's first {shown} of {d_k} columns and Kᵀ's first {shown} of "
        "{d_k} rows; every score sums all {d_k} products."
    ),
    "scores_play_hint": "Pick a step just above the chart ({steps}) to see it, or press ▶ Play to watch them one frame at a time; the slider under the chart names each step.",
    "list_sep": ", ",
    "phase": "Step",
    "phase_qkt": "QKᵀ",
    "phase_scaled": "÷ √{d_k}",
    "phase_given": "given",
    "phase_masked": "masked",
    "phase_s": "S = softmax",
    "step_masked": "mask",
    "anim_qkt": "QKᵀ: cell (i, j) is row i of Q times column j of Kᵀ",
    "anim_fill": "q<sub>{i}</sub> · k<sub>{j}</sub>",
    "anim_fill_rows": "QKᵀ, {rows}",
    "anim_scale": "÷ √{d_k}: every score divided by {root}",
    "anim_given": "the post's 3×3 example, already divided by √d<sub>k</sub>",
    "anim_mask": "mask: −∞ above the diagonal",
    "anim_softmax": "softmax, {rows}",
    "anim_s": "S: softmax of each row; −∞ became 0, each row sums to 1",
    "drawn_part": "first {rows}×{cols} drawn",
    "mask_example": "The post's mask example",
    "mask_example_help": "Put the post's own 3×3 matrix [[1, 2, 3], [4, 5, 6], [7, 8, 9]] in as the scaled scores and watch the mask and softmax act on it.",
    "mask_example_note": "A is the post's example: given, not computed from tokens, so Q and Kᵀ do not apply here. Read it as QKᵀ already divided by $\\sqrt{{d_k}}$. The mask turns it into the matrix in the middle, and softmax, row by row, into S.",
    "mask_example_click": "Click any cell of S to see its softmax written out.",
    "phone_operands": "On a narrow screen the chart leaves Q and Kᵀ out: click a cell to see the row of Q and the column of Kᵀ that made it.",
    "play": "▶ Play",
    "anim_slider": "Animation frame",
    "anim_step_text": "Frame {k} of {count}, {step}: {caption}",
    "pause": "❚❚ Pause",
    "softmax_breakdown": (
        r"S[{i}, {j}] = $\exp(a_{{{i},{j}}})$ divided by the sum of $\exp(a_{{{i},k}})$ "
        r"over the {count} keys k that row {i} may see, with $a = QK^\top/\sqrt{{{d_k}}}$:"
    ),
    "softmax_masked": (
        "S[{i}, {j}] = 0: token {j} comes after token {i}, so the mask set this "
        "score to −∞ and softmax turned it into 0."
    ),
    "frame_cell": "Frame {k} of {count}, step “{step}”: cell [{i}, {j}] shows {value}.",
    "frame_value_more": "{shown} (more exactly {exact})",
    "frame_cell_empty": "Frame {k} of {count}, step “{step}”: cell [{i}, {j}] is not computed yet. Step on, or click it on a later frame.",
    "frame_scaled": "Then divided by $\\sqrt{{{d_k}}}$:",
    "frame_mask_kept": "The mask adds 0 where j ≤ i, so the cell keeps {value}; softmax comes next.",
    "frame_masked": "Here j > i: token {j} comes after token {i}, so the mask writes −∞ in this cell; softmax will turn it into 0.",
    "softmax_breakdown_given": (
        r"S[{i}, {j}] = $\exp(a_{{{i},{j}}})$ divided by the sum of $\exp(a_{{{i},k}})$ "
        r"over the {count} keys k that row {i} may see, with $a = A$, the post's matrix:"
    ),
    # values
    "values_title": "Values and the head's output for head {h}",
    "values_text": (
        r"$W_V$ ($d_{{\text{{model}}}}\times d_v$) turns each token into a value "
        "vector of $d_v$ numbers: what the token hands over when attended to. "
        "H = S·V then mixes the rows of V with the weights in S, so row i of "
        "H is a weighted average of the value vectors of tokens 1 to i."
    ),
    # heads
    "heads_title": "Every head at once",
    "heads_text": (
        "Each head has its own $W_Q$, $W_K$, $W_V$, so each spreads its attention "
        r"in its own way. Their outputs $H_1,\dots,H_h$, each $n\times d_v$, are "
        r"concatenated side by side into one $n\times(h\cdot d_v)$ matrix."
    ),
    "heads_s": "S of every head",
    "heads_concat": r"$\operatorname{{Concat}}(H_1,\dots,H_h)$: one block of $d_v$ columns per head",
    # output
    "output_title": r"Back to $d_{{\text{{model}}}}$: the output Y",
    "output_text": (
        r"$W_O$ is $(h\cdot d_v)\times d_{{\text{{model}}}}$, so $\operatorname{{Concat}}\cdot "
        r"W_O$ is $n\times d_{{\text{{model}}}}$ again: Y has X's shape. Each "
        "head's block of $d_v$ rows in $W_O$ only ever meets that head's columns "
        "of Concat, so Y is a sum with one term per head."
    ),
    "output_parts": "Y as a sum over heads: $H_i$ · (head i's rows of $W_O$)",
    # dependency
    "dependency_title": "Row i of Y depends only on rows 1 to i of X",
    "dependency_text": (
        "Cell (i, j) measures how strongly $Y_i$ reacts to a change in $X_j$: "
        r"the size of the block $\partial Y_i/\partial X_j$ of the Jacobian. Everything "
        "above the diagonal is exactly zero: a token's output never sees later "
        "tokens. Nudge one token (add the same number to each of its features) "
        "and see which rows of Y move."
    ),
    "dependency_zero_when": r"\text{{for }} j > i",
    "dependency_w_count": r"\text{{ parameters}}",
    "dependency_w_trained": r"\text{{layer {layer}'s }}",
    "dependency_map": r"$\lVert\partial Y_i/\partial X_j\rVert$ (Frobenius norm, exact)",
    "dependency_skip": "The exact map costs about {flops:,} operations at these sizes; it is drawn up to {limit:,}.",
    "nudge_token": "Nudge token j",
    "nudge_size": "by adding",
    "nudge_result": "ΔY: the change in Y after adding {eps} to every feature of X{j}",
    "nudge_rows_same": "Untouched: {rows} of Y (largest change {delta}).",
    "nudge_rows_moved": "Moved: {rows} of Y (largest change {delta}).",
    "nudge_none_before": "Every row of Y may move: token 1 is seen by all.",
    # kv cache
    "kv_title": "The KV cache: add a token, keep K and V, drop Q",
    "kv_text": (
        "Generating text appends one token at a time. Because row i of Y only "
        "depends on rows 1 to i of X, the rows already computed never change: "
        "only the new token's row is new work. That row needs the new token's "
        "query and the keys and values of every token so far, so K and V are "
        "worth keeping, while old queries are never used again."
    ),
    "kv_next": "Next token X{t} (seeded; edit it before adding if you like)",
    "kv_add": "Add token X{t}",
    "kv_reset": "Back to the {n} tokens of X",
    "kv_added_cap": "This demo adds at most {most} tokens; go back to X to start again.",
    "kv_state": (
        "The cache holds {t} tokens' K and V: per head, K is {t}×{d_k} and V "
        "is {t}×{d_v}; {size} in all."
    ),
    "kv_hint": (
        "Nothing added yet: the chart replays the step in which the last row "
        "of X entered the cache. Add a token to take the next step."
    ),
    "kv_arrive": "X{t} arrives. The cache already holds the K and V rows of {tokens}.",
    "kv_arrive_first": "X{t} arrives; the cache is still empty.",
    "kv_append": "q{t}, k{t}, v{t} = X{t}·W<sub>Q</sub>, X{t}·W<sub>K</sub>, X{t}·W<sub>V</sub>; k{t} and v{t} become row {n} of the K and V caches.",
    "kv_scores": "Row {n} of the attention scores: q{t}·Kᵀ/√{d_k}, one dot product with every cached key (no mask: no later key exists yet).",
    "kv_softmax": "Softmax of that row is row {n} of {s}; the rows above it are {s} as it was.",
    "kv_drop_q": "Q's {rows}: never needed again. Only q{t} meets the K cache, in one dot product with each key.",
    "kv_drop_q_first": "Q is not cached: q{t} serves this row only, then it is dropped.",
    "kv_output": "Row {n} of {h} = row {n} of {s} times V, then Y{t}; {ys} unchanged.",
    "kv_output_first": "Row {n} of {h} = row {n} of {s} times V, then Y{t}.",
    "kv_legend": "Dotted: {rows}, as before X{t} arrived. Solid: row {n}, new.",
    "kv_legend_first": "Solid: row {n}, new.",
    "kv_drop_q_note": "Q's {rows}: never needed again",
    "kv_step_arrive": "arrive",
    "kv_step_append": "append",
    "kv_step_scores": "score",
    "kv_step_softmax": "softmax",
    "kv_step_drop_q": "drop Q",
    "kv_step_output": "output",
    "kv_last_rows": "last {n} of {total} rows",
    "kv_first_cols": "first {n} of {total} columns",
    "kv_last_cols": "last {n} of {total} columns",
    "kv_part": "Show",
    "kv_tab_step": "The step, checked",
    "kv_window_cols": (
        "Drawn: the first {cols} columns of each matrix wider than that; "
        "every number is computed from the whole matrices."
    ),
    "kv_window_rows": (
        "Drawn: the last {rows} tokens, so S shows its last {rows} rows and its last {rows} columns; "
        "every number is computed from the whole matrices."
    ),
    "kv_window_both": (
        "Drawn: the last {rows} tokens, so S shows its last {rows} rows and its last {rows} columns, and the first "
        "{cols} columns of every other matrix wider than that; every number is computed from the whole matrices."
    ),
    "kv_tab_cost": "What it saves",
    "kv_name_k": "K cache ({k})",
    "kv_name_v": "V cache ({v})",
    "kv_why_q_title": "Why Q is not cached",
    "kv_why_q": (
        "Row t of S is softmax(qₜKᵀ/√dₖ) and "
        "row t of H is that row times V. Only qₜ appears; q₁, …, qₜ₋₁ "
        "were used for their own rows, which are finished. K and V, in contrast, "
        "are read again by every later token."
    ),
    "kv_proof_title": "Checked live on these numbers",
    "kv_proof_what": "what is compared",
    "kv_proof_delta": "max |Δ|",
    "kv_proof_prefix": "{rows} of Y before X{t} arrived vs. after (full recompute)",
    "kv_proof_last": "Y{t} from the cache vs. the last row of a full recompute",
    "kv_proof_s": "S row {t} from the cache vs. the last row of the full S (every head)",
    "kv_exact": "0 — exactly",
    "kv_cost_title": "What the cache saves",
    "kv_cost_step": "Producing token {t}",
    "kv_cost_flops": "FLOPs",
    "kv_cost_bytes": "bytes touched",
    "kv_with": "with the cache",
    "kv_without": "recomputing all {t} tokens",
    "kv_cost_note": "Counting matrix products only (a multiply-add is 2 FLOPs), float64. Weights, X and the cache are read once.",
    "kv_cost_chart": "Generating T tokens: cumulative FLOPs",
    "kv_cost_cache": (
        "The cache after token {t}, by this count: ${count}$ bytes; a real cache of the same shapes, fed {t} "
        "tokens, holds {nbytes} bytes."
    ),
    "kv_cost_note_groups": (
        "{h} query heads share {kv} kv heads: the cache, its bytes and the projections to K and V shrink to "
        "$n_{{kv}}$ heads; each query head still takes a dot product with every key of its group, so the "
        "attention's FLOPs are those of MHA."
    ),
    "kv_cost_note_window": (
        "A step reads at most ${bound} = {most}$ cached tokens: from token {most} on, its work and its bytes stop "
        "growing. The recompute runs forward on all t tokens: it computes the whole t×t scores and then hides "
        "those outside the window, so it keeps growing."
    ),
    "kv_cost_note_alibi": (
        "ALiBi counts as MHA does: it adds its bias $-m_h(i-j)$ to each of a step's h·t scores, additions and not "
        "matrix products, so they are left out here, as the softmax is."
    ),
    "kv_cost_note_rope": (
        "RoPE counts as MHA does: a step turns the first {r} of the $d_k = {d_k}$ dims of the new q (every head) "
        "and k by their position, a few multiplications per dim and not matrix products, so they are left out "
        "here. The cache keeps k already turned; a recompute turns every row again."
    ),
    "kv_cost_note_mla": (
        "MLA is counted in the absorbed order its cache decodes in: $W_{{UK}}$ is folded into the query and "
        r"$W_{{UV}}$ comes after the softmax, so a step reads the latent c, $t \times d_c$ with $d_c = {d_c}$, once "
        r"for all heads, and each head takes $2\,t\,d_c$ multiply-adds with it. The recompute runs the same order "
        "on all t tokens. The SVD that cut the keys' and values' weights to the latent is made once and not counted."
    ),
    "kv_cost_curves": "The curves below count {variant} as set on this page: at these sizes {here}; at GPT-2-small's {gpt2}.",
    "kv_cost_timed": "Both ways ran {variant}: its own cache, against recomputing the same variant on every token so far.",
    "kv_axis_t": "tokens generated T",
    "kv_axis_flops": "FLOPs",
    "kv_series_cached": "{sizes}, with cache",
    "kv_series_full": "{sizes}, recompute",
    "kv_sizes_now": "these sizes",
    "kv_sizes_gpt2": "GPT-2-small shapes",
    "kv_measure_title": "Measure it here",
    "kv_measure_tokens": "tokens to generate",
    "kv_measure": "Time decoding both ways",
    "kv_measure_progress": "Decoding token {t} of {total}…",
    "kv_measure_result": "Total {cached:.1f} ms with the cache, {full:.1f} ms recomputing: the recompute takes {ratio:.1f} times as long.",
    "kv_measure_axis": "milliseconds per token",
    "kv_measure_cap": "At these sizes the recompute is capped at {T} tokens to keep the page responsive.",
    "kv_series_ms_cached": "with the cache",
    "kv_series_ms_full": "recompute",
    "kv_dropped_rows": r"Added tokens no longer fit $d_{{\text{{model}}}} = {d}$ and were removed.",
    "kv_add_word": "Add the next token, X{t}",
    "kv_next_word_greedy": (
        "The model's next token is “{token}” (probability {p}; greedy, as on the next-token stage), decoded through "
        "the model's KV cache, layer by layer. Adding it appends it to the text: the same act as appending it on the "
        "next-token stage."
    ),
    "kv_next_word_sample": (
        "The model's next token is “{token}” (probability {p}; sampled with the seed at temperature {temperature}, "
        "as on the next-token stage), decoded through the model's KV cache, layer by layer. Adding it appends it to "
        "the text: the same act as appending it on the next-token stage."
    ),
    "kv_hint_word": "The chart replays the step in which the text's last token, X{t} “{token}”, entered the cache.",
    "kv_tex_cached": r"\text{{cached}}",
    "kv_tex_recompute": r"\text{{recompute}}",
    # the KV-cache stage with a variant (issue 34)
    "kv_variant": "Cache of",
    "kv_short_mha": "MHA",
    "kv_short_window": "Window",
    "kv_short_sinks": "Sinks",
    "kv_knob_kv_heads": "kv heads",
    "kv_knob_window": "window W",
    "kv_knob_sinks": "sinks s",
    "kv_knob_rotary_dims": "dims that rotate",
    "kv_knob_d_latent": "latent width",
    "kv_state_heads": "The cache holds {t} tokens' K and V per kv head ({kv} in all), {t}×{d_k} and {t}×{d_v}: {size}.",
    "kv_state_group": "Head {i} reads kv head {g}, which heads {heads} share (group {g}); the figure shows its K and V.",
    "kv_state_no_group": "With {h} heads and {kv} kv heads no two heads share: set fewer kv heads, or more heads.",
    "kv_state_window": "It holds {held}, at most s + W = {sinks} + {w} = {most}.",
    "kv_state_left": "{gone} left: no later query sees them.",
    "kv_state_mla": (
        "The cache holds the latent c of {t} tokens, {t}×{d_latent} for all heads at once: {size}. Each head "
        "rebuilds its K and V from c."
    ),
    "kv_proof_held": "tokens held, at most s + W = {most}",
    "kv_proof_same": "Both sides run the same variant ({variant}): the recompute is forward on all {n} tokens with it.",
    "kv_fig_group": "Heads {heads} share this k and v: group {g}.",
    "kv_append_rope": (
        "q{t} = X{t}·W<sub>Q</sub> and k{t} = X{t}·W<sub>K</sub>, each turned by position {p} ({r} of {d_k} dims, "
        "in pairs 2i, 2i+1); v{t} = X{t}·W<sub>V</sub>. The turned k{t} and v{t} become row {n} of the caches: a "
        "key turns once, as it arrives."
    ),
    "kv_append_window": (
        "q{t}, k{t}, v{t} = X{t}·W<sub>Q</sub>, X{t}·W<sub>K</sub>, X{t}·W<sub>V</sub>; k{t} and v{t} join the K "
        "and V caches, which keep {kept}{gone}."
    ),
    "kv_keep_window": "the last {w} tokens only",
    "kv_keep_sinks": "the first {s} and the last {w} tokens only",
    "kv_gone": ": X{x} leaves",
    "kv_rows_held": "the rows of {tokens}",
    "kv_scores_alibi": (
        "Row {n} of the scores: q{t}·Kᵀ/√{d_k} − {m}·(i−j), ALiBi's bias with this head's slope {m}; one dot "
        "product with every cached key."
    ),
    "kv_append_mla": (
        "c{t} = X{t}·{w_dkv} becomes row {n} of the latent cache c, all that is kept; q{t} = "
        "X{t}·W<sub>Q</sub> is folded into q{t}·{w_uk}ᵀ, a query in c's space."
    ),
    "kv_scores_mla": (
        "Row {n} of the scores: (q{t}·{w_uk}ᵀ)·cᵀ/√{d_k}, one dot product with every cached latent row; "
        "no K is built."
    ),
    "kv_output_mla": "Row {n} of {h} = (row {n} of {s} · c)·{w_uv}, then Y{t}; {ys} unchanged.",
    "kv_mla_c": "latent cache c",
    "kv_mla_v": "{v} = c·{w_uv}, rebuilt",
    # axis words in hover
    "y_row": "row of Y",
    "x_row": "row of X",
    "rows_of": "row",
    "cols_of": "column",
    # the coda
    "d_ff": "FFN hidden size $d_{{ff}}$",
    "d_ff_help": "Width of the block's feed-forward network (GPT-2 uses four times the embedding size).",
    "n_tokens_from_text": "Set by the text on the tokens stage: one row of X per token.",
    "notice_not_number": "Link parameter {key}={value} is not a number; the default was used.",
    "notice_text_capped": "The text was cut after its first {most} tokens (or {chars} characters), the most this demo takes.",
    "tokens_title": "From text to X: tokens, embeddings, positions",
    "tokens_text": (
        "Where do the rows of X come from? The text is cut into tokens, each token has an id, and the id picks "
        "a row of the embedding matrix E. Add a position vector to each row and you have X. Type a text: every "
        "later stage then starts from it, with one row per token."
    ),
    "tokens_box": "Your text",
    "tokens_box_help": "Words, punctuation marks and emoji are one token each; Chinese is cut into characters. At most {most} tokens.",
    "tokens_example": "No text yet, so here is an example: “{example}”. The walk keeps its seeded X until you type a text or take this one.",
    "tokens_use_example": "Use this text",
    "tokens_count": "{n} tokens, {vocab} distinct: the vocabulary has {vocab} entries, so E has {vocab} rows.",
    "tokens_count_trained": "{n} tokens, {distinct} distinct; the trained model's vocabulary has {vocab} letters, so E "
                            "has {vocab} rows.",
    "token_id": "token id",
    "positions": "Position vectors P",
    "positions_sinusoidal": "Sinusoidal",
    "positions_learned": "Learned",
    "positions_odd": (
        "d = {d} is odd: column 2i takes a sine, column 2i + 1 the cosine of the same frequency, so the last "
        "column has no cosine partner. Count frequencies by column, i = j // 2, not d/2 of each, or the shapes "
        "stop matching."
    ),
    "positions_even": (
        "d = {d} is even, so sines and cosines pair up. With an odd width the last column, 2i, would have no "
        "cosine partner, which is why the code counts frequencies by column."
    ),
    "positions_trained_note": "These are the positions the trained model learned: one row per position, up to {most}, trained with the rest of its weights.",
    "positions_learned_note": "Learned positions are a table of one trained row per position (here drawn at random, untrained, like GPT-2's before training).",
    "tokens_x_used": "Every stage now starts from this X (n = {n}).",
    "tokens_x_edited": "You edited X on the input stage: the walk uses your edited X, not this one. Reset X there to use the text's X again.",
    "tokens_x_not_used": "The example is only shown here: the walk uses the seeded X.",
    "input_from_text": "X is made from your text (n = {n} tokens, on the tokens stage). Editing a cell here overrides it.",
    "input_text_edited": "Your edits override the X made from the text; reset X to go back to the text's X.",
    "block_title": "The GPT block around attention",
    "block_text": (
        "Attention is one part of a GPT block. Around it: two residual connections (a sublayer's output added to "
        "its input), two layer norms (each row to mean 0 and variance 1, then γ and β) and the FFN, a small "
        "two-layer network on each row alone. Every step keeps the shape n×d, so blocks stack."
    ),
    "block_ln_order": "Where the layer norms sit",
    "block_ln_post": "post-LN: the original GPT (the post's figure)",
    "block_ln_pre": "pre-LN: GPT-2",
    "block_order_post": (
        "The original GPT (2018), whose block is the figure the post ends on, puts each layer norm after a residual sum. Attention reads X itself (so $\\mathrm{{Attn}}$ is "
        "exactly the walk's Y), its output is added to X, and the sum is normalised: $R_1 = \\mathrm{{LN}}_1(X + "
        "\\mathrm{{Attn}})$. The FFN reads $R_1$, its output is added to $R_1$, and that sum is normalised again: "
        "$Y = \\mathrm{{LN}}_2(R_1 + \\mathrm{{FFN}})$."
    ),
    "block_order_pre": (
        "GPT-2 (2019) puts each layer norm before its sublayer. Each sublayer reads a normalised copy of the stream and its output is added to "
        "the stream itself: $R_1 = X + \\mathrm{{Attn}}(\\mathrm{{LN}}_1(X))$, $Y = R_1 + "
        "\\mathrm{{FFN}}(\\mathrm{{LN}}_2(R_1))$. GPT-2 also puts one final layer norm after its last block (the next "
        "stage)."
    ),
    "block_why": (
        "Why GPT-2 moved the norm: in pre-LN, the way from X to Y through the residual connections is only "
        "additions, so the input reaches the output, and the gradient reaches the first layers, without being "
        "rescaled by a norm at every block. In post-LN each block's norms sit on that way; deep stacks of them "
        "needed a careful warm-up to train and could still diverge, while pre-LN stacks train stably. The final "
        "norm then keeps the last output's scale in hand."
    ),
    "block_trained_pre": (
        "This model is pre-LN, as GPT-2 is: it was trained with each norm before its sublayer, and its weights "
        "only mean something in that order, so the order cannot be switched here."
    ),
    "block_node_ln1": "LN₁",
    "block_node_attn": "Attention",
    "block_node_ln2": "LN₂",
    "block_node_ffn": "FFN",
    "block_to_walk": "Open the attention box: the walk, from Q and K",
    "block_part": "Part of the block (outlined in orange in the diagram)",
    "block_part_ln1": "LN₁",
    "block_part_attn": "attention, + X",
    "block_part_ffn": "LN₂, FFN up",
    "block_part_ffn_post": "FFN up",
    "block_part_gelu": "GELU",
    "block_part_out": "FFN down, + R₁",
    "block_part_out_post": "FFN down, + R₁, LN₂",
    "block_ln": "Layer norm: each row to mean 0 and variance 1, then scaled by γ and shifted by β",
    "block_hat_note": (
        "$\\hat x$ is ${input}$ with each row's μ subtracted and then divided by $\\sqrt{{\\sigma^2+\\varepsilon}}$: "
        "every row of $\\hat x$ has mean 0 and variance $\\sigma^2/(\\sigma^2+\\varepsilon)$, which is 1 but for "
        "ε = 10⁻⁵ (the columns μ(x̂) and σ²(x̂)). Then γ scales and β shifts each feature."
    ),
    "block_attn": "Attention, then the first residual connection",
    "block_attn_is_y_pre": (
        "Attn is the walk's Y, stages {qk} to {output}, with the same weights, but computed on $\\mathrm{{LN}}_1(X)$ "
        "instead of on X. Adding X back gives $R_1$."
    ),
    "block_attn_is_y_trained": (
        "Attn is the walk's Y, stages {qk} to {output}: with the trained model the walk already runs on what this "
        "layer's attention reads, $\\mathrm{{LN}}_1(X)$ of the residual stream X that reaches it. Adding X back gives $R_1$."
    ),
    "block_attn_is_y_post": (
        "Attn is the walk's Y, stages {qk} to {output}: the same weights on the same X. Adding X back and "
        "normalising the sum gives $R_1$."
    ),
    "block_to_output": "See how Y is made (stage {output})",
    "block_ffn": "The feed-forward network, up: every row to $d_{{ff}}$ hidden units",
    "block_ln2_stats": "Before LN₂ the rows of {what} have means {mean} and variances {var}; after it, 0 and 1 (before γ and β).",
    "hidden_unit": "hidden unit",
    "block_bias": "The chart shows ${up}$; adding the bias row $b_{{fc}}$ ({f} numbers) to every row gives H.",
    "block_gelu": "GELU, unit by unit",
    "block_row": "Row shown on the curve",
    "block_gelu_curve": "GELU(h)",
    "block_gelu_row": "row {i} of H",
    "block_out_pre": "The feed-forward network, down, and the second residual connection",
    "block_out_post": "The feed-forward network, down, the second residual connection, then LN₂",
    "block_rows_alone": "Layer norm and the FFN treat each row alone, so row i of Y still depends on tokens 1 to i only.",
    "next_token_title": "From the last row to the next token",
    "next_token_text": (
        "After the last block, a final layer norm, then each row is compared with every row of E by a dot "
        "product: the logits, one score per vocabulary entry. Softmax of the last row, divided by a "
        "temperature T, is the distribution of the next token."
    ),
    "next_example": "No text yet: this stage runs the walk's X ({n} rows, as the sidebar says) through the block and scores it against the {vocab} words of the example “{example}”. Type your own text on the tokens stage to give the rows words.",
    "next_tied": "E is used twice (tied weights, as in GPT-2): to look tokens up, and transposed to score the {vocab} vocabulary entries.",
    "next_order": "The blocks here are in GPT-2's order (pre-LN, the previous stage's second choice), and GPT-2's final norm $\\mathrm{{LN}}_f$ follows the last one; the original GPT of the post's figure normalises after each sum instead, and has no final norm.",
    "temperature": "Temperature T",
    "temperature_help": "Below 1 sharpens the distribution, above 1 flattens it.",
    "choice": "Choice",
    "choice_greedy": "Greedy (most likely)",
    "choice_sample": "Sampled (seeded)",
    "next_probs_title": "Next-token probabilities after token {i}",
    "next_chosen_greedy": "Greedy choice: “{token}” (id {id}), probability {p}.",
    "next_chosen_sample": "Sampled with the seed: “{token}” (id {id}), probability {p}.",
    "append_token": "Append it to the text",
    "next_full": "The text holds {most} tokens, the most this demo takes.",
    "next_untrained": "These weights are random, not trained: the choice shows the mechanics, not a sensible sentence.",
    "model": "Weights",
    "model_help": "Seeded: random numbers at any sizes, as in the post. Trained: a two-layer model trained in this "
                  "repository on sequences that repeat, at fixed sizes.",
    "model_seeded": "Seeded (the post)",
    "model_trained": "Trained",
    "layer": "Layer",
    "layer_help": "Which block's attention the walk shows. Layer 1 reads the letters and their positions; layer 2 "
                  "reads what layer 1 added to them.",
    "trained_sizes": r"The trained model fixes the sizes: $d_{{\text{{model}}}} = {d_model}$, $d_k = {d_k}$, $d_v = {d_v}$, "
                     r"$h = {n_heads}$, $d_{{ff}} = {d_ff}$; n is the number of letters.",
    "trained_tokens_note": "The trained model reads one letter per token, {first} to {last} (spaces are skipped, at most "
                           "{most} letters), with positions it learned. It was trained on {task} followed by "
                           "the same letters again.",
    "trained_unknown": "The trained model only knows the letters {first} to {last}; left out: {chars}.",
    "trained_task_distinct": "a few distinct letters",
    "trained_task_repeats": "a run of random letters (a letter may come back)",
    "trained_cut": "The trained model reads at most {most} letters; the rest is left out.",
    "trained_random": "Draw a repeated sequence",
    "input_trained": "With the trained model, this X is what layer {layer}'s attention reads: $\\mathrm{{LN}}_1$ of the residual "
                     "stream at that layer, computed from your {n} letters. Editing a cell overrides it for the walk.",
    "block_trained": "Layer {layer} of the trained model: its own weights, on the residual stream that reaches it.",
    "next_trained": "These weights were trained on repeated sequences. Once the second copy has begun, the most "
                    "likely next letter should be the one that followed this letter in the first copy.",
    "roles_title": "What does each head do? Measured on this sequence",
    "roles_text": "Previous-token score: the mean weight a row puts on the token just before it. Induction score: "
                  "the mean weight on the token that came right after an earlier copy of the current letter, over "
                  "the rows that have such a copy. A head is named only by a score of at least {prev_bar} "
                  "(previous-token) or {ind_bar} (induction): {floor}, or {margin} above the best score any head of "
                  "the untrained model (step 0) reaches on this same sequence, whichever is higher.",
    "roles_layer": "Layer",
    "roles_head": "Head",
    "roles_prev": "previous-token score",
    "roles_induction": "induction score",
    "roles_role": "what it does here",
    "role_previous": "previous-token head",
    "role_induction": "induction head",
    "role_both": "previous-token and induction",
    "role_none": "no clear pattern",
    "roles_no_repeat": "no letter repeats yet",
    "timeline_title": "Training, step by step",
    "timeline_text": "The model was saved {count} times while it trained for {steps} steps. Pick a moment: the loss "
                     "at that point (on a fixed set of repeated sequences), and what this layer's heads did then "
                     "on your sequence. While no head does induction the loss stays high; it falls as one forms.",
    "timeline_step": "Training step",
    "timeline_x": "training step",
    "timeline_y": "loss on the second copy",
    "timeline_at": "At step {step}, every head on your sequence (layer {layer}'s patterns under the table):",
    "retrain_title": "Train it again",
    "retrain_text": "Train the same model from scratch with another seed: {steps} steps, about a minute. Other "
                    "seeds can end with different heads, or none that does induction; the table above then says so.",
    "retrain_seed": "Seed",
    "retrain_button": "Train with this seed",
    "retrain_running": "Training with seed {seed} …",
    "retrain_busy": "Another page's model is training in this app right now, and only one trains at a time: the next "
                    "run can start in about {s} s.",
    "retrain_resting": "The trainer rests for a minute between runs, so that a whole class's pages stay quick: the "
                       "next run can start in {s} s.",
    "retrain_failed": "Training with seed {seed} stopped: {error}",
    "retrain_showing": "Showing the model retrained with seed {seed}. Measured after training as means over {count} "
                       "fresh sequences of its task, not on this page's sequence (so they differ from the table "
                       "above): accuracy on the second copy {acc}, best previous-token score in layer 1 {prev}, best "
                       "induction score in layer 2 {ind}.",
    "retrain_back": "Back to the shipped model",
    # the heads stage's parts with the trained model: knock-outs, what each head writes, circuits
    "heads_offer": "Knocking heads out, what each head writes and its circuits need weights that learned something: "
                   "they are on this stage with the trained model.",
    "heads_offer_button": "Use the trained model",
    "heads_part": "Part of the stage",
    "heads_part_patterns": "Where each head looks",
    "heads_part_knock": "Knock heads out",
    "heads_part_writes": "What each head writes",
    "heads_part_circuits": "Circuits",
    "heads_part_timeline": "Training",
    "knock_head": "head {name}: {role}",
    "knock_role_previous": "previous-token",
    "knock_role_induction": "induction",
    "knock_role_none": "no named role",
    "knock_pick": "Heads to knock out (layer.head)",
    "knock_intro": "A head's pattern tells where it reads from, not what the model needs it for. To find out, knock it "
                   "out: its output is set to zero before $W_O$, so it adds nothing to the residual stream, while its "
                   "pattern stays as it was. Pick any heads above; the scores and predictions below follow.",
    "knock_set": "Measured on a held-out set: {count} sequences of the task the model learned (4 to 8 random "
                 "letters, then the same letters again), drawn with seed {seed}, none of them seen in training. "
                 "Accuracy counts the second copy's letters after its first, predicted greedily.",
    "knock_none": "No head is knocked out yet: this is the whole model.",
    "knock_col_acc": "accuracy on the second copy",
    "knock_col_loss": "loss (nats)",
    "knock_row_all": "every head",
    "knock_row_without": "without {names}",
    "knock_row_chance": "guessing (1 of {v} letters)",
    "knock_them_one": "this head",
    "knock_them_many": "these heads",
    "knock_needs_chance": "Without {names} the model copies {after} of the letters, about what guessing gets ({chance}); with "
                          "them, {before}. It cannot copy without {them}.",
    "knock_needs": "Without {names} accuracy falls from {before} to {after}, {drop} points: the model needs {them}, "
                   "though it still copies some letters without.",
    "knock_leans": "Without {names} accuracy falls from {before} to {after}, {drop} points: the model leans on {them}, "
                   "and other heads make up for part of what was lost.",
    "knock_barely": "Without {names} accuracy moves from {before} to {after}, {drop} points: the model barely needs "
                    "{them} here; others do the job.",
    "knock_next_all": "After your whole sequence the model's next letter is {letter} (probability {p}).",
    "knock_next": "After your whole sequence the model's next letter is {letter} (probability {p}) with every head, "
                  "and {after} (probability {q}) without {names}.",
    "knock_seq_title": "Your sequence, position by position",
    "knock_seq_text": "each column: a letter, the letter that really comes next, and the model's guess for it.",
    "knock_seq_changed": "each column: a letter, the letter that really comes next, and the model's guess with every head "
                         "and without the knocked heads; {changed} of {n} guesses change (in bold).",
    "knock_composed_title": "Layer {layer}'s patterns, heads knocked out",
    "knock_composed": "Without {names}, layer {layer}'s heads keep their own weights, yet their queries and keys read "
                      "a residual stream that no longer holds what the knocked heads wrote, so where they look "
                      "changes too (below: each head with every head in place, and with the knocked ones out). Induction score on your sequence, with every head and without: "
                      "{scores}.",
    "knock_composed_head": "head {name} {before} → {after}",
    "knock_s_before": "every head",
    "knock_s_after": "heads knocked out",
    "knock_composed_no_repeat": "No letter of your sequence repeats yet, so there is no induction score to compare; "
                                "the patterns are drawn below.",
    "knock_seq_pos": "position",
    "knock_seq_letter": "letter",
    "knock_seq_next": "next letter",
    "knock_seq_all": "guess, every head",
    "knock_seq_without": "guess, heads knocked out",
    "writes_head": "Head",
    "writes_pos": "Position for the sum",
    "writes_figure": "head {name}'s direct effect on the logits",
    "writes_letter": "letter",
    "writes_text": "Row $i$, column $b$: how much head {name}'s output at position $i$ raises (red) or lowers (blue) "
                   "the logit of letter $b$, going straight through $W_O$ and the final layer norm, with that norm's "
                   "scale taken from the whole residual stream at the row. Effects through later layers are not in it. "
                   "A dotted box marks, in each row whose letter came earlier, the letter that followed that earlier "
                   "copy.",
    "writes_whole": "Heads knocked out on the knock-out part ({names}) are not knocked out here: this is the whole "
                    "model.",
    "writes_no_repeat": "No letter of your sequence has come before yet, so there is no earlier copy to follow.",
    "writes_copies": "At the {rows} positions whose letter came earlier, head {name} pushes hardest for the letter that "
                     "followed that earlier copy at {hits} of {rows}.",
    "writes_sum_title": "Position {pos} (letter {token}): the logit of {letter}, the model's guess, part by part",
    "writes_sum_text": "The residual stream at the top is a sum (the embedding, the positions, every head, every FFN and "
                       "the biases), so the logit is a sum of their parts too.",
    "writes_col_part": "part",
    "writes_col_logit": "adds to the logit of {letter}",
    "writes_part_embedding": "the letter's embedding $E$",
    "writes_part_positions": "the position's row of $P$",
    "writes_part_head": "head {name}",
    "writes_part_ffn": "FFN of layer {layer}",
    "writes_part_biases": "the biases (the FFNs' and the final layer norm's $\\beta$)",
    "writes_total": "sum of the parts",
    "writes_logit": "the logit from the forward pass",
    "circuit_head": "Head",
    "circuit_kind": "Circuit",
    "circuit_ov": "OV: what it writes",
    "circuit_qk": "QK: where it looks",
    "circuit_through": "Keys made by",
    "circuit_through_none": "the letters themselves",
    "circuit_ov_text": "Head {name}'s OV circuit: row $a$ is what the head writes when it reads letter $a$, read out as every letter's logit. $\\hat E$ is each letter's row of $E$ as layer norm 1 hands it on (its $\\gamma$, without $\\beta$); $\\Gamma_f$ is the final layer norm's centring and $\\gamma$. In {hits} of {v} rows the diagonal is the row's largest: reading a letter, the head raises that same letter {hits} times in {v}. Click any cell for its dot product.",
    "circuit_qk_text": "Head {name}'s QK circuit: row $a$, column $b$ is the score a query on letter $a$ gives a key on letter $b$ ($\\hat E$: the letters' rows of $E$ as layer norm 1 hands them on). The diagonal is the row's largest in {hits} of {v} rows: this is how much the head looks for its own letter. Click any cell for its dot product.",
    "circuit_qk_through_text": "Head {name}'s QK circuit with its keys made by head {through}: at a position whose previous letter was $b$, head {through} has written about $b$ into the stream ($\\hat O_{{{through}}}$, row $b$: what it writes, centred and scaled as layer norm 1 hands it on), and this is the score a query on letter $a$ gives that key. The diagonal is the row's largest in {hits} of {v} rows: the query on $a$ looks for the position right after an earlier $a$, the letter an induction head then copies. Click any cell for its dot product.",
    "timeline_acc": "accuracy, every head",
    "timeline_acc_knocked": "accuracy without layer {layer}'s heads",
    "timeline_induction": "best induction score in layer {layer}",
    "timeline_y_acc": "share (0 to 1)",
    "timeline_knock_at": "At step {step}, on {count} of those sequences: accuracy {acc} with every head, {without} without "
                         "layer {layer}'s heads, a gap of {gap} points; the best induction score in layer {layer} is {ind}. "
                         "The gap opens as the induction score rises.",
    "notice_knock_seeded": "Link parameter {key}={value} knocks out heads of the trained model, and this link shows "
                           "the seeded weights (it does not choose the trained model); it was left out.",
    "notice_knock": "Link parameter {key}={value} does not name a head of the trained model ({heads}: layer.head); it "
                    "was left out.",
    # The variant lab (stage `variants`): its opening and picker; each variant's own words follow in its section.
    "variants_title": "The variant lab: what today's models change, on these numbers",
    "variants_text": (
        "The cache keeps K and V for every head and every token, and that memory is what limits how long a model "
        "can read. The models people use today change the post's attention to need less of it, or to know where "
        "each token sits. Pick one change: it runs on the same X and weights as the walk, drawn on the same "
        "figures, with a check that it computes what it claims and what it caches per token."
    ),
    "variant": "Variant",
    "variant_mha": "MHA (the post)",
    "variant_gqa": "GQA",
    "variant_mqa": "MQA",
    "variant_window": "Sliding window",
    "variant_sinks": "Window + sinks",
    "variant_alibi": "ALiBi",
    "variant_rope": "RoPE",
    "variant_mla": "MLA",
    "variant_online": "Online softmax",
    "lab_part": "Part of the lab",
    "lab_part_change": "What changes",
    "lab_part_click": "Click a product",
    "lab_part_check": "Check and cost",
    "lab_product": "Product",
    # lab: GQA and MQA
    "lab_groups_map_part": "drawn: group {g} of {groups}, with heads {heads}; the others are alike",
    "lab_groups_kv_heads": "K and V heads $n_{{kv}}$ (the divisors of $h$)",
    "lab_groups_kept": "$h = {h}$ is not a multiple of $n_{{kv}} = {asked}$: the heads cannot split into equal groups, "
                       "so the page shows $n_{{kv}} = {used}$, the largest divisor of $h$ below it.",
    "lab_groups_trained": "The trained model's sizes are its own: {h} heads in each layer, so its K and V heads can "
                          "only number {options}, and no group sits in between. Seeded weights can take 4 heads and "
                          "show a real group.",
    "lab_groups_four_gqa": "With {h} heads, GQA has nothing between one K and V for every head (MQA, $n_{{kv}} = 1$) "
                           "and one for each (the walk's MHA). A real group, some heads sharing but not all, needs "
                           "4 heads.",
    "lab_groups_four_one": "With a single head there is nothing to share. Sharing K and V needs at least 2 heads, and a "
                           "real group, some heads sharing but not all, needs 4.",
    "lab_groups_four_button": "Use 4 heads (X stays)",
    "lab_groups_group": "group {g} (heads {heads})",
    "lab_groups_intro": "{h} query heads, {n_kv} K and {n_kv} V. Each group of {size} heads shares one K and one V: "
                        "{groups}. Every head keeps its own $W_Q$, so its own Q; each group keeps the $W_K$ and "
                        "$W_V$ of its first head in the walk.",
    "lab_groups_intro_mqa": "{h} query heads, 1 K and 1 V: every head reads the same K and V. Every head keeps its "
                            "own $W_Q$, so its own Q; the one K and V come from the $W_K$ and $W_V$ of head 1 in the "
                            "walk.",
    "lab_groups_row1": "See row 1 of H below: it is the same for every head of a group, since the first token sees "
                       "only itself and the group's heads read the same V.",
    "lab_groups_none": "{h} query heads and {h} K and V heads: each head reads its own K and V, as in the walk. "
                       "Nothing is shared ($n_{{kv}} = h$): this is the walk's MHA.",
    "lab_groups_mqa": "This is MQA, the extreme case, which Falcon uses: the smallest cache, and every head has to find "
                      "what it needs among the same keys and values.",
    "lab_groups_gqa": "Between the two: Llama 3's 8B model has each K and V read by 4 query heads (32 heads, 8 K and "
                      "V heads).",
    "lab_groups_map_title": "Each group's K and V drawn once, then the Q of every head that reads them",
    "lab_groups_read_by": "heads {heads}",
    "lab_groups_read_by_one": "head {heads}",
    "lab_groups_sh_title": "Each head's S, and its H = S·V with its group's V",
    "lab_groups_h_block": "head {i} · group {g}",
    "lab_groups_check_title": "Checked live on this page",
    "lab_groups_cache_text": "What a decoder keeps per token: the page feeds the {n} rows of X into a real KV cache "
                             "from the core, one by one, then divides its bytes by 8 (one float64) and by the tokens "
                             "it holds.",
    "lab_groups_col_cache": "K and V per token",
    "lab_groups_col_measured": "measured (floats)",
    "lab_groups_col_formula": "formula",
    "lab_groups_row_mha": "the walk's MHA, {h} heads",
    "lab_groups_row_shared": "{variant}, {n_kv} K and V heads",
    "lab_groups_reads_text": "Does every head read its own group's K and V? The page recomputes each head's S and H "
                             "from X and the weights with plain numpy, the group taken from the rule $g(i)$ above "
                             "rather than from the core; a head reading another group's K or V would leave a "
                             "difference far from 0.",
    "lab_groups_col_head": "head $i$",
    "lab_groups_col_group": "its group $g(i)$",
    "lab_groups_col_diff": r"difference $\max\lvert H_i - S_i V_{{g(i)}}\rvert$",
    "lab_groups_y_same": "Nothing is shared, so Y is exactly the walk's Y.",
    "lab_groups_y_moved": r"Sharing changes the model: on these weights, $\max\lvert Y - Y_{{\text{{MHA}}}}\rvert = "
                          r"{diff}$ against the walk's Y.",
    "lab_groups_trained_with": "Real models do not take a trained MHA and merge its heads like this: they are trained "
                               "with the sharing from the start, or converted and then trained a little more. The "
                               "GQA paper (Ainslie et al., 2023) makes each group's K and V projections the mean of "
                               "its heads' and uptrains for about 5% of the original training steps; its GQA with 8 "
                               "groups comes close to MHA's quality at nearly MQA's speed. Here the first head's are "
                               "kept and nothing is retrained, so Y moves.",
    # lab: window and sinks
    "lab_window_w": "Window W",
    "lab_window_s": "Sinks s",
    "lab_window_text": (
        "A sliding window (Mistral's) lets query i read only the last W = {w} keys, $i - W < j \\le i$: each "
        "row of the mask keeps at most {w} cells, a band along the diagonal. A key that has left the band is "
        "never read by a later query either, so the cache lets it go: it never holds more than {cap} tokens."
    ),
    "lab_window_sinks_text": (
        "StreamingLLM keeps the first s = {s} keys visible beside a window of W = {w}: models pour much of "
        "their attention onto the first tokens (attention sinks), and a window that drops them reads worse. "
        "Query i reads the keys with $i - W < j \\le i$ or $j \\le s$, so the mask is the band plus the first s "
        "columns, and the cache never holds more than s + W = {cap} tokens."
    ),
    "lab_window_hidden": (
        "Here the window hides {hidden} of the {kept} scores the causal mask keeps for n = {n} tokens: the grey "
        "cells below the diagonal."
    ),
    "lab_window_none": (
        "With n = {n} tokens and W = {w}, every key is still inside the window: nothing is hidden yet, and this "
        "mask is just the causal one. The window starts hiding keys at n = {need} tokens."
    ),
    "lab_window_none_sinks": (
        "With n = {n} tokens, W = {w} and s = {s}, every key is inside the window or among the sinks: nothing "
        "is hidden yet, and this mask is just the causal one (the post's n = 3 with W = 2 and s = 1 is such a "
        "case). Keys start to be hidden at n = {need} tokens."
    ),
    "lab_window_more": "Use n = {n} tokens",
    "lab_window_too_wide": (
        "No X this page takes is long enough to hide a key (at most {most} tokens): make W or s smaller."
    ),
    "lab_window_text_n": (
        "X comes from a text, so n is its number of tokens: add words to the text, or add tokens one at a time "
        "on the KV-cache stage (its button is under “{check}”)."
    ),
    "lab_window_mask_title": (
        "The mask M, the scores with it added, and S, for head {h}: grey cells are hidden (the future and, with "
        "the window, keys too far back)."
    ),
    "lab_window_outputs": (
        "Head {h}'s output H = S·V with the window's S: a hidden key's weight is 0, so its row of V adds "
        "nothing. Click a cell of H for its dot product, or let the quiz ask you for one."
    ),
    "lab_window_check": (
        "Live check: X goes through mha's KV cache (mha.KVCache) one token at a time, and each token's row of Y "
        "is compared with the same row of a full recompute under the same mask (forward on all {n} tokens). The "
        "cache may hold at most {cap} tokens."
    ),
    "lab_window_col_token": "Token",
    "lab_window_col_held": "Tokens in the cache after it",
    "lab_window_col_len": "Cache length",
    "lab_window_col_diff": "Largest difference, cached Y against recomputed",
    "lab_window_col_ok": "Equal, within the limit",
    "lab_window_check_ok": (
        "Every row decoded through the cache equals the recompute (largest difference {diff}), and the cache "
        "never held more than {longest} tokens: within its limit of {cap}."
    ),
    "lab_window_check_bad": (
        "The cache and the recompute disagree (largest difference {diff}), or the cache held {longest} tokens, "
        "more than its limit of {cap}: this window is not what it claims."
    ),
    "lab_window_kv_hint": (
        "The KV-cache stage decodes through this same window: add tokens one at a time there and watch the "
        "oldest leave."
    ),
    "lab_window_to_kv": "Add tokens on the KV-cache stage",
    # lab: ALiBi
    "lab_alibi_text": (
        "ALiBi (BLOOM uses it) puts no positions into X. Each head adds a bias to its scaled scores instead, "
        "$B_{{ij}} = -m_h (i - j)$: 0 on the diagonal, more negative the further back the key, by a slope $m_h$ "
        "of the head's own. S is then $\\operatorname{{softmax}}(QK^\\top/\\sqrt{{d_k}} + B)$, the causal mask "
        "still in B."
    ),
    "lab_alibi_x_seeded": "X here is seeded numbers: it holds no positions to begin with, so nothing needs taking out.",
    "lab_alibi_x_text": (
        "X here comes from a text: it was the tokens' rows of E plus the positions P, so this page takes P back "
        "out and runs on E's rows alone (your edits stay). Without ALiBi these rows would carry no order at "
        "all."
    ),
    "lab_alibi_x_trained": (
        "X here is what the trained layer reads: the model learned with positions added at its input, and the "
        "layers below mix them into X, so they cannot be taken out. The page adds ALiBi on top to show the "
        "arithmetic; the model was not trained with it."
    ),
    "lab_alibi_col_head": "Head",
    "lab_alibi_col_slope": "Slope $m_h$",
    "lab_alibi_col_here": "Farthest key here ({back} back) loses",
    "lab_alibi_col_spread": "This head's scores span",
    "lab_alibi_col_far": "A key {far} tokens back loses",
    "lab_alibi_rule_power": (
        "The paper's rule for {h} heads (a power of two): head k gets $m_k = 2^{{-8k/{h}}}$, a geometric series "
        "from $2^{{-8/{h}}}$ down to $2^{{-8}}$."
    ),
    "lab_alibi_rule_other": (
        "The paper's rule for {h} heads, not a power of two: the largest power of two p below {h} takes its own "
        "p slopes, and the heads left over take every second slope of the rule for 2p heads."
    ),
    "lab_alibi_small": (
        "On {n} tokens that is tiny: the farthest key loses at most {most}, little next to how far a head's "
        "scores spread, so S barely moves from plain causal attention. ALiBi is made for long texts: a key "
        "{far} tokens back loses {big} in head 1, enough to all but silence it."
    ),
    "lab_alibi_large": (
        "On {n} tokens the farthest key already loses {most} in head 1, comparable to how far its scores "
        "spread, so S leans toward recent keys. A key {far} tokens back would lose {big}."
    ),
    "lab_alibi_bias_title": "Each head's bias B, a matrix of its own (grey: the cells the causal mask hides)",
    "lab_alibi_scores_title": (
        "Head {h}: the scores with its bias added, and S. Click a score to see how it came to be."
    ),
    "lab_alibi_click": "Click any score of head {h} (left) for its dot product and its bias.",
    "lab_alibi_future": "Key {j} comes after query {i}: the causal mask hides it (−∞), whatever its bias.",
    "lab_alibi_cell": (
        "Score ({i}, {j}) of head {h}: the dot product over $\\sqrt{{d_k}}$, minus the slope times how far back "
        "the key is:"
    ),
    "lab_alibi_cell_same": "✓ forward's own cell holds {value}: the same.",
    "lab_alibi_cell_differs": "✗ forward's cell holds {value}: not what ALiBi's rule gives.",
    "lab_alibi_check_ok": (
        "Live check: all {cells} visible scores, computed on this page as $q_i \\cdot k_j/\\sqrt{{d_k}} - "
        "m_h(i-j)$, equal forward's scores plus bias (largest difference {diff})."
    ),
    "lab_alibi_check_bad": (
        "Live check failed: computed on this page as $q_i \\cdot k_j/\\sqrt{{d_k}} - m_h(i-j)$, the {cells} "
        "visible scores differ from forward's scores plus bias by up to {diff}."
    ),
    "lab_alibi_outputs": (
        "Head {h}'s output H = S·V with ALiBi's S: click a cell for its dot product, or let the quiz ask you "
        "for one."
    ),
    # lab: RoPE
    "lab_rope_text": (
        "RoPE (rotary position embedding, used by Llama, Mistral, DeepSeek and most models since) puts each token's "
        "position into Q and K themselves instead of adding it to X. Each pair of dims of a q or k row, taken as a "
        "point in a plane, turns by an angle that grows with the token's position p, counted from 0: pair i turns "
        "by $\\theta_i$ a position. V is not turned."
    ),
    "lab_rope_none": (
        "With 0 rotating dims nothing turns: Q and K stay as they are, and this is the post's attention. Move the "
        "slider to turn pairs."
    ),
    "lab_rope_dims": "Dims that rotate, in each q and k head",
    "lab_rope_dims_help": (
        "An even number from 0 to {most}, the largest even number within $d_k = {d_k}$: dims turn in pairs. The "
        "first ones turn; the rest pass through. 0 turns nothing (the post's attention)."
    ),
    "lab_rope_kept_odd": "{wanted} rotating dims is an odd number, and dims turn in pairs: {used} rotate.",
    "lab_rope_kept_over": (
        "{wanted} rotating dims do not fit in a head of $d_k = {d_k}$ dims that turn in pairs: {used} rotate."
    ),
    "lab_rope_dk_one": (
        "A head has $d_k = {d_k}$ dim here, and one dim makes no pair, so nothing can rotate. Give $d_k$ at least 2 "
        "in the sidebar to see RoPE."
    ),
    "lab_rope_qk_caption": (
        "Head {h}'s Q and K, before and after the turn. Thick lines mark the pairs that turn together, each named "
        "by its rate $\\theta$ under it; of the {d_k} dims the first {r} turn. Row 1 is position 0, which does not turn, so "
        "it is the same in both."
    ),
    "lab_rope_qk_caption_wide": (
        "Head {h}'s Q and K, before and after the turn. Of the {d_k} dims the first {r} turn, in pairs of "
        "neighbouring columns (1 and 2, 3 and 4, …); the rest pass through unchanged. Row 1 is position 0, which "
        "does not turn, so it is the same in both."
    ),
    "lab_rope_position": "position",
    "lab_rope_pair": "pair",
    "lab_rope_angles": (
        "The angles $p\\,\\theta_i$, in radians: a row is a position p (from 0), a column a pair i, with "
        "$\\theta_i = {base}^{{-2i/{r}}}$. Pair 0 turns fastest, one radian a position; each later pair turns "
        "slower, so together they tell near tokens and far ones apart."
    ),
    "lab_rope_pairs": (
        "A rotation turns a point in a plane, and a point in a plane has two coordinates: RoPE turns "
        "dims two at a time, so the number that rotates must be even."
    ),
    "lab_rope_odd": (
        "Here $d_k = {d_k}$ is odd: at most {most} dims make {pairs} pairs, and dim {d_k} has no partner to turn "
        "with."
    ),
    "lab_rope_pass": (
        "What does not turn passes through unchanged, in Q and in K alike: here {rest} of the {d_k} dims. Models do this on purpose too: "
        "GPT-NeoX's $\\texttt{{rotary\\_pct}}$ turns only that fraction of each head (a quarter in GPT-NeoX-20B "
        "and Pythia) and lets the rest pass the same way."
    ),
    "lab_rope_all": "All {d_k} dims turn here; none passes through.",
    "lab_rope_layout": (
        "This page pairs neighbours, dims 2i and 2i + 1 counted from 0 (columns 1 and "
        "2, 3 and 4, …): the interleaved layout of the RoPE paper (RoFormer, Su et al., 2021). Many libraries pair "
        "dim i with dim i + d/2 instead, the \"split halves\" layout (GPT-NeoX, and Llama as ported to Hugging "
        "Face). The two are the same up to a fixed permutation of the dims: permute the columns of $W_Q$ and $W_K$ "
        "once and either layout gives the same scores, which is how the original, interleaved Llama weights were ported."
    ),
    "lab_rope_scores": (
        "The scores are now those of the turned rows, $Q^{{\\mathrm{{rot}}}} (K^{{\\mathrm{{rot}}}})^\\top$. "
        "Click a cell to see its dot product, or press {quiz}."
    ),
    "lab_rope_checks": (
        "Head {h}. Two tokens turned by their positions meet at the angle between "
        "them: a score depends on how far apart they are, not on where they are. So, first, give every token the "
        "same vector (every row of X set to X₁): the scores with RoPE can then depend only on i − j, constant "
        "along each diagonal (a Toeplitz matrix, below left). Without RoPE every row of Q is the same, and of K "
        "too, so every score is one number (below right): nothing tells the positions apart. Second, start the "
        "positions at {shift} instead of 0: no score changes."
    ),
    "lab_rope_relative": "With $R_p$ the turn at position p (a rotation, so its transpose turns back):",
    "lab_rope_checks_title": "Checked on this page",
    "lab_rope_cache_title": "What the KV cache keeps",
    "lab_rope_check": "Check",
    "lab_rope_largest": "Largest difference",
    "lab_rope_check_toeplitz": "X₁ in every row, with RoPE: each diagonal's scores against each other",
    "lab_rope_check_constant": "X₁ in every row, without RoPE: every score against the first",
    "lab_rope_check_shift": "Every position moved by {shift}: the scores against those above",
    "lab_rope_check_pass": "Dims that do not turn ({rest} of {d_k}): Q and K after against before",
    "lab_rope_check_none_pass": "Dims that do not turn: none, all {d_k} turn",
    "lab_rope_check_cache": "Keys in a RoPE KV cache fed X token by token, against the turned K",
    "lab_rope_check_note": (
        "Each number is computed as the page is drawn, from the core's pieces. ✓ means within rounding: at most a "
        "billionth of the largest number compared (or of 1, if that is larger), here {largest}."
    ),
    "lab_rope_cache": (
        "No more than before: RoPE adds no numbers per token. Each key is turned "
        "once, at its own position, when its token arrives, and cached turned. A new query turns at its position "
        "and meets the old keys as they are: no key is turned again, and the cache holds as many keys of the "
        "same width (values are never turned). The last row of the table checks that."
    ),
    # lab: MLA
    "lab_mla_skip": "Cutting K and V to a latent takes an SVD of about {work:,} operations at these sizes; the page "
                    "does it up to {limit:,}. Choose smaller sizes (GPT-2 small's fit) to see MLA.",
    "lab_mla_d_latent": "Latent width $d_{{latent}}$",
    "lab_mla_latent": "latent",
    "lab_mla_title": "MLA (DeepSeek-V2): cache one short row per token and rebuild K and V from it.",
    "lab_mla_intro": (
        "Each token's row of X is "
        "pressed into a latent row $c = X\\,W_{{DKV}}$ of $d_{{latent}}$ numbers, one row for all heads, and that "
        "row is all the cache keeps. Head $i$ rebuilds its keys and values with up-projections of its own, "
        "$K_i = c\\,W_{{UKi}}$ and $V_i = c\\,W_{{UVi}}$. Here the walk's own weights are put in that form: $W_Q$ "
        "and $W_O$ stay as they are, and every head's $[W_K \\mid W_V]$, side by side a ${d} \\times {kv}$ matrix, "
        "is factored by the SVD into $W_{{DKV}}$ (${d} \\times d_{{latent}}$) times $[W_{{UK}} \\mid W_{{UV}}]$, "
        "keeping its $d_{{latent}}$ strongest directions."
    ),
    "lab_mla_small_x": (
        "Mind what these sizes do to the idea. X itself holds only ${d}$ numbers per token, fewer than the ${kv}$ "
        "of K and V together, so caching the rows of X would already rebuild K and V exactly: a latent of ${d}$ "
        "numbers or more saves nothing here, and the SVD has only ${d}$ directions to keep. The latent pays where "
        "$d_{{model}}$ is wide: DeepSeek-V2 caches 512 numbers per token (and 64 more for its RoPE key) against "
        "$d_{{model}} = 5120$. The cost table under “{check}” gives the real sizes."
    ),
    "lab_mla_wide_x": (
        "Mind what these sizes do to the idea. K and V together hold ${kv}$ numbers per token, no more than the "
        "${d}$ of X, so the SVD has only ${kv}$ directions: a latent of ${kv}$ numbers or more is exact and saves "
        "nothing against caching K and V. The latent pays where $d_{{model}}$ is wide: DeepSeek-V2 caches 512 "
        "numbers per token (and 64 more for its RoPE key) against $d_{{model}} = 5120$. The cost table under "
        "“{check}” gives the real sizes."
    ),
    "lab_mla_cut": (
        "With $d_{{latent}} = {l}$ the cut throws away {dropped} of the {r} directions. The largest of them, "
        "$\\sigma_{{{next}}} = {sigma}$, is why K, V and Y are no longer the walk's; the price table under "
        "“{check}” says by how much."
    ),
    "lab_mla_exact": "With $d_{{latent}} = {l}$ the cut throws nothing away: K, V and so Y are the walk's, to rounding.",
    "lab_mla_zero_cols": "The last {extra} columns of $c$ are zeros: no direction is left for them.",
    "lab_mla_clamped": (
        "$d_{{latent}}$ was {asked}; with $d_{{model}} = {d}$ this page offers 1 to {high}, so it uses {high}."
    ),
    "lab_mla_orders": (
        "Two orders give the same result. The naive one rebuilds $K_i$ and $V_i$. The absorbed one, the way a "
        "decoder reads its cache, never builds them: $Q_i K_i^\\top = (Q_i W_{{UKi}}^\\top)\\,c^\\top$, so "
        "$W_{{UKi}}$ folds into the query $\\tilde Q_i$, which is scored against $c$ itself; and "
        "$S_i\\,(c\\,W_{{UVi}}) = (S_i\\,c)\\,W_{{UVi}}$, so $W_{{UVi}}$ moves past the softmax."
    ),
    "lab_mla_checks_title": "Checked live: the two orders on these numbers",
    "lab_mla_check_what": "compared",
    "lab_mla_check_delta": "largest difference",
    "lab_mla_check_scores": "$Q_i K_i^\\top$ with K rebuilt, against $\\tilde Q_i\\,c^\\top$, every head",
    "lab_mla_check_s": "$S$ naive against $S$ absorbed, every head",
    "lab_mla_check_y": "$Y$ naive against $Y$ absorbed",
    "lab_mla_price_title": "The price of the cut: MLA's Y against the walk's Y, width by width",
    "lab_mla_price_l": "width $d_{{latent}}$",
    "lab_mla_price_sigma": "largest singular value dropped",
    "lab_mla_price_y": "max $\\lvert Y_{{MLA}} - Y_{{MHA}}\\rvert$",
    "lab_mla_none": "none",
    "lab_mla_price_note": (
        "$Y_{{MHA}}$ is the walk's Y: the post's attention on the same X and weights. Below $d_{{latent}} = {r}$ "
        "the SVD drops directions of $[W_K \\mid W_V]$. No other rank-$d_{{latent}}$ factors come closer to it "
        "(the Eckart–Young theorem), and the largest singular value dropped is how far they miss: a token's K and "
        "V move by at most that much times the length of its row of X. From {r} on nothing is dropped and what is "
        "left is rounding. The width chosen above is in bold."
    ),
    "lab_mla_price_some": "At $d_{{model}} = {d}$ the table shows {shown} widths spread from 1 to {d}.",
    # lab: online softmax
    "lab_online_text": (
        "FlashAttention never writes down the n×n scores. The keys arrive in tiles of B, and each query row keeps "
        "three things while they do: m, the largest score it has seen; ℓ, the sum of exp(score − m) over the keys "
        "seen; and acc, the same weights times the value rows. When a tile brings a larger score, m moves up and "
        "the ℓ and acc held so far are multiplied by r = exp(old m − new m), so every term reads as if the final "
        "max had been known from the start. After the last tile, out = acc / ℓ. Here on head {h}'s numbers."
    ),
    "lab_online_tile": "Keys per tile B",
    "lab_online_tile_kept": "A tile of B = {asked} keys is longer than the {n} tokens here, so the page uses B = {n}: one tile holds them all.",
    "lab_online_rules": "What a tile of keys j does to row i, with $s_{{ij}} = q_i \\cdot k_j / \\sqrt{{d_k}}$ "
                        "(a masked key, $j > i$, adds nothing):",
    "lab_online_play_hint": "Play, or step the slider: one frame a tile ({tiles} of them with B = {b}), then the "
                            "division. The figure rests on the last frame.",
    "lab_online_click_hint": "Click a cell of out to see how it came to be: acc over ℓ, and its row tile by tile.",
    "lab_online_rows_drawn": "The figure draws the first {rows} tokens and keys and the first {cols} columns of acc "
                             "and out; the check covers all of them.",
    "lab_online_memory": "While a tile is read: its scores $n B$ = {tile}, m and ℓ $2n$ = {two}, acc "
                         "$n\\,d_v$ = {acc}: {held} numbers. The scores S alone would take n² = {s}. The tile grows "
                         "with $n B$ and acc with $n\\,d_v$, while S grows with n²: at n = {big} and the same B, "
                         "{big_held} against {big_s}.",
    "lab_online_check_title": "Computed now: out against H = S·V of head {h} from the walk, for every "
                              "tile size.",
    "lab_online_check_b": "keys per tile B",
    "lab_online_check_tiles": "tiles",
    "lab_online_check_delta": "largest |out − H|",
    "lab_online_check_frames": "Every frame's m and ℓ against a plain loop over the keys: largest difference "
                               "{frames}. The animation's last frame against H: {last}.",
    "lab_online_cell": "out[{i}, {j}], as the last frame shows it: row {i}'s accumulator over its sum.",
    "lab_online_cell_frame": "You clicked on frame {k} of {count}.",
    "lab_online_cell_h": "The walk's H[{i}, {j}] = {h}: a difference of {delta}.",
    "lab_online_history": "How row {i} got there, tile by tile (r rescales what was held; a row sees keys 1 to {i} "
                          "only):",
    "lab_online_hist_tile": "tile",
    "lab_online_hist_keys": "keys",
    "lab_online_hist_nothing": "nothing visible yet",
    "lab_online_out_name": "out = acc / ℓ",
    "lab_online_product_name": "acc = P·V",
    "lab_online_product": "What the tiles add up to: acc = P·V, where P holds exp(s − m) with each row's final m "
                          "(0 where masked). FlashAttention never forms P; it is here to check acc and to click.",
    "lab_online_fig_key": "key {a}",
    "lab_online_fig_keys": "keys {a} to {b}",
    "lab_online_fig_s": "scores of the tile · {keys}",
    "lab_online_fig_s_none": "no tile held",
    "lab_online_fig_scores": "score",
    "lab_online_fig_acc": "acc",
    "lab_online_fig_out": "out = acc / ℓ",
    "lab_online_fig_out_name": "out",
    "lab_online_fig_first": "Tile 1 of {count}: {keys}. Each row's m is its largest visible score, ℓ the sum of "
                            "exp(score − m), acc those weights times the value rows. A row with no visible key "
                            "yet stays empty.",
    "lab_online_fig_tile": "Tile {k} of {count}: {keys}. Where a score beats m, m rises and r = exp(old m − new m) "
                           "shrinks the ℓ and acc held; r = 1 where m stayed. Then the tile's terms are added.",
    "lab_online_fig_done": "After the last tile: out = acc / ℓ, row by row. It equals H = S·V of head {h}, and S "
                           "was never stored.",
    "lab_online_fig_step_out": "out",
    "lab_online_fig_held": "Held now: {tile} scores, {two} for m and ℓ, {acc} in acc: {held} numbers; S would be {s}.",
    # lab: what each caches
    "lab_costs_model_sinks": "StreamingLLM on Llama-2-7B",
    "lab_costs_title": "What it caches, per token and per layer: {variant}",
    "lab_costs_here": "Here ({sizes}): ${formula}$ floats. The page's own KV cache, fed the {n} tokens of X, "
                      "holds {held} of them in {nbytes} bytes: {held} × {floats} floats × 8 bytes (float64).",
    "lab_costs_here_mla": "Here ({sizes}): ${formula}$ floats. The page's own latent cache, fed the {n} tokens "
                          "of X, holds {held} rows in {nbytes} bytes: {held} × {floats} floats × 8 bytes (float64).",
    "lab_costs_real": "At {model}'s sizes (${config}$): ${formula}$ floats; over its {layers} layers at 2 bytes a "
                      "float, {per_token} bytes per token.",
    "lab_costs_why_gqa": "The query heads of a group read one shared K and V, so only the kv heads are cached: "
                         "$n_{{kv}}$ of them instead of $h$.",
    "lab_costs_why_mqa": "Every query head reads the same single K and V, so one head's worth is cached.",
    "lab_costs_why_window": "A token costs what it costs without the window, but once it falls out of the window no "
                            "query reads it again, so the cache lets it go: it never holds more than $W$ tokens.",
    "lab_costs_why_sinks": "A token costs what it costs without the window, but the cache holds only the $s$ sinks and "
                           "the last $W$ tokens: never more than $s + W$.",
    "lab_costs_why_alibi": "ALiBi adds its bias to the scores when they are computed; nothing of it is cached, so a "
                           "token costs what it costs in MHA.",
    "lab_costs_why_rope": "RoPE turns each key before it goes into the cache, and a turned key is as long as before, "
                          "so a token costs what it costs in MHA.",
    "lab_costs_why_mla": "Only the latent row c of each token is cached, one for all heads; every head rebuilds its "
                         "K and V from it.",
    "lab_costs_why_online": "The online softmax changes how S is computed, not what is cached: a token costs what "
                            "it costs in MHA.",
    "lab_costs_cap": "At most {cap} tokens are held, {cap_bytes} for all layers, however long the text.",
    "lab_costs_naive": "Its heads' own K and V would take ${naive}$ floats, {times}× as many. DeepSeek also caches "
                       "one short key for RoPE, shared by all heads; the page's MLA leaves it out.",
    "lab_costs_saved": "What it saves is S: the $n × n$ scores of every head are never stored, $h\\,n^2 = {saved}$ "
                       "floats per layer here.",
    "lab_costs_saved_real": "At its {context}-token context that is ${saved}$ floats per layer never stored, "
                            "{saved_bytes} at 2 bytes a float.",
    "lab_costs_compare": "Every variant side by side: floats cached per token per layer",
    "lab_costs_col_variant": "Variant",
    "lab_costs_col_here": "Here",
    "lab_costs_col_real": "A real model",
    "lab_costs_col_fit": "Tokens in {gb} $\\mathrm{{GB}}$",
    "lab_costs_capped": "{floats}, at most {cap} tokens",
    "lab_costs_any": "any length (at most {size})",
    "lab_memory_gb": "Memory for the KV cache, in $\\mathrm{{GB}}$",
    "lab_costs_assume": "Tokens that fit: the memory ÷ (floats per token per layer × the model's layers × 2 bytes, "
                        "as in bf16), for one sequence, with $1\\,\\mathrm{{GB}} = 10^9$ bytes and the weights not "
                        "counted. With a window or sinks the cache stops growing, so a text of any length fits "
                        "once the full cache does. The page's own cache holds 8-byte floats (float64). Each model's "
                        "sizes are from its published config, cited in the README.",
}

ZH = {
    "app_title": "MHA Explorer · 多头注意力",
    "app_tagline": "用真实的数字一步一步计算多头因果自注意力，每个矩阵的形状都看得见。",
    "sidebar_walk": "步骤",
    "sidebar_view": "显示选项",
    "sidebar_export": "下载当前视图的全部矩阵",
    "export_too_big": "当前视图共有 {values:,} 个数，下载上限是 {limit:,} 个。把维度调小一些就可以下载。",
    "export_after_ask": "这个视图画出来之后才能生成下载文件。",
    "export_prepare": "生成下载文件（共 {values:,} 个数）",
    "export_preparing": "正在生成下载文件（{values:,} 个数）……",
    "export_no_trace": "X 目前无法计算（原因见页面上的提示），暂时没有可下载的文件。",
    "export_let_go": "为了给另一个页面的下载文件腾出内存，这个视图之前生成的文件已被释放，下载按钮也随之撤下。可以用下面的按钮重新生成。",
    "share": "当前视图的链接",
    "share_help": "点右上角的按钮即可复制。打开这个链接，会看到同样的维度、同样的 X 和同一个步骤。",
    "lang": "语言",
    "preset": "维度",
    "preset_post": "原文例子 · 3·5·7·11·2",
    "preset_mask": "原文的掩码例子 · 3×3",
    "preset_tiny": "最小例子 · 2·3·2·2·1",
    "preset_hand": "手算练习 · 全是整数",
    "preset_gpt2": "GPT-2 small 的维度 · 8·768·64·64·12",
    "preset_custom": "自定义",
    "n_tokens": "词元数 n",
    "d_model": r"嵌入维度 $d_{{\text{{model}}}}$",
    "d_k": "查询/键维度 $d_k$",
    "d_v": "值维度 $d_v$",
    "n_heads": "头数 h",
    "seed": "随机种子",
    "integers": "整数模式（方便手算）",
    "integers_help": "X 取 −2 到 2 之间的整数，所有权重取 −1 到 1 之间的整数，乘积可以在纸上验算。",
    "head": "显示第几个头",
    "cell_values": "格内显示数值",
    "present": "演示模式",
    "present_help": "字号更大，适合投影。带 present=1 的链接打开时会收起侧边栏。",
    "png_save": "把这张图存成 PNG 图片",
    "cell_values_help": "即使打开这一项，行数或列数超过 16、或者格子小得看不清的矩阵也不显示数值；把鼠标移到格子上就能看到。",
    "primes_yes": "✓ 各维度是互不相同的质数：看形状就知道它从哪来。",
    "primes_no": "这些维度不是互不相同的质数，不同来历的形状可能看起来一样。",
    "lengths_shared": "这里有不同的量长度相同，单看形状，分不出一个长度来自哪个量：{groups}。",
    "lengths_sep": "；",
    "length_n_tokens": "词元数 $n$",
    "length_vocab": "词表大小",
    "length_d_model": r"嵌入维度 $d_{{\text{{model}}}}$",
    "length_d_k": "查询/键维度 $d_k$",
    "length_d_v": "值维度 $d_v$",
    "length_n_heads": "头数 $h$",
    "length_concat": r"Concat 的宽度 $h\cdot d_v$",
    "length_d_ff": "前馈网络隐藏维度 $d_{{ff}}$",
    "primes_fix": "换成互不相同的质数",
    "primes_fix_help": "把各个宽度和头数换成最近的、互不相同的质数。n 不变：它是 X 的行数，也就是你现有的词元个数。",
    "primes_but_n": "✓ 各个大小互不相等，除 n 以外都是质数：n = {n} 是词元个数，保持 X 现有的行数不变。",
    # the walk's stages, by id (walk.py orders and numbers them)
    "stage_matmul": "矩阵乘法",
    "stage_tokens": "文本 → 词元 → X",
    "stage_input": "输入 X",
    "stage_qk": "Q 和 K",
    "stage_scores": "注意力分数 → S",
    "stage_values": "V 和 H",
    "stage_heads": "所有的头",
    "stage_output": "输出 Y",
    "stage_dependency": "谁依赖谁",
    "stage_kv_cache": "KV 缓存",
    "stage_variants": "变体实验室：今天的注意力",
    "stage_block": "GPT 块",
    "stage_next_token": "下一个词元",
    "code_title": "这一步背后的 numpy 代码（直接读取自 mha 的源码）",
    "prev": "← 上一步",
    "next": "下一步 →",
    "credit": "本工具依据 Mistivia 的博客文章《计算多头注意力》制作。",
    "notices_dismiss": "关闭这些提示",
    "notice_not_whole": "链接参数 {key}={value} 不是整数，已改用默认值。",
    "notice_clamped": "链接参数 {key}={value} 超出了本演示允许的范围，已改用 {used}。",
    "notice_unknown": "链接参数 {key}={value} 不在可选的值之中，已改用默认值。",
    "notice_link_over": "这个链接超出了服务器能读取的长度（{fields:,} 个参数共 {chars:,} 个字符；最多读取 {max_fields:,} 个参数、{max_chars:,} 个字符），所以页面打开的是默认视图。",
    "link_left_out": "当前视图的链接没有带上{what}：它有 {length:,} 个字符，超过了链接能携带的 {limit:,} 个。要保留它们，请下载矩阵。",
    "link_left_out_x": "你对 X 的修改",
    "link_left_out_kv": "追加到 KV 缓存的词元",
    "notice_x_too_long": "链接里的 X 有 {length} 个字符（上限 {limit}），已改用随机种子生成的 X。",
    "notice_x_items": "链接里的 X 有 {count} 格无法使用（例如“{example}”：{why}），其余各格已采用。",
    "why_form": "不是“行.列~值”的写法",
    "why_number": "它的值不是普通的十进制数",
    "why_finite": "它的值超出 ±1.8e308，float64 装不下",
    "why_cell": "没有这一格",
    "notice_kv_too_long": "链接里追加到 KV 缓存的词元共有 {length} 个字符（上限 {limit}），因此一个也没有追加。",
    "notice_kv_count": "链接参数 kv={value} 开头不是追加词元的个数（0 到 {most}），因此一个也没有追加。",
    "notice_kv_clamped": "这个链接要向 KV 缓存追加 {count} 个词元；本演示最多追加 {most} 个，所以只追加了前 {most} 个。",
    "notice_kv_items": "链接里追加到 KV 缓存的词元有 {count} 格无法使用（例如“{example}”：{why}），这些格仍用随机种子生成的值。",
    "notice_kv_words": "这个链接在文本之后向 KV 缓存追加 {count} 个词元。有文本时，缓存追加的是模型接下来选出的词元，而且直接接在文本末尾，所以文本现在以它们结尾：“{words}”。",
    "notice_cells": "({cell}) 这一格填的是 {value}：只能填有限的数，所以这一格仍是之前的 {kept}。",
    "budget_ask": "这个视图要计算 {numbers:,} 个数，超过了 {budget:,} 个。这个演示由很多人共用，画它会让每个人的页面都慢上一会儿，所以要等你确认再画。",
    "budget_draw": "画出来",
    "budget_full": "这个视图显示期间要占用 {needs:,} MB 内存，而服务器为视图留出的 {budget:,} MB 内存中，正在显示的视图已经占用了 {held:,} MB。页面连续 {idle} 秒没有操作就会让出它占的内存：如果那些页面在这段时间里没人操作，{wait} 秒后就能腾出空间。也可以把维度调小一些，或者用别人正在看的随机种子（相同的权重只占一份内存）。",
    "budget_retry": "再试一次",
    "budget_waiting": "服务器正在画另一个大视图，画完就轮到你的……",
    "number_empty": "{label} 需要 {low} 到 {high} 之间的数；输入框是空的或不是数字，所以仍用 {kept}。",
    "number_outside": "{label} 的取值范围是 {low} 到 {high}；{value} 超出了这个范围，所以仍用 {kept}。",
    "notice_cells_many": "有 {count:,} 格是空的或不是有限的数（第一格 ({cell}) 是 {value}），这些格都仍是之前的值。",
    "error_input": "这些数字无法计算：{message}",
    "error_overflow": "X 太大了：某个乘积超出了 float64 的范围（±1.8e308）。请把 X 缩小，例如让 |X| 小于 1e100。",
    "token": "词元",
    "feature": "特征",
    "key_pos": "键",
    "span_row": "第 {a} 行",
    "span_rows": "第 {a}–{b} 行",
    "click_hint": "点击 ${name}$ 的任意一格，看看它是由哪一次内积算出来的。",
    "window_note": "只画出 {full_rows}×{full_cols} 中前 {rows}×{cols} 的部分；鼠标悬停可看数值。",
    "trim_rows": "只画出前 {rows} 行",
    "trim_cols": "只画出前 {cols} 列",
    "trim_both": "只画出前 {rows} 行、前 {cols} 列",
    "blocks_hidden": "第 {first} 个到第 {last} 个头未画出",
    "block_hidden": "第 {first} 个头未画出",
    "breakdown_title": "${name}[{i}, {j}]$ 是 ${a}$ 的第 {i} 行与 ${b}$ 的第 {j} 列的内积：",
    "breakdown_more": "……另外还有 {more} 项",
    "breakdown_check": "各项加起来是 {total}；这一格的值是 {value}。",
    "breakdown_check_rounded": "按上面写出的因子（各取 {digits} 位有效数字）相乘再相加，得到 {total}；这一格用未经舍入的数算出，值是 {value}。",
    "head_word": "第 {h} 个头",
    "quiz_start": "考考我",
    "quiz_ask": "有一格被藏起来了：${name}[{i}, {j}]$ 是多少？它是 ${a}$ 的第 {i} 行与 ${b}$ 的第 {j} 列的内积。",
    "quiz_answer": "你的答案",
    "quiz_check": "核对",
    "quiz_again": "换一格",
    "quiz_stop": "显示所有格子",
    "quiz_empty": "请先填一个数。",
    "quiz_right": "答对了：{answer} 与 {value} 一致（误差在 1% 以内）。",
    "quiz_wrong": "不对：你填的是 {answer}，这一格其实是 {value}。下面是它的计算过程：",
    "matmul_title": "矩阵乘法：一格一格地算",
    "matmul_text": (
        "a×b 矩阵乘以 b×c 矩阵得到 a×c 矩阵：中间的维度必须相同，相乘之后就消失了。"
        "结果的每一格都是一次内积：左边矩阵的一行与右边矩阵的一列。改一改 A 或 "
        "B，再点击 R 的任意一格，看看是哪一行和哪一列算出了它。"
    ),
    "matmul_a": "A (2×3)",
    "matmul_b": "B (3×5)",
    "input_title": "输入 X：每个词元占一行",
    "input_text": (
        r"每个词元加上位置编码之后，已经嵌入成一个 $d_{{\text{{model}}}}$ 维的行向量，"
        r"n 个词元就排成 $n\times d_{{\text{{model}}}}$ 的矩阵 X。这一层最后要交出一个形状完全相同的矩阵 "
        "Y。随便改一格，后面的每一步都会用你的数字重新计算。"
    ),
    "input_goal": "目标：Y 与 X 形状相同 · {shape}",
    "input_reset": "把 X 恢复为随机种子生成的值",
    "input_aside": "X 现在是 {shape}：你改过的格子中有 {count} 个在它之外，先放在一边，X 再变大时会回来。",
    "input_back": "X 现在是 {shape}：之前放在一边的 {count} 个改过的格子回来了。",
    "input_kept": "随机种子 {seed}：权重和 X 都已重新生成，但你在 X 里改过的 {count} 格仍是你填的数。",
    "input_editor_help": "只能填数字。每行是一个词元，每列是一个特征。",
    "qk_title": "第 {h} 个头的查询与键",
    "qk_text": (
        r"每个头有两个 $d_{{\text{{model}}}}\times d_k$ 的矩阵 $W_Q$ 和 $W_K$。"
        "X 乘以 $W_Q$，每个词元得到一个查询向量（它要找什么）；X 乘以 $W_K$，"
        "每个词元得到一个键向量（它能提供什么）。输入几行，输出就几行：Q 的第 "
        "i 行和 K 的第 i 行都属于第 i 个词元。"
    ),
    "scores_title": "第 {h} 个头：从 QKᵀ 到 S",
    "scores_mask_title": "原文的例子：从 QKᵀ 到 S",
    "scores_text": (
        r"QKᵀ 的第 i 行，是第 i 个词元的查询向量与每一个键向量的内积。除以 $\sqrt{{d_k}}$，"
        "是为了 $d_k$ 变大时这些数不至于太大。因果掩码把对角线以上改成 −∞，让词元看不到排在它后面的词元；"
        "softmax 再把每一行变成非负、加起来等于 1 的权重（−∞ 变成 0）。"
    ),
    "inner_note": (
        "图中 Q 只画出 {d_k} 列中的前 {shown} 列，Kᵀ 只画出 {d_k} 行中的前 {shown} "
        "行；每个注意力分数都是全部 {d_k} 项乘积之和。"
    ),
    "scores_play_hint": "在图正上方选一个环节（{steps}）就能看到它，或者按 ▶ 播放，逐帧看完这些环节；图下方的滑块标出了每个环节。",
    "list_sep": "、",
    "phase": "环节",
    "phase_qkt": "QKᵀ",
    "phase_scaled": "÷ √{d_k}",
    "phase_given": "给定",
    "phase_masked": "加掩码",
    "phase_s": "S = softmax",
    "step_masked": "掩码",
    "anim_qkt": "QKᵀ：第 (i, j) 格 = Q 的第 i 行 · Kᵀ 的第 j 列",
    "anim_fill": "q<sub>{i}</sub> · k<sub>{j}</sub>",
    "anim_fill_rows": "计算 QKᵀ 的{rows}",
    "anim_scale": "÷ √{d_k}：每个注意力分数都除以 {root}",
    "anim_given": "原文的 3×3 例子，当作已经除以 √d<sub>k</sub>",
    "anim_mask": "掩码：对角线以上改成 −∞",
    "anim_softmax": "对{rows}做 softmax",
    "anim_s": "S：逐行 softmax；−∞ 变成 0，每行加起来等于 1",
    "drawn_part": "只画出前 {rows}×{cols}",
    "mask_example": "原文的掩码例子",
    "mask_example_help": "把原文自己举的 3×3 矩阵 [[1, 2, 3], [4, 5, 6], [7, 8, 9]] 当作缩放后的注意力分数，看掩码和 softmax 怎样作用在它上面。",
    "mask_example_note": "A 是原文举的例子：它是直接给定的，不是由词元算出来的，所以这里没有 Q 和 Kᵀ。把它看作已经除以 $\\sqrt{{d_k}}$ 的 QKᵀ。加上掩码，它变成中间那个矩阵；再逐行做 softmax，就得到 S。",
    "mask_example_click": "点击 S 的任意一格，看看它的 softmax 是怎样算出来的。",
    "phone_operands": "屏幕较窄时图里不画 Q 和 Kᵀ：点击任意一格，下方会写出算出它的 Q 的那一行和 Kᵀ 的那一列。",
    "play": "▶ 播放",
    "anim_slider": "动画帧",
    "anim_step_text": "第 {k} 帧（共 {count} 帧），{step}：{caption}",
    "pause": "❚❚ 暂停",
    "softmax_breakdown": (
        r"S[{i}, {j}] = $\exp(a_{{{i},{j}}})$ ÷ 第 {i} 行中没被掩码的 {count} "
        r"个键 k 的 $\exp(a_{{{i},k}})$ 之和，其中 $a = QK^\top/\sqrt{{{d_k}}}$："
    ),
    "softmax_masked": (
        "S[{i}, {j}] = 0：第 {j} 个词元排在第 {i} 个词元之后，掩码把这个注意力分数改成 "
        "−∞，softmax 再把它变成 0。"
    ),
    "frame_cell": "第 {k} 帧（共 {count} 帧），环节“{step}”：[{i}, {j}] 这一格显示 {value}。",
    "frame_value_more": "{shown}（更精确地说是 {exact}）",
    "frame_cell_empty": "第 {k} 帧（共 {count} 帧），环节“{step}”：[{i}, {j}] 这一格还没有算出来。往后走几帧，或在后面的帧上再点它。",
    "frame_scaled": "再除以 $\\sqrt{{{d_k}}}$：",
    "frame_mask_kept": "j ≤ i 的地方掩码加的是 0，所以这一格仍是 {value}；接下来做 softmax。",
    "frame_masked": "这里 j > i：第 {j} 个词元排在第 {i} 个之后，掩码在这一格写入 −∞；softmax 之后它会变成 0。",
    "softmax_breakdown_given": (
        r"S[{i}, {j}] = $\exp(a_{{{i},{j}}})$ ÷ 第 {i} 行中没被掩码的 {count} "
        r"个键 k 的 $\exp(a_{{{i},k}})$ 之和，其中 $a = A$，即原文的矩阵："
    ),
    "values_title": "第 {h} 个头的值与输出",
    "values_text": (
        r"$W_V$（$d_{{\text{{model}}}}\times d_v$）把每个词元变成一个 $d_v$ 维的值向量："
        "这个词元被关注时交出去的内容。H = S·V 用 S 里的权重把 V 的各行加权混合，"
        "所以 H 的第 i 行是第 1 至 i 个词元的值向量的加权平均。"
    ),
    "heads_title": "所有的头一起看",
    "heads_text": (
        "每个头都有自己的 $W_Q$、$W_K$、$W_V$，所以每个头的注意力分布各不相同。"
        r"它们的输出 $H_1,\dots,H_h$ 都是 $n\times d_v$，左右拼接起来，就得到一个 "
        r"$n\times(h\cdot d_v)$ 的矩阵。"
    ),
    "heads_s": "每个头的 S",
    "heads_concat": r"$\operatorname{{Concat}}(H_1,\dots,H_h)$：每个头占 $d_v$ 列",
    "output_title": r"回到 $d_{{\text{{model}}}}$：输出 Y",
    "output_text": (
        r"$W_O$ 是 $(h\cdot d_v)\times d_{{\text{{model}}}}$，所以 $\operatorname{{Concat}}\cdot "
        r"W_O$ 又是 $n\times d_{{\text{{model}}}}$：Y 和 X 形状相同。$W_O$ 中属于某个头的那 "
        "$d_v$ 行，只会和 Concat 里这个头的那些列相乘，所以 Y 可以写成每个头各贡献一项的和。"
    ),
    "output_parts": "把 Y 拆成各个头的贡献之和：$H_i$ ·（$W_O$ 中属于第 i 个头的那些行）",
    "dependency_title": "Y 的第 i 行只取决于 X 的第 1 至 i 行",
    "dependency_text": (
        "第 (i, j) 格衡量 $X_j$ 变化时 $Y_i$ 跟着变化的程度，也就是雅可比矩阵中 "
        r"$\partial Y_i/\partial X_j$ 这一块的大小。对角线以上全都精确为零：一个词元的输出看不到排在它后面的"
        "词元。扰动一个词元（给它的每个特征加上同一个数），看看 Y 的哪些行会随之变化。"
    ),
    "dependency_zero_when": r"\text{{当 }} j > i \text{{ 时}}",
    "dependency_w_count": r"\text{{ 个参数}}",
    "dependency_w_trained": r"\text{{第 {layer} 层的 }}",
    "dependency_map": r"$\lVert\partial Y_i/\partial X_j\rVert$（Frobenius 范数，精确值）",
    "dependency_skip": "在这些维度下，精确计算约需 {flops:,} 次运算；只有不超过 {limit:,} 次时才画出来。",
    "nudge_token": "扰动第 j 个词元",
    "nudge_size": "每个特征加上",
    "nudge_result": "ΔY：给 X{j} 的每个特征加上 {eps} 之后，Y 的变化",
    "nudge_rows_same": "Y 的{rows}纹丝不动（最大变化 {delta}）。",
    "nudge_rows_moved": "Y 的{rows}随之变化（最大变化 {delta}）。",
    "nudge_none_before": "Y 的每一行都可能变化：所有词元都看得到第 1 个词元。",
    "kv_title": "KV 缓存：追加一个词元，留下 K 和 V，丢掉 Q",
    "kv_text": (
        "生成文本时，词元是一个一个追加上去的。Y 的第 i 行只取决于 X 的第 1 至 "
        "i 行，所以已经算好的行永远不会变，真正要算的只有新词元那一行。这一行需要新词元的查询向量，"
        "以及到目前为止所有词元的键和值，所以 K 和 V 值得缓存，而旧的查询向量再也用不上了。"
    ),
    "kv_next": "下一个词元 X{t}（由种子生成；追加前可以先改）",
    "kv_add": "追加词元 X{t}",
    "kv_reset": "回到 X 的 {n} 个词元",
    "kv_added_cap": "本演示最多追加 {most} 个词元；回到 X 即可重新开始。",
    "kv_state": "缓存里存着 {t} 个词元的 K 和 V：每个头的 K 是 {t}×{d_k}，V 是 {t}×{d_v}，一共 {size}。",
    "kv_hint": "还没有追加词元：图中演示的是 X 的最后一行进入缓存的那一步。追加一个词元，就能看到缓存多出一行。",
    "kv_arrive": "X{t} 到来。缓存里已经存着 {tokens} 的 K 行和 V 行。",
    "kv_arrive_first": "X{t} 到来，此时缓存还是空的。",
    "kv_append": "q{t}、k{t}、v{t} = X{t}·W<sub>Q</sub>、X{t}·W<sub>K</sub>、X{t}·W<sub>V</sub>；k{t} 和 v{t} 成为 K 缓存和 V 缓存的第 {n} 行。",
    "kv_scores": "注意力分数的第 {n} 行：q{t}·Kᵀ/√{d_k}，与缓存里的每个键各做一次内积（不用掩码：后面的键还不存在）。",
    "kv_softmax": "对这一行做 softmax，得到 {s} 的第 {n} 行；上面各行仍是原来的 {s}。",
    "kv_drop_q": "Q 的{rows}再也用不上了：只有 q{t} 还要与 K 缓存里的每个键各做一次内积。",
    "kv_drop_q_first": "Q 不进缓存：q{t} 只为这一行服务，用完就丢掉。",
    "kv_output": "{h} 的第 {n} 行 = {s} 的第 {n} 行乘以 V，再得到 Y{t}；{ys} 保持不变。",
    "kv_output_first": "{h} 的第 {n} 行 = {s} 的第 {n} 行乘以 V，再得到 Y{t}。",
    "kv_legend": "虚线框：{rows}，与 X{t} 到来之前相同。实线框：第 {n} 行，新算出的。",
    "kv_legend_first": "实线框：第 {n} 行，新算出的。",
    "kv_drop_q_note": "Q 的{rows}：再也用不上",
    "kv_step_arrive": "到来",
    "kv_step_append": "追加",
    "kv_step_scores": "打分",
    "kv_step_softmax": "softmax",
    "kv_step_drop_q": "丢弃 Q",
    "kv_step_output": "输出",
    "kv_last_rows": "最后 {n} 行（共 {total} 行）",
    "kv_first_cols": "前 {n} 列（共 {total} 列）",
    "kv_last_cols": "最后 {n} 列（共 {total} 列）",
    "kv_part": "显示",
    "kv_tab_step": "单步解码与验证",
    "kv_window_cols": "超过 {cols} 列的矩阵，图中只画出前 {cols} 列；所有数字都是用完整的矩阵算出来的。",
    "kv_window_rows": "图中只画出最后 {rows} 个词元，所以 S 只显示最后 {rows} 行和最后 {rows} 列；所有数字都是用完整的矩阵算出来的。",
    "kv_window_both": (
        "图中只画出最后 {rows} 个词元，所以 S 只显示最后 {rows} 行和最后 {rows} 列；其余矩阵超过 {cols} 列的，"
        "只画出前 {cols} 列。所有数字都是用完整的矩阵算出来的。"
    ),
    "kv_tab_cost": "省下了什么",
    "kv_name_k": "K 缓存（{k}）",
    "kv_name_v": "V 缓存（{v}）",
    "kv_why_q_title": "为什么不缓存 Q",
    "kv_why_q": (
        "S 的第 t 行是 softmax(qₜKᵀ/√dₖ)，H "
        "的第 t 行是这一行乘以 V。式子里只出现 qₜ；q₁, …, qₜ₋₁ 已经在算它们各自那一行时用过，"
        "那些行也早已算完。K 和 V 则不同，之后的每个词元都要再读一遍。"
    ),
    "kv_proof_title": "用这些数字现场验证",
    "kv_proof_what": "比较的内容",
    "kv_proof_delta": "最大 |Δ|",
    "kv_proof_prefix": "X{t} 到来之前与之后（整体重算）Y 的{rows}",
    "kv_proof_last": "用缓存算出的 Y{t} 与整体重算的最后一行",
    "kv_proof_s": "用缓存算出的 S 第 {t} 行与完整 S 的最后一行（所有头）",
    "kv_exact": "0——完全相同",
    "kv_cost_title": "缓存省下了什么",
    "kv_cost_step": "生成第 {t} 个词元",
    "kv_cost_flops": "浮点运算次数",
    "kv_cost_bytes": "读写的字节数",
    "kv_with": "使用缓存",
    "kv_without": "把 {t} 个词元全部重算",
    "kv_cost_note": "只计矩阵乘法（一次乘加算 2 次浮点运算），float64。权重、X 和缓存都按只读一次计算。",
    "kv_cost_chart": "生成 T 个词元：累计浮点运算次数",
    "kv_cost_cache": (
        "第 {t} 个词元之后的缓存，按上面的计数：${count}$ 字节；同样形状的真实缓存读入 {t} 个词元后，占 "
        "{nbytes} 字节。"
    ),
    "kv_cost_note_groups": (
        "{h} 个查询头共用 {kv} 个 kv 头：缓存、它的字节数以及到 K 和 V 的投影都缩减到 $n_{{kv}}$ 个头；但每个"
        "查询头仍要和本组的每个键各做一次点积，所以注意力部分的浮点运算次数与 MHA 相同。"
    ),
    "kv_cost_note_window": (
        "每一步最多读取 ${bound} = {most}$ 个缓存的词元：从第 {most} 个词元起，每步的运算量和字节数不再增长。"
        "重算是对全部 t 个词元做前向计算：它算出完整的 t×t 分数，再遮住窗口之外的部分，所以仍在增长。"
    ),
    "kv_cost_note_alibi": (
        "ALiBi 的计数与 MHA 相同：它给每一步的 h·t 个分数各加上偏置 $-m_h(i-j)$，这些是逐元素的加法，"
        "不是矩阵乘法，所以和 softmax 一样不计入。"
    ),
    "kv_cost_note_rope": (
        "RoPE 的计数与 MHA 相同：每一步按位置旋转新的 q（每个头）和 k 的前 {r} 维（共 $d_k = {d_k}$ 维），"
        "每维只是几次乘法，不是矩阵乘法，所以不计入。缓存里存的是已经旋转过的 k；重算时每一行都要重新旋转。"
    ),
    "kv_cost_note_mla": (
        "MLA 按它的缓存解码时所用的吸收顺序计数：$W_{{UK}}$ 并入查询，$W_{{UV}}$ 放到 softmax 之后，于是每一步把"
        r"潜向量 c（$t \times d_c$，其中 $d_c = {d_c}$）只读一次，供所有头共用，每个头与它做 $2\,t\,d_c$ 次乘加。"
        "重算对全部 t 个词元按同样的顺序计算。把键和值的权重压成潜向量的 SVD 只做一次，不计入。"
    ),
    "kv_cost_curves": "下面的曲线按页面上的设置计算 {variant}：当前维度 {here}；GPT-2 small 的维度 {gpt2}。",
    "kv_cost_timed": "两种方式都用 {variant}：它自己的缓存，对比把同一变体在目前所有词元上重算。",
    "kv_axis_t": "已生成的词元数 T",
    "kv_axis_flops": "浮点运算次数",
    "kv_series_cached": "{sizes}，使用缓存",
    "kv_series_full": "{sizes}，整体重算",
    "kv_sizes_now": "当前维度",
    "kv_sizes_gpt2": "GPT-2 small 的形状",
    "kv_measure_title": "在这里实测",
    "kv_measure_tokens": "要生成的词元数",
    "kv_measure": "给两种解码方式分别计时",
    "kv_measure_progress": "正在解码第 {t} 个词元，共 {total} 个……",
    "kv_measure_result": "使用缓存共 {cached:.1f} 毫秒，整体重算共 {full:.1f} 毫秒：整体重算的耗时是使用缓存的 {ratio:.1f} 倍。",
    "kv_measure_axis": "每个词元的毫秒数",
    "kv_measure_cap": "在这些维度下，为了让页面保持流畅，重算最多只做 {T} 个词元。",
    "kv_series_ms_cached": "使用缓存",
    "kv_series_ms_full": "整体重算",
    "kv_dropped_rows": r"追加的词元长度与 $d_{{\text{{model}}}} = {d}$ 不再相符，已被移除。",
    "kv_add_word": "追加下一个词元 X{t}",
    "kv_next_word_greedy": (
        "模型选出的下一个词元是“{token}”（概率 {p}；贪心选择，与“下一个词元”这一步相同），由模型每一层的 KV 缓存"
        "逐层解码得到。追加它就是把它接到文本末尾，与在“下一个词元”这一步追加是同一件事。"
    ),
    "kv_next_word_sample": (
        "模型选出的下一个词元是“{token}”（概率 {p}；在温度 {temperature} 下按种子采样，与“下一个词元”这一步相同），"
        "由模型每一层的 KV 缓存逐层解码得到。追加它就是把它接到文本末尾，与在“下一个词元”这一步追加是同一件事。"
    ),
    "kv_hint_word": "图中演示的是文本的最后一个词元 X{t}“{token}”进入缓存的那一步。",
    "kv_tex_cached": r"\text{{用缓存}}",
    "kv_tex_recompute": r"\text{{重算}}",
    # the KV-cache stage with a variant (issue 34)
    "kv_variant": "缓存的注意力",
    "kv_short_mha": "MHA 原版",
    "kv_short_window": "窗口",
    "kv_short_sinks": "汇聚词元",
    "kv_knob_kv_heads": "kv 头数",
    "kv_knob_window": "窗口 W",
    "kv_knob_sinks": "汇聚词元 s",
    "kv_knob_rotary_dims": "旋转的维数",
    "kv_knob_d_latent": "潜向量宽度",
    "kv_state_heads": "缓存里存着 {kv} 个 kv 头 × {t} 个词元的 K 和 V，每个分别是 {t}×{d_k} 和 {t}×{d_v}：一共 {size}。",
    "kv_state_group": "第 {i} 个头读第 {g} 个 kv 头，第 {heads} 个头共用它（第 {g} 组）；图中画的就是它的 K 和 V。",
    "kv_state_no_group": "{h} 个头配 {kv} 个 kv 头，没有两个头共用：减少 kv 头数，或者增加头数。",
    "kv_state_window": "缓存里只有 {held}，最多 s + W = {sinks} + {w} = {most} 个。",
    "kv_state_left": "{gone} 已经离开：后面的查询看不到它们。",
    "kv_state_mla": "缓存里存着 {t} 个词元的潜向量 c，所有头共用一份 {t}×{d_latent}：{size}。每个头再从 c 重建自己的 K 和 V。",
    "kv_proof_held": "缓存里的词元数，最多 s + W = {most}",
    "kv_proof_same": "两边用的是同一种变体（{variant}）：整体重算就是用它对全部 {n} 个词元做一次前向计算。",
    "kv_fig_group": "第 {heads} 个头共用这一对 k 和 v：第 {g} 组。",
    "kv_append_rope": (
        "q{t} = X{t}·W<sub>Q</sub>，k{t} = X{t}·W<sub>K</sub>，两者都按位置 {p} 旋转（{d_k} 维中的 {r} 维，"
        "按 2i、2i+1 两两成对）；v{t} = X{t}·W<sub>V</sub>。旋转后的 k{t} 和 v{t} 成为缓存的第 {n} 行："
        "每个键只在到来时旋转一次。"
    ),
    "kv_append_window": (
        "q{t}、k{t}、v{t} = X{t}·W<sub>Q</sub>、X{t}·W<sub>K</sub>、X{t}·W<sub>V</sub>；k{t} 和 v{t} 进入 K 缓存"
        "和 V 缓存，缓存只保留{kept}{gone}。"
    ),
    "kv_keep_window": "最后 {w} 个词元",
    "kv_keep_sinks": "最前面 {s} 个和最后 {w} 个词元",
    "kv_gone": "：X{x} 离开",
    "kv_rows_held": "{tokens} 的行",
    "kv_scores_alibi": "注意力分数的第 {n} 行：q{t}·Kᵀ/√{d_k} − {m}·(i−j)，即 ALiBi 的偏置，这个头的斜率是 {m}；与缓存里的每个键各做一次内积。",
    "kv_append_mla": (
        "c{t} = X{t}·{w_dkv} 成为潜向量缓存 c 的第 {n} 行，缓存里只留下它；q{t} = X{t}·W<sub>Q</sub> "
        "被折成 q{t}·{w_uk}ᵀ，变成 c 所在空间里的查询。"
    ),
    "kv_scores_mla": "注意力分数的第 {n} 行：(q{t}·{w_uk}ᵀ)·cᵀ/√{d_k}，与缓存里的每一行潜向量各做一次内积；不必构造 K。",
    "kv_output_mla": "{h} 的第 {n} 行 = ({s} 的第 {n} 行 · c)·{w_uv}，再得到 Y{t}；{ys} 保持不变。",
    "kv_mla_c": "潜向量缓存 c",
    "kv_mla_v": "{v} = c·{w_uv}，重建的",
    "y_row": "Y 的行",
    "x_row": "X 的行",
    "rows_of": "行",
    "cols_of": "列",
    # 尾声
    "d_ff": "前馈网络隐藏维度 $d_{{ff}}$",
    "d_ff_help": "块中前馈网络隐藏层的单元数（GPT-2 取嵌入维度的四倍）。",
    "n_tokens_from_text": "由“文本 → 词元 → X”这一步里的文本决定：每个词元对应 X 的一行。",
    "notice_not_number": "链接参数 {key}={value} 不是数字，已改用默认值。",
    "notice_text_capped": "文本只保留了前 {most} 个词元（或前 {chars} 个字符），这是本演示的上限。",
    "tokens_title": "从文本到 X：词元、嵌入、位置编码",
    "tokens_text": (
        "X 的每一行从哪里来？先把文本切成词元，每个词元有一个编号，编号选出嵌入矩阵 E 的一行；"
        "再给每一行加上位置编码，就得到 X。输入一段文本：后面的每一步都从它开始，每个词元一行。"
    ),
    "tokens_box": "你的文本",
    "tokens_box_help": "每个词、标点和表情各算一个词元；中文按字切分。最多 {most} 个词元。",
    "tokens_example": "还没有文本，这里先用一个例子：“{example}”。在你输入文本或采用这个例子之前，后面各步仍使用随机种子生成的 X。",
    "tokens_use_example": "采用这段文本",
    "tokens_count": "共 {n} 个词元，其中 {vocab} 个互不相同：词表有 {vocab} 项，所以 E 有 {vocab} 行。",
    "tokens_count_trained": "共 {n} 个词元，其中 {distinct} 个互不相同；训练过的模型词表有 {vocab} 个字母，所以 E 有 {vocab} 行。",
    "token_id": "词元编号",
    "positions": "位置编码 P",
    "positions_sinusoidal": "正弦",
    "positions_learned": "可学习",
    "positions_odd": (
        "d = {d} 是奇数：第 2i 列取正弦，第 2i + 1 列取同一频率的余弦，"
        "所以最后一列没有配对的余弦。频率要按列来算，i = j // 2，而不是正弦、余弦各取 d/2 个，否则形状对不上。"
    ),
    "positions_even": (
        "d = {d} 是偶数，正弦和余弦正好成对。若 d 是奇数，最后的第 2i 列就没有配对的余弦，"
        "所以代码按列计算频率。"
    ),
    "positions_trained_note": "这些是训练过的模型学到的位置编码：每个位置一行，最多 {most} 个位置，和其余权重一起训练出来。",
    "positions_learned_note": "可学习的位置编码是一张表，每个位置一行，随模型一起训练（这里还没训练，是随机生成的，就像训练前的 GPT-2）。",
    "tokens_x_used": "现在后面的每一步都从这个 X 开始（n = {n}）。",
    "tokens_x_edited": "你在“输入 X”这一步改过 X：各步用的是你改过的 X，而不是这个。到那一步重置 X，就会重新使用由文本生成的 X。",
    "tokens_x_not_used": "这个例子只在这里展示：各步仍使用随机种子生成的 X。",
    "input_from_text": "X 由你的文本生成（n = {n} 个词元，见“文本 → 词元 → X”这一步）。在这里修改任意一格都会覆盖它。",
    "input_text_edited": "你的修改覆盖了由文本生成的 X；重置 X 即可回到文本的 X。",
    "block_title": "注意力外面的 GPT 块",
    "block_text": (
        "注意力只是 GPT 块的一部分。它周围有两个残差连接（把子层的输出加回它的输入）、两个层归一化（把每一行变成均值 0、"
        "方差 1，再乘以 γ、加上 β），以及前馈网络：一个对每一行单独运算的两层小网络。每一步都保持 n×d 的形状，所以块可以一层层堆叠。"
    ),
    "block_ln_order": "层归一化的位置",
    "block_ln_post": "后置：最初的 GPT（文章结尾那张图）",
    "block_ln_pre": "前置：GPT-2",
    "block_order_post": (
        "最初的 GPT（2018 年）的块，也就是文章结尾那张图，把每个层归一化放在残差相加之后。注意力直接读 X（所以 $\\mathrm{{Attn}}$ 正是前面各步算出的 Y），"
        "输出加回 X，再对这个和做层归一化：$R_1 = \\mathrm{{LN}}_1(X + \\mathrm{{Attn}})$。前馈网络读 $R_1$\u2060，"
        "输出加回 $R_1$，再归一化一次：$Y = \\mathrm{{LN}}_2(R_1 + \\mathrm{{FFN}})$。"
    ),
    "block_order_pre": (
        "GPT-2（2019 年）把每个层归一化放在它的子层之前。每个子层读的是残差流归一化后的副本，输出直接加回残差流本身："
        "$R_1 = X + \\mathrm{{Attn}}(\\mathrm{{LN}}_1(X))$，$Y = R_1 + \\mathrm{{FFN}}(\\mathrm{{LN}}_2(R_1))$。"
        "GPT-2 还在最后一个块之后再做一次层归一化（见下一步）。"
    ),
    "block_why": (
        "GPT-2 为什么把归一化挪到前面：前置时，沿着残差连接从 X 到 Y 只有加法，输入能沿加法一路到达输出，梯度也能一路传回最前面的层，"
        "中途不会被每个块的归一化重新缩放。后置时，每个块的归一化都挡在这条路上；块叠得很深时，训练要小心地预热学习率，仍可能发散，"
        "而前置的深层堆叠训练得很稳定。最后那次层归一化再把最终输出的尺度管住。"
    ),
    "block_trained_pre": (
        "这个模型和 GPT-2 一样是前置层归一化：它训练时每个归一化都在子层之前，权重只在这个顺序下才有意义，"
        "所以这里不能切换顺序。"
    ),
    "block_node_ln1": "层归一化 1",
    "block_node_attn": "注意力",
    "block_node_ln2": "层归一化 2",
    "block_node_ffn": "前馈网络",
    "block_to_walk": "打开注意力：从 Q 和 K 开始逐步计算",
    "block_part": "块的哪一部分（图中用橙色边框标出）",
    "block_part_ln1": "层归一化 1",
    "block_part_attn": "注意力，加 X",
    "block_part_ffn": "层归一化 2，升维",
    "block_part_ffn_post": "前馈网络升维",
    "block_part_gelu": "GELU 激活",
    "block_part_out": "降维，加 R₁",
    "block_part_out_post": "降维，加 R₁，层归一化 2",
    "block_ln": "层归一化：每一行变成均值 0、方差 1，再乘以 γ、加上 β",
    "block_hat_note": (
        "$\\hat x$ 是 ${input}$ 的每一行减去 μ、再除以 $\\sqrt{{\\sigma^2+\\varepsilon}}$："
        "$\\hat x$ 每一行的均值为 0，方差为 $\\sigma^2/(\\sigma^2+\\varepsilon)$，只因 ε = 10⁻⁵ 而比 1 略小"
        "（见 μ(x̂) 和 σ²(x̂) 两列）。然后 γ 按特征缩放，β 按特征平移。"
    ),
    "block_attn": "注意力，然后是第一个残差连接",
    "block_attn_is_y_pre": (
        "这里的注意力输出就是第 {qk} 至第 {output} 步算出的 Y，权重相同，只是输入换成了 $\\mathrm{{LN}}_1(X)$，"
        "而不是 X。再加回 X，得到 $R_1$。"
    ),
    "block_attn_is_y_trained": (
        "这里的注意力输出就是第 {qk} 至第 {output} 步算出的 Y：用训练过的模型时，前面各步本来就从这一层注意力读到的输入算起，"
        "也就是流到这一层的残差流 X 的 $\\mathrm{{LN}}_1(X)$。再加回 X，得到 $R_1$。"
    ),
    "block_attn_is_y_post": (
        "这里的注意力输出就是第 {qk} 至第 {output} 步算出的 Y：同样的权重，同样的 X。加回 X，再对和做层归一化，"
        "得到 $R_1$。"
    ),
    "block_to_output": "看 Y 是怎样算出来的（第 {output} 步）",
    "block_ffn": "前馈网络，升维：每一行变成 $d_{{ff}}$ 个隐藏单元",
    "block_ln2_stats": "第二次层归一化之前，{what} 各行的均值为 {mean}，方差为 {var}；之后为 0 和 1（乘 γ、加 β 之前）。",
    "hidden_unit": "隐藏单元",
    "block_bias": "图中是 ${up}$；每一行再加上偏置 $b_{{fc}}$（{f} 个数）才得到 H。",
    "block_gelu": "逐个单元做 GELU",
    "block_row": "在曲线上显示的行",
    "block_gelu_curve": "GELU(h)",
    "block_gelu_row": "H 的第 {i} 行",
    "block_out_pre": "前馈网络，降维，然后是第二个残差连接",
    "block_out_post": "前馈网络，降维，然后是第二个残差连接，最后做第二次层归一化",
    "block_rows_alone": "层归一化和前馈网络都只对单独一行运算，所以 Y 的第 i 行仍然只依赖第 1 到第 i 个词元。",
    "next_token_title": "从最后一行到下一个词元",
    "next_token_text": (
        "最后一个块之后，先做一次层归一化，再让每一行与 E 的每一行做内积：这就是 $\\mathrm{{logits}}$，词表中每一项一个分数。"
        "最后一行除以温度 T 再做 softmax，就是下一个词元的概率分布。"
    ),
    "next_example": "还没有文本：这一步把前面各步用的 X（{n} 行，和侧边栏一致）送进这个块，再给例子“{example}”里的 {vocab} 个词逐一打分。在“文本 → 词元 → X”这一步输入你自己的文本，每一行就有了对应的词。",
    "next_tied": "E 用了两次（权重共享，和 GPT-2 一样）：查出词元的向量，以及转置后给词表中 {vocab} 项打分。",
    "next_order": "这里的块按 GPT-2 的顺序排列（前置层归一化，即上一步的第二个选项），最后一个块之后再做 GPT-2 的最终层归一化 $\\mathrm{{LN}}_f$；文章结尾那张图里最初的 GPT 则是在每次相加之后归一化，也没有最终的 $\\mathrm{{LN}}_f$。",
    "temperature": "温度 T",
    "temperature_help": "小于 1 让分布更尖锐，大于 1 让分布更平缓。",
    "choice": "选择方式",
    "choice_greedy": "贪心（概率最大）",
    "choice_sample": "按种子采样",
    "next_probs_title": "第 {i} 个词元之后，下一个词元的概率",
    "next_chosen_greedy": "贪心选择：“{token}”（编号 {id}），概率 {p}。",
    "next_chosen_sample": "按种子采样得到：“{token}”（编号 {id}），概率 {p}。",
    "append_token": "把它追加到文本末尾",
    "next_full": "文本已有 {most} 个词元，达到本演示的上限。",
    "next_untrained": "这些权重是随机的，没有训练过：这里展示的是计算过程，而不是通顺的句子。",
    "model": "权重",
    "model_help": "随机：按种子生成的随机数，维度任意，和原文一样。训练过：在本仓库里训练的两层模型，"
                  "训练数据是会重复的序列，维度固定。",
    "model_seeded": "随机（原文）",
    "model_trained": "训练过",
    "layer": "层",
    "layer_help": "各步骤展示的是哪一个块的注意力。第 1 层读字母和它们的位置；第 2 层读第 1 层在此基础上加进来的信息。",
    "trained_sizes": r"训练过的模型维度固定：$d_{{\text{{model}}}} = {d_model}$、$d_k = {d_k}$、$d_v = {d_v}$、$h = {n_heads}$、"
                     r"$d_{{ff}} = {d_ff}$；n 就是字母的个数。",
    "trained_tokens_note": "训练过的模型每个字母算一个词元，只认 {first} 到 {last}（空格跳过，最多 {most} 个字母），位置编码是学出来的。"
                           "它的训练数据是{task}，后面再把同样的字母重复一遍。",
    "trained_unknown": "训练过的模型只认识 {first} 到 {last} 这些字母；没有用上的字符：{chars}。",
    "trained_task_distinct": "几个互不相同的字母",
    "trained_task_repeats": "一串随机字母（同一个字母可能出现不止一次）",
    "trained_cut": "训练过的模型最多读 {most} 个字母，多出来的部分没有用上。",
    "trained_random": "随机生成一个重复序列",
    "input_trained": "使用训练过的模型时，这里的 X 是第 {layer} 层注意力读到的输入：该层残差流经过 $\\mathrm{{LN}}_1$ 之后的结果，"
                     "由你的 {n} 个字母算出。修改任意一格，后面各步就改用你修改后的值。",
    "block_trained": "训练过的模型的第 {layer} 层：用它自己的权重，作用在流到这一层的残差流上。",
    "next_trained": "这些权重是在重复序列上训练出来的。第二遍一开始，最可能的下一个字母，"
                    "应当是第一遍里紧跟在当前字母后面的那个。",
    "roles_title": "每个头在做什么？在当前序列上实测",
    "roles_text": "前一词元分数：每一行分给紧挨在它前面那个词元的权重，取平均。归纳分数：对于当前字母在前面出现过的那些行，"
                  "分给前面那次出现的下一个词元的权重，取平均。前一词元分数达到 {prev_bar}、或归纳分数达到 {ind_bar}，"
                  "才按这项分数给这个头命名：门槛取 {floor} 与“未训练的模型（第 0 步）在同一序列上所有头的最高分再加 {margin}”"
                  "中较大的那个。",
    "roles_layer": "层",
    "roles_head": "头",
    "roles_prev": "前一词元分数",
    "roles_induction": "归纳分数",
    "roles_role": "在这里的作用",
    "role_previous": "前一词元头",
    "role_induction": "归纳头",
    "role_both": "既看前一词元，也做归纳",
    "role_none": "没有明显的模式",
    "roles_no_repeat": "还没有重复的字母",
    "timeline_title": "训练过程，一步一步看",
    "timeline_text": "模型训练了 {steps} 步，途中保存了 {count} 次。选一个时刻：看看那时的损失（在一组固定的重复序列上算的），"
                     "以及这一层的各个头当时在你的序列上怎么分配注意力。还没有头做归纳时，损失一直很高；归纳头形成的过程中，损失随之下降。",
    "timeline_step": "训练到第几步",
    "timeline_x": "训练步数",
    "timeline_y": "第二遍上的损失",
    "timeline_at": "第 {step} 步时，各个头在你的序列上的表现（第 {layer} 层的注意力模式在表格下方）：",
    "retrain_title": "再训练一次",
    "retrain_text": "换一个种子，从头训练同一个模型：{steps} 步，大约一分钟。换了种子，头的分工可能不同，"
                    "也可能没有一个头学会归纳；上面的表格会如实显示。",
    "retrain_seed": "随机种子",
    "retrain_button": "用这个种子训练",
    "retrain_running": "正在用种子 {seed} 训练……",
    "retrain_busy": "本应用里正有别的页面的模型在训练，同一时间只能训练一个：大约 {s} 秒后才能开始下一次。",
    "retrain_resting": "两次训练之间，训练程序要歇一分钟，好让全班的页面都保持流畅：{s} 秒后才能开始下一次。",
    "retrain_failed": "用种子 {seed} 的训练中断了：{error}",
    "retrain_showing": "当前显示的是用种子 {seed} 重新训练的模型。下面几个数是训练结束后在 {count} 条新抽的任务序列上"
                       "求的平均，不是在当前页面的这条序列上测的，所以和上面表格里的数不同：第二遍上的准确率 {acc}，"
                       "第 1 层最高的前一词元分数 {prev}，第 2 层最高的归纳分数 {ind}。",
    "retrain_back": "换回自带的模型",
    # the heads stage's parts with the trained model: knock-outs, what each head writes, circuits
    "heads_offer": "敲掉注意力头、看每个头写了什么、读它的回路，都需要真正学到了东西的权重：换成训练好的模型，这一站就会出现这些部分。",
    "heads_offer_button": "换成训练好的模型",
    "heads_part": "这一站的哪一部分",
    "heads_part_patterns": "每个头看哪里",
    "heads_part_knock": "敲掉注意力头",
    "heads_part_writes": "每个头写了什么",
    "heads_part_circuits": "回路",
    "heads_part_timeline": "训练过程",
    "knock_head": "头 {name}：{role}",
    "knock_role_previous": "前一词元头",
    "knock_role_induction": "归纳头",
    "knock_role_none": "没有明确角色",
    "knock_pick": "要敲掉的头（层.头）",
    "knock_intro": "一个头的注意力模式只说明它从哪里读，不说明模型靠它做什么。要知道这一点，就把它敲掉：在乘 $W_O$ "
                   "之前把它的输出置零，它就不再往残差流里加任何东西，而它的注意力模式保持不变。在上面任选几个头，下面的分数和预测会随之改变。",
    "knock_set": "测量用的是一组留出的序列：{count} 条模型学过的任务（4 到 8 个随机字母，再把这些字母重复一遍），用种子 {seed} "
                 "抽取，训练时一条也没见过。准确率只数第二遍里第一个字母之后的字母，取概率最大的猜测。",
    "knock_none": "还没有敲掉任何头：这是完整的模型。",
    "knock_col_acc": "第二遍的准确率",
    "knock_col_loss": "损失（奈特）",
    "knock_row_all": "所有头都在",
    "knock_row_without": "敲掉 {names}",
    "knock_row_chance": "瞎猜（{v} 个字母选一个）",
    "knock_them_one": "这个头",
    "knock_them_many": "这些头",
    "knock_needs_chance": "敲掉 {names} 后，模型只抄对 {after} 的字母，和瞎猜（{chance}）差不多；有它们时是 {before}。没有{them}，模型就不会抄了。",
    "knock_needs": "敲掉 {names} 后，准确率从 {before} 降到 {after}，少了 {drop} 个百分点：模型离不开{them}，只是没有也还能抄对一部分。",
    "knock_leans": "敲掉 {names} 后，准确率从 {before} 降到 {after}，少了 {drop} 个百分点：模型倚重{them}，其他头能补回一部分损失。",
    "knock_barely": "敲掉 {names} 后，准确率从 {before} 变为 {after}，变化 {drop} 个百分点：在这里模型几乎用不着{them}，别的头在做这件事。",
    "knock_next_all": "读完整条序列后，模型猜下一个字母是 {letter}（概率 {p}）。",
    "knock_next": "读完整条序列后，所有头都在时模型猜下一个字母是 {letter}（概率 {p}）；敲掉 {names} 后猜 {after}（概率 {q}）。",
    "knock_seq_title": "你的序列，逐个位置",
    "knock_seq_text": "每一列：一个字母、真正跟在它后面的字母，以及模型对它的猜测。",
    "knock_seq_changed": "每一列：一个字母、真正跟在它后面的字母，以及所有头都在时和敲掉这些头后模型的猜测；{n} 个猜测里有 {changed} 个变了（加粗）。",
    "knock_composed_title": "敲掉后第 {layer} 层的注意力模式",
    "knock_composed": "敲掉 {names} 后，第 {layer} 层的头自己的权重没变，但它们的查询和键读的是残差流，而残差流里已经没有"
                      "被敲掉的头写下的内容，所以它们看的地方也变了（见下图：每个头在所有头都在时与敲掉之后的样子）。你的序列上的归纳分数，所有头都在时与敲掉后："
                      "{scores}。",
    "knock_composed_head": "头 {name}：{before} → {after}",
    "knock_s_before": "所有头都在",
    "knock_s_after": "敲掉之后",
    "knock_composed_no_repeat": "你的序列里还没有字母重复，没有归纳分数可比；注意力模式画在下面。",
    "knock_seq_pos": "位置",
    "knock_seq_letter": "字母",
    "knock_seq_next": "下一个字母",
    "knock_seq_all": "猜测（所有头）",
    "knock_seq_without": "猜测（敲掉后）",
    "writes_head": "注意力头",
    "writes_pos": "求和的位置",
    "writes_figure": "头 {name} 对对数几率的直接作用",
    "writes_letter": "字母",
    "writes_text": "第 $i$ 行、第 $b$ 列：头 {name} 在位置 $i$ 的输出直接经过 $W_O$ 和最后的层归一化，把字母 $b$ "
                   "的对数几率抬高（红）或压低（蓝）多少；层归一化的缩放取自该行完整的残差流。经由后面各层的间接作用不算在内。"
                   "虚线框标出的是：在字母此前出现过的行里，上一次出现时紧跟其后的那个字母。",
    "writes_whole": "在“敲掉注意力头”那一部分敲掉的头（{names}）在这里没有敲掉：这里是完整的模型。",
    "writes_no_repeat": "你的序列里还没有哪个字母出现过第二次，所以没有更早的副本可循。",
    "writes_copies": "在字母此前出现过的 {rows} 个位置上，头 {name} 有 {hits} 次最用力推高的，正是上一次出现时紧跟其后的字母。",
    "writes_sum_title": "位置 {pos}（字母 {token}）：模型所猜字母 {letter} 的对数几率，逐项拆开",
    "writes_sum_text": "顶层的残差流是若干项之和（词嵌入、位置、每个头、每个前馈网络、偏置），所以对数几率也是它们各自贡献之和。",
    "writes_col_part": "项",
    "writes_col_logit": "对 {letter} 的对数几率的贡献",
    "writes_part_embedding": "字母的嵌入 $E$",
    "writes_part_positions": "位置在 $P$ 中的那一行",
    "writes_part_head": "头 {name}",
    "writes_part_ffn": "第 {layer} 层的前馈网络",
    "writes_part_biases": "偏置（前馈网络的偏置和最后层归一化的 $\\beta$）",
    "writes_total": "各项之和",
    "writes_logit": "前向计算得到的对数几率",
    "circuit_head": "注意力头",
    "circuit_kind": "回路",
    "circuit_ov": "$OV$：它写什么",
    "circuit_qk": "$QK$：它看哪里",
    "circuit_through": "键由谁产生",
    "circuit_through_none": "字母本身",
    "circuit_ov_text": "头 {name} 的 $OV$ 回路：第 $a$ 行是这个头读到字母 $a$ 时写下的内容，再读成每个字母的对数几率。$\\hat E$ 是 $E$ 的各行经第一个层归一化之后的样子（乘了它的 $\\gamma$，不加 $\\beta$）；$\\Gamma_f$ 是最后层归一化的去均值和 $\\gamma$。{v} 行中有 {hits} 行对角线是该行最大的：读到一个字母，这个头有 {hits} 次抬高的正是同一个字母。点任意一格可看它的点积。",
    "circuit_qk_text": "头 {name} 的 $QK$ 回路：第 $a$ 行、第 $b$ 列是字母 $a$ 上的查询给字母 $b$ 上的键打的分（$\\hat E$：$E$ 的各行经第一个层归一化之后的样子）。{v} 行中有 {hits} 行对角线是该行最大的：这就是这个头有多想找它自己的字母。点任意一格可看它的点积。",
    "circuit_qk_through_text": "头 {name} 的 $QK$ 回路，键由头 {through} 产生：在前一个字母是 $b$ 的位置上，头 {through} 已经把关于 $b$ 的信息写进了残差流（$\\hat O_{{{through}}}$ 的第 $b$ 行：它写下的内容，按第一个层归一化的方式去均值并缩放），这里是字母 $a$ 上的查询给这个键打的分。{v} 行中有 {hits} 行对角线是该行最大的：字母 $a$ 上的查询去找紧跟在更早的 $a$ 后面的位置，归纳头随后抄的就是那里的字母。点任意一格可看它的点积。",
    "timeline_acc": "准确率（所有头）",
    "timeline_acc_knocked": "准确率（敲掉第 {layer} 层的头）",
    "timeline_induction": "第 {layer} 层最高的归纳分数",
    "timeline_y_acc": "比例（0 到 1）",
    "timeline_knock_at": "第 {step} 步，在其中 {count} 条序列上：所有头都在时准确率 {acc}，敲掉第 {layer} 层的头后 {without}，相差 {gap} 个百分点；第 {layer} "
                         "层最高的归纳分数是 {ind}。归纳分数升起时，这个差距随之拉开。",
    "notice_knock_seeded": "链接参数 {key}={value} 敲掉的是训练好的模型里的头，而这个链接显示的是随机权重（没有选训练好的模型），已略去。",
    "notice_knock": "链接参数 {key}={value} 不是训练好的模型里的头（{heads}，写作 层.头），已略去。",
    # 变体实验室（`variants`）：开头和选择；每个变体自己的文字在各自的小节里。
    "variants_title": "变体实验室：今天的模型改了什么，用的还是这些数",
    "variants_text": (
        "缓存为每个头、每个词元都留着 K 和 V，这份内存决定了模型一次能读多长。如今常用的模型改动了文章里的注意力："
        "有的为了少占内存，有的为了让词元知道自己的位置。选一种改动：它用的 X 和权重与前面各步相同，画在同样的图上，"
        "并当场核对它算出的是否和它声称的一样，以及每个词元要缓存多少数。"
    ),
    "variant": "变体",
    "variant_mha": "MHA（文章里的）",
    "variant_gqa": "GQA",
    "variant_mqa": "MQA",
    "variant_window": "滑动窗口",
    "variant_sinks": "窗口 + 汇聚词元",
    "variant_alibi": "ALiBi",
    "variant_rope": "RoPE",
    "variant_mla": "MLA",
    "variant_online": "在线 softmax",
    "lab_part": "实验室的哪一部分",
    "lab_part_change": "改了什么",
    "lab_part_click": "点开乘积",
    "lab_part_check": "验证与缓存代价",
    "lab_product": "乘积",
    # lab: GQA and MQA
    "lab_groups_map_part": "这里只画第 {g} 组（共 {groups} 组）和第 {heads} 个头；其余各组同理",
    "lab_groups_kv_heads": "K 和 V 的头数 $n_{{kv}}$（$h$ 的因数）",
    "lab_groups_kept": "$h = {h}$ 不是 $n_{{kv}} = {asked}$ 的倍数：头没法分成一样大的组，所以这里改用 "
                       "$n_{{kv}} = {used}$，也就是比它小的 $h$ 的最大因数。",
    "lab_groups_trained": "训练过的模型维度是固定的：每层 {h} 个头，所以 K 和 V 的头数只能是 {options}，没有介于两者之间的组。"
                          "换成随机权重就能用 4 个头，看到真正的分组。",
    "lab_groups_four_gqa": "只有 {h} 个头时，GQA 在所有头共用一份 K 和 V（MQA，$n_{{kv}} = 1$）与每个头各有一份（前面"
                           "步骤里的 MHA）之间没有别的选择。真正的分组，也就是部分头共用而不是全部，至少要 4 个头。",
    "lab_groups_four_one": "只有一个头时没有东西可以共用。共用 K 和 V 至少要 2 个头；真正的分组，也就是部分头共用而不是"
                           "全部，要 4 个头。",
    "lab_groups_four_button": "改成 4 个头（X 不变）",
    "lab_groups_group": "第 {g} 组（第 {heads} 个头）",
    "lab_groups_intro": "{h} 个查询头，{n_kv} 个 K、{n_kv} 个 V。每 {size} 个头一组，共用一个 K 和一个 V：{groups}。"
                        "每个头仍有自己的 $W_Q$，因此 Q 各不相同；每组沿用它第一个头在前面步骤里的 $W_K$ 和 $W_V$。",
    "lab_groups_intro_mqa": "{h} 个查询头，1 个 K 和 1 个 V：所有头读同一个 K 和 V。每个头仍有自己的 $W_Q$，因此 Q "
                            "各不相同；这唯一的 K 和 V 来自前面步骤里第 1 个头的 $W_K$ 和 $W_V$。",
    "lab_groups_row1": "看下面 H 的第 1 行：同一组的头在这一行完全相同，因为第一个词元只看得到自己，而同组的头读的是同一个 V。",
    "lab_groups_none": "{h} 个查询头，{h} 个 K 和 V 头：每个头读自己的 K 和 V，和前面步骤里一样。没有共用"
                       "（$n_{{kv}} = h$）：这就是前面步骤里的 MHA。",
    "lab_groups_mqa": "这就是 MQA，最极端的情况，Falcon 用的就是它：缓存最小，但每个头都只能在同一份键和值里找自己要的东西。",
    "lab_groups_gqa": "介于两者之间：Llama 3 的 8B 模型让每 4 个查询头读同一个 K 和 V（32 个头，8 个 K 和 V 头）。",
    "lab_groups_map_title": "每组的 K 和 V 只画一次，后面是读它们的每个头的 Q",
    "lab_groups_read_by": "第 {heads} 个头",
    "lab_groups_read_by_one": "只给第 {heads} 个头",
    "lab_groups_sh_title": "每个头的 S，以及用本组 V 算出的 H = S·V",
    "lab_groups_h_block": "第 {i} 个头 · 第 {g} 组",
    "lab_groups_check_title": "在页面上现算现查",
    "lab_groups_cache_text": "解码时每个词元要存多少：页面把 X 的 {n} 行逐个放进核心代码里一个真的 KV 缓存，再用它的字节数"
                             "除以 8（一个 float64）和它存的词元数。",
    "lab_groups_col_cache": "每个词元的 K 和 V",
    "lab_groups_col_measured": "实测（浮点数个数）",
    "lab_groups_col_formula": "公式",
    "lab_groups_row_mha": "前面步骤里的 MHA，{h} 个头",
    "lab_groups_row_shared": "{variant}，{n_kv} 个 K 和 V 头",
    "lab_groups_reads_text": "每个头读的真是本组的 K 和 V 吗？页面用 numpy 从 X 和权重重新算出每个头的 S 和 H，组号按上面"
                             "的规则 $g(i)$ 算，不问核心代码；哪个头读了别组的 K 或 V，差值就会远离 0。",
    "lab_groups_col_head": "头 $i$",
    "lab_groups_col_group": "它的组 $g(i)$",
    "lab_groups_col_diff": r"差值 $\max\lvert H_i - S_i V_{{g(i)}}\rvert$",
    "lab_groups_y_same": "没有共用，所以 Y 和前面步骤里的 Y 完全一样。",
    "lab_groups_y_moved": r"共用会改变模型：在这些权重上，和前面步骤里的 Y 相比，$\max\lvert Y - Y_{{\text{{MHA}}}}\rvert "
                          r"= {diff}$。",
    "lab_groups_trained_with": "真正的模型不会这样把训练好的 MHA 的头直接合并：它们要么从一开始就带着共用来训练，要么先转换"
                               "、再补训一小段。提出 GQA 的论文（2023 年）把每组 K 和 V 的投影取成组内各头的平均，再用原来"
                               "训练步数的大约 5% 继续训练；分 8 组的 GQA 质量接近 MHA，速度接近 MQA。这里直接沿用第一个头"
                               "的，也没有重新训练，所以 Y 会变。",
    # lab: window and sinks
    "lab_window_w": "窗口 W",
    "lab_window_s": "汇聚词元 s",
    "lab_window_text": (
        "滑动窗口（Mistral 用的）只让查询 i 读最近的 W = {w} 个键，即 $i - W < j \\le i$：掩码的每一行最多留 {w} "
        "格，沿对角线形成一条带。离开这条带的键，之后的查询也不会再读，所以缓存可以把它丢掉：缓存里最多只有 {cap} 个词元。"
    ),
    "lab_window_sinks_text": (
        "StreamingLLM 在宽度 W = {w} 的窗口之外，让前 s = {s} 个键一直可见：模型会把很多注意力压在最前面的几个词元上（注意力汇聚），窗口若把它们丢掉，效果就会变差。查询 i "
        "读的是满足 $i - W < j \\le i$ 或 $j \\le s$ 的键，所以掩码是那条带再加上最左边的 s 列，缓存里最多只有 s + W = {cap} 个词元。"
    ),
    "lab_window_hidden": "这里 n = {n} 个词元，因果掩码留下的 {kept} 个分数中，窗口又遮住了 {hidden} 个：就是对角线下方的灰格。",
    "lab_window_none": "n = {n} 个词元、W = {w} 时，每个键都还在窗口里：还什么都没遮住，这个掩码就是普通的因果掩码。要到 n = {need} 个词元，窗口才开始遮住键。",
    "lab_window_none_sinks": (
        "n = {n} 个词元、W = {w}、s = {s} 时，每个键不是在窗口里就是汇聚词元：还什么都没遮住，这个掩码就是普通的因果掩码（文章里的 n = 3、W = 2、s = 1 正是这样）。要到 n "
        "= {need} 个词元才开始有键被遮住。"
    ),
    "lab_window_more": "改用 n = {n} 个词元",
    "lab_window_too_wide": "这个页面接受的 X 最多 {most} 个词元，都不够长，遮不住任何键：请把 W 或 s 调小。",
    "lab_window_text_n": "X 来自一段文本，n 就是它的词元数：可以给文本加词，或者到 KV 缓存那一步逐个加词元（按钮在“{check}”里）。",
    "lab_window_mask_title": "第 {h} 个头的掩码 M、加上掩码后的分数，以及 S：灰格是被遮住的（未来的键，以及窗口之外太靠前的键）。",
    "lab_window_outputs": "第 {h} 个头的输出 H = S·V，用的是带窗口的 S：被遮住的键权重为 0，它那一行 V 什么也不加。点击 H 的任意一格看它的内积，或者让测验来考你一格。",
    "lab_window_check": (
        "当场核对：X 一次一个词元地送进 mha 的 KV 缓存，每个词元算出的那一行 Y，与同一掩码下完整重算（对全部 {n} 个词元做一次前向计算）的同一行比较。缓存里最多只能有 {cap} 个词元。"
    ),
    "lab_window_col_token": "词元",
    "lab_window_col_held": "之后缓存里的词元",
    "lab_window_col_len": "缓存长度",
    "lab_window_col_diff": "缓存算出的 Y 与重算的最大差",
    "lab_window_col_ok": "相等且不超限",
    "lab_window_check_ok": "经缓存逐个解码的每一行都等于完整重算（最大差 {diff}），缓存里最多时有 {longest} 个词元：没有超过上限 {cap}。",
    "lab_window_check_bad": "缓存和完整重算对不上（最大差 {diff}），或者缓存里有过 {longest} 个词元，超过了上限 {cap}：这个窗口没有做到它声称的事。",
    "lab_window_kv_hint": "KV 缓存那一步用同样的窗口解码：在那里一次加一个词元，看最早的词元离开。",
    "lab_window_to_kv": "到 KV 缓存那一步加词元",
    # lab: ALiBi
    "lab_alibi_text": (
        "ALiBi（BLOOM 用的就是它）不往 X 里放位置，而是让每个头在缩放后的分数上加一个偏置 $B_{{ij}} = -m_h (i - j)$：对角线上为 0，键越靠前越负，斜率 $m_h$ "
        "每个头各有一个。然后 S 仍是 $\\operatorname{{softmax}}(QK^\\top/\\sqrt{{d_k}} + B)$，因果掩码也还在 B 里。"
    ),
    "lab_alibi_x_seeded": "这里的 X 是随机种子生成的数，本来就不含位置，不用去掉什么。",
    "lab_alibi_x_text": "这里的 X 来自一段文本：原本是各词元在 E 中的行加上位置 P，所以这一步把 P 减掉，只用 E 的行来算（你的改动保留）。没有 ALiBi 的话，这些行完全不带顺序信息。",
    "lab_alibi_x_trained": "这里的 X 是训练好的那一层读到的输入：模型训练时在输入端加了位置，下面几层又把它们混进了 X，没法再去掉。这一步只是在上面再加 ALiBi，用来演示计算；模型训练时并没有用它。",
    "lab_alibi_col_head": "头",
    "lab_alibi_col_slope": "斜率 $m_h$",
    "lab_alibi_col_here": "这里最远的键（往前 {back} 个）扣掉",
    "lab_alibi_col_spread": "这个头的分数跨度",
    "lab_alibi_col_far": "往前 {far} 个词元的键扣掉",
    "lab_alibi_rule_power": "论文的规则（{h} 个头，是 2 的幂）：第 k 个头的斜率 $m_k = 2^{{-8k/{h}}}$，从 $2^{{-8/{h}}}$ 等比缩小到 $2^{{-8}}$。",
    "lab_alibi_rule_other": "论文对 {h} 个头（不是 2 的幂）的规则：先取小于 {h} 的最大的 2 的幂 p，用 p 个头的那组斜率；剩下的头依次取 2p 个头那组斜率里隔一个取一个。",
    "lab_alibi_small": (
        "在 {n} 个词元上这点偏置很小：最远的键最多只扣 {most}，比起一个头的分数本身的跨度微不足道，所以 S 和普通的因果注意力几乎一样。ALiBi 是为长文本设计的：往前 {far} 个词元的键，在第 "
        "1 个头里要扣掉 {big}，几乎不会再被注意。"
    ),
    "lab_alibi_large": "在 {n} 个词元上，最远的键在第 1 个头里已经要扣掉 {most}，和它的分数跨度相当，所以 S 明显偏向较近的键。往前 {far} 个词元的键会扣掉 {big}。",
    "lab_alibi_bias_title": "每个头的偏置 B，各画成一个矩阵（灰格是因果掩码遮住的）",
    "lab_alibi_scores_title": "第 {h} 个头：加上偏置后的分数，以及 S。点击一个分数，看它是怎么算出来的。",
    "lab_alibi_click": "点击第 {h} 个头左边的任意一个分数，看它的内积和偏置。",
    "lab_alibi_future": "键 {j} 在查询 {i} 之后：因果掩码把它遮住（−∞），偏置是多少都一样。",
    "lab_alibi_cell": "第 {h} 个头的分数 ({i}, {j})：内积除以 $\\sqrt{{d_k}}$，再减去斜率乘以这个键往前的距离：",
    "lab_alibi_cell_same": "✓ 前向计算得到的这一格也是 {value}：一致。",
    "lab_alibi_cell_differs": "✗ 前向计算得到的这一格是 {value}：和 ALiBi 的规则算出的不一样。",
    "lab_alibi_check_ok": (
        "当场核对：这一步自己按 $q_i \\cdot k_j/\\sqrt{{d_k}} - m_h(i-j)$ 算出的全部 {cells} 个可见分数，都等于前向计算的分数加偏置（最大差 {diff}）。"
    ),
    "lab_alibi_check_bad": (
        "当场核对没通过：这一步自己按 $q_i \\cdot k_j/\\sqrt{{d_k}} - m_h(i-j)$ 算出的 {cells} 个可见分数，与前向计算的分数加偏置最多差 {diff}。"
    ),
    "lab_alibi_outputs": "第 {h} 个头的输出 H = S·V，用的是 ALiBi 的 S：点击一格看它的内积，或者让测验来考你一格。",
    # lab: RoPE
    "lab_rope_text": (
        "RoPE（旋转位置编码，Llama、Mistral、DeepSeek 以及此后的大多数模型都在用）不再把位置加进 X，而是把每个词元的"
        "位置直接放进 Q 和 K：q 或 k 的一行里，每两个维度看成平面上的一个点，按词元的位置 p（从 0 数起）转一个角度，"
        "位置越靠后转得越多：第 i 对每个位置转 $\\theta_i$。V 不转。"
    ),
    "lab_rope_none": "转动的维数为 0 时什么都不转：Q 和 K 保持原样，这就是文章里的注意力。拖动滑块，让一对对维度转起来。",
    "lab_rope_dims": "每个 q、k 头里转动的维数",
    "lab_rope_dims_help": (
        "从 0 到 {most} 的偶数（{most} 是不超过 $d_k = {d_k}$ 的最大偶数）：维度成对地转。转的是前面这些维，其余的"
        "原样通过。0 表示什么都不转（文章里的注意力）。"
    ),
    "lab_rope_kept_odd": "转动 {wanted} 个维度是奇数，而维度只能成对地转：转 {used} 个。",
    "lab_rope_kept_over": "每个头只有 $d_k = {d_k}$ 维，而且要成对地转，放不下 {wanted} 个转动的维度：转 {used} 个。",
    "lab_rope_dk_one": (
        "这里每个头只有 $d_k = {d_k}$ 维，一个维度凑不成一对，什么也转不了。在侧边栏把 $d_k$ 设成至少 2，就能看到 RoPE。"
    ),
    "lab_rope_qk_caption": (
        "第 {h} 个头的 Q 和 K，转动前后。粗线标出一起转的每一对维度，下面写着它的转速 $\\theta$；{d_k} 维里前 {r} 维转动。"
        "第 1 行是位置 0，不转，所以前后一样。"
    ),
    "lab_rope_qk_caption_wide": (
        "第 {h} 个头的 Q 和 K，转动前后。{d_k} 维里前 {r} 维转动，相邻的两列配成一对（第 1、2 列，第 3、4 列，……）；"
        "其余的原样通过。第 1 行是位置 0，不转，所以前后一样。"
    ),
    "lab_rope_position": "位置",
    "lab_rope_pair": "对",
    "lab_rope_angles": (
        "角度 $p\\,\\theta_i$，单位是弧度：每一行是一个位置 p（从 0 数起），每一列是一对维度 i，"
        "$\\theta_i = {base}^{{-2i/{r}}}$。第 0 对转得最快，每个位置一弧度；后面的对越转越慢，合起来既能分辨相邻的词元，"
        "也能分辨相隔很远的词元。"
    ),
    "lab_rope_pairs": (
        "旋转转的是平面上的点，而平面上的点有两个坐标：RoPE 每次转两个维度，所以转动的维数必须是偶数。"
    ),
    "lab_rope_odd": "这里 $d_k = {d_k}$ 是奇数：最多 {most} 维组成 {pairs} 对，第 {d_k} 维没有可以一起转的伙伴。",
    "lab_rope_pass": (
        "不转的维度原样通过，Q 和 K 都一样：这里是 {d_k} 维里的 {rest} 维。模型也会有意这样做：GPT-NeoX 的 "
        "$\\texttt{{rotary\\_pct}}$ 只转每个头里这个比例的维度（GPT-NeoX-20B 和 Pythia 转四分之一），其余的同样原样通过。"
    ),
    "lab_rope_all": "这里 {d_k} 维全都转动，没有原样通过的。",
    "lab_rope_layout": (
        "本页面把相邻的维度配成一对：从 0 数起的第 2i 和 2i + 1 维（第 1、2 列，第 3、4 列，……），"
        "也就是 RoPE 原论文（苏剑林等，2021）的交错布局。很多库改把第 i 维和第 i + d/2 维配成一对，叫“前后两半”布局"
        "（GPT-NeoX，以及移植到常用开源库里的 Llama）。两种布局只差一个固定的维度排列：把 $W_Q$ 和 $W_K$ 的列按这个排列"
        "调换一次，两种布局算出的分数就完全一样；Llama 原版发布的交错布局权重正是这样移植过去的。"
    ),
    "lab_rope_scores": (
        "分数现在是转动后各行的点积 $Q^{{\\mathrm{{rot}}}} (K^{{\\mathrm{{rot}}}})^\\top$。点一个格子看它的点积，"
        "或者按“{quiz}”。"
    ),
    "lab_rope_checks": (
        "第 {h} 个头。两个词元各按自己的位置转动后，相遇时只剩它们之间的夹角：分数只取决于两者相隔"
        "多远，而不取决于它们在哪里。所以，第一，让每个词元都是同一个向量（X 的每一行都设成 X₁）：有 RoPE 时分数只能"
        "取决于 i − j，沿每条对角线不变（一个托普利茨矩阵，下方左图）。没有 RoPE 时 Q 的每一行都相同，K 也一样，"
        "所以所有分数都是同一个数（下方右图）：位置完全分不出来。第二，让位置从 {shift} 而不是 0 开始：分数一个也不变。"
    ),
    "lab_rope_relative": "记 $R_p$ 为位置 p 处的转动（它是旋转，所以它的转置把它转回去）：",
    "lab_rope_checks_title": "在本页面上验证",
    "lab_rope_cache_title": "KV 缓存里存什么",
    "lab_rope_check": "验证",
    "lab_rope_largest": "最大差值",
    "lab_rope_check_toeplitz": "每行都是 X₁，有 RoPE：同一条对角线上的分数两两相比",
    "lab_rope_check_constant": "每行都是 X₁，没有 RoPE：每个分数和第一个相比",
    "lab_rope_check_shift": "每个位置都加 {shift}：分数和上面的相比",
    "lab_rope_check_pass": "不转的维度（{d_k} 维里的 {rest} 维）：Q 和 K 转动后和转动前相比",
    "lab_rope_check_none_pass": "不转的维度：没有，{d_k} 维全都转",
    "lab_rope_check_cache": "把 X 逐个词元送进带 RoPE 的 KV 缓存，缓存里的键和转动后的 K 相比",
    "lab_rope_check_note": (
        "每个数都是画这个页面时用核心代码的各个部分现算的。✓ 表示差值在舍入误差以内：不超过参与比较的最大数（若它小于 1 则按 1 计）的"
        "十亿分之一，这里这个数是 {largest}。"
    ),
    "lab_rope_cache": (
        "和以前一样多：RoPE 不给每个词元多存一个数。每个键在它的词元到来时，按它自己的位置转一次，"
        "转好后存进缓存。新的查询按它自己的位置转动，再和旧的键原样相乘：没有哪个键需要再转，缓存里键的个数和宽度都不变"
        "（值从来不转）。表格最后一行验证的就是这一点。"
    ),
    # lab: MLA
    "lab_mla_skip": "在这些维度下，把 K 和 V 压成潜向量要做一次约 {work:,} 次运算的 SVD；页面只在不超过 {limit:,} 次时计算。"
                    "请选小一些的维度（GPT-2 small 的维度可以）再看 MLA。",
    "lab_mla_d_latent": "潜向量宽度 $d_{{latent}}$",
    "lab_mla_latent": "潜向量维",
    "lab_mla_title": "MLA（DeepSeek-V2）：每个词元只缓存一行短向量，K 和 V 由它重建。",
    "lab_mla_intro": (
        "每个词元在 X 中的那一行被压成一行潜向量 "
        "$c = X\\,W_{{DKV}}$，共 $d_{{latent}}$ 个数，所有头共用这一行，缓存里也只存这一行。第 $i$ 个头用自己的上投影把键和值"
        "重建出来：$K_i = c\\,W_{{UKi}}$，$V_i = c\\,W_{{UVi}}$。这里用的是前面各步自己的权重，改写成这种形式：$W_Q$ 和 "
        "$W_O$ 保持不变，把每个头的 $[W_K \\mid W_V]$ 并排，得到一个 ${d} \\times {kv}$ 的矩阵，用 SVD 分解成 "
        "$W_{{DKV}}$（${d} \\times d_{{latent}}$）乘以 $[W_{{UK}} \\mid W_{{UV}}]$，只保留最强的 $d_{{latent}}$ 个方向。"
    ),
    "lab_mla_small_x": (
        "要注意这些维度对这个想法意味着什么。X 本身每个词元只有 ${d}$ 个数，比 K 和 V 合起来的 ${kv}$ 个还少，"
        "所以直接缓存 X 的行就已经能把 K 和 V 精确地重建出来：在这里，${d}$ 个数或更宽的潜向量什么也省不下，"
        "而且 SVD 也只有 ${d}$ 个方向可留。潜向量要在 $d_{{model}}$ 很宽时才划算：DeepSeek-V2 每个词元缓存 512 个数"
        "（另有 64 个给它的 RoPE 键），而它的 $d_{{model}} = 5120$。真实模型的维度见“{check}”里的开销表。"
    ),
    "lab_mla_wide_x": (
        "要注意这些维度对这个想法意味着什么。K 和 V 合起来每个词元有 ${kv}$ 个数，不比 X 的 ${d}$ 个多，"
        "所以 SVD 只有 ${kv}$ 个方向：${kv}$ 个数或更宽的潜向量是精确的，但和直接缓存 K、V 相比什么也省不下。"
        "潜向量要在 $d_{{model}}$ 很宽时才划算：DeepSeek-V2 每个词元缓存 512 个数（另有 64 个给它的 RoPE 键），"
        "而它的 $d_{{model}} = 5120$。真实模型的维度见“{check}”里的开销表。"
    ),
    "lab_mla_cut": (
        "取 $d_{{latent}} = {l}$ 时，截断在 {r} 个方向里丢掉了 {dropped} 个。其中最大的 "
        "$\\sigma_{{{next}}} = {sigma}$，正是 K、V 和 Y 不再等于前面各步结果的原因；差多少见“{check}”里的代价表。"
    ),
    "lab_mla_exact": "取 $d_{{latent}} = {l}$ 时什么都没丢：K、V 以及 Y 都和前面各步的一样，只差舍入误差。",
    "lab_mla_zero_cols": "$c$ 的最后 {extra} 列全是零：已经没有方向留给它们了。",
    "lab_mla_clamped": (
        "$d_{{latent}}$ 原为 {asked}；在 $d_{{model}} = {d}$ 时这一步只提供 1 到 {high}，所以用 {high}。"
    ),
    "lab_mla_orders": (
        "两种计算顺序得到同样的结果。朴素顺序先重建 $K_i$ 和 $V_i$。吸收顺序是解码器读缓存的方式，根本不构造它们："
        "$Q_i K_i^\\top = (Q_i W_{{UKi}}^\\top)\\,c^\\top$，所以 $W_{{UKi}}$ 并进查询 $\\tilde Q_i$，直接和 $c$ 本身"
        "算分数；又因为 $S_i\\,(c\\,W_{{UVi}}) = (S_i\\,c)\\,W_{{UVi}}$，$W_{{UVi}}$ 可以挪到 softmax 之后。"
    ),
    "lab_mla_checks_title": "当场核对：两种顺序在这些数上的结果",
    "lab_mla_check_what": "比较的内容",
    "lab_mla_check_delta": "最大差值",
    "lab_mla_check_scores": "用重建的 K 算出的 $Q_i K_i^\\top$ 与 $\\tilde Q_i\\,c^\\top$，所有头",
    "lab_mla_check_s": "朴素顺序的 $S$ 与吸收顺序的 $S$，所有头",
    "lab_mla_check_y": "朴素顺序的 $Y$ 与吸收顺序的 $Y$",
    "lab_mla_price_title": "截断的代价：MLA 的 Y 与前面各步的 Y，逐个宽度比较",
    "lab_mla_price_l": "宽度 $d_{{latent}}$",
    "lab_mla_price_sigma": "丢掉的最大奇异值",
    "lab_mla_price_y": "最大 $\\lvert Y_{{MLA}} - Y_{{MHA}}\\rvert$",
    "lab_mla_none": "无",
    "lab_mla_price_note": (
        "$Y_{{MHA}}$ 是前面各步的 Y，即文章里的注意力在同样的 X 和权重上的结果。$d_{{latent}}$ 小于 {r} 时，SVD 会丢掉 "
        "$[W_K \\mid W_V]$ 的一些方向。没有别的秩为 $d_{{latent}}$ 的分解比它更接近原矩阵（埃卡特–杨定理），丢掉的最大"
        "奇异值正是它偏离的程度：一个词元的 K 和 V 移动的距离，不超过这个值乘以它在 X 中那一行的长度。从 {r} 起什么都不丢，"
        "剩下的只是舍入误差。上面选中的宽度用粗体标出。"
    ),
    "lab_mla_price_some": "在 $d_{{model}} = {d}$ 时，表里只列出从 1 到 {d} 之间分布的 {shown} 个宽度。",
    # lab: online softmax
    "lab_online_text": (
        "FlashAttention 从不把 n×n 的分数写下来。键按每块 B 个分块到来，每个查询行在此期间只记三样东西："
        "m，它见过的最大分数；ℓ，已见过的键的 exp(分数 − m) 之和；累加器，同样的权重乘以值的各行。"
        "某一块带来更大的分数时，m 随之上升，之前记下的 ℓ 和累加器都乘以 r = exp(旧 m − 新 m)，"
        "于是每一项都像是一开始就知道最终的最大值一样。最后一块读完后，输出 = 累加器 / ℓ。这里用的是第 {h} 个头的数。"
    ),
    "lab_online_tile": "每块的键数 B",
    "lab_online_tile_kept": "这里只有 {n} 个词元，装不满 B = {asked} 个键的一块，所以页面用 B = {n}：一块就装下全部。",
    "lab_online_rules": "一块键 j 对第 i 行做的事，其中 $s_{{ij}} = q_i \\cdot k_j / \\sqrt{{d_k}}$"
                        "（被遮住的键，$j > i$，什么也不加）：",
    "lab_online_play_hint": "点播放，或拖动滑块：每块一帧（B = {b} 时共 {tiles} 块），最后一帧做除法。"
                            "图停在最后一帧。",
    "lab_online_click_hint": "点击输出的某一格，看看它是怎么来的：累加器除以 ℓ，以及这一行一块一块的经过。",
    "lab_online_rows_drawn": "图里画出前 {rows} 个词元和键，以及累加器和输出的前 {cols} 列；验证覆盖全部。",
    "lab_online_memory": "读一块时：这一块的分数 $n B$ = {tile}，m 和 ℓ 共 $2n$ = {two}，"
                         "累加器 $n\\,d_v$ = {acc}：共 {held} 个数。单是分数矩阵 S 就要 n² = {s} 个。"
                         "分块随 $n B$ 增长，累加器随 $n\\,d_v$ 增长，而 S 随 n² 增长：n = {big}、B 不变时，"
                         "是 {big_held} 对 {big_s}。",
    "lab_online_check_title": "现场计算：对每种块大小，把输出与这一步之前算出的第 {h} 个头的 "
                              "H = S·V 比较。",
    "lab_online_check_b": "每块的键数 B",
    "lab_online_check_tiles": "块数",
    "lab_online_check_delta": "最大的 |输出 − H|",
    "lab_online_check_frames": "每一帧的 m 和 ℓ 与逐个键的普通循环相比：最大差 {frames}。动画的最后一帧与 H 相比：{last}。",
    "lab_online_cell": "输出[{i}, {j}]，即最后一帧所示：第 {i} 行的累加器除以它的和。",
    "lab_online_cell_frame": "你点击时在第 {k} 帧（共 {count} 帧）。",
    "lab_online_cell_h": "之前算出的 H[{i}, {j}] = {h}：相差 {delta}。",
    "lab_online_history": "第 {i} 行是一块一块怎么走到这里的（r 缩放之前记下的值；这一行只看得见键 1 到 {i}）：",
    "lab_online_hist_tile": "块",
    "lab_online_hist_keys": "键",
    "lab_online_hist_nothing": "还没有看得见的键",
    "lab_online_out_name": "输出 = 累加器 / ℓ",
    "lab_online_product_name": "累加器 = P·V",
    "lab_online_product": "各块加起来是什么：累加器 = P·V，P 里是 exp(s − m)，m 取每行最终的值（被遮住处为 0）。"
                          "FlashAttention 从不构造 P；这里放出来只为核对累加器，也可以点击。",
    "lab_online_fig_key": "键 {a}",
    "lab_online_fig_keys": "键 {a} 到 {b}",
    "lab_online_fig_s": "这一块的分数 · {keys}",
    "lab_online_fig_s_none": "没有在读的块",
    "lab_online_fig_scores": "分数",
    "lab_online_fig_acc": "累加器",
    "lab_online_fig_out": "输出 = 累加器 / ℓ",
    "lab_online_fig_out_name": "输出",
    "lab_online_fig_first": "第 1 块（共 {count} 块）：{keys}。每行的 m 是它看得见的最大分数，ℓ 是 exp(分数 − m) 之和，"
                            "累加器是这些权重乘以值的各行。还没有看得见的键的行留空。",
    "lab_online_fig_tile": "第 {k} 块（共 {count} 块）：{keys}。某个分数超过 m 时，m 上升，r = exp(旧 m − 新 m) "
                           "缩小之前记下的 ℓ 和累加器；m 不变处 r = 1。然后加上这一块的各项。",
    "lab_online_fig_done": "最后一块之后：输出 = 累加器 / ℓ，一行一行地算。它等于第 {h} 个头的 H = S·V，而 S 从未被存下。",
    "lab_online_fig_step_out": "输出",
    "lab_online_fig_held": "此刻存着：{tile} 个分数，m 和 ℓ 共 {two} 个，累加器 {acc} 个：共 {held} 个数；S 要 {s} 个。",
    # lab: what each caches
    "lab_costs_model_sinks": "StreamingLLM（基于 Llama-2-7B）",
    "lab_costs_title": "缓存多少（每个词元、每一层）：{variant}",
    "lab_costs_here": "这里（{sizes}）：${formula}$ 个浮点数。页面自己的 KV 缓存依次读入 X 的 {n} 个词元后，"
                      "存着其中 {held} 个，共 {nbytes} 字节：{held} × {floats} 个浮点数 × 8 字节（float64）。",
    "lab_costs_here_mla": "这里（{sizes}）：${formula}$ 个浮点数。页面自己的隐向量缓存依次读入 X 的 {n} 个词元后，"
                          "存着 {held} 行，共 {nbytes} 字节：{held} × {floats} 个浮点数 × 8 字节（float64）。",
    "lab_costs_real": "按 {model} 的维度（${config}$）：${formula}$ 个浮点数；它有 {layers} 层，每个浮点数 2 字节，"
                      "每个词元共 {per_token} 字节。",
    "lab_costs_why_gqa": "同一组的查询头共用一份 K 和 V，所以缓存里只有 $n_{{kv}}$ 个头的，而不是 $h$ 个。",
    "lab_costs_why_mqa": "所有查询头读同一份 K 和 V，所以只缓存一个头的量。",
    "lab_costs_why_window": "每个词元的花费和不加窗口时一样；但词元一旦滑出窗口，就再没有查询会读它，缓存便把它丢掉："
                            "缓存里最多只有 $W$ 个词元。",
    "lab_costs_why_sinks": "每个词元的花费和不加窗口时一样，但缓存只存 $s$ 个汇聚词元和最近的 $W$ 个：最多 $s + W$ 个。",
    "lab_costs_why_alibi": "ALiBi 在算分数时才加上偏置，偏置本身不进缓存，所以每个词元的花费和 MHA 一样。",
    "lab_costs_why_rope": "RoPE 在键进入缓存之前先把它旋转，旋转后的键长度不变，所以每个词元的花费和 MHA 一样。",
    "lab_costs_why_mla": "每个词元只缓存一行隐向量 c，所有头共用；每个头再从它重建自己的 K 和 V。",
    "lab_costs_why_online": "在线 softmax 改变的是 S 怎么算，而不是缓存什么：每个词元的花费和 MHA 一样。",
    "lab_costs_cap": "缓存最多存 {cap} 个词元，所有层合计 {cap_bytes}，文本再长也不变。",
    "lab_costs_naive": "若按每个头各存自己的 K 和 V，需要 ${naive}$ 个浮点数，是它的 {times} 倍。DeepSeek 还为 RoPE "
                       "缓存一个所有头共用的短键；页面上的 MLA 省去了它。",
    "lab_costs_saved": "它省下的是 S：每个头的 $n × n$ 分数从不存下来，这里每层 $h\\,n^2 = {saved}$ 个浮点数。",
    "lab_costs_saved_real": "在它 {context} 个词元的上下文里，每层有 ${saved}$ 个浮点数从不存下来，按每个浮点数 2 字节"
                            "算是 {saved_bytes}。",
    "lab_costs_compare": "所有变体并排比较：每个词元每层缓存的浮点数",
    "lab_costs_col_variant": "变体",
    "lab_costs_col_here": "这里",
    "lab_costs_col_real": "真实模型",
    "lab_costs_col_fit": "{gb} $\\mathrm{{GB}}$ 能存的词元数",
    "lab_costs_capped": "{floats}，最多 {cap} 个词元",
    "lab_costs_any": "任意长度（最多占 {size}）",
    "lab_memory_gb": "给 KV 缓存的内存（$\\mathrm{{GB}}$）",
    "lab_costs_assume": "能存的词元数 = 内存 ÷（每词元每层的浮点数 × 模型层数 × 2 字节，即半精度），按一条序列算，"
                        "$1\\,\\mathrm{{GB}} = 10^9$ 字节，不计权重。有窗口或汇聚词元时缓存不再增长，"
                        "所以只要装得下满的缓存，多长的文本都行。页面自己的缓存用 8 字节浮点数（float64）。"
                        "每个模型的维度都取自它公开的配置，出处见项目的说明文件。",
}

TABLES = {"en": EN, "zh": ZH}


# Every ASCII punctuation mark but &, < and >, which md_escape writes as HTML entities instead.
MARKDOWN_PUNCTUATION = re.compile(r"([!-%'-/:;=?@\[-`{-~])")


# Where GFM would find an address in plain text (www.…, …://…, …@…), whatever the escapes: it looks for them in
# the text once the escapes are read. A word joiner (invisible, and no place to break a line) splits each.
ADDRESS_START = re.compile(r"(?i)(?<=www)(?=\.)|(?<=:)(?=//)|(?<=@)")
WORD_JOINER = "\u2060"


def md_escape(text: str) -> str:
    """A value from outside (a link, a typed cell, a text), written so that Streamlit's Markdown shows it as it is.

    CommonMark reads a backslash before any ASCII punctuation mark as that mark, literally: so no link, image,
    emphasis, math, emoji shortcode or :colour[] directive can start inside the value. &, < and > go as entities,
    so no tag or entity survives either, even as text. An address GFM would link is split by a word joiner."""
    text = ADDRESS_START.sub(WORD_JOINER, text)
    return html.escape(MARKDOWN_PUNCTUATION.sub(r"\\\1", text), quote=False)


class Text:
    """t("key", field=value) in one language; t.rows(1, 3) says a range of rows the way the language does
    ("row 1", "rows 1–3", "第 1 行", "第 1–3 行").

    t.md(key, **fields) is the one way a value from outside reaches the page's Markdown: its text fields are
    escaped (md_escape); t.notice(n) says a settings.Notice so."""

    def __init__(self, lang: str):
        self.lang = lang if lang in TABLES else "en"
        self.table = TABLES[self.lang]

    def __call__(self, key: str, /, **fields) -> str:
        return self.table[key].format(**fields)

    def md(self, key: str, /, **fields) -> str:
        """t(key, **fields) for Markdown, each str field shown literally (md_escape); numbers as the template says."""
        return self(key, **{k: md_escape(v) if isinstance(v, str) else v for k, v in fields.items()})

    def notice(self, notice) -> str:
        """A settings.Notice in this language: its fields come from a link or a hand, so they go through md; a field
        `why` is the key of the reason, said in this language."""
        fields = {k: md_escape(v) if isinstance(v, str) else v for k, v in notice.fields.items() if k != "why"}
        if "why" in notice.fields:  # the app's own words, in this language: no value from outside
            fields["why"] = self(notice.fields["why"])
        return self(notice.key, **fields)

    def template(self, key: str) -> str:
        """The value unformatted, for a figure that fills its fields itself (frame by frame)."""
        return self.table[key]

    def ranged(self, key: str) -> str:
        """A template with a {rows} field that a figure fills as .format(a=first, b=last)."""
        return _Ranged(self.template(key), self.rows, "rows")

    def rows(self, first: int, last: int) -> str:
        """Rows first..last, 1-based; one row is said as one."""
        if last < first:
            raise ValueError(f"an empty range: {first}..{last}")
        if first == last:
            return self("span_row", a=first)
        return self("span_rows", a=first, b=last)


class _Ranged(str):
    """A template whose range field is filled from the first and last index: .format(a=1, b=1, **fields)."""

    def __new__(cls, template: str, say, field: str):
        obj = super().__new__(cls, template)
        obj.say, obj.field = say, field
        return obj

    def format(self, *args, a: int, b: int, **fields) -> str:
        return str.format(self, *args, **{self.field: self.say(a, b)}, **fields)
