"""What a view is made of, and how it travels in a URL. Pure Python: no Streamlit here.

Every value read from a link is checked here before any widget sees it: a bad one falls back to a
safe value and leaves a Notice (a strings-table key plus its fields) for the page to show.
"""

import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from mha.model import TOKEN

from . import checkpoints
from .variant_defs import VARIANT_LIST
from .walk import BLOCK_ORDERS as BLOCK_ORDERS  # the values of the stages' own link parameters, declared with the walk
from .walk import BLOCK_PARTS as BLOCK_PARTS
from .walk import BLOCK_PARTS_IN as BLOCK_PARTS_IN
from .walk import BY_ID, LAB_VARIANTS, STAGES, WALK, Param
from .walk import HEADS_PARTS as HEADS_PARTS  # the stages' parts, declared with the walk, read as settings'
from .walk import KV_PARTS as KV_PARTS
from .walk import KV_VARIANTS as KV_VARIANTS
from .walk import LAB_PARTS as LAB_PARTS
from .walk import block_order as block_order

SIZES = ("n_tokens", "d_model", "d_k", "d_v", "n_heads")
LANGS = ("en", "zh")
DEFAULTS = dict(n_tokens=3, d_model=5, d_k=7, d_v=11, n_heads=2, seed=0, lang="en", preset="post",
                stage="input", head=1, integers=False, phase="s", example=False,
                text="", positions="sinusoidal", temperature=1.0, choice="greedy", d_ff=13, model="seeded",
                layer=1, block_part="ln1", kv_part="step", block_ln="post", variant="mqa", lab_part="change",
                kv_variant="mha", heads_part="patterns", ckpt_layer="1",
                **{k.key: k.default for v in VARIANT_LIST for k in v.knobs})
# The scores stage: `phase` (PHASES: qkt, scaled, masked, s) is the step it rests on; `example=mask` puts the
# post's own 3×3 matrix in as the scaled scores.
EXAMPLES = ("mask",)
VARIANTS = LAB_VARIANTS  # the lab's variants; the KV-cache stage decodes through KV_VARIANTS
# The knobs each variant reads, by their keys (each also a URL parameter, written while its variant is shown).
KNOBS = {v.id: tuple(k.key for k in v.knobs) for v in VARIANT_LIST}
# Hosted-demo limits (the core has none): enough for GPT-2-small widths, small enough to stay fast.
LIMITS = dict(n_tokens=64, d_model=1024, d_k=128, d_v=128, n_heads=16, seed=2**31 - 1, d_ff=4096)
# The coda: a text makes X (one row per token, at most LIMITS["n_tokens"] of them).
POSITIONS = ("sinusoidal", "learned")
CHOICES = ("greedy", "sample")
# The weights: seeded noise at any sizes (the post), the model trained on repeated sequences (mha.train), whose sizes
# are fixed and whose walk shows one layer's attention (`layer`, 1-based), or a GPT-2 checkpoint (`ckpt`), whose walk
# shows the layer `ckpt_layer` names.
MODELS = ("seeded", "trained", "checkpoint")
TRAINED_LAYERS = 2
RETRAIN_SEEDS = (0, 10**6)  # the seeds *Train it again* takes (the link's `train_seed`)
TRAINED_HEADS = 2  # the trained model's heads per layer (mha.train.SHIPPED), what `knock` may name
KNOCK_NAMES = tuple(f"{layer}.{head}" for layer in range(1, TRAINED_LAYERS + 1)
                    for head in range(1, TRAINED_HEADS + 1))
TEXT_MAX_CHARS = 1000  # characters of text read from a link or the text box
# Characters of a value from outside (a link, the text box, a socket) kept before anything transforms it: NFKC turns
# one character into as many as 18 (U+FDFA), so a value is cut first, with room for NFKC to join up to 3 into one
# (Hangul jamo) and still fill TEXT_MAX_CHARS. The server enforces it (the text box has no max_chars: tokens.py).
RAW_MAX_CHARS = 4 * TEXT_MAX_CHARS
TEMPERATURE = (0.05, 10.0)
PRESETS = {
    "post": dict(n_tokens=3, d_model=5, d_k=7, d_v=11, n_heads=2, integers=False, example=False),
    "mask": dict(n_tokens=3, d_model=5, d_k=7, d_v=11, n_heads=2, integers=False, example=True),
    "tiny": dict(n_tokens=2, d_model=3, d_k=2, d_v=2, n_heads=1, integers=False, example=False),
    "hand": dict(n_tokens=3, d_model=5, d_k=7, d_v=11, n_heads=2, integers=True, example=False),
    "gpt2": dict(n_tokens=8, d_model=768, d_k=64, d_v=64, n_heads=12, integers=False, example=False),
}
# session key: by knob, a link's value above its limit for a knob whose top the sizes set, for the page to name
KNOB_ASKED = "knob_asked"
KNOB_RANGE = {k.key: (k.low, LIMITS[k.up_to]) for v in VARIANT_LIST for k in v.knobs}
X_PARAM_MAX = 4000  # characters of an encoded X in a link
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
NUMBER_MAX_CHARS = 40  # a float's shortest text (repr) takes at most 24
KV_MAX_ADDED = 64  # tokens a session may add on the KV-cache stage (each is kept in its session state)


@dataclass(frozen=True)
class Notice:
    key: str  # strings-table key
    fields: dict


PARTS = {s.id: s.parts for s in WALK if s.parts}  # the stages in parts, as the walk declares them


def first_part(stage: str, values: Mapping) -> str:
    """The part `stage` opens on: as its parts declare it (the block's, the first in the order shown), else the
    default."""
    parts = PARTS[stage]
    return parts.first(values) if parts.first else DEFAULTS[parts.key]


def stage_params(stage: str) -> tuple[Param, ...]:
    """The stages' own link parameters that a link opening `stage` reads: that stage's, then each other stage's read
    elsewhere too, unless the name is taken (`variant` on the KV-cache stage is its own, elsewhere the lab's)."""
    own = BY_ID[stage].params if stage in BY_ID else ()
    return own + tuple(p for s in WALK if s.id != stage for p in s.params
                       if p.elsewhere and p.name not in {q.name for q in own})


def preset_of(values: Mapping) -> str:
    """The preset these sizes match, or "custom" (a setting not given counts as its default)."""
    for name, preset in PRESETS.items():
        if all(values.get(k, DEFAULTS.get(k)) == v for k, v in preset.items()):
            return name
    return "custom"


def whole(raw: str) -> int | None:
    if len(raw) > 4 * NUMBER_MAX_CHARS:  # before NFKC, which can make it 18 times longer
        return None
    text = unicodedata.normalize("NFKC", raw).strip()  # full-width digits become ASCII
    if not re.fullmatch(r"[+-]?\d{1,12}", text):
        return None
    return int(text)


def _first(value) -> str:
    return str(value[-1] if isinstance(value, (list, tuple)) and value else value)[:200]


def parse_params(params: Mapping) -> tuple[dict, list[Notice]]:
    """Query parameters -> settings (only those present and usable) and notices for the rest."""
    out, notices = {}, []
    for key in (*SIZES, "seed", "head", "d_ff", "layer", "train_seed"):
        if key not in params:
            continue
        raw = _first(params[key])
        n = whole(raw)
        low, high = {"seed": (0, LIMITS["seed"]), "train_seed": RETRAIN_SEEDS, "layer": (1, TRAINED_LAYERS)}.get(
            key, (1, LIMITS.get(key, LIMITS["n_heads"])))
        if n is None:
            notices.append(Notice("notice_not_whole", dict(key=key, value=shorten(raw))))
        elif not low <= n <= high:
            out[key] = min(max(n, low), high)
            notices.append(Notice("notice_clamped", dict(key=key, value=shorten(raw), used=out[key])))
        else:
            out[key] = n
    for key, allowed in (("lang", LANGS), ("stage", STAGES), ("preset", (*PRESETS, "custom")),
                         ("positions", POSITIONS), ("choice", CHOICES), ("model", MODELS)):
        if key in params:
            raw = _first(params[key]).strip()
            if raw in allowed:
                out[key] = raw
            else:
                notices.append(Notice("notice_unknown", dict(key=key, value=shorten(raw))))
    if "temperature" in params:
        raw = _first(params["temperature"])
        value = _number(raw)
        if value is None:
            notices.append(Notice("notice_not_number", dict(key="temperature", value=shorten(raw))))
        else:
            out["temperature"] = min(max(value, TEMPERATURE[0]), TEMPERATURE[1])
            if out["temperature"] != value:
                notices.append(Notice("notice_clamped", dict(key="temperature", value=shorten(raw),
                                                             used=out["temperature"])))
    if "text" in params:
        raw = params["text"]
        raw = str(raw[-1] if isinstance(raw, (list, tuple)) and raw else raw)
        out["text"], notice = cap_text(raw)
        if notice:
            notices.append(notice)
    stage = _first(params.get("stage", "")).strip()
    parts = PARTS.get(stage) or next(p for p in PARTS.values() if p.elsewhere)  # the block's, on a stage without
    owned = ((p.name, p.key, p.values) for p in stage_params(stage) if p.values is not None)
    for key, state, allowed in (*owned, ("example", "example", EXAMPLES),
                                ("part", parts.key, parts.values)):  # parameter, session key, values
        if key in params:
            raw = _first(params[key]).strip()
            if raw in allowed:
                out[state] = True if key == "example" else raw
            else:
                notices.append(Notice("notice_unknown", dict(key=key, value=shorten(raw))))
    if "integers" in params:
        out["integers"] = _first(params["integers"]).strip() in ("1", "true")
    notices += _knobs(params, out)
    notices += _checkpoint(params, out)
    if "knock" in params and out.get("model") != "trained":  # only the trained model's heads learned a job
        notices.append(Notice("notice_knock_seeded", dict(key="knock", value=shorten(_first(params["knock"])))))
    elif "knock" in params:
        notices += _knock(_first(params["knock"]), out)
    return out, notices


CKPT_KNOCK_MOST = 32  # heads a link's `ckpt_knock` names, at most
HEAD_NAME = re.compile(r"\d{1,3}\.\d{1,3}")  # layer.head, both from 1


def _checkpoint(params: Mapping, out: dict) -> list[Notice]:
    """A real model's checkpoint (checkpoints.py): `ckpt` one this server offers, and `ckpt_knock` the heads knocked
    out on the heads stage (layer.head, from 1; its `ckpt_layer` is read as the stage's other parameters are). Whether
    a head is the model's is said on the page, which has the model; here each name only has to be of its form."""
    notices = []
    if "ckpt" in params:
        raw = _first(params["ckpt"]).strip()
        offered = checkpoints.offered()
        if raw in offered:
            out["ckpt"] = raw
        else:
            notices.append(Notice("notice_ckpt", dict(key="ckpt", value=shorten(raw),
                                                      offered=tuple(offered) or "—")))
    if "ckpt_knock" in params:
        names = [p.strip() for p in _first(params["ckpt_knock"]).split(",") if p.strip()]
        good = [n for n in names if HEAD_NAME.fullmatch(n)]
        out["ckpt_knock"] = sorted(set(good), key=good.index)[:CKPT_KNOCK_MOST]
        notices += [Notice("notice_unknown", dict(key="ckpt_knock", value=shorten(n)))
                    for n in names if not HEAD_NAME.fullmatch(n)][:3]
    return notices


def knocked_pairs(names) -> list[tuple[int, int]]:
    """`knock` names ("2.1") as the core's (layer, head) pairs from 0."""
    return [(int(a) - 1, int(b) - 1) for a, b in (n.split(".") for n in names)]


def _knock(raw: str, out: dict) -> list[Notice]:
    """`knock=2.1,2.2`: the trained model's heads to knock out, layer.head from 1. Each name that is not one of its
    heads gets a notice and is left out; the rest are kept (in order, once each), and the heads stage opens on the
    knock-out part unless the link names another."""
    names = [KNOCK_NAMES.index(n) for n in (p.strip() for p in raw.split(",")) if n in KNOCK_NAMES]
    bad = [p.strip() for p in raw.split(",") if p.strip() and p.strip() not in KNOCK_NAMES]
    out["knock"] = [KNOCK_NAMES[i] for i in sorted(set(names))]
    out.setdefault("heads_part", "knock")
    return [Notice("notice_knock", dict(key="knock", value=shorten(b), heads=", ".join(KNOCK_NAMES))) for b in bad[:3]]


def _knobs(params: Mapping, out: dict) -> list[Notice]:
    """The variant lab's knobs from a link, each a whole number within KNOB_RANGE (clamped, with a notice, if not).
    Whether a value suits the sizes (kv heads that divide h, an even rotary_dims ≤ d_k, a tile of at most n) is the
    knob's to say (knobs.py): the sizes may change after the link is read. A value above the limit of a knob whose top
    the sizes set is kept for it to name, not noticed as the limit: the page uses less (N11)."""
    notices = []
    sized = {k.key for v in VARIANT_LIST for k in v.knobs if k.sized}
    for key, (low, high) in KNOB_RANGE.items():
        if key not in params:
            continue
        raw = _first(params[key])
        n = whole(raw)
        if n is None:
            notices.append(Notice("notice_not_whole", dict(key=key, value=shorten(raw))))
            continue
        out[key] = min(max(n, low), high)
        if key in sized and n > high:
            out.setdefault(KNOB_ASKED, {})[key] = n
        elif out[key] != n:
            notices.append(Notice("notice_clamped", dict(key=key, value=shorten(raw), used=out[key])))
    return notices


def read_number(raw: str) -> float | None:
    """A decimal number as a link or the grid of X writes it (full-width digits and − read too), or None.

    The one reader of both, so that whatever the grid accepts a link carries and brings back. Plain decimals only:
    not 1_000, 0x10, nan or inf, which Python's float() would read. 1e400 reads as inf, for the caller to refuse as
    too large rather than as no number. A space between an exponent's e and its digits reads as the + a form decoder
    turned into one (1e+200 pasted from an address bar arrives as `1e 200`): the grid reads it so too."""
    if len(raw) > 4 * NUMBER_MAX_CHARS:  # before NFKC, which can make it 18 times longer
        return None
    text = re.sub(r"(?<=[eE]) (?=\d)", "+", unicodedata.normalize("NFKC", raw).strip().replace("−", "-"))
    if len(text) > NUMBER_MAX_CHARS or not NUMBER.fullmatch(text):
        return None
    return float(text)


def _number(raw: str) -> float | None:
    """A finite number, or None."""
    value = read_number(raw)
    return value if value is not None and math.isfinite(value) else None


def cap_text(raw: str) -> tuple[str, Notice | None]:
    """A text as the coda reads it: NFKC-normalised, printable characters (and spaces) only (`_printable`), cut after
    its LIMITS["n_tokens"]-th token (or TEXT_MAX_CHARS characters), with a notice when cut. The raw value is cut to
    RAW_MAX_CHARS first: what it costs is bounded by that, whatever its length or NFKC makes of it."""
    text = unicodedata.normalize("NFKC", raw[:RAW_MAX_CHARS])
    most = LIMITS["n_tokens"]
    cut = len(raw) > RAW_MAX_CHARS or len(text) > TEXT_MAX_CHARS
    text = _printable(text[:TEXT_MAX_CHARS])
    ends = [m.end() for m in TOKEN.finditer(text)]
    if len(ends) > most:
        text, cut = text[: ends[most - 1]], True
    return text, Notice("notice_text_capped", dict(most=most, chars=TEXT_MAX_CHARS)) if cut else None


def _printable(text: str) -> str:
    """`text` with a space for each character that is not printable, but for the format characters an emoji token
    holds (a zero-width joiner, a flag's tags): 👨‍👩‍👧 stays one token, as mha.tokenize reads it. A joiner outside an
    emoji becomes a space, so that what the text box shows is what the tokenizer reads: two words."""
    inside = {i for m in TOKEN.finditer(text) for i in range(m.start(), m.end())}
    return "".join(ch if ch.isprintable() or (i in inside and unicodedata.category(ch) == "Cf") else " "
                   for i, ch in enumerate(text))


def shorten(raw: str) -> str:
    text = "".join(ch for ch in raw if ch.isprintable())
    return text if len(text) <= 24 else text[:20] + "…"
