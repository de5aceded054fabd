"""Every head of every layer as thumbnails (a real model's heads stage): each head's pattern whole, square cells, a
row per layer, inside the screen's width, the chosen layer boxed, and nothing Plotly or the page would not draw."""

import numpy as np
import plotly.graph_objects as go
import pytest

from mha import figures as F
from mha.figures import schema
from mha.figures.thumbs import thumbs_figure

RNG = np.random.default_rng(0)


def patterns(layers: int, heads: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Causal softmax rows of random scores, and where the mask took a cell."""
    scores = RNG.normal(size=(layers, heads, n, n))
    masked = np.triu(np.ones((n, n), bool), 1) & np.ones((layers, heads, 1, 1), bool)
    e = np.exp(np.where(masked, -np.inf, scores))
    return e / e.sum(-1, keepdims=True), masked


def draw(layers: int, heads: int, n: int, look: F.Look, chosen: int | None = 1):
    maps, masked = patterns(layers, heads, n)
    names = [[f"S{i}.{j}" for j in range(heads)] for i in range(layers)]
    spec = thumbs_figure(maps, masked, names, layer_word="layer", head_word="head", row_label="token",
                         col_label="key", look=look, chosen=chosen).to_dict()
    return spec, maps, masked


def panels(spec: dict) -> list[tuple[float, float, float, float]]:
    """Each heatmap's box in px (left, top, right, bottom), in trace order."""
    w, h, out = spec["layout"]["width"], spec["layout"]["height"], []
    for t in spec["data"]:
        xs = spec["layout"]["xaxis" + t["xaxis"][1:]]["domain"]
        ys = spec["layout"]["yaxis" + t["yaxis"][1:]]["domain"]
        out.append((xs[0] * w, (1 - ys[1]) * h, xs[1] * w, (1 - ys[0]) * h))
    return out


@pytest.mark.parametrize("layers, heads, n", [(2, 2, 10), (3, 4, 48), (12, 12, 64)])  # GPT-2 small's heads at the end
@pytest.mark.parametrize("look", [F.DESK, F.PRESENT, F.PHONE], ids=["desk", "present", "phone"])
def test_each_head_is_drawn_whole_with_square_cells_a_row_per_layer_within_the_screen(layers, heads, n, look):
    spec, maps, masked = draw(layers, heads, n, look)
    go.Figure(spec)  # Plotly knows every property
    assert schema.problems(spec) == []  # and the page's SVG draws all of it as Plotly would
    assert len(spec["data"]) == layers * heads and spec["layout"]["width"] <= look.max_w + 1
    boxes = panels(spec)
    for k, (t, (left, top, right, bottom)) in enumerate(zip(spec["data"], boxes)):
        lay, head = divmod(k, heads)
        z = np.array([[np.nan if v is None else v for v in row] for row in t["z"]])
        assert z.shape == (n, n) and np.array_equal(np.isnan(z), masked[lay, head])  # whole, untrimmed
        assert np.allclose(z[~masked[lay, head]], maps[lay, head][~masked[lay, head]])
        assert right - left == pytest.approx(bottom - top) and right - left >= n * 0.2  # square
        assert t["zsmooth"] == "fast" and not t.get("texttemplate")  # an image, no numbers
    lefts, tops = sorted({round(b[0], 3) for b in boxes}), sorted({round(b[1], 3) for b in boxes})
    assert len(lefts) == heads and len(tops) == layers  # a column per head, a row per layer
    side = boxes[0][2] - boxes[0][0]
    assert all(b - a > side for a, b in zip(lefts, lefts[1:])) and all(b - a > side for a, b in zip(tops, tops[1:]))


def test_the_chosen_layer_is_boxed_and_its_number_bold():
    spec, _, _ = draw(3, 2, 8, F.DESK, chosen=1)
    w, h = spec["layout"]["width"], spec["layout"]["height"]
    (box,) = spec["layout"]["shapes"]
    x0, x1, top, bottom = box["x0"] * w, box["x1"] * w, (1 - box["y1"]) * h, (1 - box["y0"]) * h
    inside = [x0 < left and right < x1 and top < up and down < bottom for left, up, right, down in panels(spec)]
    assert inside == [False, False, True, True, False, False]  # layer 2's two heads, and no other
    numbers = [a["text"] for a in spec["layout"]["annotations"] if a["text"].strip("<b>/").isdigit()]
    assert "<b>2</b>" in numbers and "<b>1</b>" not in numbers and "<b>3</b>" not in numbers
    assert not draw(3, 2, 8, F.DESK, chosen=None)[0]["layout"]["shapes"]


def test_the_layer_and_head_words_are_level():
    """Turned on its side, 层 would be read sideways."""
    spec, _, _ = draw(2, 2, 8, F.DESK)
    words = [a for a in spec["layout"]["annotations"] if a["text"] in ("layer", "head")]
    assert len(words) == 2 and all(a["textangle"] == 0 for a in words)
