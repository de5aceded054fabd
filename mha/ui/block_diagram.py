"""The block as a Graphviz graph in either order (pre-LN or post-LN), the part shown outlined: the block stage's
diagram, sized for each screen."""

from mha import figures as F
from mha.figures.text import text_px

from .screen import DIAGRAM_PT

MARKED = {"pre": {"ln1": ("ln1",), "attn": ("attn", "add1"), "ffn": ("ln2", "ffn"), "gelu": ("ffn",),
                  "out": ("ffn", "add2")},
          "post": {"attn": ("attn", "add1"), "ln1": ("ln1",), "ffn": ("ffn",), "gelu": ("ffn",),
                   "out": ("ffn", "add2", "ln2")}}
DIAGRAM = """digraph {{ rankdir={rankdir};{graph}
node [shape=box, style="rounded,filled", fillcolor="#eef2ff", fontname="sans-serif"{font}];
x [label="X"]; ln1 [label="{ln1}"{w_ln1}{m_ln1}]; attn [label="{attn}", fillcolor="#fde68a"{w_attn}{m_attn}];
add1 [label="+", shape=circle{m_add1}]; ln2 [label="{ln2}"{w_ln2}{m_ln2}]; ffn [label="{ffn}"{w_ffn}{m_ffn}];
add2 [label="+", shape=circle{m_add2}]; y [label="Y"];
{edges} }}"""
EDGES = {  # the residual stream runs along the dashed edges
    "pre": "x -> ln1 -> attn -> add1 -> ln2 -> ffn -> add2 -> y; x -> add1 [style=dashed]; "
           "add1 -> add2 [style=dashed];",
    "post": "x -> attn -> add1 -> ln1 -> ffn -> add2 -> ln2 -> y; x -> add1 [style=dashed]; "
            "ln1 -> add2 [style=dashed];",
}
MARK = ', color="#c2410c", penwidth=3'  # the app's primary colour: the part shown below
# (rankdir, graph attributes, node attributes) by screen: the desk's are Graphviz's defaults; a projector's and a
# phone's labels are DIAGRAM_PT (screen.py's CSS sets them so). A phone draws top to bottom, boxes and gaps tight: left
# to right the graph shrank to its 358 px and its labels to 7 px.
GRAPH = {"desk": ("LR", "", ""), "present": ("LR", "", f", fontsize={DIAGRAM_PT['present']}"),
         "phone": ("TB", " ranksep=0.2;", f", fontsize={DIAGRAM_PT['phone']}, height=0.3")}
NODES = ("ln1", "attn", "add1", "ln2", "ffn", "add2")  # the boxes a part can outline


def diagram(t, part: str, ln: str = "pre", look: F.Look = F.DESK) -> str:
    """The block as a graph in the order `ln`, the nodes of `part` outlined, drawn for the screen of `look`."""
    marks = {f"m_{node}": MARK if node in MARKED[ln][part] else "" for node in NODES}
    screen = "phone" if look.narrow else "present" if look == F.PRESENT else "desk"
    rankdir, graph, font = GRAPH[screen]
    labels = {node: t(f"block_node_{node}") for node in ("ln1", "attn", "ln2", "ffn")}
    # Graphviz's own measure of a label runs short for Chinese: a box as wide as the page's font writes it, 8 pt
    # clear each side (Graphviz's margin). The desk's labels, Streamlit's 9.6 pt, fit its boxes.
    widths = {f"w_{node}": "" if screen == "desk" else f", width={(text_px(label, DIAGRAM_PT[screen]) + 16) / 72:.2f}"
              for node, label in labels.items()}
    return DIAGRAM.format(**labels, edges=EDGES[ln], rankdir=rankdir, graph=graph, font=font, **marks, **widths)
