"""What each head writes: the logits split into the parts that add up to them, and a head's OV and QK circuits.

The residual stream of a pre-LN model (GPT-2's order, the trained model's) is a sum: x_L = E[ids] + P + Σ_l (every
head's H_i·W_O rows of layer l + FFN_l). The final layer norm is linear in x_L once its scale is fixed: with μ and σ
the mean and deviation of the whole x_L row, LN_f(x_L) = Σ_parts γ_f ⊙ (part − mean(part)) / σ + β_f. So each part's
direct contribution to the logits is γ_f ⊙ (part − mean(part)) / σ · Eᵀ, σ taken from the full residual at that row,
and the contributions add up to the logits exactly. "Direct": a head's effect through later layers (a previous-token
head feeding an induction head's keys) is not in its part but in theirs.
"""

from dataclasses import dataclass

import numpy as np

from .analysis import head_roles
from .block import EPS, layer_norm
from .errors import ConfigError
from .model import ModelTrace, ModelWeights, check_knocked, model_forward, resume
from .variants import groups


def part_names(layers: int, heads: int) -> list[str]:
    """The parts' names in logit_parts' order; heads and FFNs counted from 1, as in `knock=` links."""
    return ["embedding", "positions", *(f"head {la + 1}.{h + 1}" for la in range(layers) for h in range(heads)),
            *(f"ffn {la + 1}" for la in range(layers)), "biases"]


def _residual_parts(trace: ModelTrace, mw: ModelWeights) -> dict[str, np.ndarray]:
    """What x_L is the sum of, each (n, d_model): E[ids], P, each head's H_i·W_O^i, each FFN without its bias, and
    the biases together (the FFNs', and b_O where the attention has one)."""
    if any(layer.ln != "pre" for layer in trace.layers):
        raise ConfigError("The logits split into parts only where the residual stream is a sum: pre-LN blocks "
                          "(GPT-2's order). A post-LN block normalises the stream after each sum.")
    parts = {"embedding": trace.e, "positions": trace.p}
    ffns, biases = {}, np.zeros_like(trace.e)
    for la, (layer, bw) in enumerate(zip(trace.layers, mw.blocks)):
        d_v = bw.attn.d_v
        for h, out in enumerate(layer.attn.heads):
            parts[f"head {la + 1}.{h + 1}"] = out @ bw.attn.w_o[h * d_v:(h + 1) * d_v]  # (n, d_v) @ (d_v, d_model)
        ffns[f"ffn {la + 1}"] = layer.act @ bw.w_proj  # the FFN's output without b_proj
        biases = biases + bw.b_proj + (0.0 if bw.attn.b_o is None else bw.attn.b_o)  # a GPT-2's b_O as well
    return parts | ffns | {"biases": biases}


def logit_parts(trace: ModelTrace, mw: ModelWeights) -> dict[str, np.ndarray]:
    """{name: (n, vocab)} in part_names' order: each part's direct contribution to trace.logits, through the final
    layer norm with its scale σ from the full residual at each row; "biases" holds the FFNs' biases and β_f·Eᵀ. The
    parts add up to trace.logits (to rounding). ConfigError for post-LN blocks, whose stream is not a sum."""
    parts = _residual_parts(trace, mw)
    x_last = trace.layers[-1].y
    sigma = np.sqrt(np.var(x_last, axis=-1, keepdims=True) + EPS)  # (n, 1): the final LN's scale at each row
    out = {}
    for name, part in parts.items():
        centred = (part - part.mean(axis=-1, keepdims=True)) / sigma * mw.lnf_g  # (n, d_model)
        out[name] = centred @ mw.wte.T  # (n, vocab)
    out["biases"] = out["biases"] + mw.lnf_b @ mw.wte.T
    return out


def head_logits(trace: ModelTrace, mw: ModelWeights) -> np.ndarray:
    """(layers, heads, n, vocab): each head's direct contribution to the logits (its part of logit_parts)."""
    parts = logit_parts(trace, mw)
    heads = mw.blocks[0].attn.n_heads
    return np.stack([np.stack([parts[f"head {la + 1}.{h + 1}"] for h in range(heads)]) for la in range(mw.n_layers)])


def _head(mw: ModelWeights, layer: int, head: int):
    check_knocked([(layer, head)], mw)
    return mw.blocks[layer]


def _read(mw: ModelWeights, layer: int) -> np.ndarray:
    """(vocab, d_model): each token's row of E as head `layer`'s LN₁ hands it on, β left out (it is the same for
    every token)."""
    bw = mw.blocks[layer]
    return layer_norm(mw.wte, bw.ln1_g, np.zeros_like(bw.ln1_b))


def _written(mw: ModelWeights, layer: int, head: int) -> np.ndarray:
    """(vocab, d_model): what the head writes into the residual stream when it attends wholly to each token."""
    bw = _head(mw, layer, head)
    d_v = bw.attn.d_v
    return _read(mw, layer) @ bw.attn.w_v[head] @ bw.attn.w_o[head * d_v:(head + 1) * d_v]


def ov_factors(mw: ModelWeights, layer: int, head: int) -> tuple[np.ndarray, np.ndarray]:
    """(A, B) with ov_circuit = A·B: A (vocab, d_model) = Ê·W_V·W_O, what the head writes for each token it reads
    (Ê: E as LN₁ hands it on, its γ without β); B (d_model, vocab) = Γ_f·Eᵀ, the read-out through the final LN's
    centring and γ_f (Γ_f = diag(γ_f)·(I − 11ᵀ/d), a linear map)."""
    d = mw.d_model
    centring = np.eye(d) - np.full((d, d), 1 / d)  # x·centring = x − mean(x)
    return _written(mw, layer, head), (centring * mw.lnf_g) @ mw.wte.T


def ov_circuit(mw: ModelWeights, layer: int, head: int) -> np.ndarray:
    """(vocab, vocab): row a, column b = how much the head, attending wholly to token a, raises the logit of token b.

    The path E → LN₁ (γ, without β) → W_V → W_O → the final LN's centring and γ_f → Eᵀ. The final LN's σ, a positive
    number per row, is left out: it scales a row and leaves its order. A copying head's diagonal is each row's
    largest: it raises the token it reads."""
    a, b = ov_factors(mw, layer, head)
    return a @ b


def qk_factors(mw: ModelWeights, layer: int, head: int,
               through: tuple[int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(A, B) with qk_circuit = A·B: A (vocab, d_k) each token's query over √d_k, B (d_k, vocab) the keys' Kᵀ."""
    bw = _head(mw, layer, head)
    if through is None:
        keys = _read(mw, layer)
    else:
        if through[0] >= layer:
            raise ConfigError(f"through={through!r}: the head composed in must sit in an earlier layer than {layer}.")
        written = _written(mw, *through)
        keys = (written - written.mean(axis=-1, keepdims=True)) * bw.ln1_g
    q = _read(mw, layer) @ bw.attn.w_q[head]  # (vocab, d_k)
    k = keys @ bw.attn.w_k[groups(bw.attn.n_heads, bw.attn.n_kv_heads)[head]]  # (vocab, d_k): the head's kv head
    return q / np.sqrt(bw.attn.d_k), k.T


def qk_circuit(mw: ModelWeights, layer: int, head: int, through: tuple[int, int] | None = None) -> np.ndarray:
    """(vocab, vocab): row a, column b = the head's score q·k/√d_k for a query on token a and a key on token b.

    through=(layer₀, head₀), an earlier head: the key is not token b itself but what that head writes when it
    attends wholly to b. With a previous-token head there, the key at position j carries token j−1, and a large
    diagonal means: a query on token a looks for the position right after an earlier a (K-composition, the
    induction head's mechanism). The keys pass through this layer's LN₁ as its centring and γ (without β)."""
    a, b = qk_factors(mw, layer, head, through)
    return a @ b


@dataclass(frozen=True)
class TaskScore:
    """How well a model copies: greedy accuracy and mean cross-entropy (nats) over the second copy's predictions,
    each token after its first, on a set of task sequences."""

    accuracy: float
    loss: float
    predictions: int


def task_score(mw: ModelWeights, sequences, knocked=(), traces=None) -> TaskScore:
    """The second copy's accuracy and loss on `sequences` (each L symbols, then the same L), heads `knocked`.
    `traces`: the model's runs on the same sequences with every head (model_forward), from which a knocked run
    resumes at its first knocked layer (model.resume) instead of starting again."""
    hits, losses = [], []
    for k, row in enumerate(sequences):
        row = np.asarray(row)
        n, half = len(row), len(row) // 2
        run = resume(traces[k], mw, knocked) if traces is not None else model_forward(row, mw, knocked=knocked)
        logits = run.logits[half:n - 1]  # the predictions of row[half + 1:]
        shifted = logits - logits.max(axis=-1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
        target = row[half + 1:]
        hits.append(np.argmax(logits, -1) == target)
        losses.append(-log_p[np.arange(len(target)), target])
    hits, losses = np.concatenate(hits), np.concatenate(losses)
    return TaskScore(float(hits.mean()), float(losses.mean()), len(hits))


def knockout_table(mw: ModelWeights, sequences, sets) -> list[tuple[tuple, TaskScore]]:
    """[(knocked, task_score)] for each knock-out set in `sets`."""
    return [(tuple(k), task_score(mw, sequences, k)) for k in sets]


def copies(ov: np.ndarray) -> int:
    """The rows of an OV circuit whose diagonal cell is the row's largest: the tokens the head copies."""
    return int((ov.argmax(axis=1) == np.arange(len(ov))).sum())


def repeated_tokens(vocab_size: int, half: int, count: int, seed: int = 0) -> np.ndarray:
    """(count, 2·half) token ids: `half` ids drawn at random from the whole vocabulary (none twice in a copy), then
    the same `half` again. Only a head that reads the context can predict the second copy, and random ids make it
    the model's own vocabulary, not a text it has seen: Olsson et al. (2022)'s probe for induction heads."""
    if not 1 <= half <= vocab_size:
        raise ConfigError(f"half must be 1..{vocab_size} (the vocabulary); got {half}.")
    rng = np.random.default_rng([seed, 2022])
    first = np.array([rng.choice(vocab_size, size=half, replace=False) for _ in range(count)]).reshape(count, half)
    return np.concatenate([first, first], axis=1)


def head_scores(traces) -> tuple[np.ndarray, np.ndarray]:
    """Each head's previous-token and induction score (analysis.head_roles), averaged over the runs `traces` of a
    model: two (layers, heads) arrays."""
    per = [[head_roles(layer.attn.probs, tr.ids) for layer in tr.layers] for tr in traces]
    scores = np.array(per)  # (runs, layers, 2, heads)
    return scores[:, :, 0].mean(0), scores[:, :, 1].mean(0)
