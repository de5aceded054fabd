"""The sidebar: language, the walk, sizes and seed, view options; containers for share and downloads."""

from urllib.parse import urlencode

import streamlit as st

import mha

from . import exports, session
from . import settings as S
from .strings import Text

LANGUAGE_NAMES = {"en": "English", "zh": "中文"}


def render(t: Text):
    """Draw the settings; return the (share, downloads) containers, filled once the view is known."""
    ss = st.session_state
    with st.sidebar:
        st.segmented_control(t("lang"), S.LANGS, format_func=LANGUAGE_NAMES.get, key="lang", required=True)
        st.radio(t("sidebar_walk"), S.STAGES, format_func=lambda s: t(f"stage_{s}"), key="stage")
        st.markdown(f"**{t('sidebar_sizes')}**")
        st.selectbox(t("preset"), [*S.PRESETS, "custom"], format_func=lambda p: t(f"preset_{p}"), key="preset",
                     on_change=session.apply_preset)
        for key in S.SIZES:
            st.number_input(t(key), 1, S.LIMITS[key], step=1, key=key, on_change=session.on_size_change)
        if S.distinct_primes(ss):
            st.caption(t("primes_yes"))
        else:
            st.caption(t("primes_no"))
            st.button(t("primes_fix"), on_click=session.make_primes, key="make_primes")
        st.number_input(t("seed"), 0, S.LIMITS["seed"], step=1, key="seed")
        st.toggle(t("integers"), key="integers", help=t("integers_help"), on_change=session.on_size_change)
        st.markdown(f"**{t('sidebar_view')}**")
        ss["head"] = min(ss["head"], ss["n_heads"])
        st.segmented_control(t("head"), list(range(1, ss["n_heads"] + 1)), key="head", required=True)
        st.toggle(t("cell_values"), key="cell_values", help=t("cell_values_help"))
        st.toggle(t("present"), key="present", help=t("present_help"))
        containers = st.container(), st.container()
        st.caption(t("credit"))
    return containers


def share(t: Text, params: dict[str, str]) -> None:
    """The link of this view, with Streamlit's copy button (built only while the panel is open)."""
    panel = st.expander(t("share"), icon=":material/link:", key="share_open", on_change="rerun")
    if panel.open:
        panel.code(f"{st.context.url or ''}?{urlencode(params)}", language=None, wrap_lines=True)
        panel.caption(t("share_help"))


def downloads(t: Text, cfg: mha.AttentionConfig, x, w: mha.Weights) -> None:
    """The view's every matrix; each file is built only when its button is clicked, and only up to a size."""
    st.markdown(f"**{t('sidebar_export')}**")
    values = exports.size(cfg)
    if values > exports.MAX_VALUES:
        st.caption(t("export_too_big", values=values, limit=exports.MAX_VALUES))
        return
    name = exports.stem(cfg)
    st.download_button(".npz", lambda: exports.to_npz(x, w), f"{name}.npz", "application/octet-stream",
                       key="download_npz", icon=":material/download:")
    st.download_button(".json", lambda: exports.to_json(x, w, cfg), f"{name}.json", "application/json",
                       key="download_json", icon=":material/download:")
    st.download_button(".csv (.zip)", lambda: exports.to_csv_zip(x, w), f"{name}-csv.zip", "application/zip",
                       key="download_csv", icon=":material/download:")
