"""The classroom's rooms (mha/ui/rooms.py): a code and a key, who may drive, who is told, and every bound."""

from types import SimpleNamespace

import pytest

from mha.ui import budget, classroom, room_panel, rooms
from mha.ui.rooms import RoomError, Store
from mha.ui.strings import EN, TABLES, Text

from .helpers import page_text, rerun, run


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _store():
    clock, later = Clock(), []
    return Store(clock=clock, later=lambda s, f: later.append((s, f))), clock, later


def test_a_room_has_a_short_unambiguous_code_and_a_long_random_key():
    store, _, _ = _store()
    codes, keys = set(), set()
    for _ in range(40):
        code, key = store.open()
        assert len(code) == rooms.CODE_LENGTH and set(code) <= set(rooms.CODE_LETTERS)
        assert not set(code) & set("01OIL")
        assert len(key) >= 32  # 24 bytes in URL-safe base64: 192 bits
        codes.add(code), keys.add(key)
    assert len(codes) == len(keys) == 40


def test_only_the_rooms_own_key_drives_it():
    store, _, _ = _store()
    code, key = store.open()
    other_code, other_key = store.open()
    told = []
    store.join(code, "follower", lambda: told.append(1))
    assert store.drives(code, key) and not store.drives(code, other_key) and not store.drives(code, None)
    assert not store.drives(code, key[:-1]) and not store.drives(code, key + "x") and not store.drives("ZZZZZ", key)
    for wrong in (None, "", other_key, key.upper() if key != key.upper() else key.lower()):
        with pytest.raises(RoomError) as said:
            store.send(code, wrong, {"stage": "qk"})
        assert said.value.key == "room_not_yours"
    assert store.view(code) == (0, {}) and not told
    assert store.send(code, key, {"stage": "qk"}) and store.view(code) == (1, {"stage": "qk"}) and told == [1]


def test_a_view_is_sent_without_what_each_page_keeps_and_without_the_rooms_own_parameters():
    store, _, _ = _store()
    code, key = store.open()
    store.send(code, key, {"stage": "scores", "lang": "zh", "present": "1", "cells": "0", "room": code, "key": key,
                           "n_tokens": "4"})
    assert store.view(code) == (1, {"stage": "scores", "n_tokens": "4"})
    assert store.send(code, key, {"stage": "scores", "n_tokens": "4", "lang": "en"})  # the same view: nothing sent
    assert store.view(code)[0] == 1


def test_followers_are_told_and_a_page_that_explores_on_its_own_is_counted_but_not_told():
    store, _, _ = _store()
    code, key = store.open()
    told = {"a": 0, "b": 0}
    store.join(code, "a", lambda: told.__setitem__("a", told["a"] + 1))
    store.join(code, "b", None)  # exploring on its own
    store.send(code, key, {"stage": "qk"})
    assert told == {"a": 1, "b": 0} and store.heads(code) == 2
    assert store.heads(code, alive=lambda page: page != "a") == 1  # a closed page leaves the count
    store.leave(code, "b")
    assert store.heads(code) == 0


def test_a_presenter_faster_than_the_rooms_pace_has_the_latest_view_sent_after_the_second():
    store, clock, later = _store()
    code, key = store.open()
    told = []
    store.join(code, "a", lambda: told.append(store.view(code)[1]["stage"]))
    stages = ["qk", "scores", "values", "heads", "output", "dependency"]
    sent = [store.send(code, key, {"stage": s}) for s in stages]
    assert sent == [True] * rooms.SENDS_PER_S + [False] * (len(stages) - rooms.SENDS_PER_S)
    assert told == stages[:rooms.SENDS_PER_S] and len(later) == 1  # one release, however many wait
    clock.now += 1.0
    later.pop()[1]()
    assert told[-1] == "dependency" and store.view(code) == (len(stages), {"stage": "dependency"})


def test_a_held_view_waits_only_until_the_oldest_send_leaves_the_second_and_a_later_burst_is_held_again():
    """Sends 0.2 s apart: the fifth in a second is held until the first is a second old (0.2 s later, not 1 s),
    and after its release a second burst is held and released again: the pace holds for the whole class, not once."""
    store, clock, later = _store()
    code, key = store.open()
    told = []
    store.join(code, "a", lambda: told.append(store.view(code)[1]["stage"]))
    for i in range(rooms.SENDS_PER_S):  # at 0.0, 0.2, 0.4, 0.6
        assert store.send(code, key, {"stage": f"s{i}"})
        clock.now += 0.2
    assert not store.send(code, key, {"stage": "late"})  # at 0.8
    (delay, release), = later
    assert delay == pytest.approx(0.2)  # the send at 0.0 leaves the second at 1.0
    later.clear()
    clock.now += delay
    release()
    assert told[-1] == "late"
    sent = [store.send(code, key, {"stage": s}) for s in ("b1", "b2", "b3")]  # at 1.0: a second burst
    assert sent == [False] * 3 and len(later) == 1  # the release was a send of this second: the second is full
    clock.now += later[0][0]
    later.pop()[1]()
    assert told[-1] == "b3" and store.view(code)[1] == {"stage": "b3"}


def test_rooms_pages_and_lifetime_are_bounded():
    store, clock, _ = _store()
    codes, keys = zip(*(store.open() for _ in range(rooms.MAX_ROOMS)))
    with pytest.raises(RoomError) as said:
        store.open()
    assert said.value.key == "room_full_process"  # and the soonest a room could give way: all opened just now
    assert said.value.values == {"limit": rooms.MAX_ROOMS, "minutes": rooms.GIVE_WAY_S // 60}
    for i in range(rooms.MAX_PAGES):
        store.join(codes[0], f"page{i}", None)
    store.join(codes[0], "page0", None)  # a page joining again is the same page
    with pytest.raises(RoomError) as said:
        store.join(codes[0], "one more", None)
    assert said.value.key == "room_full" and store.heads(codes[0]) == rooms.MAX_PAGES
    clock.now += rooms.LIFETIME_S - 1
    store.keep(codes[1], keys[1])  # its presenter's page: the room lives on
    clock.now += 2
    assert store.exists(codes[1]) and not store.exists(codes[0])
    with pytest.raises(RoomError) as said:
        store.view(codes[0])
    assert said.value.key == "room_gone"
    store.open()  # the rooms that went make room



def test_when_the_rooms_are_full_the_room_without_a_sign_of_life_for_longest_gives_way_and_a_room_in_use_never():
    """Sixty links that open a room and leave (the red team's R3) kept every class out for LIFETIME_S. A sign of life
    is the presenter's open page (keep, every KEEP_EVERY_S) and a presenter's run even when its view is as it was; a
    follower's run is none (red team 2026-12-07 T3: one visit a room every 4 minutes kept all 60)."""
    store, clock, _ = _store()
    told, opened = [], []
    for i in range(rooms.MAX_ROOMS):
        clock.now += 1
        opened.append(store.open())
        if i == 1:
            store.join(opened[1][0], "reader", lambda: told.append("reader"))
    (kept, key), (left, _), (followed, _), (left_too, _), (sent, sent_key) = opened[:5]
    clock.now += rooms.GIVE_WAY_S - 100  # the oldest room has had none for GIVE_WAY_S - 59 s
    store.keep(kept, key)
    store.join(followed, "a follower's run", None)
    store.send(sent, sent_key, {})  # the view it holds: no view goes out, and the room is in use
    with pytest.raises(RoomError) as said:
        store.keep(left, key)  # another room's key keeps nothing
    assert said.value.key == "room_not_yours"
    with pytest.raises(RoomError) as said:
        store.open()
    assert said.value.values == {"limit": rooms.MAX_ROOMS, "minutes": 1}  # left: 42 s to go, said as a whole minute
    clock.now += 60
    store.open()
    assert not store.exists(left) and told == ["reader"]  # its follower is told, and says the room is gone
    store.open()
    assert not store.exists(followed)  # followed, and left by its presenter
    store.open()
    assert not store.exists(left_too)
    assert all(store.exists(c) for c in (kept, sent)) and store.exists(opened[5][0])


def test_the_presenters_page_says_its_room_is_in_use_and_a_followers_page_does_not(monkeypatch):
    """classroom._keep, a timed fragment on the presenter's page only (it runs with the page's every run, then every
    KEEP_EVERY_S on its own): while that page is open, its room never gives way."""
    kept, keep = [], rooms.STORE.keep
    monkeypatch.setattr(rooms.STORE, "keep", lambda code, key: kept.append(code) or keep(code, key))
    presenter = run(room="new", stage="qk")
    code = presenter.session_state["room"]
    assert kept == [code]
    run(room=code)
    assert kept == [code]


def test_only_the_key_asks_and_closes_and_an_answer_counts_once_a_page_while_its_question_is_open():
    store, _, _ = _store()
    code, key = store.open()
    told = []
    store.join(code, "a", lambda: told.append("a"))
    store.join(code, "b", None)
    for wrong in (None, "nope"):
        for act in (lambda k: store.ask(code, k, "qk_q", (1, 2)), lambda k: store.close(code, k)):
            with pytest.raises(RoomError):
                act(wrong)
    assert store.question(code) is None and not told
    assert store.ask(code, key, "qk_q", (1, 2)) == 1 and told == ["a"]
    assert store.answer(code, "a", 1, 0.5, False) and store.answer(code, "a", 1, 0.43, True)  # its last answer counts
    assert store.answer(code, "b", 1, 0.43, True) and not store.answer(code, "stranger", 1, 0.4, True)
    assert not store.answer(code, "b", 0, 0.43, True)  # not the question asked
    assert store.question(code).answers == {"a": (0.43, True), "b": (0.43, True)}
    store.close(code, key)
    assert told == ["a", "a"] and not store.question(code).open and not store.answer(code, "a", 1, 1.0, False)
    assert store.ask(code, key, "values_v", (0, 0)) == 2 and store.question(code).answers == {}

# The page's side (mha/ui/classroom.py), in AppTest: a presenter's page and followers' pages on one process's rooms.

def _room_of(at) -> tuple[str, str]:
    return at.session_state["room"], at.session_state["room_key"]


def _texts(at) -> str:
    """The page's words: its Markdown and its notices."""
    return " ".join([*(m.value for m in at.markdown), *(w.value for w in at.warning)])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_presenter_is_told_over_the_stage_which_room_it_leads_and_has_the_join_code_at_hand(lang):
    """The learner audit of 2026-12-07: `?room=new` opened a room and said nothing on the page (the code was in the
    sidebar's closed panel). The presenter's line over the stage names the room and offers its join code; a
    follower's page has its own line and no such button."""
    presenter = run(room="new", stage="qk", lang=lang)
    code, _ = _room_of(presenter)
    assert TABLES[lang]["room_lead_line"].format(code=code) in _texts(presenter)
    assert presenter.button(key="room_show_banner").label == TABLES[lang]["room_show_code"]
    follower = run(room=code, lang=lang)
    assert not [b for b in follower.button if b.key == "room_show_banner"]
    assert TABLES[lang]["room_lead_line"].format(code=code) not in _texts(follower)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_follower_takes_the_presenters_view_and_keeps_its_own_language(lang):
    presenter = run(room="new", stage="qk", lang="en")
    code, key = _room_of(presenter)
    assert presenter.query_params["room"] == code and presenter.query_params["key"] == key
    follower = run(room=code, lang=lang, present=1)
    assert follower.session_state["stage"] == "qk" and follower.session_state["lang"] == lang
    assert "key" not in follower.query_params and follower.query_params["room"] == code
    assert TABLES[lang]["room_following"].split("{code}")[0] in _texts(follower)
    presenter.session_state["stage"], presenter.session_state["n_tokens"] = "scores", 4
    rerun(presenter)
    sent = rooms.STORE.view(code)[1]
    assert (sent["stage"], sent["n_tokens"]) == ("scores", "4") and not {"lang", "key", "room"} & set(sent)
    rerun(follower)  # the rerun a follower's notify asks for
    ss = follower.session_state
    assert (ss["stage"], ss["n_tokens"], ss["lang"], ss["present"]) == ("scores", 4, lang, True)
    assert key not in str(follower.query_params) and key not in " ".join(c.value for c in follower.code)
    assert follower.session_state["room_follow"]  # the room's view is no change of the reader's
    presenter.session_state["stage"] = "values"  # and the next reaches it too
    rerun(presenter)
    rerun(follower)
    assert follower.session_state["stage"] == "values" and follower.session_state["room_follow"]


def test_a_followers_runs_pay_the_rooms_pace_and_the_presenters_and_an_explorers_their_own(monkeypatch):
    """Red team 2026-12-07 T1: the runs a room's change starts are one room's work (budget.paced's payer)."""
    paid, real = [], budget.paced
    monkeypatch.setattr(budget, "paced", lambda t, payer=None: paid.append(payer) or real(t, payer))
    presenter = run(room="new", stage="qk")
    code, _ = _room_of(presenter)
    follower = run(room=code)
    assert paid == [None, f"room {code}"]
    follower.button(key="room_explore").click()
    rerun(follower)
    assert paid[-1] is None  # its own runs, its own pace


def test_a_room_over_its_pace_is_told_again_once_under_it_and_another_room_at_once(monkeypatch):
    """Red team 2026-12-07 T1: a presenter changing the view 4 times a second restarted every follower's run each
    time. A room whose followers' runs are over the room's pace waits; its pages then rerun once, for the newest
    view."""
    told, timers = [], []
    session = lambda sid: SimpleNamespace(request_rerun=lambda _: told.append(sid),  # noqa: E731
                                          _call_soon_on_event_loop=lambda call: call())
    runtime = SimpleNamespace(get_app_session=session)
    monkeypatch.setattr(classroom, "Runtime", SimpleNamespace(exists=lambda: True, instance=lambda: runtime))
    monkeypatch.setattr(classroom.threading, "Timer", lambda s, call: SimpleNamespace(start=lambda: timers.append(s)))
    monkeypatch.setattr(classroom, "_due", {})  # what other tests' pages left due
    over = {"room BUSY1"}
    monkeypatch.setattr(budget, "spent", lambda payer, now: 2 * budget.PACE_CPU_S if payer in over else 0.0)
    for sid, code in (("a", "BUSY1"), ("b", "BUSY1"), ("c", "CALM1")):
        classroom._notifier(sid, code)()
    classroom._notifier("a", "BUSY1")()  # a second change before the first was told: one rerun still
    assert timers == [classroom.TELL_AFTER_S]
    classroom._tell()
    assert told == ["c"] and timers[-1] == budget.PACE_WINDOW_S / 6  # the busy room is asked again later
    over.clear()
    classroom._tell()
    assert sorted(told) == ["a", "b", "c"] and not classroom._due


def test_a_follower_exploring_on_its_own_keeps_its_view_and_following_again_takes_the_newest():
    presenter = run(room="new", stage="qk")
    code, _ = _room_of(presenter)
    follower = run(room=code)
    follower.button(key="room_explore").click()
    rerun(follower)
    follower.session_state["stage"] = "values"
    rerun(follower)
    presenter.session_state["stage"] = "heads"
    rerun(presenter)
    rerun(follower)
    assert follower.session_state["stage"] == "values"  # its own, while it explores
    follower.button(key="room_follow_again").click()
    rerun(follower)
    assert follower.session_state["stage"] == "heads"


def test_a_wrong_key_watches_but_never_drives():
    presenter = run(room="new", stage="qk")
    code, key = _room_of(presenter)
    forged = run(room=code, key=key[:-2] + ("AA" if not key.endswith("AA") else "BB"), stage="output")
    assert forged.session_state.get("room_key") is None and forged.session_state["stage"] == "qk"
    assert EN["room_not_yours"].format(code=code) in _texts(forged)
    forged.session_state["room_follow"] = False  # even exploring on its own, its view goes nowhere
    forged.session_state["stage"] = "block"
    rerun(forged)
    assert rooms.STORE.view(code)[1]["stage"] == "qk"
    assert "key" not in forged.query_params


def test_a_room_that_is_gone_is_said_and_the_page_keeps_its_view():
    at = run(room="ZZZZZ", stage="values")
    assert at.session_state["stage"] == "values" and "ZZZZZ" in _texts(at) and "room" not in at.session_state
    assert "ZZZZZ" in _texts(rerun(at))  # still said on the next run (a phone's page runs twice as it opens)
    at = run(room="<b>x</b>", stage="values")
    assert "<b>" not in _texts(at) and at.session_state["stage"] == "values"


def test_a_follower_who_changes_the_view_explores_on_its_own_and_says_so():
    presenter = run(room="new", stage="qk")
    code, _ = _room_of(presenter)
    follower = run(room=code)
    rerun(follower)  # a rerun of its own with nothing changed keeps it following
    assert follower.session_state["room_follow"]
    follower.session_state["n_tokens"] = 4
    rerun(follower)
    assert not follower.session_state["room_follow"] and follower.session_state["n_tokens"] == 4
    assert EN["room_went_own"].split(",")[0] in _texts(follower)
    assert EN["room_follow_again"] in [b.label for b in follower.button]
    presenter.session_state["stage"] = "values"
    rerun(presenter)
    rerun(follower)
    assert follower.session_state["stage"] == "qk" and follower.session_state["n_tokens"] == 4  # its own change kept
    follower.button(key="room_follow_again").click()
    rerun(follower)
    assert follower.session_state["stage"] == "values" and follower.session_state["n_tokens"] == 3
    rerun(follower)
    assert follower.session_state["room_follow"]  # the room's view is not the reader's change


def test_the_room_answers_the_presenters_quiz_the_presenter_counts_and_each_reader_learns_the_verdict_on_close(
        monkeypatch):
    """Three readers (AppTest gives every page one session id: each is named here as its own page)."""
    import mha

    trace = mha.forward(mha.init_input(mha.AttentionConfig()), mha.init_weights(mha.AttentionConfig()))
    presenter = run(room="new", stage="qk")
    code, _ = _room_of(presenter)
    page = {"name": "presenter"}
    monkeypatch.setattr(classroom, "session_id", lambda: page["name"])

    def as_page(name: str, at):
        page["name"] = name
        return rerun(at)

    readers = {}
    for lang in ("en", "zh", "en2"):
        page["name"] = lang
        readers[lang] = run(room=code, lang=lang[:2])
    presenter.button(key="quiz_start_qk_q").click()
    as_page("presenter", presenter)
    cell = presenter.session_state["quiz_qk_q"]
    presenter.session_state["room_panel_open"] = True
    as_page("presenter", presenter).button(key="room_ask").click()
    as_page("presenter", presenter)
    question = rooms.STORE.question(code)
    assert (question.product, question.cell, question.open, question.answers) == ("qk_q", cell, True, {})
    value = float(trace.q[0, *cell])
    for lang, at in readers.items():
        as_page(lang, at)  # the rerun the room's notify asks for
        assert at.session_state["quiz_qk_q"] == cell and at.number_input(key="quiz_answer_qk_q").value is None
        at.number_input(key="quiz_answer_qk_q").set_value(round(value + (0.5 if lang == "zh" else 0), 4))
        at.button(key="quiz_check_qk_q").click()
        as_page(lang, at)
        assert not at.success and not at.error  # no verdict while the question is open
        assert TABLES[lang[:2]]["room_answer_in"] in [i.value for i in at.info]
    assert EN["room_tally"].format(n=1, answers=3, right=2, share=2 / 3) in _texts(as_page("presenter", presenter))
    assert "✗" in _texts(presenter) and "✓" in _texts(presenter)
    presenter.button(key="room_close").click()
    as_page("presenter", presenter)
    assert not rooms.STORE.question(code).open
    for lang, at in readers.items():
        as_page(lang, at)
        assert (len(at.success), len(at.error)) == ((0, 1) if lang == "zh" else (1, 0)), lang
    page["name"] = "late"
    late = run(room=code)  # a page that joins after the close gets the closed question, its verdict on a check
    assert late.session_state["quiz_qk_q"] == cell


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_presenter_asks_the_room_the_cell_it_clicked(lang):
    """A cell the presenter clicked, asked of the room: hidden on the presenter's projector and on each follower."""
    presenter = run(room="new", stage="qk", lang=lang)
    code, _ = _room_of(presenter)
    follower = run(room=code)
    presenter.session_state["sel_qk_q"] = (2, 5)  # a click on Q's row 3, column 6
    rerun(presenter)
    button = presenter.button(key="room_ask_cell_qk_q")
    assert button.label == TABLES[lang]["room_ask_cell"]
    button.click()
    rerun(presenter)
    question = rooms.STORE.question(code)
    assert (question.product, question.cell, question.open) == ("qk_q", (2, 5), True)
    assert presenter.session_state["quiz_qk_q"] == (2, 5)
    rerun(follower)
    assert follower.session_state["quiz_qk_q"] == (2, 5) and follower.number_input(key="quiz_answer_qk_q").value is None
    assert not [b for b in follower.button if b.key == "room_ask_cell_qk_q"]  # only the presenter asks
    alone = run(stage="qk")
    alone.session_state["sel_qk_q"] = (2, 5)
    assert not [b for b in rerun(alone).button if b.key == "room_ask_cell_qk_q"]  # and only in a room


def test_a_code_typed_in_small_letters_joins_and_a_code_with_more_after_it_is_refused_in_words():
    """A participant copies the projector's code in lower case: it joins. A code with anything after it is refused
    with the code's rule, and what was typed reaches no notice."""
    code = run(room="new", stage="qk").session_state["room"]
    follower = run(room=code.lower(), stage="values")
    assert follower.session_state["room"] == code and follower.session_state["stage"] == "qk"
    at = run(room=code[:4] + "Z**LOUD**", stage="values")
    text = " ".join(w.value for w in at.warning)
    assert "room" not in at.session_state and "**" not in text and "LOUD" not in text
    assert EN["room_code_bad"].format(length=rooms.CODE_LENGTH) in text


def test_the_tallys_longest_bar_is_the_answer_given_most(monkeypatch):
    """Three answers, two of them the same value once rounded as shown: one bar each shown value, the longest for
    the value given most, the others in proportion to it."""
    said = []
    monkeypatch.setattr(room_panel.st, "markdown", said.append)
    monkeypatch.setattr(room_panel.st, "button", lambda *a, **k: False)
    t = Text("en")
    q = rooms.Question(1, "qk_q", (0, 0), answers={"a": (0.43, True), "b": (0.431, True), "c": (0.5, False)})
    room_panel._tally(t, q)
    assert said[-1].split("  \n") == [
        t("room_bar", value="0.43", mark="✓", bar="▇" * room_panel.BAR, count=2),
        t("room_bar", value="0.5", mark="✗", bar="▇" * (room_panel.BAR // 2), count=1)]


def test_the_join_code_the_presenter_shows_the_room_carries_no_key(monkeypatch):
    """The QR code and the join link on the projector hold the room's code only: the key that drives the room is
    in the presenter's own link and nowhere else on the page."""
    shown, make = [], room_panel.segno.make
    monkeypatch.setattr(room_panel.segno, "make", lambda text, **k: shown.append(text) or make(text, **k))
    presenter = run(room="new", stage="qk")
    code, key = presenter.session_state["room"], presenter.session_state["room_key"]
    presenter.session_state["room_panel_open"] = True
    rerun(presenter).button(key="room_show").click()
    rerun(presenter)
    assert shown and all(s.endswith(f"?room={code}") for s in shown)
    # Red team 2026-12-07 T6: the panel is open on the projected screen whenever the room is asked, and it wrote the
    # presenter's link there; now nowhere on the page until asked for, then once, in a dialog of its own
    assert key not in page_text(presenter) and not any(key in c.value for c in presenter.code)
    presenter.button(key="room_show_link").click()
    rerun(presenter)
    assert sum(key in c.value for c in presenter.code) == 1


def test_a_page_that_leaves_the_room_leaves_its_count_and_is_asked_again_if_it_comes_back():
    """Leave: the presenter's head count drops, and the page keeps nothing of the room: joined again while a
    question is open, it is asked that question again."""
    presenter = run(room="new", stage="qk")
    code, key = _room_of(presenter)
    follower = run(room=code)
    assert rooms.STORE.heads(code) == 1
    rooms.STORE.ask(code, key, "qk_q", (0, 0))
    follower.session_state["room_panel_open"] = True
    rerun(follower)
    asked = follower.session_state[classroom.ASKED]
    follower.button(key="room_leave").click()
    rerun(follower)
    assert not {"room", classroom.ASKED, classroom.SHOWN} & set(follower.session_state)
    presenter.session_state["room_panel_open"] = True
    assert EN["room_leading"].format(code=code, heads=0) in page_text(rerun(presenter))
    follower.text_input(key="room_code_typed").set_value(code)
    follower.button(key="room_join").click()
    rerun(follower)
    assert follower.session_state[classroom.ASKED] == asked and follower.session_state["quiz_checked_qk_q"] is False


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_page_that_finds_its_room_full_is_told_how_many_pages_a_room_takes(lang):
    """A workshop past MAX_PAGES: the page that comes too late is told the room's own limit (250 pages), in its
    language, and keeps its view; a room count is never confused with the process's (60 rooms)."""
    presenter = run(room="new", stage="qk")
    code, _ = _room_of(presenter)
    pages = [f"page{i}" for i in range(rooms.MAX_PAGES)]
    try:
        for page in pages:
            rooms.STORE.join(code, page, None)
        late = run(room=code, stage="values", lang=lang)
    finally:
        for page in pages:
            rooms.STORE.leave(code, page)
    said = TABLES[lang]["room_full"].format(limit=rooms.MAX_PAGES)
    assert said in _texts(late) and "room" not in late.session_state and late.session_state["stage"] == "values"
