"""The KV-cache stage's step part: the next token (a seeded row to edit, or the model's next word), the animated step
and its proof against a full recompute."""

from contextlib import nullcontext

import numpy as np
import streamlit as st

import mha
from mha.figures.cache import STEPS, CacheStep
from mha.figures.text import short

from .. import editor, next_word, session
from ..prose import markdown_table
from ..settings import KV_MAX_ADDED as MAX_ADDED
from ..view import View, name, subscript
from .shared import Decoded, said_heads, said_tokens

ROUNDING = 1e-12  # a difference of Y's earlier rows this small is the sums' order (MLA's recompute), not a change
WORD_MOST = 24  # glyphs of a token its sentences write (a long one is whole in the figure's hover)
MLA_W = dict(w_dkv="W<sub>DKV</sub>", w_uk="W<sub>UK</sub>", w_uv="W<sub>UV</sub>")  # MLA's weights, by name


def offer_next_row(v: View, t: int, row=None, editor=None) -> None:
    """Without a text: the add button appends the seeded (editable) next row; beside it, the way back or the limit
    once there is one (a row only then: one element less). `row`: a row of controls to put the add button in (a
    projector's, beside the part control), `editor`: where the next row's editor goes (there, under the figure), the
    way back and the limit under it (the row above the figure, with four heads' names, had no room for them)."""
    t_ = v.t
    with editor or nullcontext():
        next_row = _next_token_editor(v, t)
    full_cache = t - len(v.x) >= MAX_ADDED
    if row is None:
        row = st.container(horizontal=True, vertical_alignment="center") if t > len(v.x) or full_cache else st
    row.button(t_("kv_add", t=subscript(t + 1)), key="add_token", type="primary", on_click=_add, args=(next_row,),
               disabled=full_cache)
    if editor is not None and (t > len(v.x) or full_cache):
        row = editor.container(horizontal=True, vertical_alignment="center")
    if t > len(v.x):
        row.button(t_("kv_reset", n=len(v.x)), key="kv_reset", on_click=_reset)
    if full_cache:
        row.caption(t_("kv_added_cap", most=MAX_ADDED))


def offer_next_word(v: View, t: int, row=st) -> str:
    """With a text: the add button appends the word the next-token stage chooses, decoded here through the model's
    per-layer KV cache, to the text (the same act as that stage's append, so the link is the same after either).
    Returns the hint under the cache's state: the step shown, and the word that adding appends. `row`: where the
    button goes."""
    t_, ss = v.t, st.session_state
    most = next_word.context()
    word = next_word.next_word(v.cfg, v.x) if t < most else None
    row.button(t_("kv_add_word", t=subscript(t + 1)), key="add_token", type="primary", on_click=_add_word,
              args=(ss["text"], word.text if word else ""), disabled=word is None or word.text is None)
    shown = t_.md("kv_hint_word", token=short(v.tokens[-1], WORD_MOST), t=subscript(t))
    if word is None:
        return t_.sentences(shown, t_("next_full", most=most))
    if word.text is None:
        return t_.sentences(shown, t_.md("next_partial", token=word.token))
    choice = ss.get("choice", "greedy")
    return t_.sentences(shown, t_.md(f"kv_next_word_{choice}", token=short(word.token, WORD_MOST),
                                     p=f"{word.probs[word.id]:.4f}",
                                     temperature=f"{float(ss.get('temperature', 1.0)):g}"))


def _add_word(text: str, token: str) -> None:
    session.append_word(text, token)
    st.session_state["kv_grown"] = True


def token_axes(fig) -> tuple[str, ...]:
    """The axes that count tokens and write their ticks: the rows of every panel that labels its rows (Q's, which
    name the K and V rows beside them, and S's; on a phone each panel's, the K and V caches' too) and S's keys."""
    layout = fig.to_dict()["layout"]
    rows = (a for a, spec in layout.items() if a.startswith("yaxis") and spec.get("showticklabels", True))
    return (*rows, "xaxis4")


def seeded_rows(v: View) -> np.ndarray:
    """X followed by the tokens added so far (those that still fit d_model)."""
    added = [np.asarray(r, float) for r in st.session_state.get("kv_added", [])]
    kept = [r for r in added if r.shape == (v.cfg.d_model,)]
    if len(kept) < len(added):
        st.warning(v.t("kv_dropped_rows", d=v.cfg.d_model))
    return np.vstack([v.x, *kept]) if kept else v.x


def _next_token_editor(v: View, t: int) -> np.ndarray:
    """The next token: seeded, editable in an expander (its grid is built only while it is open)."""
    ss = st.session_state
    if ss.get("kv_next_for") != (t, v.cfg):
        ss["kv_next_base"] = mha.next_token(v.cfg, t)[None]
        ss["kv_next_for"] = (t, v.cfg)
    panel = st.expander(v.t("kv_next", t=subscript(t + 1)), key="kv_next_open", on_change="rerun")
    if panel.open:
        with panel:
            editor.matrix_editor("kv_next", "kv_next_base", ss["kv_next_base"], [f"X{subscript(t + 1)}"], v.t,
                          generation=t)
    return ss["kv_next_base"][0]


def _add(row: np.ndarray) -> None:
    st.session_state.setdefault("kv_added", []).append(np.array(row, float))


def _reset() -> None:
    st.session_state["kv_added"] = []


def cache_step(v: View, d: Decoded) -> CacheStep:
    """The last token's step for the chosen head (its kv head's K and V, or MLA's latent), with S, H and Y of the
    tokens before it, and its words; a window's rows are the tokens it holds."""
    h, wt, step, full, before = v.head, v.t, d.step, d.full, d.before
    held, L = d.held, len(d.held)
    pos = L - 1 if d.variant == "mla" else step.pos  # the new token's position, from 0
    t = pos + 1  # its number: X_t
    sub = subscript(t)
    n = t if d.labels else L  # the row of the figure the new token takes, as its ticks call it
    s_name, h_name = v.head_name("S"), v.head_name("H")
    shared = d.cfg is not None and d.cfg.kv_heads < v.cfg.n_heads  # K and V named by the kv head read
    k_name, v_name = (name(x, str(d.group + 1)) if shared else v.head_name(x) for x in "KV")
    names = dict(q=v.head_name("Q").html, k=wt("kv_name_k", k=k_name.html), v=wt("kv_name_v", v=v_name.html),
                 s=s_name.html, h=h_name.html, y="Y")
    earlier = held[:-1]
    span = wt.rows(1, t - 1) if t > 1 else ""
    # every earlier row of Y stays, a window's too: it limits only what the new query reads (audit 2026-12-07 #8)
    ys = said_tokens(range(t - 1), wt("list_sep")).replace("X", "Y")
    had = said_tokens(d.held_before, wt("list_sep"))  # what the cache held when X_t arrived (a window drops its oldest)
    gone = [p for p in d.held_before if p not in held]  # a window's token that leaves as X_t arrives (audit #8)
    kept = said_tokens([p for p in d.held_before if p in held], wt("list_sep"))
    arrive = (wt("kv_arrive_evict", t=sub, gone=said_tokens(gone, wt("list_sep")), tokens=kept) if gone and kept
              else wt("kv_arrive_evict_all", t=sub, gone=said_tokens(gone, wt("list_sep"))) if gone
              else wt("kv_arrive_mla" if d.variant == "mla" else "kv_arrive", t=sub, tokens=had) if len(d.held_before)
              else wt("kv_arrive_first", t=sub))
    words = dict(
        arrive=arrive,
        append=wt("kv_append", t=sub, n=n),
        scores=wt("kv_scores", t=sub, n=n, d_k=v.cfg.d_k),
        softmax=wt("kv_softmax", n=n, s=s_name.plain),
        drop_q=wt("kv_drop_q", rows=span, t=sub) if t > 1 else wt("kv_drop_q_first", t=sub),
        output=(wt("kv_output", t=sub, n=n, s=s_name.plain, h=h_name.plain, ys=ys) if t > 1
                else wt("kv_output_first", t=sub, n=n, s=s_name.plain, h=h_name.plain)),
        legend=legend(v, d),
        drop_q_note=wt("kv_drop_q_note", rows=span) if t > 1 else "",
        done_q_note=wt("kv_drop_q_note", rows=wt.rows(1, t)),  # the output's frame: q_t is done with too
        steps=[wt(f"kv_step_{k}") for k in STEPS], play=wt("play"), pause=wt("pause"),
        slider=wt("anim_slider"), slider_step=wt.template("anim_step_text"),
        last_rows=wt.template("kv_last_rows"), first_cols=wt.template("kv_first_cols"),
        rows_drawn=wt.ranged("kv_rows_drawn"),
        last_cols=wt.template("kv_last_cols"), token=wt("token"), col=wt("cols_of"),
    )
    words.update(_changed_words(v, d, sub, n, ys))
    words["scores_note"] = wt("kv_scores_where", n=n, s=s_name.plain)  # not yet S, though drawn in it
    if d.variant == "mla":
        if t > 1:  # no K cache: the query meets the latent rows
            words["drop_q"] = wt("kv_drop_q_mla", rows=span, t=sub, **MLA_W)
        names.update(q=f"{v.head_name('Q').html}·{MLA_W['w_uk']}ᵀ", k=wt("kv_mla_c"),
                     v=wt("kv_mla_v", v=v.head_name("V").html, **MLA_W))
        w = d.mla
        c = d.cache.latent
        scaled = step.q_absorbed[h] @ c.T / np.sqrt(w.d_k)
        head = step.probs[h] @ c @ w.w_uv[h]
        q, k, vv = full.q_absorbed[h], c, c @ w.w_uv[h]
        probs, y_t = step.probs[h], step.y
    else:
        q, k, vv = full.q_rot[h][held], d.cache.k[d.group], d.cache.v[d.group]
        scaled, probs, head, y_t = step.scaled[h], step.probs[h], step.heads[h], step.y
    if before is not None and L > 1:
        s_prev = before.probs[h][np.ix_(earlier, earlier)]
        h_prev, y_prev = before.heads[h][earlier], before.y[earlier]
    else:
        s_prev, h_prev, y_prev = np.zeros((0, 0)), np.zeros((0, v.cfg.d_v)), np.zeros((0, v.cfg.d_model))
    return CacheStep(q, k, vv, s_prev, h_prev, y_prev, scaled, probs, head, y_t, names, words, d.labels)


def legend(v: View, d: Decoded) -> str:
    """What the step's boxes mean: the dotted one round the rows held before X_t arrived, the solid one round the new
    row (in the figure; on a projector under it, in the page)."""
    wt, held = v.t, d.held
    L = len(held)
    t = (L - 1 if d.variant == "mla" else d.step.pos) + 1
    n = t if d.labels else L
    if L < 2:
        return wt("kv_legend_first", n=n)
    rows = wt("kv_rows_held", tokens=said_tokens(held[:-1], wt("list_sep"))) if d.labels else wt.rows(1, t - 1)
    return wt("kv_legend", rows=rows, t=subscript(t), n=n)


def _changed_words(v: View, d: Decoded, sub: str, n: int, ys: str) -> dict:
    """The captions a variant changes: who shares k and v, the window's keeping and leaving, the rotation, ALiBi's
    bias, MLA's latent."""
    wt, cfg, h = v.t, d.cfg, v.head
    if d.variant == "mla":
        s_name, h_name = v.head_name("S"), v.head_name("H")
        return dict(append=wt("kv_append_mla", t=sub, n=n, **MLA_W), scores=wt("kv_scores_mla", t=sub, n=n,
                                                                               d_k=v.cfg.d_k, **MLA_W),
                    output=wt("kv_output_mla", t=sub, n=n, s=s_name.plain, h=h_name.plain, ys=ys or "—", **MLA_W))
    if cfg is None:
        return {}
    out = {}
    if cfg.window:
        gone = sorted(set(d.held_before.tolist()) - set(d.held.tolist()))  # what this step pushed out
        kept = (wt("kv_keep_sinks", s=cfg.sinks, w=cfg.window) if cfg.sinks else wt("kv_keep_window", w=cfg.window))
        out["append"] = wt("kv_append_window", t=sub, kept=kept,
                           gone="".join(wt("kv_gone", x=subscript(p + 1)) for p in gone))
    elif cfg.rotary_dims:
        out["append"] = wt("kv_append_rope", t=sub, p=d.step.pos, r=cfg.rotary_dims, d_k=v.cfg.d_k)
    elif (size := v.cfg.n_heads // cfg.kv_heads) > 1:
        out["append"] = wt("kv_append_group", t=sub, n=n, g=d.group + 1, heads=said_heads(d.group, size))
    if cfg.alibi:
        out["scores"] = wt("kv_scores_alibi", t=sub, n=n, d_k=v.cfg.d_k, m=f"{mha.alibi_slopes(v.cfg.n_heads)[h]:g}")
    return out


def weight_gone(v: View, d: Decoded) -> str:
    """For a window: each dotted row of S (a query computed before X_t arrived) that gave weight to tokens the cache
    no longer holds, said with that weight; its drawn weights then add up to less than 1 (audit 2026-12-04 #8). ""
    when none did."""
    if d.before is None or d.cfg is None or not d.cfg.window or len(d.held) < 2:
        return ""
    t, h, earlier = v.t, v.head, d.held[:-1]
    rows = d.before.probs[h][earlier]  # each earlier query's softmax over every key of its time
    gone = np.ones(rows.shape[1], bool)
    gone[earlier] = False
    said = []
    for p, row in zip(earlier, rows):
        w = float(row[gone].sum())
        if w >= 5e-4:
            said.append(t("kv_weight_gone", row=p + 1, s=v.head_name("S").plain, w=f"{w:.3f}",
                          gone=said_tokens(np.flatnonzero(gone & (row > 0)), t("list_sep")), kept=f"{1 - w:.3f}"))
    return t.sentences(*said) if said else ""


def proof(v: View, d: Decoded) -> str:
    """The check, as Markdown: the step's rows against a full recompute on the same numbers, with the same variant;
    a window's length against its bound."""
    t_, full, step = v.t, d.full, d.step
    t = len(full.y)
    prefix = float(np.max(np.abs(d.before.y - full.y[:-1])))
    last = float(np.max(np.abs(step.y - full.y[-1])))
    row = np.zeros((v.cfg.n_heads, t))  # the cached step's S row, a held key at its position, 0 for the others
    row[:, d.held] = step.probs
    s_row = float(np.max(np.abs(row - full.probs[:, -1, :])))
    sub = subscript(t)
    exact = t_("kv_exact") if prefix == 0 else t_("kv_rounding", value=f"{prefix:.3g}") if prefix < ROUNDING else None
    table = [(t_("kv_proof_prefix", t=sub, rows=t_.rows(1, t - 1)), exact or f"{prefix:.3g}"),
             (t_("kv_proof_last", t=sub), f"{last:.3g}"), (t_("kv_proof_s", t=t), f"{s_row:.3g}")]
    if d.cfg is not None and d.cfg.window:
        most, held = d.cfg.sinks + d.cfg.window, len(d.cache)
        said = t_("kv_proof_held" if d.cfg.sinks else "kv_proof_held_window", most=most)
        table.append((said, f"{held} {'≤' if held <= most else '>'} {most}"))
    out = f"**{t_('kv_proof_title')}**\n\n{markdown_table([t_('kv_proof_what'), t_('kv_proof_delta')], table)}"
    if d.variant != "mha":
        out += "\n\n" + t_("kv_proof_same", variant=t_(f"variant_{d.variant}"), n=t)
    return out
