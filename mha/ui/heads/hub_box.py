"""The page's side of fetching a GPT-2 from the Hugging Face Hub (hub.py): a box for its id under the checkpoint
picker, only where the server names a folder for it (MHA_HUB). The id stays with the tab: no link carries it; the
fetched checkpoint is then one the server offers, and a link names it as any other (`ckpt=`)."""

import streamlit as st

import mha

from .. import checkpoints, hub
from ..strings import Text, md_escape
from . import real

SAID = "hub_said"  # session key: what the last fetch did, said once under the box (kind, Markdown)


def render(t: Text) -> None:
    home = hub.folder()
    if home is None:
        return
    box = st.container(horizontal=True, vertical_alignment="bottom")
    box.text_input(t("hub_label"), key="hub_id", max_chars=hub.ID_MOST, placeholder=hub.EXAMPLES[0],
                   help=t("hub_help", folder=md_escape(str(home)), mb=checkpoints.megabytes(checkpoints.budget()),
                          variable=md_escape(checkpoints.BUDGET), first=bold(hub.EXAMPLES[0]),
                          second=bold(hub.EXAMPLES[1])))
    box.button(t("hub_fetch"), key="hub_fetch", on_click=_fetch)
    say()


def say() -> None:
    """What the last fetch did, once: under the box, or above the model it fetched."""
    if said := st.session_state.pop(SAID, None):
        kind, words = said
        (st.success if kind == "done" else st.error)(words)


def _fetch() -> None:
    """Fetch the typed id and choose it (the page runs until the files are here: its help says a large model takes
    minutes)."""
    ss = st.session_state
    t = Text(ss["lang"])
    try:
        name = hub.fetch(ss.get("hub_id") or "")
    except checkpoints.TooLarge as e:
        ss[SAID] = ("error", real.too_large(t, e, md_escape(e.name)))
        return
    except hub.HubError as e:
        fields = {k: md_escape(v) if isinstance(v, str) else v for k, v in e.fields.items()}
        if "repo" in fields:
            fields["repo"] = bold(e.fields["repo"])
        if e.key == "bad_id":
            fields.update(form=bold("owner/model"), marks=" ".join(map(bold, ".-_")))
        ss[SAID] = ("error", t(f"hub_{e.key}", **fields))
        return
    except mha.InputError as e:
        ss[SAID] = ("error", t("real_error", name=md_escape(ss.get("hub_id", "")[:hub.ID_MOST]),
                               error=real.failure(t, e)))
        return
    ss["ckpt"] = name
    ss[SAID] = ("done", t("hub_done", name=bold(name)))


def bold(text: str) -> str:
    return f"**{md_escape(text)}**"
