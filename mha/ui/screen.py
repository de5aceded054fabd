"""Which screen the page is drawn for: a desk window, a projector (presenter mode) or a phone.

Figures are built on the server at a fixed pixel size, so the server must know the window's width. A
tiny component reports whether the window is at most PHONE_MAX px wide, once when the page opens and again
when the window crosses that width; only a change of answer causes a rerun. It also reports, once, a page
opened from a link longer than Streamlit reads (which then reaches the server as no link at all). The same
component sets the page's type for its screen (PAGE_CSS, and PRESENTER_CSS on a projector) in the document's
head: one element of a rerun fewer than an st.html of its own, and a style sheet that is replaced only when it
changes. Its script carries the matrix charts' (chart.LIB), and the style sheet their CSS (chart.py).
"""

import streamlit as st
from streamlit.runtime.state.query_params import CLIENT_STATE_QUERY_STRING_MAX_FIELDS as LINK_FIELDS
from streamlit.runtime.state.query_params import CLIENT_STATE_QUERY_STRING_MAX_LENGTH as LINK_CHARS

from mha import figures as F

from . import chart
from .settings import Notice

PHONE_MAX = 640  # px: narrower windows get the phone layout
# Graphviz labels (st.graphviz_chart; the block stage's diagram), in the graph's points: Streamlit sets every label to
# 9.6 (12.8 px drawn at a graph's 4/3 px a point) whatever the graph asks for. A projector and a phone set them to the
# size the graph was laid out for: 17 pt (22.6 px drawn, as a projector's 22.4 px prose) and 12 pt (16 px, a phone's).
DIAGRAM_PT = {"present": 17, "phone": 12}

# A projector: prose, captions (st.caption, Markdown's :small[…] and the tokens' count, whose type is set inline), the
# diagram's labels and formulas larger (figures are built larger for it: figures.PRESENT; what the charts' script draws
# besides, their hover labels and PNG buttons, larger here), a number box's value as large as its label, the app's
# own title at the page's foot (app.py) and the page starting higher, so that a stage's figure comes into view sooner;
# a follower's line in a room (classroom.banner) rides in the header's empty right side, where it takes no height;
# the tokens' chips (stages/tokens.py, sized inline for a desk) grow with the prose around them. A slider's value,
# Markdown too, grows with the prose: Streamlit hangs it a fixed 22.4 px above its thumb, so it stands on the thumb's
# top instead (the lab's RoPE, audit 2026-12-06: the taller line ran down under the thumb, which hid its number's foot).
PRESENTER_CSS = """
[data-testid="stMain"] [data-testid="stMarkdownContainer"] :is(p, li) { font-size: 1.4rem; line-height: 1.55; }
[data-testid="stMain"] [data-testid="stSliderThumbValue"] { top: auto; bottom: 100%; }
[data-testid="stMain"] h1 { font-size: 1.3rem; padding: 0; }
[data-testid="stMain"] h3 { font-size: 2.1rem; }
[data-testid="stMain"] .katex-display .katex { font-size: 1.5em; }
[data-testid="stMainBlockContainer"] { padding-top: 3.5rem; }
[data-testid="stMain"] [data-testid="stMarkdownContainer"] :is(td, th) { font-size: 1.3rem; }
[data-testid="stMain"] [data-testid="stCaptionContainer"] :is(p, li) { font-size: 1.1rem; }
[data-testid="stMain"] [data-testid="stMarkdownContainer"] span[style*="font-size: 0.875rem"],
[data-testid="stMain"] p.mha-count { font-size: 1.1rem !important; }
.mha-chart .mha-tip { font-size: 17px; }
.mha-chart .mha-save { font-size: 15px; }
[data-testid="stMain"] [data-testid="stNumberInput"] input { font-size: 1.3rem; }
[data-testid="stMain"] [data-testid="stHtml"] span[style*="border-radius:12px"] { font-size: 1.3rem !important; }
[data-testid="stMain"] [data-testid="stHtml"] span[style*="dashed"],
[data-testid="stMain"] [data-testid="stHtml"] span[style*="49,51,63,0.8"] { font-size: 1.15rem !important; }
[data-testid="stMain"] .st-key-room_banner { position: fixed; top: 0.5rem; right: 1rem; z-index: 999991; width: auto;
  padding: 0 0.25rem 0 0.75rem; border-radius: 0.5rem; background: rgba(255, 255, 255, 0.94); }
[data-testid="stMain"] .st-key-room_banner [data-testid="stMarkdownContainer"] p { font-size: 1.1rem; }
[data-testid="stMain"] div:has(> .st-key-room_banner) { display: contents; }  /* no gap left where it was */
""" + f"""@media (min-width: {PHONE_MAX + 1}px) {{  /* a phone's diagram stays a phone's (PAGE_CSS), as its look does */
  [data-testid="stMain"] [data-testid="stGraphVizChart"] svg text {{ font-size: {DIAGRAM_PT["present"]}px; }}
}}
"""
# A Markdown table wider than a phone scrolls sideways instead of being cut off at the screen's edge, and on a phone
# its cells are tighter, so that most fit; there the grid's toolbar (it sat over the words above X) and Plotly's
# (over the timeline's title) are not drawn (audit #13). A number box of inputs.number offers no empty value, so not
# the button that empties it (Streamlit's for a box without a default); the quiz's answer box, which starts empty,
# keeps it. The sidebar's Weights control wraps when a checkpoint makes it three choices: each choice is drawn as a box
# of its own (Streamlit leaves out the border a choice shares with its neighbour, which a wrap leaves open).
PAGE_CSS = chart.CSS + """
.stElementContainer:not([class*="st-key-quiz_answer_"]) [data-testid="stNumberInputClearButton"] { display: none; }
[data-testid="stMain"] [data-testid="stMarkdownContainer"] table { display: block; max-width: 100%; overflow-x: auto; }
.st-key-model button[role="radio"] { border-radius: 0.5rem !important; margin: 0 0.25rem 0.25rem 0 !important; }
.st-key-model button[role="radio"]:not([data-selected], [data-disabled]) {
  border-color: color-mix(in srgb, currentColor 20%, transparent) !important; }
/* An inline formula's last box is a line like its text, not an atomic box a line may end after: a closing mark after
it ("。", "，") stays on its line, where Chromium began a Chinese line with "。" (audit 2026-12-07 #13) */
[data-testid="stMarkdownContainer"] p .katex-html > .base:last-child { display: inline; }
@media (min-width: 641px) {  /* a grid's toolbar (eye, download, search) stands over it: room, not the line above */
  [data-testid="stMain"] .stElementContainer:has([data-testid="stDataFrame"]) { margin-top: 1.75rem; }
}
@media (max-width: 640px) {
  [data-testid="stMain"] [data-testid="stMarkdownContainer"] :is(td, th) { padding: 0.3rem 0.4rem; font-size: 0.85rem; }
  [data-testid="stMain"] [data-testid="stElementToolbar"] { display: none; }
  [data-testid="stMain"] .modebar-container { display: none; }
""" + f"""  [data-testid="stMain"] [data-testid="stGraphVizChart"] svg text {{ font-size: {DIAGRAM_PT["phone"]}px; }}
}}
"""

# The matrix charts' script is loaded once a page, as part of this component's: the element is the same on every run,
# so Streamlit sends it once and then its hash. It draws every chart element of the page, those there now and those
# to come (watch), and titles their PNG buttons in the page's language (saveTitle).
_JS = chart.LIB + """
watch();
let drawnStage;  // the stage this page drew last: another one opens at its top, not at the scroll its Next button left
export default function ({ data, setStateValue, parentElement }) {
  if (drawnStage !== undefined && drawnStage !== data.stage) {
    const main = document.querySelector('[data-testid="stMain"]');
    if (main) main.scrollTop = 0;
    window.scrollTo(0, 0);
  }
  drawnStage = data.stage;
  // What the server drew this run for, on the component's element: lets a browser test wait for it.
  (parentElement.host || parentElement).dataset.screen = data.phone ? "phone" : "wide";
  let sheet = document.getElementById("mha-page-css");
  if (!sheet) {
    sheet = document.createElement("style");
    sheet.id = "mha-page-css";
    document.head.appendChild(sheet);
  }
  if (sheet.textContent !== data.css) sheet.textContent = data.css;
  saveTitle(data.save);
  // A link over the server's limits reaches it as no link at all: the page opened is the one that tells.
  const nav = performance.getEntriesByType("navigation")[0];
  const query = nav ? new URL(nav.name).search.slice(1) : "";
  const fields = query ? query.split("&").length : 0;
  if (!data.link_over && (query.length > data.link_chars || fields > data.link_fields)) {
    setStateValue("link_over", [query.length, fields]);
  }
  const report = () => {
    const phone = window.innerWidth <= data.phone_max;
    if (phone !== data.phone) setStateValue("phone", phone);
  };
  report();
  window.addEventListener("resize", report);
  return () => window.removeEventListener("resize", report);
}
"""
_probe = st.components.v2.component("mha_screen", js=_JS)


# Streamlit's file box writes its button ("Upload") and its limits ("1MB per file • JSON") in English whatever the
# page's language: the button is given the page's word, and the limits, hidden, are said in the box's label.
UPLOAD_CSS = """
[data-testid="stFileUploaderDropzone"] button [data-testid="stMarkdownContainer"] p { display: none; }
[data-testid="stFileUploaderDropzone"] button [data-testid="stMarkdownContainer"]::after { content: %s; }
[data-testid="stFileUploaderDropzoneInstructions"] { display: none; }
"""


def css_string(text: str) -> str:
    """`text` as a CSS string: letters, digits and spaces as they are, every other character escaped by its code."""
    return '"' + "".join(c if c.isalnum() or c == " " else f"\\{ord(c):x} " for c in text) + '"'


def look(present: bool, save: str, upload: str, stage: str) -> F.Look:
    """The Look for this session's window; a phone wins over presenter mode (a projector is wide). `save` is the
    charts' PNG button's title in the page's language, `upload` a file box's button; `stage` the stage drawn (the page
    scrolls to its top when it changes)."""
    phone = bool(st.session_state.get("screen_phone", False))
    css = PAGE_CSS + UPLOAD_CSS % css_string(upload) + (PRESENTER_CSS if present else "")
    link_over = st.session_state.get("screen") is not None and st.session_state["screen"].link_over is not None
    result = _probe(key="screen", data={"phone_max": PHONE_MAX, "phone": phone, "css": css, "save": save,
                                        "link_chars": LINK_CHARS, "link_fields": LINK_FIELDS, "link_over": link_over,
                                        "stage": stage},
                    default={"phone": phone, "link_over": None}, on_phone_change=_remember,
                    on_link_over_change=_link_over, height=0)
    phone = bool(result.phone) if result is not None and result.phone is not None else phone
    st.session_state["screen_phone"] = phone
    return F.PHONE if phone else F.PRESENT if present else F.DESK


def _remember() -> None:
    st.session_state["screen_phone"] = bool(st.session_state["screen"].phone)


def _link_over() -> None:
    """The page was opened from a link the server would not read (over Streamlit's limits): say so with the notices
    about the link."""
    chars, fields = st.session_state["screen"].link_over
    notice = Notice("notice_link_over", dict(chars=int(chars), fields=int(fields), max_chars=LINK_CHARS,
                                             max_fields=LINK_FIELDS))
    st.session_state["notices"] = [*st.session_state.get("notices", []), notice]
