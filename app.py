"""MHA Explorer: `streamlit run app.py`. Sidebar, then the one stage on screen, in the post's order."""

import streamlit as st

from mha.ui import startup

startup.install()  # first: checks the Streamlit internals the UI imports, then wraps request_rerun, sets the GIL switch

import mha
from mha.ui import budget, classroom, link, models, nav, reruns, room_panel, screen, session, sidebar, x_edits
from mha.ui.code import snippet
from mha.ui.prose import below, input_error
from mha.ui.stages import FILES_VIEW, RENDER
from mha.ui.strings import Text
from mha.ui.view import View

if not st.session_state.get(session.STARTED):
    # Once a session: the browser keeps the title, icon and layout, and each set_page_config a run sends costs it
    # two messages to the page's own window, and the favicon set again.
    presenting = st.query_params.get("present") == "1"  # a projector link opens with the sidebar folded
    st.set_page_config(page_title="MHA Explorer", page_icon="🔢", layout="wide",
                       initial_sidebar_state="collapsed" if presenting else "auto")
session.start()
classroom.enter()  # a room's newest view, on a page that follows one, before any widget is built
ss = st.session_state
ss["page_running"] = True  # False again at the end: a fragment's own rerun then sees it so (link.follows)
t = Text(ss["lang"])

# A page that has asked for much work of late takes turns with the other such pages (budget.paced)
with budget.paced(t, classroom.payer()):  # a room's followers pay the room's pace
    share, downloads = sidebar.render(t)
    # On a projector the page opens on the stage: the app's name, the tagline and the credit wait at its foot (a phone
    # wins over presenter), so that the stage's figure has the screen's height
    presenter = ss["present"] and not ss.get("screen_phone")
    tagline = t.sentences(t("app_tagline"), t("credit"))
    if not presenter:
        st.markdown(f"# {t('app_title')}\n\n:gray[:small[{tagline}]]")  # one element, not two
    if notices := ss.get("notices"):  # one box: a link with many unusable values says each on a line of its own
        st.warning(t.notice(notices[0]) if len(notices) == 1 else "\n".join(f"- {t.notice(n)}" for n in notices))
        st.button(t("notices_dismiss"), key="dismiss_notices", on_click=ss.pop, args=("notices",))
    room_panel.banner(t)  # in a room: which, how many, and the way out or back; the presenter's join code

    cfg = session.config()
    look = screen.look(ss["present"], t("png_save"), t("upload_button"), ss["stage"])
    given = x_edits.inputs(cfg)  # X, its tokens and, with the trained model, the run the walk shows a layer of
    work = 0 if models.trained_on() else budget.work(cfg, ss["stage"])  # the trained model is small
    view = None
    # A view over the work budget is drawn once asked for, if the memory for views shown allows, in the heavy lane
    if not budget.asks(t, work, ss["stage"]) and budget.seated(t, cfg, ss["stage"]):
        with budget.lane(t, work):
            view = View(t, cfg, given.weights(), given.x, ss["head"] - 1, ss["cell_values"], look, given.tokens,
                        given.run)
            try:
                RENDER[ss["stage"]](view)
            except mha.InputError as e:
                input_error(t, e)
    below()  # on a projector, the stage's opening paragraph: under its figures
    if code := snippet(ss["stage"], ss.get("variant", "")):
        code_view = st.expander(t("code_title"), key="code_view", on_change="rerun")
        if code_view.open:  # built only when opened
            code_view.code(code, language="python")

    nav.buttons(t)
    if presenter:
        st.markdown(f":gray[:small[**{t('app_title')}** · {tagline}]]")

    params = link.params(cfg, ss["x_base"])  # X as the stage left it (the input stage folds in edits)
    link.write(params)
    ss["page_running"] = False
    sidebar.share(share, t, params)
    # what the downloads hold: the view, or as its stage says (the KV cache's added tokens with it)
    shown, shown_x = FILES_VIEW.get(ss["stage"], lambda c, x: (c, x))(cfg, ss["x_base"])
    sidebar.downloads(downloads, t, shown, shown_x, view.w if view else None)  # None: the view waits to be drawn
    reruns.release()  # the page is built: the clicks held while it was drawn run next (reruns.py)
