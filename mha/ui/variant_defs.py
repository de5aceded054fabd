"""The attention variants of the lab and the KV-cache stage, one declaration each. Pure Python: no Streamlit here.

A variant's declaration holds what the app knows of it outside its page (its module in mha/ui/lab) and its words
(mha/ui/strings/lab_<module>.py): its knobs (each a session key and a link parameter, with its range and default),
how it changes the walk's AttentionConfig, the core's functions its code view shows, and the published model whose
cache the lab's cost table sizes. settings, the lab, the KV-cache stage, the code view and the cost table read these
declarations. Adding a variant: an entry in VARIANT_LIST, its lab module, its words.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import mha
from mha import attention, mla, online
from mha import variants as core

NUMBER, DIVISORS, EVEN = "number", "divisors", "even"  # how a knob is picked: see Knob.kind


@dataclass(frozen=True)
class Knob:
    """A whole number a variant reads from the session (and a link, under the same name), picked with one widget in
    the lab and on the KV-cache stage (mha/ui/knobs.py)."""

    key: str  # its session key and link parameter
    low: int
    up_to: str  # the size whose hosted-demo limit (settings.LIMITS) is its highest value
    default: int
    field: str = ""  # the AttentionConfig field it sets, where it sets one
    kv_label: str = ""  # the strings key of its label beside the KV-cache stage's picker, where that stage shows it
    label: str = ""  # the strings key of its label in the lab
    # NUMBER: a box from `low` to `most`; DIVISORS: one of the divisors of h (kv heads); EVEN: an even number up to
    # d_k's largest (dims that turn in pairs)
    kind: str = NUMBER
    most: Callable[[mha.AttentionConfig], int] | None = None  # NUMBER: the highest these sizes take (else the limit)
    kept: str = ""  # the strings key that says a value these sizes cannot take was changed (EVEN: + _odd or _over)
    help: str = ""  # the strings key of its help, with the sizes as fields

    def fit(self, cfg: mha.AttentionConfig, asked: int, limit: int) -> int:
        """The value these sizes take for `asked` (`limit`: the highest a NUMBER knob takes at any sizes)."""
        if self.kind == DIVISORS:
            return kv_heads(cfg.n_heads, asked)
        if self.kind == EVEN:
            return rotary_dims(cfg.d_k, asked)
        return min(max(asked, self.low), self.highest(cfg, limit))

    @property
    def sized(self) -> bool:
        """Its highest value is set by the sizes (kv heads by h, rotary dims by d_k, a tile by n, a latent by d)."""
        return self.kind != NUMBER or self.most is not None

    def highest(self, cfg: mha.AttentionConfig, limit: int) -> int:
        return min(self.most(cfg), limit) if self.most else limit


@dataclass(frozen=True)
class Real:
    """A published model whose attention is the variant's, in this core's terms."""

    model: str  # as the README (and the English page) names it
    cite: tuple[str, ...]  # its sources' keys in the README's "Sources of the real models' sizes"
    layers: int
    cfg: mha.AttentionConfig  # heads, kv heads, d_k, d_v, window, sinks as the model's config gives them
    latent: int = 0  # MLA: the cached latent's width (DeepSeek's kv_lora_rank)
    rope_key: int = 0  # MLA: DeepSeek's one RoPE key shared by all heads (qk_rope_head_dim), cached beside the latent
    context: int = 0  # the context length its config gives (where the page uses it)
    words: str = ""  # the strings key that says `model` on the page, when the name holds words to translate

    def said(self, t) -> str:
        """The model's name as the page says it (t: a strings.Text): `model`, or its words in the page's language."""
        return t(self.words) if self.words else self.model


@dataclass(frozen=True)
class Variant:
    id: str  # its value of `variant` (the lab) and `kv_variant` (the KV-cache stage) in a link
    module: str  # its module in mha/ui/lab; "" for the post's own attention, which the lab compares but does not show
    change: Callable[[mha.AttentionConfig, Mapping[str, int]], dict]  # the config fields it sets, from its knobs
    real: Real
    knobs: tuple[Knob, ...] = ()
    code: tuple[Callable, ...] = ()  # the core's functions its code view shows
    kv: bool = True  # the KV-cache stage decodes through it (the online softmax is a way to compute, not to cache)
    groups: bool = False  # shows heads in groups: a composite h, so its sizes cannot all be primes (GQA)
    kv_name: str = ""  # the strings key of its shorter name on the KV-cache stage's picker (else variant_<id>)
    # the strings keys of the cost part's sentences on its cache at the page's sizes and at its real model's
    cost_here: str = "lab_costs_here"
    cost_real: str = "lab_costs_real"


def kv_heads(h: int, wanted: int) -> int:
    """The kv heads a page can use with h query heads: `wanted` if it divides h, else the largest divisor below it."""
    return max(d for d in range(1, min(wanted, h) + 1) if h % d == 0)


def rotary_dims(d_k: int, wanted: int) -> int:
    """An even number of dims ≤ d_k that rotate: `wanted`, rounded down to even and to d_k's largest even number."""
    return min(wanted - wanted % 2, d_k - d_k % 2)


def _sizes(d_model: int, h: int, head: int, **variant) -> mha.AttentionConfig:
    return mha.AttentionConfig(n_tokens=1, d_model=d_model, n_heads=h, d_k=head, d_v=head, **variant)


def _same(cfg: mha.AttentionConfig, knobs: Mapping[str, int]) -> dict:
    return {}  # MLA and the online softmax change how attention is computed or cached, not its config


KV_HEADS = Knob("kv_heads", 1, "n_heads", 2, "n_kv_heads", "kv_knob_kv_heads", "lab_groups_kv_heads", DIVISORS,
                kept="lab_groups_kept")
WINDOW = Knob("window", 1, "n_tokens", 2, "window", "kv_knob_window", "lab_window_w")
SINKS = Knob("sinks", 0, "n_tokens", 1, "sinks", "kv_knob_sinks", "lab_window_s")
ROTARY_DIMS = Knob("rotary_dims", 0, "d_k", 6, "rotary_dims", "kv_knob_rotary_dims", "lab_rope_dims", EVEN,
                   kept="lab_rope_kept", help="lab_rope_dims_help")
# MLA's latent: wider than d_model only adds columns of zeros, and a few of those are enough to see it
D_LATENT = Knob("d_latent", 1, "d_model", 4, kv_label="kv_knob_d_latent", label="lab_mla_d_latent",
                most=lambda cfg: cfg.d_model + 3, kept="lab_mla_clamped")
# keys a tile of the online softmax: at most n, one tile holding them all
TILE = Knob("tile", 1, "n_tokens", 2, label="lab_online_tile", most=lambda cfg: cfg.n_tokens,
            kept="lab_online_tile_kept")

GROUPS_CODE = (attention.variant_walk, core.groups, attention.share_kv)
WINDOW_CODE = (attention.variant_walk, core.visible, core.bias)
LLAMA3 = _sizes(4096, 32, 128, n_kv_heads=8, rope_base=500000.0)

# The post's attention first, then the lab's variants in the order its picker shows them. Each real model is cited
# by its key in the README.
VARIANT_LIST = (
    Variant("mha", "", _same, Real("GPT-2 small", ("gpt2",), 12, _sizes(768, 12, 64)), kv_name="kv_short_mha"),
    Variant("gqa", "groups", lambda cfg, k: dict(n_kv_heads=kv_heads(cfg.n_heads, k["kv_heads"])),
            Real("Llama-3-8B", ("llama3",), 32, LLAMA3), knobs=(KV_HEADS,), code=GROUPS_CODE, groups=True),
    Variant("mqa", "groups", lambda cfg, k: dict(n_kv_heads=1),
            Real("Falcon-7B", ("falcon",), 32, _sizes(4544, 71, 64, n_kv_heads=1)), code=GROUPS_CODE),
    Variant("window", "window", lambda cfg, k: dict(window=k["window"]),
            Real("Mistral-7B-v0.1", ("mistral",), 32, _sizes(4096, 32, 128, n_kv_heads=8, window=4096)),
            knobs=(WINDOW,), code=WINDOW_CODE, kv_name="kv_short_window"),
    Variant("sinks", "window", lambda cfg, k: dict(window=k["window"], sinks=k["sinks"]),
            Real("StreamingLLM on Llama-2-7B", ("streamingllm", "llama2"), 32,
                 _sizes(4096, 32, 128, window=2000, sinks=4), words="lab_costs_model_sinks"),
            knobs=(WINDOW, SINKS), code=WINDOW_CODE, kv_name="kv_short_sinks"),
    Variant("alibi", "alibi", lambda cfg, k: dict(alibi=True),
            Real("BLOOM (176B)", ("bloom",), 70, _sizes(14336, 112, 128, alibi=True), words="lab_costs_model_bloom"),
            code=(attention.variant_walk, core.alibi_slopes, core.bias)),
    Variant("rope", "rope", lambda cfg, k: dict(rotary_dims=rotary_dims(cfg.d_k, k["rotary_dims"])),
            Real("GPT-NeoX-20B", ("neox",), 44, _sizes(6144, 64, 96, rotary_dims=24)),
            knobs=(ROTARY_DIMS,), code=(attention.variant_walk, core.angles, core.rope)),
    Variant("mla", "mla", _same,
            Real("DeepSeek-V2", ("deepseek",), 60,
                 mha.AttentionConfig(n_tokens=1, d_model=5120, n_heads=128, d_k=128 + 64, d_v=128), latent=512,
                 rope_key=64),
            knobs=(D_LATENT,), code=(mla.mla_from, mla.mla_forward), cost_here="lab_costs_here_mla"),
    Variant("int8", "int8", lambda cfg, k: dict(kv_bits=8),
            Real("Llama-3-8B", ("llama3",), 32, replace(LLAMA3, kv_bits=8), words="lab_costs_model_int8"),
            code=(attention.variant_walk, core.quantize), kv_name="kv_short_int8", cost_here="lab_costs_here_int8",
            cost_real="lab_costs_real_int8"),
    Variant("online", "online", _same, Real("Llama-3-8B", ("llama3", "flash"), 32, LLAMA3, context=8192),
            knobs=(TILE,), code=(online.online_attention,), kv=False),
)
VARIANTS = {v.id: v for v in VARIANT_LIST}


def config(cfg: mha.AttentionConfig, variant: str, knobs: Mapping[str, int]) -> mha.AttentionConfig:
    """cfg with `variant`'s change, its knobs at these values (a variant reads only its own)."""
    return replace(cfg, **VARIANTS[variant].change(cfg, knobs))


def knobs_of(cfg: mha.AttentionConfig, variant: str) -> dict[str, int]:
    """The values of `variant`'s knobs that set cfg's fields as cfg has them: the same change at other sizes."""
    return {k.key: getattr(cfg, k.field) for k in VARIANTS[variant].knobs if k.field}
