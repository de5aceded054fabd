"""The schema of the matrix charts' figures (mha/figures/schema.py) and their script (mha/ui/matrix_chart.js) name the
same attributes: the script reads every attribute the schema lists as read, none written for Plotly alone, and no
attribute the schema does not list. And the schema's check tells a figure the page draws whole from one it would not."""

import re
from pathlib import Path

from mha.figures import schema

SCRIPT = Path(__file__).resolve().parents[2] / "mha" / "ui" / "matrix_chart.js"
# Property names the script uses that are not a figure's: the browser's and JavaScript's, and the script's own objects
# (its state, geometry and text runs; window.mha's entries; a chart element's data attributes).
BROWSER = set("""abs addEventListener after append appendChild ariaLabel assign body classList className clear click
clientX clientY concat createElement createImageData createTextNode cursor dataset display download drawImage endsWith
entries exec fill filter findIndex flat fontSize fonts forEach fromCodePoint get getAttribute getBBox
getBoundingClientRect getContext getElementById getElementsByClassName has head href includes isArray isConnected isNaN
join left length map max min observe offsetWidth on onload parentNode parse pointerId pop position prepend
preventDefault push putImageData querySelector querySelectorAll random remove removeEventListener replace
replaceChildren round set setAttribute setPointerCapture slice split src status stopPropagation style test textContent
toDataURL toLowerCase toString toggle top transform trim values serializeToString""".split())
OWN = set("""H W a base cell charts clickable drawn fig filename h hi i id key labels lo m mark marks mha mhaDrawn
observer onCell opts paint place point px revision scale send show spec sub sup timer uid w markFrame outlined placed
plain onFrame settling sentFrame""".split())


def script_names() -> set[str]:
    """Every name the script reads as a property (a.b, a?.b), outside its comments and strings."""
    src = re.sub(r"//[^\n]*", "", SCRIPT.read_text())
    src = re.sub(r'"(?:[^"\\]|\\.)*"', '""', src)
    return set(re.findall(r"(?:(?<=[\w)\]])\.|\?\.)([A-Za-z_$][\w$]*)", src))


def test_the_script_reads_every_attribute_the_schema_lists_and_no_other():
    used, read = script_names(), schema.names("read")
    assert read - used == set(), "listed as read, never read by the script"
    assert used - read - BROWSER - OWN == set(), "read by the script, not in the schema"


def test_the_script_reads_nothing_written_for_plotly_alone():
    only_plotly = schema.names("plotly") - schema.names("read")
    assert only_plotly and not only_plotly & script_names()


def figure(**layout) -> dict:
    return {"data": [{"type": "heatmap", "z": [[1.0, None]], "xaxis": "x", "yaxis": "y"}],
            "layout": {"xaxis": {"range": [0.5, 2.5]}, "yaxis": {"range": [1.5, 0.5], "zeroline": False}, **layout}}


def test_the_check_names_what_the_page_would_not_draw_as_plotly_does():
    assert schema.problems(figure()) == []
    assert schema.problems(figure(annotations=[{"text": "a", "x": 0, "y": 0, "bgcolor": "#fff"}])) == [
        "layout.annotations[0].bgcolor: not drawn"]
    assert schema.problems(figure(xaxis2={"range": [0, 1], "zeroline": True})) == [
        "layout.xaxis2.zeroline: True is not drawn as Plotly draws it"]
    two = figure(sliders=[{"steps": []}, {"steps": []}])
    assert schema.problems(two) == ["layout.sliders: only the first 1 is drawn"]
    bad = figure()
    bad["data"].append({"type": "contour", "z": [[1]]})
    bad["data"][0]["texttemplate"] = "%{z:,.2f}"  # a thousands separator: not in the script's d3-format
    assert schema.problems(bad) == ["data[0].texttemplate: '%{z:,.2f}' is not drawn as Plotly draws it",
                                    "data[1].type: 'contour' is not drawn"]
