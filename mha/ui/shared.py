"""Values built once for every session of the process, within a byte budget: a class moves between the same few
views, and each view's weights, traces, figures and files are the same for everyone who shows it. At the caps a
handful of such values would fill the smallest memory Community Cloud gives an app, so each cache holds what fits
its budget (README, Memory) and lets go of the values used least recently."""

import hashlib
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

import numpy as np

MB = 2**20
HEAVY = threading.Lock()  # one heavy piece of work at a time in the process, a large view's draw (budget.lane) or a
# large download's build (prepared.prepare): the README's memory table counts one such run's working memory, not two


def weights_digest(w, *arrays: np.ndarray) -> bytes:
    """digest of `arrays` and attention weights w: W_Q, W_K, W_V, W_O and the biases it has (a checkpoint's)."""
    biases = (b for b in (w.b_q, w.b_k, w.b_v, w.b_o) if b is not None)
    return digest(*arrays, w.w_q, w.w_k, w.w_v, w.w_o, *biases)


def digest(*arrays: np.ndarray) -> bytes:
    """16 bytes that change with any array's shape, type or value."""
    h = hashlib.blake2b(digest_size=16)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.data)
    return h.digest()


def footprint(value) -> dict[int, int]:
    """The large buffers `value` keeps alive, as {id of the buffer: its bytes}: a numpy array counts the array that
    owns its data (views of one array, and values sharing an array, count it once), bytes and str their size; what
    dataclasses, objects, tuples, lists and dicts hold is followed. Containers and numbers are not counted: the
    budgets are for the megabytes."""
    found: dict[int, int] = {}
    todo, seen = [value], set()
    while todo:
        v = todo.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, np.ndarray):
            while isinstance(v.base, np.ndarray):
                v = v.base
            found[id(v)] = v.nbytes
        elif isinstance(v, bytes | str):
            found[id(v)] = sys.getsizeof(v)
        elif isinstance(v, dict):
            todo.extend(v.values())
        elif isinstance(v, list | tuple):
            todo.extend(v)
        elif hasattr(v, "__dict__"):
            todo.extend(vars(v).values())
    return found


class Shared:
    """The values asked for most recently, by key, for every thread, held within `budget` bytes as `size` counts
    them (footprint by default: a buffer that several values hold counts once). A value is built outside the lock
    (two sessions asking at once may both build it; the one stored first is handed to both) and must not be changed
    by whoever gets it. A value larger than the budget is handed back and not kept. `dropped(key, value)` hears of
    each value the budget pushes out, after the lock is released."""

    def __init__(self, budget: int, size: Callable[[object], dict[int, int] | int] = footprint,
                 dropped: Callable[[Hashable, object], None] | None = None):
        self.budget = budget
        self._size, self._dropped = size, dropped
        self._items: OrderedDict[Hashable, tuple[object, dict[int, int]]] = OrderedDict()
        self._buffers: dict[int, list[int]] = {}  # buffer id -> [values holding it, its bytes]
        self.held = 0  # bytes of the buffers the values hold, each counted once
        self._lock = threading.Lock()

    def peek(self, key: Hashable):
        """The value kept for `key` (now the most recently used), or None."""
        with self._lock:
            if key not in self._items:
                return None
            self._items.move_to_end(key)
            return self._items[key][0]

    def get(self, key: Hashable, make: Callable[[], object]):
        found = self.peek(key)
        if found is not None:
            return found
        value = make()
        parts = self._parts(value)
        if sum(parts.values()) > self.budget:
            return value
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key][0]
            self._items[key] = (value, parts)
            self._count(parts, 1)
            gone = self._evict(0)
        self._tell(gone)
        return value

    def room(self, nbytes: int) -> None:
        """Let go of the least recently used values until `nbytes` more would fit: asked before building a large
        value, so that the old ones and the new one are not all held at once."""
        with self._lock:
            gone = self._evict(nbytes)
        self._tell(gone)

    def pop(self, key: Hashable) -> None:
        with self._lock:
            if key in self._items:
                self._count(self._items.pop(key)[1], -1)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._buffers.clear()
            self.held = 0

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._items

    def _parts(self, value) -> dict[int, int]:
        parts = self._size(value)
        return {id(value): parts} if isinstance(parts, int) else parts

    def _count(self, parts: dict[int, int], step: int) -> None:
        """Add (step 1) or remove (step -1) one value's buffers: a buffer's bytes count while any value holds it."""
        for buffer, nbytes in parts.items():
            entry = self._buffers.setdefault(buffer, [0, nbytes])
            entry[0] += step
            if entry[0] == 0:
                del self._buffers[buffer]
                self.held -= nbytes
            elif entry[0] == 1 and step == 1:
                self.held += nbytes

    def _evict(self, extra: int) -> list[tuple[Hashable, object]]:
        """Pop the least recently used values until `extra` more bytes fit (the lock is held)."""
        gone = []
        while self._items and self.held + extra > self.budget:
            key, (value, parts) = self._items.popitem(last=False)
            self._count(parts, -1)
            gone.append((key, value))
        return gone

    def _tell(self, gone: list[tuple[Hashable, object]]) -> None:
        if self._dropped:
            for key, value in gone:
                self._dropped(key, value)
