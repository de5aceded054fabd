"""Heavy work is costed before it starts: a view over the work budget asks first, and is drawn in the heavy lane."""

import contextlib
import re
import threading
import time
from types import SimpleNamespace

import pytest

import mha
from mha.ui import budget, startup, walk
from mha.ui.strings import Text

from .helpers import chart_keys, page_text, rerun, run
from .test_reruns import _click, _request, _session

CAPS = dict(n_tokens=64, d_model=1024, d_k=128, d_v=128, n_heads=16)


H, D, K, V, N = 16, 1024, 128, 128, 64
WALK = N * D * 2 + H * N * (2 * K + V) + 4 * H * N * N + H * N * V + N * H * V  # X, Y, Q, K, V, 4 n×n, H, Concat
NUMBERS = H * D * (2 * K + V) + H * V * D + WALK  # W_Q, W_K, W_V, W_O and the walk


def test_the_work_of_a_view_counts_its_weights_its_walk_and_its_ffn():
    cfg = mha.AttentionConfig(**CAPS)
    assert budget.work(cfg, "scores") == NUMBERS
    assert budget.work(cfg, "block") == NUMBERS + 2 * D * cfg.d_ff


@pytest.mark.parametrize("lang, words", [("en", f"This view computes {NUMBERS:,} numbers, more than 4,000,000"),
                                         ("zh", f"这个视图要计算 {NUMBERS:,} 个数，超过了 4,000,000")])
def test_a_link_to_the_largest_view_asks_first_and_computes_nothing_until_told(lang, words):
    at = run(stage="scores", lang=lang, **CAPS)
    assert words in page_text(at) and chart_keys(at) == []
    at.button(key="budget_draw").click()
    rerun(at)
    assert "scores" in chart_keys(at) and words not in page_text(at)
    at.session_state["stage"] = "qk"  # a yes holds for views up to that size
    assert rerun(at) and chart_keys(at) and "budget_draw" not in [b.key for b in at.button]


def test_a_view_within_the_budget_is_drawn_at_once():
    at = run(stage="scores", preset="gpt2")
    assert "scores" in chart_keys(at) and not any(b.key == "budget_draw" for b in at.button)


def test_the_heavy_lane_draws_one_large_view_at_a_time_and_never_holds_up_a_small_one():
    order, t = [], budget.Text("en")
    holding, release = threading.Event(), threading.Event()

    def first():
        with budget.lane(t, budget.WORK_BUDGET + 1):
            order.append("first in")
            holding.set()
            release.wait(10)
            order.append("first out")

    def second():
        with budget.lane(t, budget.WORK_BUDGET + 1):
            order.append("second in")

    a = threading.Thread(target=first)
    a.start()
    holding.wait(10)
    b = threading.Thread(target=second)
    b.start()
    with budget.lane(t, budget.WORK_BUDGET):  # a small view goes while the lane is taken
        order.append("small")
    time.sleep(0.2)
    assert order == ["first in", "small"]  # the second large view waits
    release.set()
    a.join(10)
    b.join(10)
    assert order == ["first in", "small", "first out", "second in"]


@pytest.fixture
def sessions(monkeypatch):
    """Each thread runs as the session its name says (get_script_run_ctx), with no pace noted before, and a spinner
    that notes its words."""
    monkeypatch.setattr(budget, "get_script_run_ctx",
                        lambda: SimpleNamespace(session_id=threading.current_thread().name))
    said = []
    monkeypatch.setattr(budget.st, "spinner", lambda words: (said.append(words), contextlib.nullcontext())[1])
    budget._spent.clear()
    budget._own.clear()
    yield said
    budget._spent.clear()
    budget._own.clear()


def _in_thread(name: str, body) -> threading.Thread:
    thread = threading.Thread(target=body, name=name)
    thread.start()
    return thread


def _turns(holder: str, waiter: str, free: str) -> tuple[list[str], list[str]]:
    """A run of page `holder` holds on; meanwhile page `waiter` asks for a run, then page `free`: the runs begun by
    the time `free`'s has ended, and all of them once `holder`'s has."""
    t, order = Text("en"), []
    holding, release = threading.Event(), threading.Event()

    def hold():
        with budget.paced(t):
            order.append(f"{holder} in")
            holding.set()
            release.wait(10)
            order.append(f"{holder} out")

    def go(tag):
        with budget.paced(t):
            order.append(tag)

    first = _in_thread(holder, hold)
    holding.wait(10)
    second = _in_thread(waiter, lambda: go(waiter))
    _in_thread(free, lambda: go(free)).join(10)
    time.sleep(0.2)
    meanwhile = list(order)
    release.set()
    first.join(10)
    second.join(10)
    return meanwhile, order


def test_a_pages_run_waits_for_its_run_before_and_another_pages_does_not(sessions):
    """Red team 2026-12-06 R1: with fast reruns a page asking without pause ran on many threads at once, holding the
    one Python thread among them (a new visitor's page took 32 s to open). A page's runs now go one at a time."""
    meanwhile, order = _turns("a", "a", "b")  # a's second run waits for its first; b goes at once
    assert meanwhile == ["a in", "b"] and order == ["a in", "b", "a out", "a"] and not sessions


def test_pages_over_their_pace_take_turns_and_a_light_page_never_waits(sessions, monkeypatch):
    """Pages whose runs used more than PACE_CPU_S in the window run one at a time, and say so while they wait; a page
    under its pace goes at once; the CPU of a run that ends by an exception counts too."""
    t, ended = Text("en"), []

    def heavy_run():  # a run that used more than the pace (its CPU clock moves on by that much), stopped by a click
        try:
            with budget.paced(t):
                raise RuntimeError("stopped by a newer click")
        except RuntimeError:
            ended.append(threading.current_thread().name)

    monkeypatch.setattr(budget, "time", SimpleNamespace(monotonic=time.monotonic, thread_time=lambda: next(clock)))
    for name in ("a", "b"):
        clock = iter([0.0, budget.PACE_CPU_S + 0.1])
        _in_thread(name, heavy_run).join(10)
    monkeypatch.setattr(budget, "time", time)
    assert ended == ["a", "b"]
    assert budget.spent("a", time.monotonic()) > budget.PACE_CPU_S < budget.spent("b", time.monotonic())
    meanwhile, order = _turns("a", "b", "c")  # both over the pace: b waits for a; c, light, goes at once
    assert meanwhile == ["a in", "c"] and order == ["a in", "c", "a out", "b"] and sessions == [t("budget_pace")]
    later = time.monotonic() + budget.PACE_WINDOW_S + 0.01  # the window past: its pace is forgotten
    assert budget.spent("a", later) == 0


def test_a_rooms_followers_pay_the_rooms_pace_together(sessions, monkeypatch):
    """Red team 2026-12-07 T1: one change made every follower of a room rerun at once, each far under its own pace,
    and 150 of them took a light page's p95 from 0.07 to 33 s. Followers pay the room's pace: once their runs
    together pass it, they take turns with the other busy pages, one at a time, and a light page still goes at once."""
    t, room = Text("en"), "room ABCDE"
    monkeypatch.setattr(budget, "time", SimpleNamespace(monotonic=time.monotonic, thread_time=lambda: next(clock)))
    for _ in range(4):  # four followers' runs, each a third of the pace: the room over it
        clock = iter([0.0, budget.PACE_CPU_S / 3])
        with budget.paced(t, room):
            pass
    monkeypatch.setattr(budget, "time", time)
    assert budget.spent(room, time.monotonic()) > budget.PACE_CPU_S and budget.spent("", time.monotonic()) == 0
    order, holding, release = [], threading.Event(), threading.Event()

    def follower(name):
        with budget.paced(t, room):
            order.append(name)
            holding.set()
            release.wait(10)

    first = _in_thread("f5", lambda: follower("f5"))
    holding.wait(10)
    second = _in_thread("f6", lambda: follower("f6"))  # another follower of the room: its turn waits

    def light():
        with budget.paced(t):
            order.append("light")

    _in_thread("light", light).join(10)  # a light page goes at once
    time.sleep(0.2)
    assert order == ["f5", "light"] and sessions == [t("budget_pace")]
    release.set()
    first.join(10)
    second.join(10)
    assert order == ["f5", "light", "f6"]


MIB = 2**20
WEIGHTS_MIB = 8 * (H * D * (2 * K + V) + H * V * D) // MIB  # W_Q, W_K, W_V, W_O at the caps: 64 MiB
WALK_MIB = 8 * WALK // MIB  # 8 MiB


def _seat(seed: int, stage: str = "scores") -> tuple:
    return budget.holds(mha.AttentionConfig(**CAPS, seed=seed), stage)


def _shown(seed: int, stage: str = "scores", idle_s: float = 0.0) -> budget.Seat:
    """The seat of a page that shows the caps' `stage` on `seed`, last used `idle_s` ago."""
    return budget.Seat(_seat(seed, stage), time.monotonic() - idle_s, time.monotonic() - idle_s)


def _held_now() -> int:
    return budget._held({s: seat.holds for s, seat in budget._seats.items()})


@pytest.fixture
def one_view_shown():
    """Another session shows the caps' scores on seed 1 (conftest empties the seats after)."""
    budget._seats["a"] = _shown(1)


def test_what_a_view_holds_is_its_weights_once_and_each_pages_walk():
    assert (WEIGHTS_MIB, WALK_MIB) == (64, 8)
    assert budget._held({"a": _seat(1), "b": _seat(2)}) == 2 * (WEIGHTS_MIB + WALK_MIB) * MIB
    assert budget._held({"a": _seat(1), "b": _seat(1)}) == (WEIGHTS_MIB + 2 * WALK_MIB) * MIB
    ffn = 8 * 2 * D * mha.AttentionConfig().d_ff  # the block's W_fc and W_proj at the default d_ff
    assert budget._held({"a": _seat(1), "b": _seat(1, "block")}) == (WEIGHTS_MIB + 2 * WALK_MIB) * MIB + ffn


@pytest.mark.parametrize("lang, words", [
    ("en", f"would hold {WEIGHTS_MIB + WALK_MIB} MB while it is shown, and the views shown on this server already "
           f"hold {WEIGHTS_MIB + WALK_MIB} of the 136 MB"),
    ("zh", f"要占用 {WEIGHTS_MIB + WALK_MIB} MB 内存，而服务器为视图留出的 136 MB 内存中，正在显示的视图已经占用了 "
           f"{WEIGHTS_MIB + WALK_MIB} MB")])
def test_a_view_past_the_memory_for_views_shown_waits_and_says_so(one_view_shown, lang, words):
    at = run(stage="scores", seed=3, lang=lang, cleared=10**9, **CAPS)
    assert words in page_text(at) and chart_keys(at) == []
    del budget._seats["a"]  # that session went on to a smaller view
    at.button(key="budget_retry").click()
    rerun(at)
    assert "scores" in chart_keys(at) and words not in page_text(at)


def test_the_largest_view_fits_alone():
    at = run(stage="block", cleared=10**9, **CAPS, d_ff=4096)
    assert chart_keys(at) and _held_now() == (2 * WEIGHTS_MIB + WALK_MIB) * MIB == budget.HELD_BUDGET


def test_a_view_on_weights_already_shown_adds_only_its_walk(one_view_shown):
    at = run(stage="scores", seed=1, cleared=10**9, **CAPS)  # the weights of session a
    assert "scores" in chart_keys(at)
    assert _held_now() == (WEIGHTS_MIB + 2 * WALK_MIB) * MIB


@pytest.mark.parametrize("lang, waits, idle", [("en", "there is room in {} s", "goes 60 s without a click"),
                                               ("zh", "{} 秒后就能腾出空间", "连续 60 秒没有操作")])
def test_a_page_left_idle_gives_its_seat_to_a_page_that_needs_it_and_the_wait_said_is_true(lang, waits, idle):
    """The red team's N2: a tab idle at the caps' block held the whole budget for as long as it stayed open. Now a
    page that needs the room is told the seconds until the idle page's seat may go (IDLE_S after its last use),
    and once they have passed, its retry takes the seat; the idle page's own next run is then told the same."""
    budget._seats["a"] = _shown(1, "block", idle_s=budget.IDLE_S - 25)  # the whole budget, last used 35 s ago
    at = run(stage="scores", seed=3, lang=lang, cleared=10**9, **CAPS)
    said = page_text(at)
    assert chart_keys(at) == [] and idle in said
    assert walk.title(Text(lang), "scores") in [m.value.removeprefix("### ") for m in at.markdown]  # what it waits for
    wait = int(re.search(waits.format(r"(\d+)"), said).group(1))
    assert 18 <= wait <= 26, said  # 25 s, less what the page's run took (seconds, on a loaded machine)
    budget._seats["a"] = budget._seats["a"]._replace(used=time.monotonic() - budget.IDLE_S)  # those 25 s are over
    at.button(key="budget_retry").click()
    rerun(at)
    assert "scores" in chart_keys(at) and "a" not in budget._seats
    [seat] = budget._seats.values()  # every AppTest has one session id: this page's seat goes to "b", and the
    budget._seats.clear()  # next AppTest plays page a, used again
    budget._seats["b"] = seat
    idle_page = run(stage="block", seed=1, lang=lang, cleared=10**9, **CAPS, d_ff=4096)
    said = page_text(idle_page)
    assert chart_keys(idle_page) == [] and 53 <= int(re.search(waits.format(r"(\d+)"), said).group(1)) <= 60


@pytest.mark.parametrize("lang, waits", [("en", "there is room in {} s"), ("zh", "{} 秒后就能腾出空间")])
def test_a_page_that_keeps_clicking_holds_its_seat_for_hold_s_and_then_pages_take_turns(lang, waits):
    """The red team's T5: a script that reran its page every 50 s kept the caps' block, the whole budget, for as long
    as it liked; every other larger view was refused 4 times in 200 s. A seat goes to a page that needs the room
    HOLD_S after it was taken, clicks or not: the wait said counts to then, the retry after it takes the seat, and
    the first page, clicking still, is told it may have it back HOLD_S later at the latest."""
    taken = time.monotonic() - (budget.HOLD_S - 20)  # the whole budget, taken 100 s ago, clicked a second ago
    budget._seats["a"] = budget.Seat(_seat(1, "block"), time.monotonic() - 1, taken)
    at = run(stage="scores", seed=3, lang=lang, cleared=10**9, **CAPS)
    said = page_text(at)
    assert chart_keys(at) == [] and "a" in budget._seats
    assert 13 <= int(re.search(waits.format(r"(\d+)"), said).group(1)) <= 20, said  # not IDLE_S after the click
    budget.touch("a")  # a click of its page meanwhile does not keep it
    budget._seats["a"] = budget._seats["a"]._replace(since=time.monotonic() - budget.HOLD_S)  # the 20 s are over
    at.button(key="budget_retry").click()
    rerun(at)
    assert "scores" in chart_keys(at) and "a" not in budget._seats
    [(sid, seat)] = budget._seats.items()
    rerun(at)  # its next runs keep the seat, and when it was first taken: its turn does not start again
    assert budget._seats[sid].used > seat.used and budget._seats[sid].since == seat.since
    budget._seats.clear()  # every AppTest has one session id: this page's seat goes to "b", page a clicks again
    budget._seats["b"] = seat
    turn = run(stage="block", seed=1, lang=lang, cleared=10**9, **CAPS, d_ff=4096)
    said = page_text(turn)
    assert chart_keys(turn) == [] and 50 <= int(re.search(waits.format(r"(\d+)"), said).group(1)) <= budget.IDLE_S


def test_a_click_keeps_a_pages_seat_and_a_timers_tick_does_not():
    startup.install()  # hands reruns' wrapper budget.touch
    budget._seats["s1"] = _shown(1, idle_s=50)
    _request(_session(holds=True), _click("f1", auto=True))
    assert time.monotonic() - budget._seats["s1"].used >= 50
    _request(_session(holds=True), _click("f1"))
    assert time.monotonic() - budget._seats["s1"].used < 5
    _request(SimpleNamespace(id="s2", has_fragment=lambda _: True, session_state={}), _click("f1"))
    assert "s2" not in budget._seats  # a page without a seat is given none by a click


def test_a_disconnected_session_lets_go_of_its_view(one_view_shown, monkeypatch):
    monkeypatch.setattr(budget, "_connected", lambda sid: sid != "a")
    at = run(stage="scores", seed=3, cleared=10**9, **CAPS)
    assert "scores" in chart_keys(at) and "a" not in budget._seats


def test_a_smaller_view_lets_go_of_the_larger():
    at = run(stage="scores", seed=3, cleared=10**9, **CAPS)
    assert len(budget._seats) == 1
    at.number_input(key="n_heads").set_value(1)
    rerun(at)
    at.number_input(key="d_model").set_value(8)  # under HELD_FROM numbers
    rerun(at)
    assert not budget._seats


def test_a_live_pages_lock_is_kept_and_a_gone_ones_is_let_go(sessions, monkeypatch):
    """The pace forgets runs past its window; a page's lock goes with them only once the page has disconnected (a
    live page's next run must take the same lock as the run it may be racing)."""
    budget._own.update(live=threading.Lock(), gone=threading.Lock())  # two pages that ran, long ago
    monkeypatch.setattr(budget, "_connected", lambda sid: sid != "gone")
    budget._spent.update({"live": budget.deque([(0.0, 0.1)]), "gone": budget.deque([(0.0, 0.1)])})
    budget._ran("other", 0.0)  # a run long after theirs sweeps them
    assert "live" in budget._own and "gone" not in budget._own and set(budget._spent) == {"other"}


def test_a_run_that_waited_for_its_pages_run_before_takes_its_turn_if_that_run_put_the_page_over_its_pace(
        sessions, monkeypatch):
    """The pace of a page is judged once its run before has ended, with that run's CPU counted: a page asking without
    pause has its next click queued behind a heavy run still going, and that next run must take its turn among the
    pages over their pace, not go beside them because the run before had not been counted yet."""
    t, order = Text("en"), []
    used = {}  # thread -> its CPU clock's readings, as paced reads them (start, end)
    monkeypatch.setattr(budget, "time", SimpleNamespace(
        monotonic=time.monotonic, thread_time=lambda: next(used[threading.current_thread()])))
    budget._spent["b"] = budget.deque([(time.monotonic(), budget.PACE_CPU_S + 0.1)])  # b is over its pace
    events = {k: threading.Event() for k in ("b in", "a in", "b go", "a go")}

    def held(tag, cpu, go):
        used[threading.current_thread()] = iter([0.0, cpu])
        with budget.paced(t):
            order.append(tag)
            events[tag].set()
            events[go].wait(10)
            order.append(f"{tag[0]} out")

    def light(tag):
        used[threading.current_thread()] = iter([0.0, 0.0])
        with budget.paced(t):
            order.append(tag)

    b = _in_thread("b", lambda: held("b in", 0.0, "b go"))  # b's run, over its pace: it holds the turn
    events["b in"].wait(10)
    a1 = _in_thread("a", lambda: held("a in", budget.PACE_CPU_S + 0.1, "a go"))  # a, light so far: goes at once
    events["a in"].wait(10)
    a2 = _in_thread("a", lambda: light("a again"))  # a's next click, queued behind its heavy run
    time.sleep(0.1)
    events["a go"].set()  # a's heavy run ends: a is over its pace now
    a1.join(10)
    for _ in range(100):  # a's next run finds a over its pace, and b's turn taken
        if sessions:
            break
        time.sleep(0.05)
    time.sleep(0.1)
    assert "a again" not in order and sessions == [t("budget_pace")]  # it waits for b's turn, and says so
    events["b go"].set()
    b.join(10)
    a2.join(10)
    assert order == ["b in", "a in", "a out", "b out", "a again"]


def test_the_wait_said_counts_every_idle_seat_that_must_go_for_the_view(monkeypatch):
    """Three pages show views of 40 MiB on weights of their own; the caps' view (72 MiB) fits only once two of them
    have given up their seats. The wait said is until the second oldest may give its seat up (IDLE_S after its last
    use), the oldest going first, not the whole IDLE_S."""
    mid = dict(n_tokens=64, d_model=512, d_k=128, d_v=128, n_heads=16)
    for name, seed, idle in (("a", 11, budget.IDLE_S - 5), ("b", 12, budget.IDLE_S - 20), ("c", 13, 0.0)):
        budget._seats[name] = budget.Seat(budget.holds(mha.AttentionConfig(**mid, seed=seed), "scores"),
                                          time.monotonic() - idle, time.monotonic() - idle)
    mine = budget._held({"": _seat(3)})
    others = [budget._held({s: seat.holds}) for s, seat in budget._seats.items()]
    assert sum(others) - others[0] + mine > budget.HELD_BUDGET >= others[2] + mine  # two must go, one is not enough
    at = run(stage="scores", seed=3, cleared=10**9, **CAPS)
    said = page_text(at)
    assert chart_keys(at) == []
    wait = int(re.search(r"there is room in (\d+) s", said).group(1))
    assert 6 <= wait <= 20, said  # b's 20 s, less what the page's run took (one seat's wait would be a's 5 s)
