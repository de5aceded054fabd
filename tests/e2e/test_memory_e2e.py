"""A closed session's download files go with it, on a real server: Streamlit keeps a closed session for its tab to
come back, then drops it without releasing what it registered (mha/ui/prepared.py releases it)."""

import asyncio
import sys
import threading
import time

import pytest

from .conftest import ROOT
from .test_downloads_e2e import own_server  # noqa: F401 (a fixture)

sys.path.insert(0, str(ROOT / "bench"))
from memory import expand, load, media_mb, press, served  # noqa: E402

from mha.ui import prepared  # noqa: E402

pytestmark = pytest.mark.e2e
VIEW = "stage=input&n_tokens=64&d_model=130&d_k=128&d_v=128&n_heads=8&seed=5"  # ~36 MB of files
JANITOR_S = 3  # this test's server's janitor passes (MHA_JANITOR_S; the app's own is prepared.JANITOR_S)
RELEASED_WITHIN = 4 * JANITOR_S + 15  # two passes to call it closed, a third to sweep, and slack


@pytest.fixture(autouse=True)
def fast_janitor(monkeypatch):
    """The server this test starts (own_server, which inherits the environment) sweeps every JANITOR_S seconds."""
    monkeypatch.setenv("MHA_JANITOR_S", str(JANITOR_S))
    assert prepared.JANITOR_S > JANITOR_S  # the app's own pace is slower: the test does not set the app's default


async def _prepared(url: str):
    session = await load(url, VIEW)
    await expand(session, "downloads_open")
    if session.find("export_prepare"):
        await press(session, "export_prepare")
    return session, [session.find(f"download_{kind}").url for kind in ("npz", "json", "csv")]


def _in_a_thread(coroutine):
    """Run a coroutine to its end in a thread of its own: Playwright's sync API, which other e2e tests start in this
    process, keeps an event loop running in the main thread, where asyncio.run refuses to start another."""
    result = []
    thread = threading.Thread(target=lambda: result.append(asyncio.run(coroutine)))
    thread.start()
    thread.join()
    assert result, "the protocol client failed (its traceback is above)"
    return result[0]


async def _until(check, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not check():
        await asyncio.sleep(2)
    return check()


def test_a_views_files_are_held_once_while_a_session_shows_them_and_go_with_the_last(own_server):  # noqa: F811
    url, log = own_server

    async def scenario() -> dict:
        (first, urls), (second, again) = await _prepared(url), await _prepared(url)
        seen = {"same": urls == again, "served": served(url, urls), "held": media_mb(url)}
        await first.close()
        await asyncio.sleep(RELEASED_WITHIN)
        seen |= {"served, one closed": served(url, urls), "held, one closed": media_mb(url)}
        await second.close()
        seen["gone"] = await _until(lambda: served(url, urls) == 0, RELEASED_WITHIN)
        return seen | {"held at the end": media_mb(url)}

    seen = _in_a_thread(scenario())
    assert seen["same"] and seen["served"] == 3
    assert 30 < seen["held"] < 45  # one copy of the view's ~36 MB, for both sessions
    assert seen["served, one closed"] == 3 and seen["held, one closed"] == seen["held"]  # the other still shows them
    assert seen["gone"], "a closed session's files are still served"
    assert not seen["held at the end"]
    assert "Traceback" not in log.read_text()
