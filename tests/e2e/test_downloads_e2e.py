"""Downloads under load: many rapid clicks in three browser sessions on one server, and every click gives a file."""

import io
import json
import subprocess
import sys
import threading
import time
import urllib.request
import zipfile

import numpy as np
import pytest

from .conftest import ROOT, _free_port, launch, rerun_after, settle

pytestmark = pytest.mark.e2e
CLICKS = 100
BUTTONS = ("download_npz", "download_json", "download_csv")
SESSIONS = ({"stage": "input"}, {"stage": "input", "n_tokens": "4", "d_k": "13"}, {"stage": "matmul", "lang": "zh"})


@pytest.fixture
def own_server(tmp_path):
    """A server of this test's own, its log in a file: the test reads what the server said."""
    port, log = _free_port(), tmp_path / "server.log"
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1", "--global.developmentMode", "false",
           "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"]
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.3)
        yield f"http://127.0.0.1:{port}", log
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a busy server may not finish its shutdown
            proc.kill()
            proc.wait(timeout=30)


def _check(name: str, data: bytes) -> None:
    """The file is whole: it opens as what its name says and holds its stage's last matrix (Y; R on the refresher,
    whose files hold its product)."""
    last = "R" if name.startswith("mha-matmul-") else "Y"
    if name.endswith(".npz"):
        assert last in np.load(io.BytesIO(data))
    elif name.endswith(".json"):
        assert last in json.loads(data)["matrices"]
    else:
        assert f"{last}.csv" in zipfile.ZipFile(io.BytesIO(data)).namelist()


def _keep_rerunning(url: str, started: threading.Event, stop: threading.Event, runs: list) -> None:
    """Another learner at work, in a thread of its own (Playwright wants one instance per thread): seed
    5 → 4 → 5 …, the next click as soon as the last run is over. Each run's end sweeps unreferenced files."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_context().new_page()
        page.goto(f"{url}/?stage=input&seed=5")
        settle(page, 90_000)
        steps = page.locator('.st-key-seed [data-testid^="stNumberInputStep"]')  # − then +
        started.set()
        while not stop.is_set():
            rerun_after(page, steps.nth(len(runs) % 2).click)
            runs.append(1)
        browser.close()


def test_every_rapid_download_click_in_three_sessions_gives_a_file(browser, own_server):
    """Three sessions click the three downloads in turn while a fourth keeps rerunning. Every run's end
    sweeps the server's unreferenced files, which is what lost Streamlit's deferred downloads."""
    url, log = own_server
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
                for _ in SESSIONS]
    pages = [c.new_page() for c in contexts]
    for page, params in zip(pages, SESSIONS):
        page.goto(f"{url}/?" + "&".join(f"{k}={v}" for k, v in params.items()))
        settle(page, 90_000)
        rerun_after(page, page.locator(".st-key-downloads_open summary").click)  # the panel writes when opened
    started, stop, runs = threading.Event(), threading.Event(), []
    other = threading.Thread(target=_keep_rerunning, args=(url, started, stop, runs))
    other.start()
    files = []
    try:
        assert started.wait(timeout=120)
        start = 0  # a click in every session at once, then the next round, until the other learner has
        while start < CLICKS or (len(runs) < 10 and start < 2 * CLICKS):  # rerun 10 times meanwhile
            round_ = [(page, BUTTONS[(start // len(pages) + i) % len(BUTTONS)]) for i, page in enumerate(pages)]
            start += len(round_)
            waits = [page.expect_download() for page, _ in round_]
            infos = [w.__enter__() for w in waits]
            for page, key in round_:
                page.locator(f".st-key-{key} button").click()
            for w in waits:
                w.__exit__(None, None, None)
            for info, (_, key) in zip(infos, round_):
                download = info.value
                assert download.failure() is None, download.suggested_filename
                files.append((key, download.suggested_filename, download.path().read_bytes()))
    finally:
        stop.set()
        other.join(timeout=60)
        for c in contexts:
            c.close()
    assert len(files) == start >= CLICKS and len(runs) >= 10, (  # and the other learner kept the server busy
        f"{len(files)} files of {start} clicks; the other learner reran {len(runs)} times")
    for key, name, data in files:
        assert name.endswith({"download_npz": ".npz", "download_json": ".json", "download_csv": "-csv.zip"}[key])
        _check(name, data)
    assert "MediaFileStorageError" not in log.read_text()
