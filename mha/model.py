"""The post's coda: text -> tokens -> X = E[ids] + P, a stack of GPT blocks, and the next token.

    ids (n,) -> E[ids] (n, d_model) + P[:n] (n, d_model) = X -> block 1 .. block L -> LN_f
             -> logits = LN_f(x_L)·Eᵀ (n, vocab)  (tied embedding, GPT-2's choice) -> softmax(logits / T)
Generation feeds one token at a time through a KV cache per layer; it equals a full recompute.
"""

import zlib
from dataclasses import dataclass

import numpy as np
import regex

from .attention import STREAM_TOKENS, check_input, softmax
from .block import BlockTrace, BlockWeights, block, block_row, init_block, layer_norm
from .cache import KVCache
from .config import AttentionConfig
from .errors import ConfigError, InputError

POSITIONS = ("sinusoidal", "learned")

# One token per CJK character (Chinese has no spaces between words), one per run of other letters or
# digits, one per punctuation mark or symbol; an emoji with its modifiers and zero-width joins is one.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f"
# What an emoji draws with the character before it: a variation selector (U+FE0E text, U+FE0F emoji style), the
# keycap U+20E3, a skin tone, or a run of tags ended by U+E007F (a subdivision flag: 🏴 and "gbsct" in tags).
_EMOJI_TAIL = r"(?:[\ufe0e\ufe0f\u20e3\U0001f3fb-\U0001f3ff]|[\U000e0020-\U000e007e]+\U000e007f)*"
# Characters nobody sees: controls, Unicode's format characters (category Cf: soft hyphen, zero-width space and
# joiners, bidi marks, tags, ...) and variation selectors. No token starts with one, so alone they make no token
# and, between two words, part them as a space would; inside an emoji they belong to it (_EMOJI_TAIL, U+200D).
_INVISIBLE = ("\x00-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
             "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufe00-\ufe0f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
             "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
             "\U000e0100-\U000e01ef")
_KEYCAP = "[0-9#*]\ufe0f?\u20e3"  # 1️⃣: a digit (a letter to \w) with the keycap
_FLAG = "[\U0001f1e6-\U0001f1ff]{2}"  # 🇫🇷: two regional indicators
_EMOJI_PART = rf"(?:{_KEYCAP}|{_FLAG}|[^\w\s{_INVISIBLE}]){_EMOJI_TAIL}"
# A word: letters and digits with the marks they carry. regex's \w is Unicode's (TR 18): it holds the combining
# marks (\p{M}: Hindi's vowel signs, Arabic's harakat), which Python's re leaves out, splitting नमस्ते into five; and
# the zero-width joiners, which are left out here as the invisible characters they are. A word starts on a letter or
# digit; marks
# with no letter before them (after a CJK character, or at the start) are a token of their own, as Unicode's grapheme
# rules make them a cluster of their own.
_WORD = rf"(?!{_KEYCAP})[^\W\p{{M}}{_CJK}{_INVISIBLE}](?:(?!{_KEYCAP})[^\W{_CJK}{_INVISIBLE}])*"
_MARKS = rf"(?:(?![{_INVISIBLE}])\p{{M}})+"  # marks with no letter to carry them (variation selectors are invisible)
TOKEN = regex.compile(rf"[{_CJK}]|{_WORD}|{_EMOJI_PART}(?:\u200d{_EMOJI_PART})*|{_MARKS}")


def tokenize(text: str) -> list[str]:
    """Whitespace-separated words; CJK characters one by one; punctuation and each emoji on their own.

    "the cat sat." -> ["the", "cat", "sat", "."];  "我爱注意力" -> ["我", "爱", "注", "意", "力"].
    An emoji is whole with what is drawn as one picture with it: 👍🏽, 1️⃣, 🇫🇷, Scotland's flag (🏴 and tags) and
    👨‍👩‍👧 (joined by zero-width joiners) are one token each. An invisible character (a control or format character)
    is no token: "a", a zero-width joiner, "b" -> ["a", "b"].
    """
    return TOKEN.findall(text)


def vocabulary(tokens: list[str]) -> list[str]:
    """The distinct tokens in order of first appearance: token id i is vocab[i]."""
    return list(dict.fromkeys(tokens))


def sinusoidal_positions(n: int, d_model: int) -> np.ndarray:
    """(n, d_model): P[t, 2i] = sin(t·ω_i), P[t, 2i+1] = cos(t·ω_i), ω_i = 10000^(−2i/d_model).

    Column j uses frequency index i = j // 2, so an odd d_model ends on a sin column and needs
    ⌈d_model/2⌉ sin frequencies but only ⌊d_model/2⌋ cos ones (taking d_model/2 of each breaks there).
    """
    t = np.arange(n)[:, None]  # (n, 1)
    i = np.arange(d_model) // 2  # (d_model,) frequency index of each column
    angle = t * 10000.0 ** (-2 * i / d_model)  # (n, d_model)
    return np.where(np.arange(d_model) % 2 == 0, np.sin(angle), np.cos(angle))


def token_embedding(token: str, cfg: AttentionConfig) -> np.ndarray:
    """Row of E for `token` (d_model,), fixed by the seed and the token's text, not by its id or the text
    around it: a word keeps its vector whatever sentence it is in. N(0, 1) rounded to 2 decimals (integers:
    −2..2), like a seeded row of X."""
    rng = np.random.default_rng([cfg.seed, STREAM_TOKENS, zlib.crc32(token.encode("utf-8"))])
    if cfg.init == "integers":
        return rng.integers(-2, 3, size=cfg.d_model).astype(np.float64)
    return np.round(rng.standard_normal(cfg.d_model), 2)


@dataclass(frozen=True, eq=False)
class ModelWeights:
    wte: np.ndarray  # (vocab, d_model)   E: one row per token id; also the unembedding (tied)
    wpe: np.ndarray | None  # (n_ctx, d_model)  learned positions P, or None for sinusoidal ones
    blocks: tuple[BlockWeights, ...]  # L blocks
    lnf_g: np.ndarray  # (d_model,)  the final layer norm
    lnf_b: np.ndarray  # (d_model,)

    def __post_init__(self):
        for name in ("wte", "wpe", "lnf_g", "lnf_b"):
            a = getattr(self, name)
            if a is not None:
                a = np.array(a, dtype=np.float64)
                if not np.all(np.isfinite(a)):
                    raise InputError(f"{name} holds NaN or infinite values; every weight must be finite.")
                a.flags.writeable = False
                object.__setattr__(self, name, a)
        object.__setattr__(self, "blocks", tuple(self.blocks))
        d = self.wte.shape[1] if self.wte.ndim == 2 else -1
        if not self.blocks or any(b.d_model != d for b in self.blocks):
            raise InputError(f"every block must have d_model = {d}, E's width; there must be at least one block.")
        if self.wpe is not None and (self.wpe.ndim != 2 or self.wpe.shape[1] != d):
            raise InputError(f"wpe must be (n_ctx, {d}); got {self.wpe.shape}.")
        if self.lnf_g.shape != (d,) or self.lnf_b.shape != (d,):
            raise InputError(f"lnf_g and lnf_b must be ({d},); got {self.lnf_g.shape}, {self.lnf_b.shape}.")

    vocab_size = property(lambda self: self.wte.shape[0])
    d_model = property(lambda self: self.wte.shape[1])
    n_layers = property(lambda self: len(self.blocks))
    positions = property(lambda self: "sinusoidal" if self.wpe is None else "learned")
    n_ctx = property(lambda self: None if self.wpe is None else self.wpe.shape[0])


def init_model(cfg: AttentionConfig, vocab: list[str], n_layers: int = 1, positions: str = "sinusoidal",
               n_ctx: int = 64, blocks: tuple[BlockWeights, ...] | None = None) -> ModelWeights:
    """A seeded model over `vocab`: E row by row from token_embedding, blocks from init_block, γ_f = 1, β_f = 0.

    Learned positions (before any training) are N(0, 0.1²) rows rounded to 2 decimals, one per position.
    `blocks`: init_block(cfg, l) for each layer where the caller holds them already, so that the model shares them.
    """
    if positions not in POSITIONS:
        raise ConfigError(f"positions must be one of {', '.join(POSITIONS)}; got {positions!r}.")
    if not vocab:
        raise InputError("The vocabulary is empty: the text needs at least one token.")
    if n_layers < 1 or n_ctx < 1:
        raise ConfigError(f"n_layers and n_ctx must be at least 1; got {n_layers} and {n_ctx}.")
    wte = np.stack([token_embedding(tok, cfg) for tok in vocab])  # (vocab, d_model)
    wpe = None
    if positions == "learned":
        rng = np.random.default_rng([cfg.seed, STREAM_TOKENS, 0])
        wpe = np.round(0.1 * rng.standard_normal((n_ctx, cfg.d_model)), 2)
    blocks = [init_block(cfg, layer) for layer in range(n_layers)] if blocks is None else list(blocks)
    return ModelWeights(wte, wpe, blocks, np.ones(cfg.d_model), np.zeros(cfg.d_model))


@dataclass(frozen=True, eq=False)
class LogitsTrace:
    """X through the model's blocks to the logits."""

    x: np.ndarray  # (n, d_model)  the first block's input
    layers: tuple[BlockTrace, ...]  # one per block; layers[l].y feeds layer l + 1
    final: np.ndarray  # (n, d_model)  LN_f(x_L)
    logits: np.ndarray  # (n, vocab)   final·Eᵀ


@dataclass(frozen=True, eq=False)
class ModelTrace:
    ids: np.ndarray  # (n,) token ids
    e: np.ndarray  # (n, d_model)  E[ids]
    p: np.ndarray  # (n, d_model)  P[:n]
    x: np.ndarray  # (n, d_model)  X = E[ids] + P[:n], the walk's X
    layers: tuple[BlockTrace, ...]  # one per block; layers[l].y feeds layer l + 1
    final: np.ndarray  # (n, d_model)  LN_f(x_L)
    logits: np.ndarray  # (n, vocab)   final·Eᵀ
    probs: np.ndarray  # (n, vocab)    softmax(logits / temperature): row i predicts token i + 1


def positions_for(mw: ModelWeights, start: int, n: int) -> np.ndarray:
    """P rows start..start+n-1 (n, d_model), or InputError past a learned table's n_ctx."""
    if mw.wpe is None:
        return sinusoidal_positions(start + n, mw.d_model)[start:]
    if start + n > mw.n_ctx:
        raise InputError(f"This model has learned positions for {mw.n_ctx} tokens; got {start + n}.")
    return mw.wpe[start:start + n]


def check_ids(ids, vocab_size: int) -> np.ndarray:
    a = np.asarray(ids)
    if a.ndim != 1 or a.size == 0 or not np.issubdtype(a.dtype, np.integer):
        raise InputError(f"ids must be a non-empty list of whole numbers; got {a.dtype} of shape {a.shape}.")
    if a.min() < 0 or a.max() >= vocab_size:
        raise InputError(f"token ids must be in 0..{vocab_size - 1}; got {int(a.min())}..{int(a.max())}.")
    return a


def embed(ids, mw: ModelWeights) -> np.ndarray:
    """ids (n,) -> X = E[ids] + P[:n] (n, d_model): each token's row of E plus its position's row of P."""
    ids = check_ids(ids, mw.vocab_size)
    return check_input(mw.wte[ids] + positions_for(mw, 0, len(ids)), mw.d_model)


def check_knocked(knocked, mw: ModelWeights) -> dict[int, tuple[int, ...]]:
    """`knocked`, (layer, head) pairs counted from 0, as {layer: heads}; ConfigError naming a pair this model lacks."""
    heads = mw.blocks[0].attn.n_heads
    out: dict[int, set[int]] = {}
    for pair in knocked:
        try:
            layer, head = (int(i) for i in pair)
            whole = all(float(i) == int(i) for i in pair)
        except (TypeError, ValueError):
            whole = False
        if not whole or not (0 <= layer < mw.n_layers and 0 <= head < heads):
            raise ConfigError(f"knocked: {pair!r} is not a (layer, head) pair of this model, counted from 0: layers "
                              f"0..{mw.n_layers - 1}, heads 0..{heads - 1}.")
        out.setdefault(layer, set()).add(head)
    return {layer: tuple(sorted(h)) for layer, h in out.items()}


def logits_from(x, mw: ModelWeights, knocked=(), kept: tuple[BlockTrace, ...] = ()) -> LogitsTrace:
    """X (n, d_model) -> LogitsTrace: every block in turn, the final layer norm and logits = LN_f(x_L)·Eᵀ.
    `knocked`: (layer, head) pairs from 0 whose outputs are zeroed before W_O. `kept`: the first blocks' traces
    of an earlier run on the same X, taken as they are (the blocks after them run; see resume)."""
    x = check_input(x, mw.d_model)
    gone = check_knocked(knocked, mw)
    layers = list(kept)
    h = layers[-1].y if layers else x
    for layer, bw in enumerate(mw.blocks[len(kept):], start=len(kept)):
        layers.append(block(h, bw, knocked=gone.get(layer, ())))
        h = layers[-1].y
    final = layer_norm(h, mw.lnf_g, mw.lnf_b)
    logits = final @ mw.wte.T  # (n, d_model) @ (d_model, vocab) -> (n, vocab)
    return LogitsTrace(x, tuple(layers), final, logits)


def model_forward(ids, mw: ModelWeights, temperature: float = 1.0, knocked=()) -> ModelTrace:
    """ids (n,) -> ModelTrace: embeddings, every block's trace, final LN, logits and next-token probabilities.
    `knocked`: (layer, head) pairs counted from 0 whose outputs are zeroed before W_O (their patterns stay in the
    trace; what they write is gone)."""
    ids = check_ids(ids, mw.vocab_size)
    temperature = _temperature(temperature)
    top = logits_from(embed(ids, mw), mw, knocked)
    e, p = mw.wte[ids], positions_for(mw, 0, len(ids))  # (n, d_model) each: what X is the sum of
    return ModelTrace(ids, e, p, top.x, top.layers, top.final, top.logits, softmax(top.logits / temperature))


def resume(trace: ModelTrace, mw: ModelWeights, knocked=(), temperature: float = 1.0) -> ModelTrace:
    """model_forward(trace.ids, mw, knocked=knocked) from `trace`, a run of the same ids with no head knocked out:
    the blocks before the first knocked layer are the same in both, so they are taken from `trace` and only the
    blocks from that layer on run again (on GPT-2 small, knocking out a head of layer 9 runs 3 blocks, not 12)."""
    gone = check_knocked(knocked, mw)
    first = min(gone, default=mw.n_layers)
    top = logits_from(trace.x, mw, knocked, kept=trace.layers[:first])
    temperature = _temperature(temperature)
    return ModelTrace(trace.ids, trace.e, trace.p, trace.x, top.layers, top.final, top.logits,
                      softmax(top.logits / temperature))


def _temperature(t: float) -> float:
    t = float(t)
    if not (np.isfinite(t) and t > 0):
        raise ConfigError(f"temperature must be a finite number above 0; got {t}.")
    return t


class ModelCache:
    """A KV cache per layer: feed one token id, get that position's logits without recomputing the past."""

    def __init__(self, mw: ModelWeights):
        self.mw = mw
        self.layers = [KVCache(b.attn) for b in mw.blocks]

    def __len__(self) -> int:
        return len(self.layers[0])

    def append(self, token_id: int) -> np.ndarray:
        """Logits (vocab,) after token `token_id` at the next position."""
        mw = self.mw
        check_ids([token_id], mw.vocab_size)
        return self.append_x(mw.wte[token_id] + positions_for(mw, len(self), 1)[0])  # E[id] + P[t]: (d_model,)

    def append_x(self, x_row) -> np.ndarray:
        """Logits (vocab,) after the first block reads `x_row` (d_model,) at the next position: a token's
        E[id] + P[t], or a row of X the caller made (an edited one)."""
        mw = self.mw
        h = check_input([x_row], mw.d_model)[0]
        for bw, cache in zip(mw.blocks, self.layers):
            h = block_row(h, bw, lambda row, c=cache: c.append(row).y)
        final = layer_norm(h[None], mw.lnf_g, mw.lnf_b)[0]
        return final @ mw.wte.T  # (d_model,) @ (d_model, vocab) -> (vocab,)


def generate(ids, mw: ModelWeights, steps: int, temperature: float = 1.0, greedy: bool = True,
             seed: int = 0) -> list[int]:
    """`steps` new token ids after `ids`, one at a time through the per-layer KV cache.

    greedy: the most likely token each time; otherwise drawn from softmax(logits / temperature) with a
    generator fixed by `seed`.
    """
    ids = [int(i) for i in check_ids(ids, mw.vocab_size)]
    temperature = _temperature(temperature)
    rng = np.random.default_rng(seed)
    cache = ModelCache(mw)
    for i in ids:
        logits = cache.append(i)
    out = []
    for _ in range(steps):
        probs = softmax(logits / temperature)
        nxt = int(np.argmax(probs)) if greedy else int(rng.choice(len(probs), p=probs))
        out.append(nxt)
        logits = cache.append(nxt)
    return out
