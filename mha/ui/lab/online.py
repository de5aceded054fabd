"""The lab's online softmax (variant `online`): FlashAttention's way through the chosen head's attention, the keys read
a tile of B at a time with a running max m, a running sum ℓ and an accumulator, rescaled as each tile arrives; never
the n×n scores. An animation one frame a tile (a figure with frames, stepped by its own slider or Play in the
browser: no rerun a frame) on what changes; on the click part the same animation taking clicks, a cell of out writing
how it came to be, or acc = P·V as a product to click and quiz; on the check, the memory it holds and a live check
against the walk's H for every B."""

import numpy as np
import streamlit as st

import mha
from mha import figures as F
from mha.figures.online import COLS, ROWS, OnlineSteps, frames_count, online_animation
from mha.figures.ticks import token_ticks

from .. import knobs, lab
from ..chart import clickable_chart, draw, drawn, picked, shared_figure
from ..product import product_view
from ..prose import aside, fmt, head_control, markdown_table, said, tex_num
from ..shared import digest
from ..strings import Text
from ..variant_defs import TILE
from ..view import Name, Operand, View, first_screen, name

KEY = "lab_online"  # the animation's chart key
BIG_N = 4096  # the sequence length the memory sentence compares at
KNOB_WIDTH = 180  # px: the tile size's box, beside the head picker
# On a projector, what lies above the animation in view.first_screen's rows: the variant, the part and the tile
# size's row (its number box and gaps take a fourth): the figure's top at 292 px, 152 + 4 × 36 less 4
CONTROL_ROWS = 4


def render(v: View, variant: str, part: str) -> str:
    """One part, under the tile size and the head shown (both change all three): the animation with its words
    ("change"), out to click or acc = P·V ("click"), or the memory held and the check for every B, returned
    ("check")."""
    t, ss = v.t, st.session_state
    projector = v.look == F.PRESENT
    # the tile size and the head shown: one row; on a projector the knob's label beside its box, and the click
    # part's picker in the row too, so that the animation under them is whole on the first screen
    row = st.container(horizontal=True, vertical_alignment="center" if projector else "bottom")
    tr = v.trace
    n = tr.q.shape[1]
    b = knobs.draw(v, TILE, row, width=KNOB_WIDTH, label="beside" if projector else "visible")
    head_control(t, row)
    h = min(int(ss.get("head", 1)), v.cfg.n_heads) - 1  # read here: the lab's fragment reruns without a new view
    res = mha.online_attention(tr.q[h], tr.k[h], tr.v[h], b)
    if part == "change":
        words = f"{t('lab_online_text', h=h + 1)}\n\n{said(t('lab_online_rules'), _rules(t, v.look.narrow))}"
        _animated(v, h, res, words, clickable=False)
        return ""
    if part == "click":
        lab.one_product(v, variant, {"out": (t("lab_online_out_name"), lambda: _out(v, h, res)),
                                     "acc": (t("lab_online_product_name"), lambda: _product(v, h, res))},
                        row if projector else st)
        return ""
    return f"{_memory(t, n, b, v.cfg.d_v)}\n\n{_check(t, tr, h, res, 4 if v.look.narrow else 8)}"


def _animated(v: View, h: int, res, words: str, clickable: bool) -> OnlineSteps:
    """The animation, a frame a tile, with `words` and how to step it in one element: above it, or under it in
    presenter mode (the figure first, on the first screen). Clickable on the click part, where a cell of out says
    how it came to be. Its steps, returned."""
    t, tr = v.t, v.trace
    n = tr.q.shape[1]
    hint = t("lab_online_play_hint", tiles=len(res.tiles), b=res.block)
    if clickable:
        hint = t.sentences(hint, t("lab_online_click_hint"))
    rows, cols = min(n, ROWS), min(v.cfg.d_v, COLS)
    if rows < n or cols < v.cfg.d_v:
        hint = t.sentences(hint, t("lab_online_rows_drawn", rows=rows, cols=cols))
    words = f"{words}\n\n{aside(hint)}" if words else hint
    projector = v.look == F.PRESENT
    if not projector:
        st.markdown(words)
    steps = _steps(t, res, h)

    look = first_screen(v.named, CONTROL_ROWS)

    def build():
        return token_ticks(online_animation(steps, text=v.text, look=look), v.tokens, ("yaxis", "yaxis5", "yaxis6"),
                           v.look)

    parts = (KEY, digest(tr.q[h], tr.k[h], tr.v[h]), res.block, h, t.lang, v.text, look, v.tokens)
    if clickable:
        clickable_chart(parts, build, KEY)
    else:  # the same figure, built once for every session, drawn to be played, not clicked
        draw(shared_figure((*parts, "still"), lambda: drawn(build())), KEY, "content", clickable=False)
    if projector:
        st.markdown(words)
    return steps


def _out(v: View, h: int, res) -> None:
    """The animation to click: a cell of out writes acc/ℓ with its numbers and the row's way there."""
    t, tr = v.t, v.trace
    steps = _animated(v, h, res, "", clickable=True)
    rows, cols = min(tr.q.shape[1], ROWS), min(v.cfg.d_v, COLS)
    count = frames_count(steps)
    picked(KEY, lambda cell: cell[0] < rows and cell[1] < cols,
           lambda cell, frame: _cell(t, res, tr.heads[h], cell, frame, count, v.look.narrow), (count - 1, count))


def _word(t: Text, key: str, en: str) -> str:
    """acc or out in a formula: the word upright in English, the page's word in Chinese."""
    return rf"\mathrm{{{en}}}" if t.lang == "en" else rf"\text{{{t(key)}}}"


def _rules(t: Text, narrow: bool) -> str:
    """The update a tile makes to row i, then the division after the last: two lines, a phone's four."""
    acc, out = _word(t, "lab_online_fig_acc", "acc"), _word(t, "lab_online_fig_out_name", "out")
    parts = (r"m_i' = \max\!\big(m_i,\ \max_{j} s_{ij}\big),\quad r_i = e^{m_i - m_i'}",
            r"\ell_i' = r_i\,\ell_i + \textstyle\sum_j e^{s_{ij} - m_i'}",
            rf"{acc}_i' = r_i\,{acc}_i + \textstyle\sum_j e^{{s_{{ij}} - m_i'}}\,v_j",
            rf"{out}_i = {acc}_i / \ell_i")
    lines = parts if narrow else (rf"{parts[0]},\quad {parts[1]}", rf"{parts[2]};\qquad {parts[3]}")
    return r"\begin{gathered} " + r" \\ ".join(lines) + r" \end{gathered}"


def _steps(t: Text, res, h: int) -> OnlineSteps:
    tiles = res.tiles
    shown = min(res.out.shape[0], ROWS)
    count = sum(1 for tile in tiles if tile.start < shown)

    def keys(tile) -> str:
        a, b = tile.start + 1, min(tile.stop, shown)
        return t("lab_online_fig_key", a=a) if a == b else t("lab_online_fig_keys", a=a, b=b)

    captions = [t("lab_online_fig_first", count=count, keys=keys(tiles[0]))]
    captions += [t("lab_online_fig_tile", k=k + 1, count=count, keys=keys(tiles[k])) for k in range(1, count)]
    captions.append(t("lab_online_fig_done", h=h + 1))
    n, d_v = res.out.shape
    widths = [tile.stop - tile.start for tile in tiles[:count]] + [0]  # the scores held: the tile's, then none
    gap = "" if t.lang == "zh" else " "  # between two sentences: Chinese puts no space after its full stop
    held = [t("lab_online_fig_held", tile=n * w, two=2 * n, acc=n * d_v, held=n * (w + 2 + d_v), s=n * n)
            for w in widths]
    captions = [f"{c}{gap}{said}" for c, said in zip(captions, held, strict=True)]
    acc, out = t("lab_online_fig_acc"), t("lab_online_fig_out_name")
    names = dict(s=t("lab_online_fig_scores"), r="r", m="m", l="ℓ", acc=acc, out=out)
    titles = dict(s=[t("lab_online_fig_s", keys=keys(tile)) for tile in tiles[:count]],
                  s_none=t("lab_online_fig_s_none"), r="r", m="m", l="ℓ",
                  acc=f"<b>{acc}</b>", out=f"<b>{t('lab_online_fig_out')}</b>")
    words = dict(play=t("play"), pause=t("pause"), slider=t("anim_slider"), slider_step=t.template("anim_step_text"),
                 steps=[str(k + 1) for k in range(count)] + [t("lab_online_fig_step_out")], captions=captions,
                 token=t("token"), key=t("key_pos"), col=t("cols_of"))
    return OnlineSteps(tuple(x.start for x in tiles), tuple(x.stop for x in tiles), tuple(x.scores for x in tiles),
                       tuple(x.m for x in tiles), tuple(x.l for x in tiles), tuple(x.acc for x in tiles), res.out,
                       names, titles, words)


def _cell(t: Text, res, heads: np.ndarray, cell, frame: int, count: int, narrow: bool) -> None:
    """out[i, j] = acc[i, j]/ℓ_i with the numbers, the row's way there tile by tile, and the walk's H beside it."""
    if cell is None:  # the hint above the figure says what a click does
        return
    i, j = cell
    last = res.tiles[-1]
    value = res.out[i, j]
    acc_, out_ = _word(t, "lab_online_fig_acc", "acc"), _word(t, "lab_online_fig_out_name", "out")
    tex = (rf"{out_}_{{{i + 1},{j + 1}}} = \frac{{{acc_}_{{{i + 1},{j + 1}}}}}{{\ell_{{{i + 1}}}}}"
           rf" = \frac{{{tex_num(last.acc[i, j])}}}{{{tex_num(last.l[i])}}} = {tex_num(value)}")
    where = t("lab_online_cell_frame", k=frame + 1, count=count)
    lines = [said(f"**{t('lab_online_cell', i=i + 1, j=j + 1)}** {where}", tex)]
    lines.append(t("lab_online_cell_h", i=i + 1, j=j + 1, h=fmt(heads[i, j]), delta=f"{abs(value - heads[i, j]):.2g}"))
    rows = []
    prev = -np.inf
    for k, tile in enumerate(res.tiles):
        if tile.start > i:  # keys after i are all masked for row i: nothing changes
            break
        seen = np.isfinite(tile.m[i])
        r = fmt(np.exp(prev - tile.m[i])) if np.isfinite(prev) else "–"
        keys = t("lab_online_fig_key", a=tile.start + 1) if tile.stop - tile.start == 1 else \
            t("lab_online_fig_keys", a=tile.start + 1, b=tile.stop)
        rows.append((k + 1, keys, fmt(tile.m[i]) if seen else t("lab_online_hist_nothing"), r,
                     fmt(tile.l[i]) if seen else "0", fmt(tile.acc[i, j]) if seen else "0"))
        prev = tile.m[i]
    header = [t("lab_online_hist_tile"), t("lab_online_hist_keys"), "m", "r", "ℓ",
              f"{t('lab_online_fig_acc')}[{i + 1}, {j + 1}]"]
    lines.append(f"{t('lab_online_history', i=i + 1)}\n\n{markdown_table(header, rows)}")
    st.markdown("\n\n".join(lines))


def _memory(t: Text, n: int, b: int, d_v: int) -> str:
    """How many numbers the tiles hold against the n² of S, here and at a long sequence."""
    tile, two, acc = n * b, 2 * n, n * d_v
    big_held = BIG_N * b + 2 * BIG_N + BIG_N * d_v
    return t("lab_online_memory", tile=f"{tile:,}", two=f"{two:,}", acc=f"{acc:,}", held=f"{tile + two + acc:,}",
             s=f"{n * n:,}", big=f"{BIG_N:,}", big_held=f"{big_held:,}", big_s=f"{BIG_N * BIG_N:,}")


def loop_state(q: np.ndarray, k: np.ndarray, v: np.ndarray, block: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """m and ℓ after each tile, from a plain loop over the keys one at a time (a rescale each time m rises), written
    apart from mha.online_attention: what the page checks every frame against."""
    n = len(q)
    m, l = np.full(n, -np.inf), np.zeros(n)  # noqa: E741
    out = []
    for start in range(0, n, block):
        for j in range(start, min(start + block, n)):
            for i in range(j, n):  # row i sees key j only from i = j on
                s = float(q[i] @ k[j]) / np.sqrt(q.shape[1])
                new = max(m[i], s)
                l[i] = l[i] * np.exp(m[i] - new) + np.exp(s - new) if np.isfinite(m[i]) else 1.0
                m[i] = new
        out.append((m.copy(), l.copy()))
    return out


def _check(t: Text, tr: mha.Trace, h: int, res, across: int) -> str:
    """The table B → largest |out − H| for every B (B across, `across` values a table, so that 64 of them stay
    short), and each frame's m and ℓ against a loop."""
    q, k, v, heads = tr.q[h], tr.k[h], tr.v[h], tr.heads[h]
    n = len(q)
    runs = [mha.online_attention(q, k, v, b) for b in range(1, n + 1)]
    cols = [(str(o.block), str(len(o.tiles)), f"{float(np.max(np.abs(o.out - heads))):.1e}") for o in runs]
    loop = loop_state(q, k, v, res.block)
    frames = max(max(float(np.max(np.abs(a - tile.m))), float(np.max(np.abs(b - tile.l))))
                 for (a, b), tile in zip(loop, res.tiles, strict=True))
    last = float(np.max(np.abs(res.out - heads)))
    names = (t("lab_online_check_b"), t("lab_online_check_tiles"), t("lab_online_check_delta"))
    tables = [markdown_table([names[0], *(c[0] for c in part)], [(names[r], *(c[r] for c in part)) for r in (1, 2)])
              for part in (cols[a: a + across] for a in range(0, n, across))]
    table = "\n\n".join(tables)
    return (f"**{t('lab_online_check_title', h=h + 1)}**\n\n{table}\n\n"
            f"{t('lab_online_check_frames', frames=f'{frames:.1e}', last=f'{last:.1e}')}")


def _product(v: View, h: int, res) -> None:
    """acc = P·V with P = exp(s − m) for each row's final m: a product to click (its dot products) and quiz."""
    t, tr = v.t, v.trace
    st.markdown(t("lab_online_product"))
    d_k = tr.q.shape[2]
    scores = tr.q[h] @ tr.k[h].T / np.sqrt(d_k)
    mask = np.triu(np.ones(scores.shape, bool), k=1)
    m = np.where(mask, -np.inf, scores).max(axis=1)
    p = np.where(mask, 0.0, np.exp(np.where(mask, 0.0, scores - m[:, None])))
    acc_word = t("lab_online_fig_acc")
    acc = Name(acc_word, _word(t, "lab_online_fig_acc", "acc"), acc_word)
    vn, token, col = name("V", str(h + 1)), t("token"), t("cols_of")
    product_view(f"{KEY}_pv", v, Operand(p, name("P"), token, t("key_pos"), "probs", mask),
                 Operand(tr.v[h], vn, token, col), Operand(res.tiles[-1].acc, acc, token, col),
                 f"{acc.html} = P · {vn.html}")
