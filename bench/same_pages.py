"""Every page the app draws, element by element: a refactor that should change nothing is checked by writing them
from the tree before it and the tree after it, then comparing.

    .venv/bin/python bench/same_pages.py /tmp/after.json          # in this tree
    (cd ../before && .venv/bin/python bench/same_pages.py /tmp/before.json)
    .venv/bin/python bench/same_pages.py --diff /tmp/before.json /tmp/after.json [VARIANT]

With a VARIANT (one added between the trees), the after tree's pages are read without it: its own pages, its option
in the pickers and its row in the cost table are set aside, and every other difference is listed.

The pages: every stage in both languages; every variant's three lab parts; the KV-cache stage with every variant,
its step and its cost; every part of the block and of the heads stage with the trained model; the coda's stages on
a text. Each element is its protobuf message as Streamlit sends it (charts with their whole figure)."""

import json
import re
import sys
from pathlib import Path

from google.protobuf.json_format import MessageToDict
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mha.ui import settings as S  # noqa: E402


def pages():
    for lang in S.LANGS:
        for stage in S.STAGES:
            yield dict(stage=stage, lang=lang)
        for variant in S.VARIANTS:
            for part in S.LAB_PARTS:
                yield dict(stage="variants", variant=variant, part=part, lang=lang)
        for variant in S.KV_VARIANTS:
            for part in S.KV_PARTS:
                yield dict(stage="kv_cache", variant=variant, part=part, lang=lang)
        for part in S.BLOCK_PARTS:
            yield dict(stage="block", part=part, lang=lang)
        for part in S.HEADS_PARTS:
            yield dict(stage="heads", model="trained", part=part, lang=lang)
        for stage in ("tokens", "block", "next_token", "kv_cache"):
            yield dict(stage=stage, text="the cat sat on the mat", lang=lang)


def elements(node):
    proto = getattr(node, "proto", None)
    if proto is not None and getattr(node, "type", "") not in ("main", "sidebar", "event", "root"):
        yield MessageToDict(proto)
    for child in getattr(node, "children", {}).values():
        yield from elements(child)


def drawn(params: dict) -> list:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = str(value)
    at.run()
    if at.exception:
        return [{"exception": [e.value for e in at.exception]}]
    return list(elements(at._tree))


def main(out: str) -> None:
    written = {"&".join(f"{k}={v}" for k, v in p.items()): drawn(p) for p in pages()}
    Path(out).write_text(json.dumps(written, sort_keys=True))
    print(f"{len(written)} pages, {sum(map(len, written.values()))} elements -> {out}")


# An element's id holds a hash of the script's path: two trees in two folders give the same element two ids.
ID = re.compile(r"\$\$ID-[0-9a-f]{32}-")


def _read(path: str) -> dict:
    return json.loads(ID.sub("$$ID-", Path(path).read_text()))


def _without(pages: dict, variant: str) -> dict:
    """The pages as if `variant` had not been added: its pages gone, its name out of every picker's options and every
    table row that names it gone."""
    from mha.ui.strings import TABLES
    from mha.ui.variant_defs import VARIANTS

    keys = {f"variant_{variant}", VARIANTS[variant].kv_name or f"variant_{variant}"}  # its names in both pickers
    names = {table[key] for table in TABLES.values() for key in keys}
    out = {}
    for page, elements in pages.items():
        if f"variant={variant}&" in page:
            continue
        kept = []
        for e in elements:
            if "options" in e:
                e = {**e, "options": [o for o in e["options"]
                                      if (o.get("content") if isinstance(o, dict) else o) not in names]}
            if "body" in e:
                e = {**e, "body": "\n".join(line for line in e["body"].split("\n")
                                            if not (line.startswith("|") and any(n in line for n in names)))}
            kept.append(e)
        out[page] = kept
    return out


def diff(before: str, after: str, added: str = "") -> int:
    a, b = _read(before), _read(after)
    if added:
        b = _without(b, added)
    changed = 0
    for page in sorted(a.keys() | b.keys()):
        if a.get(page) != b.get(page):
            changed += 1
            old, new = a.get(page, []), b.get(page, [])
            first = next((i for i, (x, y) in enumerate(zip(old, new)) if x != y), min(len(old), len(new)))
            print(f"{page}: {len(old)} -> {len(new)} elements, first difference at element {first}")
            if first < min(len(old), len(new)):
                print("   before:", json.dumps(old[first], ensure_ascii=False)[:300])
                print("   after: ", json.dumps(new[first], ensure_ascii=False)[:300])
    print(f"{len(a)} pages before, {len(b)} after; {changed} differ")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(diff(*sys.argv[2:5]) if sys.argv[1] == "--diff" else main(sys.argv[1]))
