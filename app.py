"""MHA Explorer: `streamlit run app.py`. Sidebar, then the one stage on screen, in the post's order."""

from urllib.parse import urlencode

import streamlit as st

import mha
from mha.ui import exports, session
from mha.ui import settings as S
from mha.ui.code import snippet
from mha.ui.stages import RENDER
from mha.ui.strings import Text
from mha.ui.views import View

presenting = st.query_params.get("present") == "1"  # a projector link opens with the sidebar folded
st.set_page_config(page_title="MHA Explorer", page_icon="🔢", layout="wide",
                   initial_sidebar_state="collapsed" if presenting else "auto")
session.start()
ss = st.session_state
t = Text(ss["lang"])


PRESENTER_CSS = """<style>
[data-testid="stMain"] [data-testid="stMarkdownContainer"] p { font-size: 1.4rem; line-height: 1.55; }
[data-testid="stMain"] h3 { font-size: 2.3rem; }
[data-testid="stMain"] .katex { font-size: 1.5em; }
</style>"""


@st.cache_resource(max_entries=8, ttl=3600, show_spinner=False)
def weights(d_model: int, d_k: int, d_v: int, n_heads: int, seed: int, init: str) -> mha.Weights:
    """Read-only weights shared by every session with the same sizes and seed."""
    return mha.init_weights(mha.AttentionConfig(1, d_model, d_k, d_v, n_heads, seed, init))


with st.sidebar:
    st.segmented_control(t("lang"), S.LANGS, format_func={"en": "English", "zh": "中文"}.get, key="lang",
                         required=True)
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
    share, downloads = st.container(), st.container()
    st.caption(t("credit"))

if ss["present"]:
    st.html(PRESENTER_CSS)
st.title(t("app_title"))
st.caption(t("app_tagline"))
for notice in ss.get("notices", []):
    st.warning(t(notice.key, **notice.fields))

cfg = session.config()
x = session.current_x(cfg)
view = View(t, cfg, weights(cfg.d_model, cfg.d_k, cfg.d_v, cfg.n_heads, cfg.seed, cfg.init), x, ss["head"] - 1,
            ss["cell_values"])
try:
    RENDER[ss["stage"]](view)
except mha.InputError as e:
    st.error(t("error_overflow") if "overflow" in str(e) else t("error_input", message=e))
with downloads:
    st.markdown(f"**{t('sidebar_export')}**")
    w, xb, name = view.w, ss["x_base"], exports.stem(cfg)
    st.download_button(".npz", lambda: exports.to_npz(xb, w), f"{name}.npz", "application/octet-stream",
                       key="download_npz", icon=":material/download:")
    st.download_button(".json", lambda: exports.to_json(xb, w, cfg), f"{name}.json", "application/json",
                       key="download_json", icon=":material/download:")
    st.download_button(".csv (.zip)", lambda: exports.to_csv_zip(xb, w), f"{name}-csv.zip", "application/zip",
                       key="download_csv", icon=":material/download:")
if code := snippet(ss["stage"]):
    code_view = st.expander(t("code_title"), key="code_view", on_change="rerun")
    if code_view.open:  # built only when opened
        code_view.code(code, language="python")

i = S.STAGES.index(ss["stage"])
prev_col, _, next_col = st.columns([1, 4, 1])
if i > 0:
    prev_col.button(t("prev"), on_click=session.go_to, args=(S.STAGES[i - 1],), key="prev_stage")
if i < len(S.STAGES) - 1:
    next_col.button(t("next"), on_click=session.go_to, args=(S.STAGES[i + 1],), key="next_stage")
params = session.link_params(cfg, ss["x_base"])
session.write_url(params)
with share:
    panel = st.expander(t("share"), icon=":material/link:", key="share_open", on_change="rerun")
    if panel.open:
        panel.code(f"{st.context.url or ''}?{urlencode(params)}", language=None, wrap_lines=True)
        panel.caption(t("share_help"))
