"""A closed session's download files go with it, on a real server: Streamlit keeps a closed session for its tab to
come back, then drops it without releasing what it registered (mha/ui/prepared.py releases it)."""

import asyncio
import sys
import time

import pytest

from .conftest import ROOT
from .test_downloads_e2e import own_server  # noqa: F401 (a fixture)

sys.path.insert(0, str(ROOT / "bench"))
from memory import expand, load, media_mb, press, served  # noqa: E402

from mha.ui import prepared  # noqa: E402

pytestmark = pytest.mark.e2e
VIEW = "stage=input&n_tokens=64&d_model=130&d_k=128&d_v=128&n_heads=8&seed=5"  # ~36 MB of files
RELEASED_WITHIN = 4 * prepared.JANITOR_S + 15  # two passes to call it closed, a third to sweep, and slack


async def _prepared(url: str):
    session = await load(url, VIEW)
    await expand(session, "downloads_open")
    if session.find("export_prepare"):
        await press(session, "export_prepare")
    return session, [session.find(f"download_{kind}").url for kind in ("npz", "json", "csv")]


def _wait_until(check, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(2)
    return check()


def test_a_views_files_are_held_once_while_a_session_shows_them_and_go_with_the_last(own_server):  # noqa: F811
    url, log = own_server

    async def open_two():
        return await _prepared(url), await _prepared(url)

    (first, urls), (second, again) = asyncio.run(open_two())
    assert urls == again and served(url, urls) == 3
    held = media_mb(url)
    assert 30 < held < 45  # one copy of the view's ~36 MB, for both sessions
    asyncio.run(first.close())
    time.sleep(RELEASED_WITHIN)
    assert served(url, urls) == 3 and media_mb(url) == held  # the other session still shows them
    asyncio.run(second.close())
    assert _wait_until(lambda: served(url, urls) == 0, RELEASED_WITHIN), "a closed session's files are still served"
    assert not media_mb(url)
    assert "Traceback" not in log.read_text()
