"""The post's trick, checked and mended: sizes that are distinct primes, so that a shape says where it came from.
Pure Python: no Streamlit here."""

import itertools
import math
from collections.abc import Mapping
from functools import lru_cache

from .settings import LIMITS, SIZES


def is_prime(n: int) -> bool:
    return n >= 2 and all(n % p for p in range(2, math.isqrt(n) + 1))


def distinct_primes(sizes: Mapping) -> bool:
    values = [sizes[k] for k in SIZES]
    return all(map(is_prime, values)) and len(set(values)) == len(values)


def shared_lengths(lengths: Mapping[str, int]) -> list[tuple[int, tuple[str, ...]]]:
    """The lengths that two or more of a view's quantities share (quantity → length), each with those quantities in
    the order given: where a shape no longer says which of them it came from. Ordered by the first quantity."""
    groups: dict[int, list[str]] = {}
    for name, length in lengths.items():
        groups.setdefault(int(length), []).append(name)
    return [(length, tuple(names)) for length, names in groups.items() if len(names) > 1]


def primes_but_n(sizes: Mapping) -> bool:
    """Every size but n (the tokens, which the text or X's rows fix) is a prime, and no two sizes are equal: what
    make-primes gives when n is no prime."""
    values = [sizes[k] for k in SIZES]
    return all(is_prime(sizes[k]) for k in SIZES if k != "n_tokens") and len(set(values)) == len(values)


def primes_but(sizes: Mapping, key: str) -> bool:
    """Every size but `key` is a prime, and no two sizes are equal: sizes a view needs `key` of to be composite."""
    values = [sizes[k] for k in SIZES]
    return all(is_prime(sizes[k]) for k in SIZES if k != key) and len(set(values)) == len(values)


@lru_cache(maxsize=1)
def _primes_upto(n: int) -> tuple[int, ...]:
    return tuple(p for p in range(2, n + 1) if is_prime(p))


def _prime_window(n: int) -> tuple[int, int]:
    """The primes a size n may move to without passing one: from the prime below n (2 if none) to the prime above."""
    below = next((p for p in range(n - 1, 1, -1) if is_prime(p)), 2)
    above = next(p for p in range(n + 1, 2 * n + 3) if is_prime(p))  # Bertrand: there is one below 2n
    return below, above


def _move_cost(n: int, p: int, window: tuple[int, int]) -> tuple[int, int, int, int]:
    """Moving n to p: 1 if it moves at all, then how far past its window, then how far, then 1 if it goes down (ties
    go up). Summed over the sizes, the first counts the sizes changed: fewest first, so that one clash (a text that
    grew to n = d_k) moves one size, not a chain of them."""
    return int(p != n), max(0, window[0] - p, p - window[1]), abs(p - n), int(p < n)


def nearest_distinct_primes(sizes: Mapping) -> dict:
    """The sizes made distinct primes (within LIMITS), chosen for all of them together, n_tokens kept as it is: n is
    X's rows (a text's tokens, the edited cells), which only the user changes. The others avoid n's value too.

    Fewest sizes change; then no size passes the prime just above or below it when some choice avoids that (else as
    little as possible); among those choices, the one that moves the sizes least in total. Sizes that already are
    distinct primes stay. (A size at 1 becomes 2, or 3 if 2 is taken.)
    """
    n = int(sizes["n_tokens"])
    best, best_cost = None, None
    options = []
    for key in SIZES:
        if key == "n_tokens":
            options.append([((0, 0, 0, 0), n)])
            continue
        value = int(sizes[key])
        window = _prime_window(value)
        primes = (p for p in _primes_upto(max(LIMITS[k] for k in SIZES)) if p <= LIMITS[key] and p != n)
        # An optimal choice only ever needs a size's len(SIZES) best primes: one of them is always free.
        options.append(sorted((_move_cost(value, p, window), p) for p in primes)[: len(SIZES)])
    for choice in itertools.product(*options):
        values = [p for _, p in choice]
        if len(set(values)) < len(values):
            continue
        cost = tuple(map(sum, zip(*(c for c, _ in choice))))
        if best_cost is None or cost < best_cost:
            best, best_cost = values, cost
    return dict(zip(SIZES, best))
