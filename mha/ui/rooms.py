"""Classroom rooms: a presenter's view, followed by the pages that joined the room (issue 44).

A room is a short code, a secret key that only the presenter's link carries, and the presenter's view as link
parameters (the same ones link.params writes, less what is each viewer's own: language, projector, cell numbers).
A follower's page applies them through the link's own parser (session.follow), so a room can put nothing on a page
that a link could not.

The store below keeps the rooms of this process (the default: `streamlit run app.py` has rooms with nothing else to
run); rooms_redis.RedisStore keeps them in Redis, for replicas that share a class (`MHA_ROOMS=redis://…`), with the
same interface. Neither imports Streamlit: the page's side (who is told, and how a page reruns) is in classroom.py,
which hands the store a `notify` callable for each follower.

Every room is bounded: rooms per process, pages per room, hours it lives unused, and changes a second it sends (a
faster presenter's changes are kept, the latest wins, and sent once the second is over). Each bound is said on the
page that meets it. When the rooms are full, the room with no sign of life for longest (no presenter's page open, no
presenter's run: a room a link opened and left; a follower's run is none, or one visit a room every few minutes kept
them all) gives way to a new one, once it has had none for GIVE_WAY_S; a room whose presenter's page is open never
does, as that page says so every KEEP_EVERY_S (classroom.banner).
"""

import hashlib
import hmac
import math
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

CODE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud and typed from a projector
CODE_LENGTH = 5  # 31⁵ ≈ 29 million codes for at most MAX_ROOMS rooms: a guessed code is a room's ~1 in 500,000
KEY_BYTES = 24  # 192 random bits (the issue asks at least 128)
MAX_ROOMS = 60  # rooms one process holds
MAX_PAGES = 250  # pages in one room: a workshop of 200 and the presenter's spare tabs
LIFETIME_S = 6 * 3600  # a room no one has changed or joined for this long is closed
GIVE_WAY_S = 5 * 60  # a room with no sign of life this long gives way to a new room when the rooms are full
KEEP_EVERY_S = 60  # a presenter's open page says its room is in use this often (a hidden tab: about once a minute)
SENDS_PER_S = 4  # changes a room sends its followers a second; a faster presenter's latest is sent after the second
VIEWER_OWN = ("lang", "present", "cells")  # link parameters each page keeps its own of


class RoomError(Exception):
    """A room cannot be opened, joined or driven: `key` names the page's words for why, `values` fill them."""

    def __init__(self, key: str, **values):
        super().__init__(key)
        self.key, self.values = key, values


class RoomUnreachable(RoomError):
    """The rooms' store (Redis) does not answer: the page keeps its room and its view, and says so."""

    def __init__(self):
        super().__init__("room_unreachable")


def digest(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


def shared_view(params: dict[str, str]) -> dict[str, str]:
    """A page's link parameters as its room sends them: without what each viewer keeps, and without any room's."""
    return {k: v for k, v in params.items() if k not in (*VIEWER_OWN, "room", "key")}


@dataclass
class Question:
    """The presenter's quiz, asked of the room: a product's hidden cell. Answers are kept by page, the last one a
    page gave, with whether it was right; no name is kept."""

    number: int  # counts the room's questions: a page answers the one it was asked
    product: str  # the product's key (product.py's quiz_<key>)
    cell: tuple[int, int]
    open: bool = True
    answers: dict[str, tuple[float, bool]] = field(default_factory=dict)


@dataclass
class Room:
    code: str
    key_digest: bytes
    touched: float  # monotonic: the last sign of life (a presenter's run or open page)
    version: int = 0  # counts the views sent; a follower applies a view once, the newest
    view: dict[str, str] = field(default_factory=dict)
    pages: dict[str, Callable[[], None] | None] = field(default_factory=dict)  # page -> how it is told (None: it
    # explores on its own, counted but not told)
    question: Question | None = None


class Pace:
    """The rooms' pace, for either store: at most SENDS_PER_S views a room a second. A faster presenter's newest view
    waits in the store, and `release(code)` is called once the second is over (once a burst) to send it."""

    def __init__(self, clock: Callable[[], float], later: Callable[[float, Callable[[], None]], None] | None,
                 release: Callable[[str], None]):
        self._sent: dict[str, list[float]] = {}  # room -> when its views went in the last second
        self._held: set[str] = set()  # rooms whose newest view waits for the second to be over
        self._lock = threading.Lock()
        self._clock, self._release = clock, release
        self._later = later or (lambda s, f: threading.Timer(s, f).start())

    def go(self, code: str) -> bool:
        """Whether room `code`'s newest view goes now (counted if so); if not, it goes once the second is over."""
        now = self._clock()
        with self._lock:  # rooms that sent nothing for a second are forgotten: the pace holds the busy ones only
            self._sent = {c: s for c, s in self._sent.items() if now - s[-1] < 1.0}
            sent = self._sent[code] = [s for s in self._sent.get(code, []) if now - s < 1.0]
            if len(sent) < SENDS_PER_S:
                sent.append(now)
                return True
            if code not in self._held:
                self._held.add(code)
                self._later(1.0 - (now - sent[0]), lambda: self._due(code))
            return False

    def _due(self, code: str) -> None:
        with self._lock:
            self._held.discard(code)
            self._sent.setdefault(code, []).append(self._clock())
        self._release(code)


class Store:
    """The rooms of one process. Thread-safe: pages run in threads of their own."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 later: Callable[[float, Callable[[], None]], None] | None = None):
        self._rooms: dict[str, Room] = {}
        self._lock = threading.Lock()
        self._clock = clock
        self._pace = Pace(clock, later, self._tell)

    def open(self) -> tuple[str, str]:
        """A new room: its code and its key (the key is said once, to the presenter's page, and kept as a digest)."""
        with self._lock:
            self._close_unused()
            told = self._give_way() if len(self._rooms) >= MAX_ROOMS else []
            code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
            while code in self._rooms:
                code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
            key = secrets.token_urlsafe(KEY_BYTES)
            self._rooms[code] = Room(code, digest(key), self._clock())
        for notify in told:  # the followers of the room that gave way: each page says it is gone
            notify()
        return code, key

    def keep(self, code: str, key: str | None) -> None:
        """The presenter's page is open: the room is in use, however long its view stays as it is."""
        with self._lock:
            room = self._room(code)
            if key is None or not hmac.compare_digest(digest(key), room.key_digest):
                raise RoomError("room_not_yours")
            room.touched = self._clock()

    def exists(self, code: str) -> bool:
        with self._lock:
            self._close_unused()
            return code in self._rooms

    def drives(self, code: str, key: str | None) -> bool:
        """Whether `key` is the room's: compared in constant time, on digests of equal length."""
        with self._lock:
            room = self._rooms.get(code)
        return room is not None and key is not None and hmac.compare_digest(digest(key), room.key_digest)

    def join(self, code: str, page: str, notify: Callable[[], None] | None) -> None:
        """The page is in the room: `notify` is called (from whatever thread sends) when a newer view is there; None
        for a page that explores on its own."""
        with self._lock:
            room = self._room(code)
            if page not in room.pages and len(room.pages) >= MAX_PAGES:
                raise RoomError("room_full", limit=MAX_PAGES)
            room.pages[page] = notify  # no sign of life: only the presenter's are (red team 2026-12-07 T3)

    def leave(self, code: str, page: str) -> None:
        with self._lock:
            room = self._rooms.get(code)
            if room is not None:
                room.pages.pop(page, None)

    def heads(self, code: str, alive: Callable[[str], bool] = lambda page: True) -> int:
        """The pages following the room now; a page `alive` says has closed leaves it here."""
        with self._lock:
            room = self._room(code)
            for page in [p for p in room.pages if not alive(p)]:
                del room.pages[page]
            return len(room.pages)

    def view(self, code: str) -> tuple[int, dict[str, str]]:
        """The room's newest view and its version (0: the presenter has sent none yet)."""
        with self._lock:
            room = self._room(code)
            return room.version, dict(room.view)

    def send(self, code: str, key: str | None, view: dict[str, str]) -> bool:
        """The presenter's view, kept as the room's newest and sent to its followers. Refused (RoomError) without the
        room's key. Returns False when the room sends too fast: the view is kept and sent once the second is over."""
        if not self.drives(code, key):
            raise RoomError("room_not_yours")
        view = shared_view(view)
        with self._lock:
            room = self._room(code)
            room.touched = self._clock()  # a presenter's run, whether or not its view changed
            if view == room.view:
                return True
            room.view, room.version = view, room.version + 1
        if not self._pace.go(code):
            return False
        self._tell(code)
        return True

    def ask(self, code: str, key: str | None, product: str, cell: tuple[int, int]) -> int:
        """The presenter asks the room a product's hidden cell: the room's pages are told; returns its number."""
        if not self.drives(code, key):
            raise RoomError("room_not_yours")
        with self._lock:
            room = self._room(code)
            number = room.question.number + 1 if room.question else 1
            room.question, room.touched = Question(number, product, tuple(cell)), self._clock()
        self._tell(code)
        return number

    def answer(self, code: str, page: str, number: int, value: float, right: bool) -> bool:
        """A page's answer to question `number`, kept while it is open (False: it is closed, or another is asked)."""
        with self._lock:
            q = self._room(code).question
            if q is None or q.number != number or not q.open or page not in self._room(code).pages:
                return False
            q.answers[page] = (float(value), bool(right))
            return True

    def close(self, code: str, key: str | None) -> None:
        """The presenter closes the question: each page is told, and shows its reader whether they were right."""
        if not self.drives(code, key):
            raise RoomError("room_not_yours")
        with self._lock:
            room = self._room(code)
            if room.question is None or not room.question.open:
                return
            room.question.open = False
        self._tell(code)

    def question(self, code: str) -> Question | None:
        """The room's last question, as a copy."""
        with self._lock:
            q = self._room(code).question
            return None if q is None else Question(q.number, q.product, q.cell, q.open, dict(q.answers))

    def _tell(self, code: str) -> None:
        """Each page following the room is told of its newest view, question or verdict."""
        with self._lock:
            room = self._rooms.get(code)
            told = [n for n in room.pages.values() if n] if room else []
        for notify in told:
            notify()

    def _room(self, code: str) -> Room:
        self._close_unused()
        room = self._rooms.get(code)
        if room is None:
            raise RoomError("room_gone", code=code)
        return room

    def _give_way(self) -> list[Callable[[], None]]:
        """The rooms are full: the one with no sign of life for longest goes, if that is GIVE_WAY_S; its followers'
        notify are returned. Otherwise RoomError, with the minutes until it could."""
        room = min(self._rooms.values(), key=lambda r: r.touched)
        idle = self._clock() - room.touched
        if idle < GIVE_WAY_S:
            raise RoomError("room_full_process", limit=MAX_ROOMS, minutes=math.ceil((GIVE_WAY_S - idle) / 60))
        del self._rooms[room.code]
        return [n for n in room.pages.values() if n]

    def _close_unused(self) -> None:
        now = self._clock()
        for code in [c for c, r in self._rooms.items() if now - r.touched > LIFETIME_S]:
            del self._rooms[code]


def store_for(where: str):
    """The rooms' store `MHA_ROOMS` names: this process's (empty, the default), or a Redis server's (a redis://,
    rediss:// or unix:// URL, shared by every replica that names it)."""
    if not where:
        return Store()
    if where.split("://", 1)[0] not in ("redis", "rediss", "unix"):
        raise ValueError(f"MHA_ROOMS must be empty (rooms in this process) or a Redis URL such as "
                         f"redis://127.0.0.1:6379/0, not {where[:80]!r}")
    from .rooms_redis import RedisStore  # the redis client is imported only where rooms are in Redis

    return RedisStore(where)


STORE = store_for(os.environ.get("MHA_ROOMS", ""))  # the rooms this process leads and follows
