"""Values built once for every session of the process: a class moves between the same few views, and each
view's figures and files are the same for everyone who shows it."""

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

import numpy as np


def digest(*arrays: np.ndarray) -> bytes:
    """16 bytes that change with any array's shape, type or value."""
    h = hashlib.blake2b(digest_size=16)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.data)
    return h.digest()


class Shared:
    """The last `size` values asked for, by key, for every thread. A value is built outside the lock (two
    sessions asking at once may both build it; the second copy replaces the first) and must not be changed
    by whoever gets it."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict[Hashable, object] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], object]):
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
