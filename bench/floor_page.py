"""Streamlit's floor for the scores view: the same elements as the app's `?stage=scores`, none of the app's work.

Not part of the app. `python bench/capacity.py --page bench/floor_page.py` and `python bench/ui_latency.py --page
bench/floor_page.py --views scores` serve it in place of app.py: the server's CPU per rerun and the browser's time
that any Streamlit 1.67 page drawing these elements pays, against which the app's own share can be told apart.

The page makes the app's calls in the app's order, with the app's widget keys, options, labels (English) and its
scores figure, but every value is fixed or built once per n_tokens: no session set-up, no weights or trace, no
link written, no figure cache looked up. tests/app/test_floor_page.py checks that its elements are the app's.

`FLOOR_CHART` in the environment puts something else in the chart's place, to tell how much of the floor the
renderer is: `app` (the default) the app's figure drawn as the app draws it (mha/ui/matrix_chart.js, an SVG in the
page); `plotly` the same figure drawn by Plotly, as the app drew it until the SVG; `tiny` a 2×2 Plotly heatmap
(what any Plotly chart costs); `none` nothing.

    FLOOR_CHART=plotly python bench/ui_latency.py --page bench/floor_page.py --views scores
"""

import os
import sys
from pathlib import Path

import plotly.graph_objects as go
import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import mha  # noqa: E402
from mha import figures as F  # noqa: E402
from mha.figures.base import Spec  # noqa: E402
from mha.ui import (  # noqa: E402
    models,
    primes,  # noqa: E402
    screen,
    walk,
)
from mha.ui import settings as S  # noqa: E402
from mha.ui.chart import chart_config, clickable, clickable_chart, picked  # noqa: E402
from mha.ui.prose import header  # noqa: E402
from mha.ui.sidebar import LANGUAGE_NAMES  # noqa: E402
from mha.ui.stages.scores import PHASES, _formula, _model_steps  # noqa: E402
from mha.ui.strings import Text  # noqa: E402
from mha.ui.view import View

t = Text("en")
SIZES = dict(n_tokens=3, d_model=5, d_k=7, d_v=11, n_heads=2)
CHART = os.environ.get("FLOOR_CHART", "app")
if CHART not in ("app", "plotly", "tiny", "none"):
    raise SystemExit(f"FLOOR_CHART={CHART!r}: use app, plotly, tiny or none")


def steps(n: int) -> F.ScoreSteps:
    cfg = mha.AttentionConfig(**(SIZES | {"n_tokens": n}))
    return _model_steps(View(t, cfg, mha.init_weights(cfg), mha.init_input(cfg), head=0, text=True))


@st.cache_resource
def figure(n: int) -> Spec:
    """The app's scores figure for the post's sizes with n tokens, head 1, clickable: built once per n."""
    return clickable(F.scores_animation(steps(n), text=True, look=F.DESK, phase="s"))


ss = st.session_state
for key, value in dict(SIZES, lang="en", stage="scores", model="seeded", preset="post", d_ff=20, seed=0,
                       integers=False, head=1, cell_values=True, present=False, phase="s").items():
    ss.setdefault(key, value)

st.set_page_config(page_title="MHA Explorer", page_icon="🔢", layout="wide", initial_sidebar_state="auto")


@st.fragment(run_every="1h")
def reconnect() -> None:
    """Draws nothing, like the app's (mha.ui.session._run_on_reconnect): a page with a timed fragment reruns when it
    reconnects to a restarted server."""


reconnect()
with st.sidebar:
    st.segmented_control(t("lang"), S.LANGS, format_func=LANGUAGE_NAMES.get, key="lang", required=True)
    st.radio(t("sidebar_walk"), walk.STAGES, format_func=lambda s: walk.nav_title(t, s, "seeded"), key="stage")
    st.segmented_control(t("model"), models.offered_models(), format_func=lambda m: t(f"model_{m}"), key="model",
                         required=True, help=t("model_help"))
    st.selectbox(t("preset"), [*S.PRESETS, "custom"], format_func=lambda p: t(f"preset_{p}"), key="preset")
    for key in S.SIZES:
        st.number_input(t(key), 1, S.LIMITS[key], step=1, key=key)
    if primes.distinct_primes(ss):
        st.caption(t("primes_yes"))
    elif primes.primes_but_n(ss):
        st.caption(t("primes_but_n", n=ss["n_tokens"]))
    else:
        st.caption(t("primes_no"))
        st.button(t("primes_fix"), key="make_primes", help=t("primes_fix_help"))
    st.number_input(t("seed"), 0, S.LIMITS["seed"], step=1, key="seed")
    st.expander(t("sidebar_view"), icon=":material/tune:", key="options_open", on_change="rerun")
    st.expander(t("room_panel"), icon=":material/groups:", key="room_panel_open", on_change="rerun")
    st.expander(t("share"), icon=":material/link:", key="share_open", on_change="rerun")
    st.expander(t("sidebar_export"), icon=":material/download:", key="downloads_open", on_change="rerun")
st.markdown(f"# {t('app_title')}\n\n:gray[:small[{t('app_tagline')} {t('credit')}]]")  # one element, not two
screen.look(False, t("png_save"), t("upload_button"), "scores")
n = int(ss["n_tokens"])
header(t, "scores", F.DESK, h=1)
st.segmented_control(t("head"), [1, 2], key="head", required=True, persist_state="session")
st.toggle(t("mask_example"), key="example", help=t("mask_example_help"))
_formula(1, 7, F.DESK)
LABELS = dict(qkt=t("phase_qkt"), scaled=t("phase_scaled", d_k=7), masked=t("phase_masked"), s=t("phase_s"))
st.caption(t("scores_play_hint", steps=t("list_sep").join(LABELS.values())))


@st.fragment
def step_control() -> None:  # the app's step buttons: a fragment of their own, which the chart's frame moves
    st.segmented_control(t("phase"), PHASES, format_func=LABELS.get, key="phase", required=True,
                         label_visibility="collapsed")


@st.fragment
def chart() -> None:
    step_control()
    hint = lambda cell: st.caption(t("click_hint", name="S₁"))  # noqa: E731
    if CHART == "app":
        clickable_chart(("floor", n), lambda: F.scores_animation(steps(n), text=True, look=F.DESK, phase="s"), "scores")
        picked("scores", lambda cell: False, hint)
        return
    if CHART == "plotly":
        st.plotly_chart(figure(n), key="scores", on_select="rerun", selection_mode="points", width="content",
                        config=chart_config("scores"), theme=None)
    elif CHART == "tiny":
        st.plotly_chart(go.Figure(go.Heatmap(z=[[1, 2], [3, n]])), key="scores", theme=None)
    with st.container():  # the block the app's `picked` fragment is
        hint(None)


chart()
st.expander(t("code_title"), key="code_view", on_change="rerun")
nav = st.container(horizontal=True, horizontal_alignment="distribute")
nav.button(t("prev"), key="prev_stage")
nav.button(t("next"), key="next_stage")
