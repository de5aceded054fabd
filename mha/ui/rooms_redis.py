"""The classroom's rooms in Redis (issue 44): `MHA_ROOMS=redis://host:port/db`, for a class spread over replicas.

The interface of rooms.Store. A room is `mha:room:CODE` (the key's digest, the view as canonical JSON, its version,
the question), `…:pages` (each page's replica) and `…:answers`, each expiring LIFETIME_S after the room's last sign of
life, and its code in the sorted set `mha:rooms`, scored by that expiry (the bound on rooms, and which room gives way
when they are full). Each multi-step change is one Lua script (rooms_lua.py). A change is published on its room's
channel; each replica listens on one thread and tells its own pages, so no page polls. Each replica renews
`mha:replica:ID` every BEAT_S: pages of a replica that stopped leave the head count. If Redis cannot be reached, every
call raises RoomUnreachable within TIMEOUT_S; a view sent meanwhile is sent again, and every follower here told, once
it answers. With persistence (deploy/'s `appendonly yes`) rooms outlive a restart of Redis; without, they are gone.
"""

import hmac
import json
import math
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from . import rooms
from .rooms import Question, RoomError, RoomUnreachable
from .rooms_lua import SCRIPTS

PREFIX = "mha:"
BEAT_S, BEAT_TTL_S = 5.0, 15.0  # a replica says it is alive this often; its pages leave the count this long after
TIMEOUT_S = 1.0  # a call to Redis: a page waits at most this long (then says the room cannot be reached)
LISTEN_S = 1.0  # the listener's longest wait for a message: how soon it beats, and retries after an outage


def _room(code: str) -> str:
    return f"{PREFIX}room:{code}"


def _keys(code: str) -> tuple[str, str, str]:
    """A room's hash, its pages and its answers."""
    return _room(code), f"{_room(code)}:pages", f"{_room(code)}:answers"


class RedisStore:
    """The rooms of every replica that names the same Redis. Thread-safe, like rooms.Store."""

    def __init__(self, url: str, clock: Callable[[], float] = time.monotonic,
                 later: Callable[[float, Callable[[], None]], None] | None = None):
        self._r = redis.Redis.from_url(url, socket_timeout=TIMEOUT_S, socket_connect_timeout=TIMEOUT_S,
                                       retry=Retry(NoBackoff(), 0), decode_responses=True)
        self.replica = secrets.token_hex(8)
        self._scripts = {name: self._r.register_script(src) for name, src in SCRIPTS.items()}
        self._clock = clock
        self._pace = rooms.Pace(clock, later, self._publish)
        self._lock = threading.Lock()
        self._told: dict[str, dict[str, Callable[[], None]]] = {}  # code -> this replica's followers -> notify
        self._mine: dict[str, set[str]] = {}  # code -> this replica's pages in it
        self._unsent: dict[str, tuple[str, dict[str, str]]] = {}  # code -> a view Redis did not take, and its key
        self._listening = False
        self._subscribed = threading.Event()  # the listener's subscription is in place: a change published now is heard
        self._beaten = 0.0

    # The interface rooms.Store has

    def open(self) -> tuple[str, str]:
        key = secrets.token_urlsafe(24)
        with self._reach():
            while True:
                code = "".join(secrets.choice(rooms.CODE_LETTERS) for _ in range(rooms.CODE_LENGTH))
                made = self._scripts["open"](keys=[_room(code), f"{PREFIX}rooms"], args=[
                    code, rooms.digest(key).hex(), time.time(), rooms.LIFETIME_S, rooms.MAX_ROOMS, rooms.GIVE_WAY_S,
                    _room("")])
                if made[0] == -1:
                    raise RoomError("room_full_process", limit=rooms.MAX_ROOMS, minutes=math.ceil(float(made[1]) / 60))
                if made[0] == 1:
                    return code, key

    def exists(self, code: str) -> bool:
        with self._reach():
            return bool(self._r.exists(_room(code)))

    def keep(self, code: str, key: str | None) -> None:
        if not self.exists(code):
            raise RoomError("room_gone", code=code)
        if not self.drives(code, key):
            raise RoomError("room_not_yours")
        with self._reach():
            self._touch(code)

    def drives(self, code: str, key: str | None) -> bool:
        with self._reach():
            held = self._r.hget(_room(code), "digest")
        return held is not None and key is not None and hmac.compare_digest(rooms.digest(key), bytes.fromhex(held))

    def join(self, code: str, page: str, notify: Callable[[], None] | None) -> None:
        with self._reach():
            self._beat()
            joined = self._scripts["join"](keys=_keys(code)[:2], args=[page, self.replica, rooms.MAX_PAGES])
            if joined == -1:
                raise RoomError("room_gone", code=code)
            if joined == 0:
                raise RoomError("room_full", limit=rooms.MAX_PAGES)  # a follower is no sign of life (rooms.Store.join)
        with self._lock:
            self._mine.setdefault(code, set()).add(page)
            self._told.setdefault(code, {}).pop(page, None)
            if notify:
                self._told[code][page] = notify
        self._listen()

    def leave(self, code: str, page: str) -> None:
        self._forget(code, page)
        with self._reach():
            self._r.hdel(_keys(code)[1], page)

    def heads(self, code: str, alive: Callable[[str], bool] = lambda page: True) -> int:
        with self._lock:
            gone = [p for p in self._mine.get(code, ()) if not alive(p)]
        for page in gone:
            self._forget(code, page)
        with self._reach():
            if not self._r.exists(_room(code)):
                raise RoomError("room_gone", code=code)
            pages = self._r.hgetall(_keys(code)[1])
            replicas = sorted(set(pages.values()))
            beating = dict(zip(replicas, self._r.mget([f"{PREFIX}replica:{r}" for r in replicas]))) if replicas else {}
            gone += [p for p, r in pages.items() if beating[r] is None and r != self.replica]
            if gone:
                self._r.hdel(_keys(code)[1], *gone)
        return len(set(pages) - set(gone))

    def view(self, code: str) -> tuple[int, dict[str, str]]:
        with self._reach():
            version, view = self._r.hmget(_room(code), "version", "view")
        if version is None:
            raise RoomError("room_gone", code=code)
        return int(version), json.loads(view)

    def send(self, code: str, key: str | None, view: dict[str, str]) -> bool:
        try:
            if not self.drives(code, key):
                raise RoomError("room_not_yours")
            with self._reach():
                version = self._scripts["send"](keys=[_room(code)],
                                                args=[json.dumps(rooms.shared_view(view), sort_keys=True)])
                if version == -1:
                    raise RoomError("room_gone", code=code)
                self._touch(code)
        except RoomUnreachable:
            with self._lock:
                self._unsent[code] = (key, view)  # sent again once Redis answers (the listener's next beat)
            self._listen()
            raise
        with self._lock:
            self._unsent.pop(code, None)
        if version == 0:
            return True
        if not self._pace.go(code):
            return False
        self._publish(code)
        return True

    def ask(self, code: str, key: str | None, product: str, cell: tuple[int, int]) -> int:
        if not self.drives(code, key):
            raise RoomError("room_not_yours")
        with self._reach():
            number = self._scripts["ask"](keys=[_room(code), _keys(code)[2]], args=[product, json.dumps(list(cell))])
            if number == -1:
                raise RoomError("room_gone", code=code)
            self._touch(code)
        self._publish(code)
        return number

    def answer(self, code: str, page: str, number: int, value: float, right: bool) -> bool:
        with self._reach():
            taken = self._scripts["answer"](keys=_keys(code), args=[
                page, number, json.dumps([float(value), bool(right)]), rooms.LIFETIME_S])
        if taken == -1:
            raise RoomError("room_gone", code=code)
        return taken == 1

    def close(self, code: str, key: str | None) -> None:
        if not self.drives(code, key):
            raise RoomError("room_not_yours")
        with self._reach():
            closed = self._scripts["close"](keys=[_room(code)])
        if closed == -1:
            raise RoomError("room_gone", code=code)
        if closed == 1:
            self._publish(code)

    def question(self, code: str) -> Question | None:
        with self._reach():
            number, product, cell, is_open = self._r.hmget(_room(code), "q_number", "q_product", "q_cell", "q_open")
            answers = self._r.hgetall(_keys(code)[2]) if number else {}
        if number is None:
            return None
        return Question(int(number), product, tuple(json.loads(cell)), is_open == "1",
                        {page: (lambda a: (float(a[0]), bool(a[1])))(json.loads(a)) for page, a in answers.items()})

    # Redis, and the listener that tells this replica's pages

    @contextmanager
    def _reach(self) -> Iterator[None]:
        try:
            yield
        except redis.RedisError as e:
            raise RoomUnreachable() from e

    def _touch(self, code: str) -> None:
        """The room lives LIFETIME_S from now: each of its keys, and its place among the rooms."""
        pipe = self._r.pipeline(transaction=False)
        for name in _keys(code):
            pipe.expire(name, rooms.LIFETIME_S)
        pipe.zadd(f"{PREFIX}rooms", {code: time.time() + rooms.LIFETIME_S}, xx=True)  # a room gone meanwhile stays so
        pipe.execute()

    def _beat(self) -> None:
        now = self._clock()
        if now - self._beaten >= BEAT_S:
            self._r.set(f"{PREFIX}replica:{self.replica}", 1, ex=int(BEAT_TTL_S))
            self._beaten = now

    def _publish(self, code: str) -> None:
        with suppress(redis.RedisError):  # the view is in Redis: a page that reruns for any reason takes it
            self._r.publish(_room(code), "")

    def _forget(self, code: str, page: str) -> None:
        with self._lock:
            self._mine.get(code, set()).discard(page)
            self._told.get(code, {}).pop(page, None)

    def _tell(self, code: str) -> None:
        with self._lock:
            told = list(self._told.get(code, {}).values())
        for notify in told:
            notify()

    def _listen(self) -> None:
        """Start this replica's listener, once, and wait (at most TIMEOUT_S) until Redis has its subscription: a view
        sent right after a first join would otherwise be published before anyone here listens, and never told."""
        with self._lock:
            start, self._listening = not self._listening, True
        if start:
            threading.Thread(target=self._listener, name="mha-rooms-redis", daemon=True).start()
        self._subscribed.wait(TIMEOUT_S)

    def _listener(self) -> None:
        """Each change published for a room, told to this replica's pages in it; the beat; after an outage, the
        views Redis did not take sent again, and every page here told (it may have missed a change meanwhile)."""
        pubsub, away = None, False
        while True:
            try:
                if pubsub is None:
                    pubsub = self._r.pubsub()
                    pubsub.psubscribe(f"{PREFIX}room:*")
                    while (said := pubsub.get_message(timeout=LISTEN_S)) is None or said["type"] != "psubscribe":
                        continue  # Redis has not confirmed it yet: until it does, a publish may pass unheard
                    self._subscribed.set()
                    self._resend()
                    if away:
                        with self._lock:
                            codes = list(self._told)
                        for code in codes:
                            self._tell(code)
                        away = False
                message = pubsub.get_message(timeout=LISTEN_S)
                if message and message["type"] == "pmessage":
                    self._tell(message["channel"][len(_room("")):])
                self._beat()
            except redis.RedisError:
                if pubsub is not None:
                    pubsub.close()
                pubsub, away = None, True
                time.sleep(LISTEN_S)

    def _resend(self) -> None:
        with self._lock:
            unsent = dict(self._unsent)
        for code, (key, view) in unsent.items():
            try:
                self.send(code, key, view)
            except RoomUnreachable:
                return  # still away: the next reconnection tries again
            except RoomError:
                with self._lock:
                    self._unsent.pop(code, None)  # gone, or no longer this key's: nothing to send
