"""The explorer in a real browser: every stage, Play, an edit in the grid, a clicked cell."""

import io
import json
import re

import numpy as np
import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from mha.ui.strings import EN

from .conftest import listen, rerun_after, settle, shoot, type_in_x

pytestmark = pytest.mark.e2e


def open_stage(page, url, stage, **params):
    query = "&".join(f"{k}={v}" for k, v in dict(stage=stage, **params).items())
    page.goto(f"{url}/?{query}")
    settle(page)


def _active_frame(page) -> int:
    return page.evaluate("() => document.querySelector('.st-key-scores .mha-chart').mha.frame")


def test_an_edit_in_the_grid_reaches_q(page, app_url):
    open_stage(page, app_url, "input")
    type_in_x(page, 1, "3.25")  # row 1, last column
    assert "3.25" in page.url  # the edit travels in the link
    shoot(page, "input-edited")
    # the grid's toolbar, shown while a cell is chosen, stands over the gap above it, not over the prose's last line
    # (audit 2026-12-07 #13: it covered "e. Edit any cell:")
    gap = page.evaluate("""() => {
      const box = document.querySelector('.st-key-x_editor');
      const above = box.parentElement.previousElementSibling || box.previousElementSibling;
      const prose = [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stMarkdownContainer"] p')]
        .filter(p => p.getBoundingClientRect().bottom <= box.getBoundingClientRect().top).pop();
      return box.querySelector('[data-testid="stElementToolbar"]').getBoundingClientRect().top
        - prose.getBoundingClientRect().bottom; }""")
    assert gap >= 0, gap
    rerun_after(page, page.locator(".st-key-stage label").filter(has_text=EN["stage_qk"]).click)
    x_row1 = page.evaluate("() => document.querySelector('.st-key-qk_q .mha-chart').mha.data[0].z[0]")
    assert x_row1[-1] == 3.25



def _listen(page) -> list:
    """Every websocket frame the browser sends from now on (call it before the page opens its socket)."""
    sent = []
    listen(page, "websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    return sent


def _reruns_of(page, sent: list, action) -> list:
    """The rerun requests the browser sends while `action` runs and the page settles after it."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    before = len(sent)
    rerun_after(page, action)
    reruns = []
    for payload in sent[before:]:
        if isinstance(payload, bytes):
            msg = BackMsg()
            msg.ParseFromString(payload)
            if msg.WhichOneof("type") == "rerun_script":
                reruns.append(msg.rerun_script)
    assert reruns, "no rerun was sent"
    return reruns


def _fragment_reruns_of(page, sent: list, action) -> None:
    """`action` reruns fragments only: every rerun request it sends names one."""
    reruns = _reruns_of(page, sent, action)
    assert all(r.fragment_id for r in reruns), [r.fragment_id for r in reruns]


def _click_point(page, selector: str, index: int):
    point = page.locator(f"{selector} .mha-chart .point").nth(index)
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    return lambda: page.mouse.click(x, y)


def _sent_by_server(received: list) -> list[str]:
    """What the server's messages in `received` carry, in order: an element's type (a component's by its name), a
    block, or a reference to a message the browser holds (ref_hash); session and run messages left out."""
    out = []
    for msg in map(ForwardMsg.FromString, filter(lambda p: isinstance(p, bytes), received)):
        if msg.WhichOneof("type") == "ref_hash":
            out.append("ref_hash")
        elif msg.WhichOneof("type") == "delta":
            delta = msg.delta
            if delta.WhichOneof("type") == "new_element":
                kind = delta.new_element.WhichOneof("type")
                out.append(delta.new_element.bidi_component.component_name if kind == "bidi_component" else kind)
            else:
                out.append(delta.WhichOneof("type"))
    return out


def _deltas(received: list) -> list:
    return [m for m in map(ForwardMsg.FromString, filter(lambda p: isinstance(p, bytes), received))
            if m.WhichOneof("type") == "delta"]


OUTLINES = """(root) => root.mha.data.map((t, i) => [t, i])
    .filter(([t]) => t.mode === "lines" && !(t.x.length === 1 && t.x[0] === null))
    .map(([t, i]) => [t.xaxis, t.yaxis, Math.min(...t.x), Math.max(...t.x), Math.min(...t.y), Math.max(...t.y),
                      root.querySelectorAll(`svg .trace[data-trace="${i}"] path`).length])"""


def _outlines(page) -> dict:
    """The outlines the scores chart draws: (left, right, top, bottom) in cells by panel, each drawn as a path."""
    drawn = page.evaluate(OUTLINES, page.locator(".st-key-scores .mha-chart").element_handle())
    assert all(paths >= 1 for *_, paths in drawn), drawn
    return {(x, y): tuple(box) for x, y, *box, _ in drawn}


def sums_sentence(i: int, j: int, letter: str = "Q") -> re.Pattern:
    """The sums' sentence for cell (i, j) of X·W_{letter}1, its names set in KaTeX (whose text repeats each name as
    MathML and as HTML: Q₁[2, 3] reads "𝑄1[2,3]Q1[2,3]")."""
    near = r"[^:]{0,30}"  # within the sentence, not across the page
    return re.compile(rf"{letter}\s*1{near}\[{i},{j}\] is row {i} of {near}X times column {j} of "
                      rf"{near}W\s*{letter}\s*1")


def test_a_step_chosen_reruns_the_chart_only_and_play_walks_forward_from_qkt(page, app_url):
    """At rest the chart shows S (its last frame). Choosing a step reruns the chart's fragment only, rests the chart
    on it and puts it in the link; back on S, Play starts over from QKᵀ and walks forward."""
    sent = _listen(page)
    open_stage(page, app_url, "scores")
    last = page.evaluate("() => document.querySelector('.st-key-scores .mha-chart').mha.layout.sliders[0]"
                         ".steps.length") - 1
    assert last >= 4 and _active_frame(page) == last
    step = page.locator(".st-key-phase button").filter(has_text=EN["phase_qkt"])
    _fragment_reruns_of(page, sent, step.click)
    assert "phase=qkt" in page.url
    assert _active_frame(page) < last  # the chart rests on QKᵀ now
    _fragment_reruns_of(page, sent, page.locator(".st-key-phase button").filter(has_text=EN["phase_s"]).click)
    assert _active_frame(page) == last  # back on S: Play from the chart at rest
    page.locator(".st-key-scores .updatemenu-button").first.click()
    page.wait_for_function(
        f"() => {{ const a = document.querySelector('.st-key-scores .mha-chart').mha.frame;"
        f" return a >= 2 && a < {last}; }}",
        timeout=15_000,
    )
    shoot(page, "scores-playing")
    page.locator(".st-key-scores .updatemenu-button").nth(1).click()  # pause
    assert _active_frame(page) >= 2


def test_the_step_buttons_follow_the_frame_the_chart_is_left_on(page, app_url):
    """Audit 2026-12-04 #10: stepped to frame 6 (q₂·k₃), the step buttons still said "S = softmax", and hovering S[3, 2]
    gave S's value on a frame where it is not computed. Left on a frame by the slider (keys, then a pause), the
    buttons and the link name that frame's step, and only the step buttons and the sums are sent again: the chart
    the browser holds stays, on that frame. The hover says what the frame has computed. End goes back to S."""
    sent, received = _listen(page), []
    listen(page, "websocket", lambda ws: ws.on("framereceived", lambda payload: received.append(payload)))
    open_stage(page, app_url, "scores")
    root = page.locator(".st-key-scores .mha-chart").element_handle()
    page.evaluate("(r) => { r.mha.kept = true; }", root)  # a chart drawn anew would not carry this
    checked = lambda: page.locator('.st-key-phase button[aria-checked="true"]').inner_text()  # noqa: E731
    assert checked() == EN["phase_s"]
    slider = page.locator(".st-key-scores .mha-slider")
    before = len(received)

    def step_to_six():
        slider.focus()
        page.keyboard.press("Home")
        for _ in range(5):
            page.keyboard.press("ArrowRight")

    _fragment_reruns_of(page, sent, step_to_six)
    assert _active_frame(page) == 5 and checked() == EN["phase_qkt"] and "phase=qkt" in page.url
    assert "html" not in _sent_by_server(received[before:])  # the chart's element is not sent again
    assert page.evaluate("(r) => r.mha.kept === true && r.isConnected", root)  # the same chart, not drawn again
    _click_point(page, ".st-key-scores", 6)  # S[3, 1], hovered: q₃·k₁ is frame 7, the first not yet filled
    tip = page.locator(".st-key-scores .mha-tip")
    assert tip.is_visible() and EN["anim_pending"] in tip.inner_text(), tip.inner_text()
    _click_point(page, ".st-key-scores", 1)  # S[1, 2]: q₁·k₂ is frame 2, done
    assert tip.inner_text().count("=") == 1, tip.inner_text()  # Q₁K₁ᵀ only: neither ÷√7 nor S yet
    _fragment_reruns_of(page, sent, lambda: (slider.focus(), page.keyboard.press("End")))
    assert checked() == EN["phase_s"] and "phase=" not in page.url
    shoot(page, "scores-buttons-follow")


def test_the_answer_to_a_frame_the_reader_has_left_does_not_pull_the_chart_back(page, app_url):
    """The page sends the frame it is left on and the server answers with a mark naming it. A reader who steps on
    before the answer comes stays where they are: a mark naming the frame this page sent last moves nothing, and a
    mark naming any other frame (a step chosen on the server, a new figure) still does. (The full suite's frame walk
    stepped on every 0.5 s and was pulled back a frame.)"""
    open_stage(page, app_url, "scores")
    root = page.locator(".st-key-scores .mha-chart").element_handle()
    mark = """([r, k]) => { const m = window.mha.marks.get('scores'); window.mha.marks.set('scores', {...m, frame: k});
                           window.mha.paint('scores'); return r.mha.frame; }"""
    page.evaluate("([r, k]) => { r.mha.show(k); r.mha.sentFrame = k; }", [root, 5])  # left on 5, sent
    page.evaluate("([r, k]) => r.mha.show(k)", [root, 6])  # stepped on before the answer
    assert page.evaluate(mark, [root, 5]) == 6  # the answer about 5: the chart stays on 6
    assert page.evaluate(mark, [root, 2]) == 2  # a frame the page did not send: the chart goes there


def test_a_still_chart_sends_nothing_of_its_own_after_a_click(page, app_url):
    """Only an animation sends the frame it is left on: a product, shown again by its mark after a click, once sent
    its frame 0 400 ms later, a rerun nobody asked for that failed once the page had moved on (KeyError on the
    mark)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    sent = _listen(page)
    open_stage(page, app_url, "qk")
    _fragment_reruns_of(page, sent, _click_point(page, ".st-key-qk_q", 9))
    before = len(sent)
    page.wait_for_timeout(1200)  # three times the settle delay
    later = [BackMsg.FromString(p) for p in sent[before:] if isinstance(p, bytes)]
    assert not [m for m in later if m.WhichOneof("type") == "rerun_script"], later


def test_a_click_on_the_scores_reruns_the_sums_only_and_outlines_the_cell_on_the_chart_the_browser_holds(page,
                                                                                                       app_url):
    """A clicked cell of S reruns neither the page with its sidebar nor the chart with its step control: the browser's
    rerun request names a fragment, and the run sends the chart's mark and the sums, nothing else (not even the chart
    by reference); the mark carries the chart's key, the cell and the frame, nothing of the figure. The browser
    outlines row 2 of Q₁, column 1 of K₁ᵀ and the cell S[2, 1]; stepped through the animation, each frame shows its
    own highlight, and back on the step the chart rests on (S, the last) the same outlines. A second click on the
    cell lets it go."""
    sent, received = _listen(page), []
    listen(page, "websocket", lambda ws: ws.on("framereceived", lambda payload: received.append(payload)))
    open_stage(page, app_url, "scores")
    assert _outlines(page) == {}
    before = len(received)
    _fragment_reruns_of(page, sent, _click_point(page, ".st-key-scores", 3))  # query 2, key 1
    assert page.get_by_text("over the 2 keys k that row 2 may see", exact=False).count() == 1
    assert _sent_by_server(received[before:]) == ["add_block", "mha_mark", "markdown"]
    (mark,) = [json.loads(m.delta.new_element.bidi_component.json) for m in _deltas(received[before:])
               if m.delta.new_element.bidi_component.component_name == "mha_mark"]
    root = page.locator(".st-key-scores .mha-chart").element_handle()
    frames, rest, shown = page.evaluate(
        "(r) => [r.mha.frames.length, r.mha.fig.layout.sliders[0].active, r.mha.frame]", root)
    assert rest == shown == frames - 1
    assert mark == {"key": "scores", "cell": [1, 0], "frame": rest}  # the frame the chart rests on: no step taken
    page.wait_for_function(f"(root) => ({OUTLINES})(root).length === 3", arg=root)
    outlined = _outlines(page)
    assert outlined == {("x", "y"): (0.5, 7.5, 1.5, 2.5),  # row 2 of Q₁, its 7 columns
                        ("x2", "y2"): (0.5, 1.5, 0.5, 7.5),  # column 1 of K₁ᵀ, its 7 rows
                        ("x2", "y"): (0.5, 1.5, 1.5, 2.5)}  # the cell (2, 1)
    for k in range(frames):
        page.evaluate("([r, k]) => r.mha.show(k)", [root, k])
    assert _outlines(page) == outlined
    rerun_after(page, _click_point(page, ".st-key-scores", 3))
    page.wait_for_function(f"(root) => ({OUTLINES})(root).length === 0",
                           arg=page.locator(".st-key-scores .mha-chart").element_handle())


def test_a_product_s_click_shows_its_dot_product_and_a_click_or_the_quiz_reruns_that_product_only(page, app_url):
    """A click on Q₁[2, 3] writes its dot product, whose products as written add up to the cell; a click on K₁
    reruns K₁'s outline and its row of sums and quiz button only, not the chart; the quiz's button, the product's
    fragment (the chart hides a cell). The quiz's cell stays outlined and hidden whatever is clicked meanwhile;
    once the quiz is stopped, a click shows the clicked cell's sums again."""
    sent, received = _listen(page), []
    listen(page, "websocket", lambda ws: ws.on("framereceived", lambda payload: received.append(payload)))
    open_stage(page, app_url, "qk")
    _fragment_reruns_of(page, sent, _click_point(page, ".st-key-qk_q", 9))  # row 2, column 3 of Q₁
    assert page.get_by_text(sums_sentence(2, 3)).count() == 1  # Q₁[2, 3] is row 2 of X times column 3 of W_Q1
    check = page.get_by_text(re.compile(r"^The (terms|products of the factors as written) .*add up to")).inner_text()
    total, value = (float(part.split()[-1].rstrip(".").replace("−", "-")) for part in check.split(";"))
    assert abs(total - value) <= 1e-3 * max(1.0, abs(value))  # the products as written add up to the cell, rounded
    shoot(page, "qk-clicked")
    before = len(received)
    _fragment_reruns_of(page, sent, _click_point(page, ".st-key-qk_k", 9))  # row 2, column 3 of K₁
    assert page.get_by_text(sums_sentence(2, 3, "K")).count() == 1
    assert _sent_by_server(received[before:]) == ["add_block", "mha_mark", "add_block", "markdown", "button"]
    _fragment_reruns_of(page, sent, page.locator(".st-key-quiz_start_qk_q button").click)
    assert page.locator(".st-key-quiz_answer_qk_q input").count() == 1
    hidden = page.locator(".st-key-qk_q .mha-chart text.point-text", has_text="?")
    assert hidden.count() == 1  # the chart hides the quiz's cell
    rerun_after(page, _click_point(page, ".st-key-qk_q", 9))
    assert page.locator(".st-key-quiz_answer_qk_q input").count() == 1 and hidden.count() == 1
    assert page.locator('[data-testid="stException"]').count() == 0
    rerun_after(page, page.locator(".st-key-quiz_stop_qk_q button").click)
    assert hidden.count() == 0
    rerun_after(page, _click_point(page, ".st-key-qk_q", 4))  # Q₁[1, 5]
    assert page.get_by_text(sums_sentence(1, 5)).count() == 1


def test_adding_tokens_reruns_the_cache_stage_only_the_link_follows_and_play_steps(page, app_url):
    """A token added reruns the cache stage's fragment only and travels in the link, which brings it back; with a
    second one the cache holds 5 tokens, equal to the recomputation, and Play steps the animation."""
    sent = _listen(page)
    open_stage(page, app_url, "kv_cache")
    _fragment_reruns_of(page, sent, page.locator(".st-key-add_token button").click)
    assert page.get_by_text("The cache holds 4 tokens").count() == 1
    assert "kv=" in page.url  # the added token travels in the link, as after a full rerun
    page.goto(page.url)  # and the link brings it back
    settle(page)
    assert page.get_by_text("The cache holds 4 tokens").count() == 1
    rerun_after(page, page.locator(".st-key-add_token button").click)
    assert page.get_by_text("The cache holds 5 tokens").count() == 1
    assert page.get_by_text("0\u00a0—\u00a0exactly").count() == 1
    # 5 rows = d_model: the sidebar's check, drawn before the fragment ran, says so now (audit #3: it said ✓)
    sidebar = page.locator('[data-testid="stSidebar"]')
    assert sidebar.get_by_text("tokens in the cache").count() == 1
    assert sidebar.get_by_text("Distinct primes").count() == 0
    plot = ".st-key-kv_animation .mha-chart"
    assert page.evaluate(f"() => document.querySelector('{plot}').mha.frame") == 0
    page.locator(".st-key-kv_animation .updatemenu-button").first.click()
    page.wait_for_function(f"() => document.querySelector('{plot}').mha.frame >= 2", timeout=15_000)
    shoot(page, "kv_cache-playing")


def test_the_nudge_reruns_its_column_only(page, app_url):
    sent = _listen(page)
    open_stage(page, app_url, "dependency")
    _fragment_reruns_of(page, sent, page.locator(".st-key-nudge_j [data-testid=stNumberInputStepUp]").click)
    assert page.get_by_text("Untouched: rows 1–2 of Y", exact=False).count() == 1


def test_an_open_share_panel_shows_the_link_with_the_token_added(page, app_url):
    """With the share panel open, a token added in the cache stage's fragment redraws the whole page once, so the
    panel's link carries it too (and the page does not rerun again and again)."""
    sent = _listen(page)
    open_stage(page, app_url, "kv_cache")
    rerun_after(page, page.locator(".st-key-share_open summary").click)
    assert "kv=" not in page.locator(".st-key-share_open").inner_text()
    reruns = _reruns_of(page, sent, page.locator(".st-key-add_token button").click)
    assert len(reruns) == 1
    assert "kv=" in page.locator(".st-key-share_open").inner_text()
    assert page.get_by_text("The cache holds 4 tokens").count() == 1


# Every whole drawing of a matrix chart from now on, by chart: each puts a new <svg> into the chart's element.
WATCH_DRAWINGS = """() => {
  window.__drawings = {};
  new MutationObserver(records => {
    for (const r of records) for (const n of r.addedNodes) {
      if (n.nodeName !== 'svg' || !n.parentNode || !n.parentNode.classList.contains('mha-chart')) continue;
      const key = [...n.closest('[class*="st-key-"]').classList].find(k => k.startsWith('st-key-'));
      window.__drawings[key] = (window.__drawings[key] || 0) + 1;
    }
  }).observe(document.body, {childList: true, subtree: true});
}"""


def new_figures_are_drawn_once(page, actions) -> None:
    """A chart whose figure changed (a new size, a clicked cell) is drawn once, and a rerun that leaves a figure as it
    was draws it not at all. (Under Plotly, Streamlit 1.67 handed each new figure over twice, and a copy that differed
    was drawn all over again, ~150 ms more on every change of the scores chart.) On one page, one action after the
    other, the drawings counted afresh for each."""
    page.evaluate(WATCH_DRAWINGS)
    for action in actions:
        page.evaluate("() => { window.__drawings = {}; }")
        if action == "size":
            rerun_after(page, page.locator('.st-key-n_tokens [data-testid="stNumberInputStepUp"]').click)
        elif action == "click":
            rerun_after(page, _click_point(page, ".st-key-scores", 3))
        else:  # the code panel opened: a whole run of the page, the chart's figure as it was
            rerun_after(page, page.locator(".st-key-code_view summary").click)
        page.wait_for_timeout(500)  # the second drawing came ~100-300 ms after the first
        drawings = page.evaluate("window.__drawings")
        if action == "unchanged":
            assert drawings == {}, drawings
        else:
            assert drawings and all(n == 1 for n in drawings.values()), (action, drawings)


def test_the_heads_new_figures_are_drawn_once(page, app_url):
    open_stage(page, app_url, "heads")
    new_figures_are_drawn_once(page, ("size",))


def test_the_scores_new_figures_are_drawn_once_and_the_page_is_configured_once_through_reruns(page, app_url):
    """As new_figures_are_drawn_once says, on the scores. Title, icon and the wide layout come with the session's
    first run only (a run that sends them costs the browser two messages to its own window and the icon set again)
    and stay through reruns: a change of size, of stage and of language."""
    configs = []

    def count(payload):
        if isinstance(payload, bytes):
            configs.append(ForwardMsg.FromString(payload).WhichOneof("type") == "page_config_changed")

    listen(page, "websocket", lambda ws: ws.on("framereceived", count))
    open_stage(page, app_url, "scores")
    before = sum(configs)
    new_figures_are_drawn_once(page, ("unchanged", "click", "size"))
    rerun_after(page, page.locator(".st-key-stage label").filter(has_text=EN["stage_kv_cache"]).click)
    rerun_after(page, page.locator(".st-key-lang button").filter(has_text="中文").click)
    assert (before, sum(configs)) == (1, 1), "set_page_config is sent on every run again"
    assert page.title() == "MHA Explorer"
    assert page.locator('[data-testid="stMainBlockContainer"]').bounding_box()["width"] > 1000  # wide, not 736 px
    assert page.locator("link[rel*=icon]").first.get_attribute("href").startswith("data:image/svg+xml")


FITS = """() => [...document.querySelectorAll('[data-testid=stMain] .katex-display')]
    .filter(e => e.scrollWidth > e.clientWidth + 4)
    .map(e => [e.innerText.slice(0, 40), e.scrollWidth, e.clientWidth])"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_phone_every_line_of_a_clicked_cell_s_sums_fits_the_screen(page, app_url, lang):
    """The dot product one term a line and the softmax in two lines, none wider than the screen (KaTeX would
    otherwise hide the rest behind a sideways scroll)."""
    page.set_viewport_size({"width": 390, "height": 844})
    for stage, chart, point in (("scores", ".st-key-scores", 4), ("qk", ".st-key-qk_q", 9)):
        open_stage(page, app_url, stage, lang=lang)
        point_at = page.locator(f"{chart} .mha-chart .point").nth(point)
        point_at.scroll_into_view_if_needed()
        rerun_after(page, _click_point(page, chart, point))
        assert page.locator("[data-testid=stMain] .katex-display").count() >= 2
        assert page.evaluate(FITS) == [], stage


def test_choosing_a_part_of_the_block_reruns_the_block_only_and_its_buttons_leave_the_stage(page, app_url):
    """The block's parts are a fragment: choosing one sends a fragment's rerun, draws that part's chart in the
    place of the last and puts the part in the link; a button to another stage, inside the fragment, still gets
    there (the server runs the whole page after the fragment's run)."""
    sent = _listen(page)
    open_stage(page, app_url, "block")
    part = lambda p: page.locator(".st-key-block_part button").filter(has_text=EN[f"block_part_{p}"]).click
    assert page.locator(".st-key-block_attn .mha-chart svg").count() > 0  # post-LN's first part: attention
    _fragment_reruns_of(page, sent, part("out"))
    assert page.locator(".st-key-block_stream .mha-chart svg").count() > 0
    assert page.locator(".st-key-block_attn").count() == 0
    assert "part=out" in page.url  # the link follows the part, and brings it back
    page.goto(page.url)
    settle(page)
    assert page.locator(".st-key-block_stream .mha-chart svg").count() > 0
    _fragment_reruns_of(page, sent, part("attn"))
    rerun_after(page, page.locator(".st-key-block_to_output button").click)  # the fragment's run, then the page's
    page.wait_for_function("() => location.search.includes('stage=output')")
    settle(page)
    assert page.locator(".st-key-block_part").count() == 0


@pytest.mark.parametrize("start, then", [("qk", "cells"), ("kv_cache", "kv_part"), ("input", "preset")])
def test_after_switching_the_language_with_its_control_the_next_click_keeps_the_stage(page, app_url, start, then):
    """The stage radio and the preset box hold their option's label, which is in the page's language: after a
    switch the browser sent the old label with the next click, and the page fell back to the first stage (a full
    run) or raised in a fragment (the KV stage's part)."""
    open_stage(page, app_url, start)
    rerun_after(page, page.locator(".st-key-lang button").filter(has_text="中文").click)
    assert f"stage={start}" in page.url and "lang=zh" in page.url
    if then == "cells":
        rerun_after(page, page.locator(".st-key-options_open summary").click)  # the view options are built open
        rerun_after(page, page.locator(".st-key-cell_values label").click)
        assert "cells=0" in page.url
    elif then == "kv_part":
        rerun_after(page, page.locator(".st-key-kv_part button").nth(1).click)
        assert "part=cost" in page.url
    else:
        rerun_after(page, page.locator(".st-key-seed [data-testid=stNumberInputStepUp]").click)
        assert "seed=1" in page.url and "preset=post" in page.url  # the seed is no size: the preset stays
    assert f"stage={start}" in page.url, page.url
    assert page.locator('[data-testid="stException"]').count() == 0
    checked = page.locator('.st-key-stage input[type="radio"]:checked')
    label = checked.evaluate("e => e.closest('label').innerText") if checked.count() == 1 else ""
    name = {"qk": "Q 和 K", "kv_cache": "KV 缓存", "input": "输入 X"}[start]
    assert f" · {name}" in label, f"the walk shows the stage, in Chinese: {label}"  # (and its parts, if any)


def test_the_open_downloads_panel_follows_the_tokens_added_to_the_cache(page, app_url):
    """Adding a token reruns the cache stage only; with the downloads panel open, the whole page runs so that its
    files hold the cache the page shows (X and the tokens added), not the X before them."""
    open_stage(page, app_url, "kv_cache", kv=2)
    rerun_after(page, page.locator(".st-key-downloads_open summary").click)
    for tokens in (5, 6):
        assert page.get_by_text(f"The cache holds {tokens} tokens").count() == 1
        with page.expect_download() as download:
            page.locator(".st-key-download_npz button").click()
        assert download.value.suggested_filename == f"mha-kv_cache-{tokens}x5x7x11x2-seed0.npz"
        assert np.load(io.BytesIO(open(download.value.path(), "rb").read()))["X"].shape == (tokens, 5)
        if tokens == 5:
            rerun_after(page, page.locator(".st-key-add_token button").click)
            page.wait_for_function("() => document.querySelector('.st-key-download_npz') && "
                                   "!document.querySelector('[data-stale=\"true\"]')", timeout=30_000)
            settle(page, quiet_ms=2_000)  # the cache stage runs, then the whole page: quiet between both


MAIN_SCROLL = "() => document.querySelector('[data-testid=\"stMain\"]').scrollTop"


def test_next_opens_the_next_stage_at_its_top_and_a_change_within_a_stage_keeps_the_scroll(page, app_url):
    """Next is pressed at a stage's foot: the next stage opens at its title and words, not at the scroll the button
    left (its figure's foot). A change inside a stage (another head, the other language) leaves the page where the
    reader put it."""
    page.set_viewport_size({"width": 1400, "height": 1000})
    open_stage(page, app_url, "qk", lang="en")
    page.locator(".st-key-next_stage button").scroll_into_view_if_needed()
    assert page.evaluate(MAIN_SCROLL) > 300
    rerun_after(page, page.locator(".st-key-next_stage button").click)
    assert "stage=scores" in page.url and page.evaluate(MAIN_SCROLL) == 0
    title = page.locator('[data-testid="stMain"] h3').first.bounding_box()
    assert 0 <= title["y"] and title["y"] + title["height"] <= 1000, title
    page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTop = 250")
    rerun_after(page, page.locator(".st-key-head button").nth(1).click)  # head 2: the same stage
    assert page.evaluate(MAIN_SCROLL) == 250
    rerun_after(page, page.locator(".st-key-lang button").filter(has_text="中文").click)  # its words, the same stage
    assert "lang=zh" in page.url and page.evaluate(MAIN_SCROLL) == 250
    rerun_after(page, page.locator(".st-key-lang button").filter(has_text="English").click)
    rerun_after(page, page.locator(".st-key-stage label").filter(has_text=EN["stage_values"]).click)  # the sidebar
    assert "stage=values" in page.url and page.evaluate(MAIN_SCROLL) == 0
