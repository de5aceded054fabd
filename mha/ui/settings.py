"""What a view is made of, and how it travels in a URL. Pure Python: no Streamlit here.

Every value read from a link is checked here before any widget sees it: a bad one falls back to a
safe value and leaves a Notice (a strings-table key plus its fields) for the page to show.
"""

import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from mha.figures.scores import PHASES

STAGES = ("matmul", "input", "qk", "scores", "values", "heads", "output", "dependency", "kv_cache")
SIZES = ("n_tokens", "d_model", "d_k", "d_v", "n_heads")
LANGS = ("en", "zh")
DEFAULTS = dict(n_tokens=3, d_model=5, d_k=7, d_v=11, n_heads=2, seed=0, lang="en", preset="post",
                stage="input", head=1, integers=False, phase="s", example=False)
# The scores stage: `phase` (PHASES: qkt, scaled, masked, s) is the step it rests on; `example=mask` puts the
# post's own 3×3 matrix in as the scaled scores.
EXAMPLES = ("mask",)
# Hosted-demo limits (the core has none): enough for GPT-2-small widths, small enough to stay fast.
LIMITS = dict(n_tokens=64, d_model=1024, d_k=128, d_v=128, n_heads=16, seed=2**31 - 1)
PRESETS = {
    "post": dict(n_tokens=3, d_model=5, d_k=7, d_v=11, n_heads=2, integers=False, example=False),
    "mask": dict(n_tokens=3, d_model=5, d_k=7, d_v=11, n_heads=2, integers=False, example=True),
    "tiny": dict(n_tokens=2, d_model=3, d_k=2, d_v=2, n_heads=1, integers=False, example=False),
    "hand": dict(n_tokens=3, d_model=5, d_k=7, d_v=11, n_heads=2, integers=True, example=False),
    "gpt2": dict(n_tokens=8, d_model=768, d_k=64, d_v=64, n_heads=12, integers=False, example=False),
}
X_PARAM_MAX = 4000  # characters of an encoded X in a link
X_VALUE_MAX = 1e6  # |cell| accepted from a link


@dataclass(frozen=True)
class Notice:
    key: str  # strings-table key
    fields: dict


def preset_of(values: Mapping) -> str:
    """The preset these sizes match, or "custom" (a setting not given counts as its default)."""
    for name, preset in PRESETS.items():
        if all(values.get(k, DEFAULTS.get(k)) == v for k, v in preset.items()):
            return name
    return "custom"


def _whole(raw: str) -> int | None:
    text = unicodedata.normalize("NFKC", raw).strip()  # full-width digits become ASCII
    if not re.fullmatch(r"[+-]?\d{1,12}", text):
        return None
    return int(text)


def _first(value) -> str:
    return str(value[-1] if isinstance(value, (list, tuple)) and value else value)[:200]


def parse_params(params: Mapping) -> tuple[dict, list[Notice]]:
    """Query parameters -> settings (only those present and usable) and notices for the rest."""
    out, notices = {}, []
    for key in (*SIZES, "seed", "head"):
        if key not in params:
            continue
        raw = _first(params[key])
        n = _whole(raw)
        low, high = (0 if key == "seed" else 1), LIMITS.get(key, LIMITS["n_heads"])
        if n is None:
            notices.append(Notice("notice_not_whole", dict(key=key, value=_shorten(raw))))
        elif not low <= n <= high:
            out[key] = min(max(n, low), high)
            notices.append(Notice("notice_clamped", dict(key=key, value=_shorten(raw), used=out[key])))
        else:
            out[key] = n
    for key, allowed in (("lang", LANGS), ("stage", STAGES), ("preset", (*PRESETS, "custom"))):
        if key in params:
            raw = _first(params[key]).strip()
            if raw in allowed:
                out[key] = raw
            else:
                notices.append(Notice("notice_unknown", dict(key=key, value=_shorten(raw))))
    for key, allowed in (("phase", PHASES), ("example", EXAMPLES)):
        if key in params:
            raw = _first(params[key]).strip()
            if raw in allowed:
                out[key] = raw if key == "phase" else True
            else:
                notices.append(Notice("notice_unknown", dict(key=key, value=_shorten(raw))))
    if "integers" in params:
        out["integers"] = _first(params["integers"]).strip() in ("1", "true")
    return out, notices


def _shorten(raw: str) -> str:
    text = "".join(ch for ch in raw if ch.isprintable())
    return text if len(text) <= 24 else text[:20] + "…"


def encode_x(x: np.ndarray, base: np.ndarray) -> str:
    """The cells where x differs from the seeded base, as `row.col~value` items joined by `_` (1-based)."""
    rows, cols = np.nonzero(x != base)
    return "_".join(f"{r + 1}.{c + 1}~{float(x[r, c])!r}" for r, c in zip(rows, cols))


def decode_x(text: str, base: np.ndarray) -> tuple[np.ndarray, list[Notice]]:
    """Apply an encoded X to `base`; unusable items are skipped with a notice, the rest kept."""
    x, notices = base.copy(), []
    if len(text) > X_PARAM_MAX:
        return x, [Notice("notice_x_too_long", dict(length=len(text), limit=X_PARAM_MAX))]
    bad = []
    for item in filter(None, text.split("_")):
        m = re.fullmatch(r"(\d{1,4})\.(\d{1,4})~([-+0-9.eE]{1,32})", item)
        try:
            r, c, v = int(m[1]) - 1, int(m[2]) - 1, float(m[3])
        except (TypeError, ValueError):
            bad.append(item)
            continue
        if not (0 <= r < x.shape[0] and 0 <= c < x.shape[1]) or not math.isfinite(v) or abs(v) > X_VALUE_MAX:
            bad.append(item)
            continue
        x[r, c] = v
    if bad:
        notices.append(Notice("notice_x_items", dict(count=len(bad), example=_shorten(bad[0]))))
    return x, notices


def is_prime(n: int) -> bool:
    return n >= 2 and all(n % p for p in range(2, math.isqrt(n) + 1))


def distinct_primes(sizes: Mapping) -> bool:
    values = [sizes[k] for k in SIZES]
    return all(map(is_prime, values)) and len(set(values)) == len(values)


def nearest_distinct_primes(sizes: Mapping) -> dict:
    """Each size moved to the closest prime not taken by an earlier one (ties go up), within limits."""
    taken, out = set(), {}
    for key in SIZES:
        n, limit = sizes[key], LIMITS[key]
        candidates = sorted((p for p in range(2, limit + 1) if is_prime(p) and p not in taken),
                            key=lambda p: (abs(p - n), -p))
        out[key] = candidates[0] if candidates else n
        taken.add(out[key])
    return out
