"""Every word the page shows, in English and Chinese, by area: one module an area, one entry (entry.S) a key, its
two languages side by side with what draws it.

A key belongs to the area of the page that says it: the shell (title, sidebar, sizes, downloads), the settings'
notices, the walk's stages (scores on their own), the KV cache (its step, its cost part, its variants), the coda
(tokens and positions, the block, the next token, the trained model), the heads stage's parts, and the variant
lab (its opening and costs, then each variant). A key is declared in one area only: importing the package fails
on a key declared twice.
"""

import html
import pkgutil
import re
from importlib import import_module

from .entry import S

# Every module of the package but entry is an area: a new area is a new module, found here.
AREAS = tuple(import_module(f"{__name__}.{m.name}") for m in pkgutil.iter_modules(__path__) if m.name != "entry")


def gather(areas) -> dict[str, S]:
    strings: dict[str, S] = {}
    for area in areas:
        twice = strings.keys() & area.STRINGS.keys()
        if twice:
            raise ValueError(f"{area.__name__} declares keys another area declares: {sorted(twice)}")
        strings |= area.STRINGS
    return strings


STRINGS = gather(AREAS)
EN = {key: s.en for key, s in STRINGS.items()}
ZH = {key: s.zh for key, s in STRINGS.items()}
TABLES = {"en": EN, "zh": ZH}
DRAWS = {key: s.draws for key, s in STRINGS.items()}  # what draws each value (entry.py says how each is written)

# Every ASCII punctuation mark but &, < and >, which md_escape writes as HTML entities instead.
MARKDOWN_PUNCTUATION = re.compile(r"([!-%'-/:;=?@\[-`{-~])")


# Where GFM would find an address in plain text (www.…, …://…, …@…), whatever the escapes: it looks for them in
# the text once the escapes are read. A word joiner (invisible, and no place to break a line) splits each.
ADDRESS_START = re.compile(r"(?i)(?<=www)(?=\.)|(?<=:)(?=//)|(?<=@)")
WORD_JOINER = "\u2060"
# English counts: "1 tokens" is said "1 token" (a field filled with 1 before a plural the value writes); not a
# possessive ("1 tokens' K"), nor 1 as the end of a longer number ("0.1", "2,1")
ONE = re.compile(r"((?<![\d.,])1 (?:K and V |BPE )?)"
                 r"(token|key|cell|head|row|column|position|letter|word|point|layer|answer|sink)s\b(?!')")
# Chinese: a field that ends in a full-width bracket ("BLOOM（176B）") takes no space before the next character
SPACE_AFTER_BRACKET = re.compile(r"(?<=[）」』】])[ \t]+(?=[\u4e00-\u9fff])")
CJK = r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]"  # a Chinese character or a full-width mark
CJK_START, CJK_END = re.compile(CJK), re.compile(CJK + "$")


def _snug(template: str, fields: dict) -> str:
    """Chinese: the template without the spaces it keeps around a field (for a Latin name, "按 {name} 自己的词元")
    where the field's value starts or ends with a Chinese character and one stands beyond the space
    ("按你上传的模型自己的词元"); the field's bold markers stay with it."""
    for name, value in fields.items():
        if not isinstance(value, str) or not value:
            continue
        slot = r"\*{0,2}(?<!\{)\{" + re.escape(name) + r"(?:[!:][^{}]*)?\}(?!\})\*{0,2}"
        if CJK_START.match(value):
            template = re.sub(rf"(?<={CJK})[ \t]+(?={slot})", "", template)
        if CJK_END.search(value):
            template = re.sub(rf"({slot})[ \t]+(?={CJK})", r"\1", template)
    return template


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
        return self._fill(key, fields, snug=True)

    def _fill(self, key: str, fields: dict, snug: bool) -> str:
        """The value with its fields; in Chinese, `snug`: the app's own Chinese words in a field take no spaces
        around them (_snug). A value from outside keeps them, so that it stands apart from the sentence."""
        if self.lang == "en":
            text = self.table[key].format(**fields)
            return ONE.sub(r"\1\2", text) if fields else text
        template = _snug(self.table[key], fields) if snug and fields else self.table[key]
        text = template.format(**fields)
        return SPACE_AFTER_BRACKET.sub("", text) if fields else text

    def md(self, key: str, /, **fields) -> str:
        """t(key, **fields) for Markdown, each str field shown literally (md_escape); numbers as the template says."""
        return self._fill(key, {k: md_escape(v) if isinstance(v, str) else v for k, v in fields.items()}, snug=False)

    def notice(self, notice) -> str:
        """A settings.Notice in this language: its fields come from a link or a hand, so they go through md; a field
        `why` is the key of the reason, said in this language; a tuple, a list said as the language lists."""
        fields = {k: self("list_sep").join(v) if isinstance(v, tuple) else v for k, v in notice.fields.items()}
        fields = {k: md_escape(v) if isinstance(v, str) else v for k, v in fields.items() if k != "why"}
        if "why" in notice.fields:  # the app's own words, in this language: no value from outside
            fields["why"] = self(notice.fields["why"])
        return self._fill(notice.key, fields, snug=False)

    def sentences(self, *parts: str) -> str:
        """Sentences run on as the language writes them: after a Chinese one (ending in 。, ）, … or any CJK
        character) the next follows at once; after any other, a space. Empty parts are left out."""
        out = ""
        for part in filter(None, parts):
            out = part if not out else out + ("" if CJK_END.search(out) else " ") + part
        return out

    def template(self, key: str) -> str:
        """The value unformatted, for a figure that fills its fields itself (frame by frame)."""
        return self.table[key]

    def ranged(self, key: str) -> str:
        """A template with a {rows} field that a figure fills as .format(a=first, b=last), or as
        .format(among=numbers) with rows that need not follow one another."""
        return _Ranged(self.template(key), self, "rows")

    def rows(self, first: int, last: int) -> str:
        """Rows first..last, 1-based; one row is said as one."""
        if last < first:
            raise ValueError(f"an empty range: {first}..{last}")
        if first == last:
            return self("span_row", a=first)
        return self("span_rows", a=first, b=last)

    def rows_among(self, numbers) -> str:
        """Rows by their 1-based numbers, in order: one run as t.rows says it; else each run of two or more as its
        ends, listed as the language lists ("rows 1, 5–6", "第 1、5–6 行")."""
        runs: list[list[int]] = []
        for n in numbers:
            if runs and n == runs[-1][-1] + 1:
                runs[-1].append(n)
            else:
                runs.append([n])
        if not runs:
            raise ValueError("no rows")
        if len(runs) == 1:
            return self.rows(runs[0][0], runs[0][-1])
        said = (str(r[0]) if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)
        return self("span_rows_among", rows=self("list_sep").join(said))


class _Ranged(str):
    """A template whose range field is filled from the first and last index, .format(a=1, b=1, **fields), or from
    the rows' numbers, .format(among=(1, 5, 6), **fields)."""

    def __new__(cls, template: str, text: Text, field: str):
        obj = super().__new__(cls, template)
        obj.text, obj.field = text, field
        return obj

    def format(self, *args, a: int = 0, b: int = 0, among=None, **fields) -> str:
        said = self.text.rows(a, b) if among is None else self.text.rows_among(among)
        return str.format(self, *args, **{self.field: said}, **fields)
