"""Every figure the page's matrix charts draw keeps to the part of Plotly's format that matrix_chart.js reads
(mha/figures/schema.py): the walk's stages as the app builds them, at the post's sizes and large ones, from a text, on a
projector in Chinese, on a phone, with the trained model, and the parts, steps and quiz that change a figure."""

import pytest

from mha.figures import schema
from mha.ui import settings as S
from mha.ui.chart import svg_draws

from .helpers import block_parts, keyed_charts, rerun, run

LONG = "a" * 40  # a token drawn shortened: its whole text is the tick's title (layout.meta.ticktitles)
VIEWS = {
    **{f"{stage}": dict(stage=stage) for stage in S.STAGES},
    **{f"{stage}-present-zh": dict(stage=stage, present=1, lang="zh") for stage in S.STAGES},
    **{f"{stage}-text": dict(stage=stage, text=f"the cat sat on the {LONG} mat") for stage in S.STAGES},
    **{f"{stage}-trained": dict(stage=stage, model="trained") for stage in ("tokens", "qk", "scores", "heads",
                                                                           "kv_cache", "block", "next_token")},
    **{f"{stage}-large": dict(stage=stage, n_tokens=64, d_model=130, d_k=64, d_v=64, n_heads=8)
       for stage in ("qk", "scores", "values", "heads", "output", "kv_cache")},
    # a token with a long tail of what draws nothing of its own: 200 keycaps, a flag's 300 tags (N5: negative widths)
    **{f"{stage}-tail-{kind}": dict(stage=stage, text=text, lang=lang)
       for stage in ("tokens", "qk", "values", "heads", "output", "kv_cache", "block", "next_token")
       for kind, text, lang in (("keycaps", "a b !" + "\u20e3" * 200 + " c", "en"),
                                ("tags", "\U0001f3f4" + "\U000e0067" * 300 + "\U000e007f x y", "zh"))},
    **{f"variants-{variant}-{part}-tail": dict(stage="variants", variant=variant, part=part,
                                               text="a b !" + "\u20e3" * 200 + " c")
       for variant in S.VARIANTS for part in ("change", "click")},
    "scores-example": dict(stage="scores", example="mask"),
    "scores-qkt": dict(stage="scores", phase="qkt"),
}
PHONE = ("matmul", "qk", "scores", "values", "heads", "output", "dependency", "kv_cache", "block", "next_token")


def matrix_figures(at) -> list[tuple[str, dict]]:
    return [(key, spec) for key, spec in keyed_charts(at) if svg_draws(spec)]


def assert_drawn_whole(at) -> int:
    figures = matrix_figures(at)
    for key, spec in figures:
        assert not schema.problems(spec), (key, schema.problems(spec))
    return len(figures)


@pytest.mark.parametrize("view", VIEWS)
def test_every_matrix_figure_is_one_the_page_draws_whole(view):
    at = run(cleared=10**9, **VIEWS[view])
    drawn = assert_drawn_whole(at)
    if at.session_state["stage"] == "block":
        for _, part in block_parts(at):
            drawn += assert_drawn_whole(part)
    assert drawn or VIEWS[view]["stage"] == "input"


@pytest.mark.parametrize("stage", PHONE)
def test_every_matrix_figure_on_a_phone_is_one_the_page_draws_whole(stage):
    at = run(stage=stage, phone=True)
    assert at.session_state["screen_phone"]
    assert assert_drawn_whole(at)


def test_a_quiz_and_a_clicked_cell_leave_a_figure_the_page_draws_whole():
    at = run(stage="qk")
    at.button(key="quiz_start_qk_q").click()
    assert assert_drawn_whole(rerun(at))
    at.session_state["sel_scores"] = (2, 1)
    at.session_state["stage"] = "scores"
    assert assert_drawn_whole(rerun(at))


def test_the_walk_holds_every_kind_of_figure_the_page_draws():
    """Not a vacuous walk: heatmaps, scatter layers and bars, frames with Play and a slider, outlines for a click,
    colour bars on both kinds of trace and shortened labels' titles are among the figures checked."""
    seen = set()
    for params in (dict(stage="scores"), dict(stage="qk"), dict(stage="next_token"), dict(stage="kv_cache"),
                   dict(stage="heads", text=f"the {LONG} sat")):
        for _, spec in matrix_figures(run(**params)):
            layout = spec["layout"]
            seen |= {t["type"] for t in spec["data"]} | {k for k in ("sliders", "updatemenus") if k in layout}
            seen |= set(layout.get("meta", {})) | {"frames"} if spec.get("frames") else set(layout.get("meta", {}))
            seen |= {"colorbar"} if any(t.get("colorbar") for t in spec["data"]) else set()
            seen |= {"marker.colorbar"} if any(t.get("marker", {}).get("colorbar") for t in spec["data"]) else set()
    assert seen >= {"heatmap", "scatter", "bar", "sliders", "updatemenus", "frames", "outline", "ticktitles",
                    "colorbar", "marker.colorbar"}, seen
