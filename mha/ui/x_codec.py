"""X's edits and the KV cache's added tokens as a link carries them (`x=`, `kv=`), and read back from one. Pure
Python: no Streamlit here. A value that cannot be read keeps its seeded value and leaves a settings.Notice."""

import math
import re
from collections.abc import Callable

import numpy as np

from .settings import KV_MAX_ADDED, X_PARAM_MAX, Notice, read_number, shorten, whole


def encode_x(x: np.ndarray, base: np.ndarray) -> str:
    """The cells where x differs from the seeded base, as `row.col~value` items joined by `_` (1-based). A typed −0.0
    over a base's 0.0 (or the other way) differs too: equal as numbers, but the grid shows its sign."""
    rows, cols = np.nonzero((x != base) | (np.signbit(x) != np.signbit(base)))
    return "_".join(f"{r + 1}.{c + 1}~{link_number(x[r, c])}" for r, c in zip(rows, cols))


def link_number(v: float) -> str:
    """v in a link: its shortest text that reads back exactly (repr), with no + (1e200, not 1e+200): a + in a query
    string is a space to whoever decodes it as a form does, and a link pasted from a decoded address lost it."""
    return repr(float(v)).replace("e+", "e")


def decode_x(text: str, base: np.ndarray) -> tuple[np.ndarray, list[Notice]]:
    """Apply an encoded X to `base`; unusable items are skipped with a notice saying why the first was, the rest
    kept."""
    if len(text) > X_PARAM_MAX:
        return base.copy(), [Notice("notice_x_too_long", dict(length=len(text), limit=X_PARAM_MAX))]
    x, bad, kept = _apply_cells(text, base)
    return x, [_refused("notice_x_items" if kept else "notice_x_items_none", bad)] if bad else []  # no "rest" if none


def _refused(key: str, bad: list[tuple[str, str]]) -> Notice:
    item, why = bad[0]
    return Notice(key, dict(count=len(bad), example=shorten(item), why=why))


def _apply_cells(text: str, base: np.ndarray) -> tuple[np.ndarray, list[tuple[str, str]], int]:
    """`base` with the `row.col~value` items of text applied, the items that could not be, each with the key of the
    reason (REFUSALS), and how many were applied."""
    x, bad, kept = base.copy(), [], 0
    for item in filter(None, text.split("_")):
        m = re.fullmatch(r"(\d{1,4})\.(\d{1,4})~([^~]+)", item)
        if not m:
            bad.append((item, "why_form"))
            continue
        value = read_number(m[3])
        if value is None:
            bad.append((item, "why_number"))
        elif not math.isfinite(value):
            bad.append((item, "why_finite"))
        elif not (0 <= int(m[1]) - 1 < x.shape[0] and 0 <= int(m[2]) - 1 < x.shape[1]):
            bad.append((item, "why_cell"))
        else:
            x[int(m[1]) - 1, int(m[2]) - 1] = value
            kept += 1
    return x, bad, kept


def encode_kv(rows: np.ndarray, seeded: np.ndarray) -> str:
    """Tokens added to the KV cache: their count, then the cells that differ from the seeded next tokens
    as X's items (`2` is two seeded tokens, `2_1.3~0.5` the same with cell 3 of the first one edited)."""
    return "_".join(filter(None, [str(len(rows)), encode_x(rows, seeded)]))


def decode_kv(text: str, seeded: Callable[[int], np.ndarray]) -> tuple[np.ndarray, list[Notice]]:
    """Added tokens from a link, given `seeded(count)`, the seeded next tokens (count, d_model).

    At most KV_MAX_ADDED tokens; unusable cells keep their seeded value, each refusal with a notice."""
    if len(text) > X_PARAM_MAX:
        return seeded(0), [Notice("notice_kv_too_long", dict(length=len(text), limit=X_PARAM_MAX))]
    head, _, items = text.partition("_")
    count = whole(head)
    if count is None or count < 0:
        return seeded(0), [Notice("notice_kv_count", dict(value=shorten(text), most=KV_MAX_ADDED))]
    notices = []
    if count > KV_MAX_ADDED:
        notices.append(Notice("notice_kv_clamped", dict(count=count, most=KV_MAX_ADDED)))
        count = KV_MAX_ADDED
    rows, bad, _ = _apply_cells(items, seeded(count))
    if bad:
        notices.append(_refused("notice_kv_items", bad))
    return rows, notices
