"""A rerun of a fragment the session does not hold runs in full (mha/ui/reruns.py): what it wraps is still there, and
what the wrapper does with each kind of request. The browser test is test_state_e2e's first clicks after a restart."""

import inspect
from types import SimpleNamespace

from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.scriptrunner import RerunData

from mha.ui import reruns, startup


def _click(fragment_id: str = "", auto: bool = False) -> ClientState:
    """A rerun request as the page sends it: a button's trigger, a number's value, the page's query string."""
    cs = ClientState(fragment_id=fragment_id, is_auto_rerun=auto, query_string="stage=kv_cache")
    cs.widget_states.widgets.add(id="add_token", trigger_value=True)
    cs.widget_states.widgets.add(id="n_tokens", int_value=4)
    return cs


def _session(holds: bool = False, built: bool = False) -> SimpleNamespace:
    return SimpleNamespace(id="s1", has_fragment=lambda _: holds, session_state={reruns.BUILT: True} if built else {})


def _ctx(session: SimpleNamespace) -> SimpleNamespace:
    """A script run's context, with the requests it queues."""
    queued = []
    return SimpleNamespace(session_id=session.id, query_string="stage=kv_cache", page_script_hash="p",
                           cached_message_hashes=frozenset(), context_info=None,
                           script_requests=SimpleNamespace(request_rerun=queued.append), queued=queued)


def _request(session, client_state) -> list:
    """What the wrapper hands Streamlit's request_rerun."""
    handed = []
    reruns.request_rerun(session, client_state, lambda _, cs: handed.append(cs))
    return handed


def test_streamlit_still_has_what_the_wrapper_calls_and_startup_wraps_it():
    startup.install()
    streamlits = getattr(AppSession.request_rerun, reruns._STREAMLITS)
    assert list(inspect.signature(streamlits).parameters) == ["self", "client_state"]
    assert list(inspect.signature(AppSession.has_fragment).parameters) == ["self", "fragment_id"]
    assert "self.id =" in inspect.getsource(AppSession.__init__)
    assert {"query_string", "widget_states", "page_script_hash", "cached_message_hashes", "context_info"} \
        <= set(inspect.signature(RerunData).parameters)


def test_installed_twice_it_wraps_streamlits_method_once():
    def streamlits(session, client_state=None):
        handed.append(client_state)

    handed = []
    Session = type("Session", (), {"request_rerun": streamlits})
    reruns.install(Session)
    reruns.install(Session)
    assert getattr(Session.request_rerun, reruns._STREAMLITS) is streamlits
    Session.request_rerun(_session(holds=True), _click("f1"))
    assert len(handed) == 1


def test_a_rerun_of_a_fragment_the_session_holds_goes_as_it_came():
    click = _click("f1")
    assert _request(_session(holds=True), click) == [click]


def test_a_timers_rerun_of_a_fragment_the_session_does_not_hold_goes_as_it_came():
    tick = _click("f1", auto=True)
    assert _request(_session(built=True), tick) == [tick]  # Streamlit drops it, as it means to


def test_once_the_page_is_built_a_lost_fragments_rerun_runs_in_full_at_once():
    click = _click("f1")
    [full] = _request(_session(built=True), click)
    assert not full.fragment_id and full.widget_states == click.widget_states
    assert full.query_string == click.query_string
    assert click.fragment_id == "f1"  # the page's request is left as it was


def test_before_the_first_run_ends_the_click_is_held_and_queued_by_that_runs_end():
    session = _session()
    click = _click("f1")
    assert _request(session, click) == []
    ctx = _ctx(session)
    reruns._release(session.session_state, ctx)
    [queued] = ctx.queued
    assert queued.widget_states == click.widget_states and not queued.fragment_id_queue and not queued.fragment_id
    assert queued.query_string == ctx.query_string and queued.page_script_hash == "p"
    assert session.session_state[reruns.BUILT]
    reruns._release(session.session_state, ctx)
    assert len(ctx.queued) == 1  # released once
    assert _request(session, click)[0].fragment_id == ""  # the page is built now: in full at once


def test_a_full_rerun_the_page_asks_for_meanwhile_drops_the_held_clicks():
    session = _session()
    assert _request(session, _click("f1")) == []
    newer = _click()
    assert _request(session, newer) == [newer]
    ctx = _ctx(session)
    reruns._release(session.session_state, ctx)
    assert ctx.queued == []
