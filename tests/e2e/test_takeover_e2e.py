"""A second socket that names a live session's id gets a session of its own (mha/ui/takeover.py), on the running
server, spoken to as the browser's frontend speaks: no browser needed."""

import asyncio
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlparse

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import connect

pytestmark = pytest.mark.e2e


async def _open(url: str, names: str | None = None):
    """A socket, naming the session `names` as a reconnecting page does (the third subprotocol entry)."""
    protocols = ["streamlit", "none", names] if names else ["streamlit"]  # the second: an XSRF token, unused here
    return await connect(f"ws://{urlparse(url).netloc}/_stcore/stream", subprotocols=protocols, origin=url,
                         proxy=None, max_size=None, ping_interval=None)


async def _run(ws, query: str) -> tuple[str, str]:
    """A rerun with no widgets set: (the session id its new_session names, the query its page ends on)."""
    msg = BackMsg()
    msg.rerun_script.query_string = query
    msg.rerun_script.widget_states.SetInParent()
    await ws.send(msg.SerializeToString())
    sid, page = "", query
    async with asyncio.timeout(30):
        while True:
            fwd = ForwardMsg.FromString(await ws.recv())
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                sid = fwd.new_session.initialize.session_id
            elif kind == "page_info_changed":
                page = fwd.page_info_changed.query_string
            elif kind == "script_finished":
                return sid, page


def test_a_socket_naming_a_live_session_gets_its_own_and_leaves_that_one_as_it_is(app_url):
    """The red team's N12: Streamlit handed a live session to a second socket that named its id; the first page
    then got nothing back, and the newcomer's widget states went into its runs (lang=None, stage matmul)."""

    async def scenario():
        page = await _open(app_url)
        sid, query = await _run(page, "stage=scores&seed=5&lang=zh")
        other = await _open(app_url, names=sid)
        other_sid, _ = await _run(other, "")
        again, query_again = await _run(page, query)  # the first page still has its session, as it left it
        await other.close()
        await page.close()
        return sid, other_sid, again, query, query_again

    with ThreadPoolExecutor(1) as thread:  # a thread of its own: Playwright's sync API holds this one's event loop
        sid, other_sid, again, query, query_again = thread.submit(asyncio.run, scenario()).result()
    assert sid and other_sid and other_sid != sid and again == sid
    assert "stage=scores" in query_again and "lang=zh" in query_again and "seed=5" in query_again, query_again
