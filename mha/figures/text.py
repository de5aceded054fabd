"""How wide a text is drawn, known before the browser draws it: the one measure of text in the code base.

The figures are laid out in pixels here (titles wrapped to their panels, labels kept apart, margins as wide as
their labels), so every text is measured before it is drawn. `text_px` is that measure: a sum of per-character
widths, a little generous, and checked against Chromium in the figures' font (tests/e2e/test_text_width_e2e.py:
never narrower than what it draws). `wrap` breaks a text into lines and `fit_text` shortens one, both by it.
"""

import html
import itertools
import re
import unicodedata
from functools import lru_cache

FONT = "Noto Sans CJK SC, Noto Sans, Arial, sans-serif"  # what the figures draw in, and text_px measures

WIDE = set("∞√÷▶❚·×→…")  # the CJK font, first in FONT, draws "·" and "×" a full em wide
NARROW = set(".,:;'|!() ")
DIGIT = set("0123456789−+-=")
BROAD = set("MWmw—")  # the widest letters, about 0.88 em


CACHED_CHARS = 64  # texts up to this long are measured once a process; a longer one (a user's long word) each time


def _width(text: str, size: float) -> float:
    """A one-line text's width in px, a little generous (HTML tags dropped, entities read, sub/superscripts smaller).

    Measured in Chromium with the app's font (FONT) at 100 px: digits and "−" 0.555 em, "." 0.278 em, CJK and
    "· × → …" 1 em, lower-case letters 0.49 em on average, capitals up to 0.88 em (W); bold 4% wider. What draws
    nothing of its own takes no room: combining marks (an accent, the keycap U+20E3), format characters (joiners,
    tags) and a skin tone after the emoji it colours; a token with a tail of 200 of them is one glyph wide.
    """
    small = sum(len(s) for s in re.findall(r"<su[bp]>(.*?)</su[bp]>", text))
    bold = sum(len(re.sub(r"<[^>]+>", "", s)) for s in re.findall(r"<b>(.*?)</b>", text))
    plain = html.unescape(re.sub(r"<[^>]+>", "", text))  # an escaped "<" (a user's text) is drawn as one character
    width = 0.0
    for i, ch in enumerate(plain):
        if unicodedata.category(ch) in ("Mn", "Me", "Cf") or (i and "\U0001f3fb" <= ch <= "\U0001f3ff"):
            continue
        if ch in WIDE or "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef":
            width += 1.0
        elif ch in BROAD:
            width += 0.9
        elif ch in NARROW:
            width += 0.3
        elif ch in DIGIT or ch.islower():
            width += 0.56
        else:
            width += 0.72
    return (width - 0.2 * small + 0.05 * bold) * size * 1.06


_width_cached = lru_cache(maxsize=8192)(_width)  # at most about 3 MB: 8,192 texts of 64 characters and their widths


def text_px(text: str, size: float) -> float:
    """A one-line text's width in px (_width), measured once a process when the text is short."""
    return _width_cached(text, size) if len(text) <= CACHED_CHARS else _width(text, size)


def widest(texts, size: float) -> float:
    """The width in px of the widest of `texts` at `size` (0 for none)."""
    return max((text_px(s, size) for s in texts), default=0.0)


_CJK_TOKEN = re.compile(r"[\u2e80-\u9fff\uff00-\uffef]")
_NUMBER = re.compile(r"[−+-]?[\d.,]+%?\s*")  # 3, −3, 0.5, 50%: a number as wrap's tokens hold it


def _one_cjk(token: str) -> bool:
    return len(token.strip()) == 1 and bool(_CJK_TOKEN.match(token))


def wrap(text: str, size: float, width: float) -> list[str]:
    """Break a text into lines no wider than `width` px: at spaces, or between CJK characters ([] for no text).

    HTML tags stay whole; a line break never falls inside "<sub>…</sub>"; no line ends or starts with a "·" that
    joins two parts (audit #12: "μ₁ ·" over "3×1").
    """
    tokens = re.findall(r"[\u2e80-\u9fff\uff00-\uffef]\s*|(?:<[^>]+>|[^\s<\u2e80-\u9fff\uff00-\uffef])+\s*|\s+",
                        text)
    # A number stays with the Chinese character after it ("3 组", never "3" over "组"), then with the one before it
    # ("第 3 个", "共 12"), where the line has room for it
    def bind(k: int) -> None:  # tokens k and k + 1 as one, if it fits a line
        if text_px((tokens[k] + tokens[k + 1]).rstrip(), size) <= width:
            tokens[k:k + 2] = [tokens[k] + tokens[k + 1]]

    for k in range(len(tokens) - 2, -1, -1):
        if _NUMBER.fullmatch(tokens[k]) and _one_cjk(tokens[k + 1]):
            bind(k)
    for k in range(len(tokens) - 1, 0, -1):
        if _NUMBER.match(tokens[k]) and _one_cjk(tokens[k - 1]):
            bind(k - 1)
    closing = "、，。；：！？）》」』"
    for k in range(len(tokens) - 1, 0, -1):  # no line starts with closing punctuation: it stays with what it closes
        if tokens[k][0] in closing:
            tokens[k - 1] = tokens[k - 1].rstrip() + tokens.pop(k)
    lines, line = [], ""
    for token in tokens:
        if line.strip() and text_px((line + token).rstrip(), size) > width:
            lines.append(line.rstrip())
            line = token.lstrip()
        else:
            line += token
    lines = [*lines, line.rstrip()] if line.strip() else lines
    if len(lines) < 2:
        return lines
    # a "·" that joins two parts ("μ₁ · 3×1") is said by the break itself where it would end or start a line
    lines = [re.sub(r"^· | ·$", "", s) for s in lines]
    return [s for s in lines if s != "·"]


# A glyph, as far as shortening a label goes: a character with what an emoji draws with it (variation selectors, skin
# tones, the keycap, tags), a zero-width joiner with the character it joins on. A label is cut between glyphs, so no
# emoji loses its skin tone or its flag's tags, and no joiner is left at the end.
_GLYPH = re.compile(r"\u200d?.[\ufe0e\ufe0f\u20e3\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f]*", re.S)


def short(text: str, most: int = 8) -> str:
    """`text` (plain, not HTML) in at most `most` glyphs: its first most − 1 and "…" when it is longer."""
    glyphs = _GLYPH.findall(text)
    return text if len(glyphs) <= most else "".join(glyphs[: most - 1]) + "…"


def fit_text(text: str, size: float, px: float) -> str:
    """`text` (plain, not HTML) within `px` at `size` (text_px of it escaped, as a label is written): its first
    glyphs and "…" when it is wider, at least the "…".

    Measured glyph by glyph (text_px adds up its characters' widths), so that a 1,000-character word costs one pass,
    and text_px's cache keeps glyphs, not the word's every prefix."""
    glyphs = _GLYPH.findall(text)
    widths = list(itertools.accumulate(text_px(html.escape(g, quote=False), size) for g in glyphs))
    if not widths or widths[-1] <= px:
        return text
    room = px - text_px("…", size)
    return "".join(glyphs[: sum(1 for w in widths if w <= room)]) + "…"
