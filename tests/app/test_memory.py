"""Memory has a budget: the shared caches hold what fits theirs, in bytes, and a closed session's files go."""

import threading
import time
from pathlib import Path

import numpy as np
import pytest
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.media_file_storage import MediaFileStorageError
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

import mha
from mha.ui import budget, chart, checkpoints, exports, models, prepared, uploads, view
from mha.ui.shared import MB, Shared, footprint
from mha.ui.strings import EN, Text

from .helpers import rerun, run


def megabytes(n: float) -> np.ndarray:
    return np.zeros(int(n * MB) // 8)


def test_the_held_bytes_stay_within_the_budget_under_a_run_of_large_values():
    cache = Shared(10 * MB)
    for key in range(20):
        cache.get(key, lambda: megabytes(3))
        assert cache.held <= 10 * MB
    assert [k in cache for k in (16, 17, 18, 19)] == [False, True, True, True]


def test_the_value_used_least_recently_goes_first():
    cache = Shared(10 * MB)
    for key in "abc":
        cache.get(key, lambda: megabytes(3))
    cache.get("a", lambda: pytest.fail("a is kept"))  # a is used again: b is now the oldest
    cache.get("d", lambda: megabytes(3))
    assert ("a" in cache, "b" in cache, "c" in cache, "d" in cache) == (True, False, True, True)


def test_a_value_larger_than_the_budget_is_handed_back_and_not_kept():
    cache = Shared(10 * MB)
    cache.get("small", lambda: megabytes(2))
    big = cache.get("big", lambda: megabytes(11))
    assert big.nbytes == 11 * MB and "big" not in cache and "small" in cache and cache.held == 2 * MB


def test_a_buffer_several_values_hold_counts_once_and_goes_with_the_last():
    w = megabytes(4)
    cache = Shared(10 * MB)
    cache.get("w", lambda: w)
    cache.get("view", lambda: w[:10])  # a view of w's data: no new bytes
    cache.get("block", lambda: {"attn": w, "ffn": megabytes(4)})
    assert cache.held == 8 * MB
    cache.pop("w")
    cache.pop("view")
    assert cache.held == 8 * MB  # the block still holds w
    cache.pop("block")
    assert cache.held == 0


def test_room_lets_the_oldest_go_before_a_large_value_is_built_and_says_which():
    gone = []
    cache = Shared(10 * MB, dropped=lambda key, value: gone.append(key))
    for key in "abc":
        cache.get(key, lambda: megabytes(3))
    cache.room(6 * MB)
    assert gone == ["a", "b"] and cache.held == 3 * MB


def test_footprint_counts_arrays_bytes_and_text_in_what_values_hold():
    a = megabytes(1)
    value = (a, a[::2], {"json": b"x" * 1000, "text": "y" * 1000}, [mha.Weights(*(np.ones((1, 2, 3)),) * 3,
                                                                               np.ones((3, 2)))])
    assert sorted(footprint(value).values()) == sorted([MB, 1033, 1049, 48, 48, 48, 48])


def test_the_walks_weights_are_one_copy_for_the_walk_the_block_and_the_coda():
    models.MODELS.clear()
    cfg = mha.AttentionConfig(d_model=16, d_k=8, d_v=8, n_heads=4, d_ff=32, seed=3)
    w = models.weights(cfg.d_model, cfg.d_k, cfg.d_v, cfg.n_heads, cfg.seed, cfg.init)
    block = models.block_weights(cfg)
    assert block.attn is w and models.block_weights(cfg) is block
    assert models.MODELS.held == sum(footprint(block).values())  # the block adds its FFN, not the weights again


def test_a_walk_of_the_caps_keeps_the_weights_within_their_budget(monkeypatch):
    """Three seeds at the caps, each with its block: each set is ~128 MB, the budget one set and some."""
    models.MODELS.clear()
    held = []
    for seed in range(3):
        cfg = mha.AttentionConfig(64, 1024, 128, 128, 16, seed, d_ff=4096)
        models.block_weights(cfg)
        held.append(models.MODELS.held)
    assert max(held) <= models.MODELS_BUDGET and held[-1] >= 128 * MB
    models.MODELS.clear()


def test_a_shared_matrix_chart_keeps_its_json_not_its_dict():
    chart.FIGURES.clear()
    at = run(stage="qk")
    kept = [v for v in chart.FIGURES._items.values() if isinstance(v[0], chart.Drawn)]
    assert kept and all(d.spec is None and d.json for d, _ in kept)
    assert chart.FIGURES.held == sum(chart.figure_bytes(v) for v, _ in chart.FIGURES._items.values())
    assert rerun(at).get("html")


# --- prepared downloads ---------------------------------------------------------------------------------------

# A view of ~1 million numbers (~36 MB of files): three of them pass the downloads' budget.
BIG = dict(n_tokens=64, d_model=130, d_k=128, d_v=128, n_heads=8)


def _prepare(seed: int):
    at = run(stage="input", seed=seed, **BIG)
    at.session_state["downloads_open"] = True
    rerun(at).button(key="export_prepare").click()
    return rerun(at)


def test_sessions_preparing_large_views_hold_at_most_the_downloads_budget():
    """Three sessions prepare three views whose files pass the budget: the process holds the newest within it,
    and no session holds a copy of its own."""
    assert exports.READY_MAX < exports.size(mha.AttentionConfig(**BIG)) <= exports.MAX_VALUES
    prepared.FILES.clear()
    held = []
    for seed in (1, 2, 3):
        at = _prepare(seed)
        assert {b.key for b in at.get("download_button")} == {"download_npz", "download_json", "download_csv"}
        assert sum(footprint(at.session_state.to_dict()).values()) < MB
        held.append(prepared.FILES.held)
    assert held[0] > 30 * MB and max(held) <= 80 * MB and len(prepared.FILES._items) < 3
    prepared.FILES.clear()


def test_the_largest_views_files_fit_the_budget():
    """Else they would be written anew for every session that asks, and held by each."""
    cfg = mha.AttentionConfig(64, 130, 128, 128, 16)
    assert exports.size(cfg) <= exports.MAX_VALUES
    w, x = mha.init_weights(cfg), mha.init_input(cfg)
    files = exports.files(x, w, cfg)
    assert sum(map(len, files.values())) <= min(prepared.BUDGET, prepared.BYTES_PER_NUMBER * exports.size(cfg))


class _Runtime:
    """What prepared.sweep asks of Streamlit's runtime: which sessions are connected, and its media files."""

    def __init__(self):
        self.media_file_mgr = MediaFileManager(MemoryMediaFileStorage("/media"))
        self.active = set()

    def is_active_session(self, sid: str) -> bool:
        return sid in self.active


def test_a_large_downloads_build_waits_for_a_large_views_draw_and_a_small_ones_does_not(monkeypatch):
    """The README's memory table counts one heavy run's working memory: a large view drawn or a large download built,
    never both at once (red team 2026-12-06 R7). A small download is not held up by either."""
    small, large = mha.AttentionConfig(seed=4), mha.AttentionConfig(seed=5)
    monkeypatch.setattr(exports, "export_size", lambda cfg, part=None: prepared.HEAVY_BUILD + (cfg == large) * 10)
    prepared.FILES.clear()
    done = []

    def build(cfg) -> None:
        w, x = mha.init_weights(cfg), mha.init_input(cfg)
        prepared.prepare(exports.view_key(x, w, cfg), x, w, cfg)
        done.append(cfg.seed)

    with budget.lane(Text("en"), budget.WORK_BUDGET + 1):  # another page's large view, being drawn
        waiting, beside = (threading.Thread(target=build, args=(cfg,), daemon=True) for cfg in (large, small))
        waiting.start()
        beside.start()
        beside.join(10)  # at once, beside the draw
        waiting.join(0.5)
        assert done == [small.seed]
    waiting.join(10)
    assert done == [small.seed, large.seed]
    prepared.FILES.clear()


def test_a_closed_sessions_files_go_with_it(monkeypatch):
    """Streamlit keeps a closed session for its tab to come back, then drops it without shutting it down: what it
    registered stays unless someone lets it go. Here: two sessions show the same view's files, one closes (its
    registration goes, the files stay for the other), then the other (the files go)."""
    runtime = _Runtime()
    for name, empty in (("_showing", {}), ("_asked", {}), ("_inactive", set())):
        monkeypatch.setattr(prepared, name, empty)
    monkeypatch.setattr(prepared, "_start_janitor", lambda: None)
    prepared.FILES.clear()
    cfg = mha.AttentionConfig(seed=4)
    w, x = mha.init_weights(cfg), mha.init_input(cfg)
    view = exports.view_key(x, w, cfg)
    manager, urls = runtime.media_file_mgr, {}
    for sid in ("one", "two"):
        runtime.active.add(sid)
        monkeypatch.setattr(prepared, "_session_id", lambda sid=sid: sid)
        monkeypatch.setattr("streamlit.runtime.media_file_manager._get_session_id", lambda sid=sid: sid)
        files = prepared.prepare(view, x, w, cfg)
        urls[sid] = manager.add(files["json"], "application/json", "1.0", "f.json", is_for_static_download=True)
        prepared.show(view)

    def served(url: str) -> bool:
        try:
            return manager.read_file(url.rsplit("/", 1)[1]) is not None
        except MediaFileStorageError:
            return False

    def passes(n: int) -> None:
        for _ in range(n):
            prepared.sweep(runtime)

    runtime.active.discard("one")
    passes(1)  # disconnected once: the tab may come back
    assert view in prepared.FILES and "one" in prepared._asked
    passes(2)
    assert "one" not in prepared._asked and view in prepared.FILES and served(urls["two"])
    runtime.active.discard("two")
    passes(3)
    assert view not in prepared.FILES and not prepared._asked and not served(urls["two"])
    assert not manager._file_metadata


def test_the_readme_states_each_caches_budget_and_a_total_under_the_smallest_host():
    """The README's memory table is the budget: the code keeps to its figures, and they sum to a margin under 690 MB."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    table = readme[readme.index("### Memory"):].split("\n\n")[2]
    rows = {cells[0].strip("`* "): int(cells[-1].strip("* ").removesuffix(" MB"))
            for cells in (line.strip("|").split("|") for line in table.splitlines()[2:])}
    held = {"models.MODELS": models.MODELS.budget, "prepared.FILES": prepared.FILES.budget,
            "chart.FIGURES": chart.FIGURES.budget, "view.TRACES": view.TRACES.budget}
    assert {name: rows[name] * MB for name in held} == held
    total = rows.pop("total")
    margin = checkpoints.BUDGET_MB + uploads.PROCESS_MAX // MB  # checkpoints and uploads take the margin
    assert total == sum(rows.values()) <= 690 - margin and margin == 64
    said = " ".join(readme.split())  # as the page reads it, its lines run on
    assert f"within `MHA_MODEL_MB` more (default {checkpoints.BUDGET_MB} MB)" in said
    assert f"{uploads.SESSION_MAX // MB} MB a page and {uploads.PROCESS_MAX // MB} MB for every page" in said


class _Session:
    """What prepared asks of a Streamlit AppSession to redraw its page: the client state its last run ended with,
    and the server's event loop (here a list of the calls scheduled on it)."""

    def __init__(self, sid: str, scheduled: list):
        self.id, self.scheduled, self.reruns = sid, scheduled, []
        self._client_state = ClientState(query_string=f"stage=input&seed={sid}", fragment_id="f1")

    def _call_soon_on_event_loop(self, callback) -> None:
        self.scheduled.append(callback)

    def request_rerun(self, client_state) -> None:
        self.reruns.append(client_state)


def test_a_page_whose_files_are_let_go_is_redrawn_at_once_and_offers_to_write_them_again(monkeypatch):
    """The red team's N4: when another page's files took the room, a page kept its three buttons until its own
    next run, and a click on one gave a failed download with nothing said. Now the page is rerun in full as its
    last run left it, on the server's event loop, and says why the buttons went (once) above its Prepare button."""
    runtime, scheduled = _Runtime(), []
    runtime.sessions = {sid: _Session(sid, scheduled) for sid in ("one", "two")}
    runtime.get_app_session = runtime.sessions.get
    for name, empty in (("_showing", {}), ("_asked", {}), ("_let_go", set())):
        monkeypatch.setattr(prepared, name, empty)
    monkeypatch.setattr(prepared, "_start_janitor", lambda: None)
    cfgs = [mha.AttentionConfig(**BIG, seed=seed) for seed in (1, 2)]
    size = prepared.BYTES_PER_NUMBER * exports.export_size(cfgs[0])
    monkeypatch.setattr(prepared, "FILES", Shared(size + size // 2, dropped=prepared._dropped))  # one view's files
    with monkeypatch.context() as server:  # a Streamlit server's runtime, for the two pages only
        server.setattr("streamlit.runtime.Runtime.exists", staticmethod(lambda: True))
        server.setattr("streamlit.runtime.Runtime.instance", staticmethod(lambda: runtime))
        first = None
        for sid, cfg in zip(("one", "two"), cfgs):
            server.setattr(prepared, "_session_id", lambda sid=sid: sid)
            if first is not None:
                prepared.show(first)  # page two shows page one's files too, then writes its own
            w, x = mha.init_weights(cfg), mha.init_input(cfg)
            view = exports.view_key(x, w, cfg)
            prepared.prepare(view, x, w, cfg)
            prepared.show(view)
            first = first or view
    assert prepared._let_go == {"one", "two"} and len(scheduled) == 1  # page two's own run let them go: not redrawn
    scheduled.pop()()
    [again] = runtime.sessions["one"].reruns
    assert again.query_string == "stage=input&seed=one" and not again.fragment_id  # in full, as it was
    assert not runtime.sessions["two"].reruns
    monkeypatch.setattr(prepared, "_let_go", {"test session id"})  # AppTest's session is the page let go
    at = run(stage="input", seed=1, **BIG)
    at.session_state["downloads_open"] = True
    rerun(at)
    assert EN["export_let_go"] in [c.value for c in at.caption] and at.button(key="export_prepare")
    rerun(at)
    assert EN["export_let_go"] not in [c.value for c in at.caption] and at.button(key="export_prepare")


def test_closed_tabs_sessions_go_once_their_time_to_come_back_is_over():
    """The red team's N3: after 120 idle sessions closed, RSS stayed up for good. Streamlit keeps a closed tab's
    session for it to come back, and its store drops an expired one only at its next write, which never came once
    the last tab had closed. The janitor's reap lets them go."""
    import gc
    import threading
    import weakref
    from types import SimpleNamespace

    from streamlit.runtime.memory_session_storage import MemorySessionStorage

    class Page:  # a session, with what its page holds
        def __init__(self, sid):
            self.id, self.rows = sid, [np.zeros(1024) for _ in range(64)]

    storage = MemorySessionStorage(ttl_seconds=60)
    runtime = SimpleNamespace(_session_mgr=SimpleNamespace(_storage_lock=threading.Lock(), _session_storage=storage))
    pages = [Page(f"s{i}") for i in range(3)]
    for page in pages:
        storage.save(SimpleNamespace(session=page))
    assert prepared.reap(runtime) == 0 and len(storage.list()) == 3  # within their 60 s: kept for the tabs
    storage._cache._timer = lambda: time.monotonic() + 61  # a minute on
    gone = [weakref.ref(page) for page in pages]
    del pages, page
    assert prepared.reap(runtime) == 3
    gc.collect()
    assert all(ref() is None for ref in gone)


def test_a_janitor_pass_while_an_app_test_runs_fails_nothing(monkeypatch):
    """While an AppTest runs, Streamlit's runtime is its stand-in (a MagicMock with Runtime's spec, as AppTest makes
    it). The janitor's pass raised there every few seconds, and its traceback, logged from the janitor's thread,
    broke the script compile of the AppTest beside it (one AST depth counter for all threads in Python 3.11)."""
    from unittest.mock import MagicMock

    from streamlit.runtime import Runtime

    monkeypatch.setattr(Runtime, "_instance", MagicMock(spec=Runtime))
    prepared.janitor_pass()


def test_the_walks_x_is_held_in_the_weights_budget_and_a_long_texts_width_is_not_kept():
    """X before edits (seeded, or a text's) is one shared read-only array in models.MODELS, counted in its bytes; a
    text longer than text.CACHED_CHARS is measured anew rather than kept by text_px's count-bounded cache."""
    from mha.figures import text
    from mha.ui import x_source

    cfg = mha.AttentionConfig(n_tokens=5, seed=77)
    x = x_source.seeded_x(cfg)
    assert x is x_source.seeded_x(cfg) and ("seeded_x", cfg) in models.MODELS and not x.flags.writeable
    long = "w" * (text.CACHED_CHARS + 1)
    calls = text._width_cached.cache_info()  # the cache may be full: count its hits and misses, not its size
    assert text.text_px(long, 10.0) == text.text_px(long, 10.0) > text._width(long[1:], 10.0)
    assert text._width_cached.cache_info()[:2] == calls[:2]
    short = f"short {time.monotonic()}"  # a text no test measured before
    text.text_px(short, 10.0), text.text_px(short, 10.0)
    assert text._width_cached.cache_info()[:2] == (calls.hits + 1, calls.misses + 1)


def test_a_small_part_of_a_large_view_is_built_beside_a_large_views_draw():
    """The heavy lane is for large downloads: a stage's part (a product's A, B and R) of a view whose attention is
    large holds a few numbers, and its files are built at once while another page draws a large view."""
    large = mha.AttentionConfig(n_tokens=64, d_model=256, d_k=64, d_v=64, n_heads=8, seed=6)
    assert exports.size(large) > prepared.HEAVY_BUILD
    w, x = mha.init_weights(large), mha.init_input(large)
    a, b = x[:3, :5], x[:5, :7]
    part = exports.Part({"A": a, "B": b, "R": a @ b}, {k: ("row", "column") for k in "ABR"})
    assert exports.export_size(large, part) < prepared.HEAVY_BUILD
    prepared.FILES.clear()
    done = []

    def build() -> None:
        prepared.prepare(("small part", exports.view_key(x, w, large)), x, w, large, part)
        done.append(True)

    with budget.lane(Text("en"), budget.WORK_BUDGET + 1):  # another page's large view, being drawn
        beside = threading.Thread(target=build, daemon=True)
        beside.start()
        beside.join(5)
        assert done == [True]
    beside.join(10)
    prepared.FILES.clear()
