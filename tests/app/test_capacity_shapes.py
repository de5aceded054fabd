"""bench/capacity.py tells a rerun that recomputed from one that did not by the shapes its elements show: read
from the app's own elements, a matrix chart's figure gives the shapes of its heatmaps."""

import importlib.util
import sys
from pathlib import Path

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from .helpers import _elements, chart_data, run

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _capacity():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("capacity", BENCH / "capacity.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def test_the_load_generator_reads_the_scores_charts_shapes_from_its_element():
    capacity = _capacity()
    for n in (3, 4):
        (chart,) = [node for node in _elements(run(stage="scores", n_tokens=n)._tree) if chart_data(node) is not None]
        msg = ForwardMsg()
        msg.hash = f"scores-{n}"
        msg.delta.new_element.html.body = chart.proto.body
        assert (n, n) in capacity.element_shapes(msg)
