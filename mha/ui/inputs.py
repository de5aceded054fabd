"""Number boxes that never lose a value.

Given a range, Streamlit's number box checks it in the browser: a value outside is held back with an English
message, whatever the page's language, and an empty box (letters read as nothing) is committed as the box's
default, its minimum: a typo in Tokens n set n to 1 and dropped every edited row of X. The boxes here give the
browser no range and no default: whatever is committed reaches the server, which keeps it when it is in range and
otherwise puts the previous value back and says why under the box, in the page's language.
"""

import streamlit as st

from .strings import Text

GOOD = "number_good"  # session key: each box's last value in range, by key
REFUSED = "number_refused"  # session key: the box whose value was just refused, with what came and what it kept


def number(box, t: Text, key: str, low: float, high: float, *, label: str | None = None, default: float | None = None,
           step: float = 1, on_change=None, **widget) -> float:
    """A number box in `box` (st, the sidebar, a column) for session_state[key], kept within low..high; its value.

    `default` (else `low`) is the value before the box was ever set; a range that has shrunk below the value (1..n
    after n fell) takes the value with it. on_change runs only for a value that is kept."""
    ss = st.session_state
    if ss.get(key) is None:
        ss[key] = low if default is None else default
    elif not low <= ss[key] <= high:
        ss[key] = min(max(ss[key], low), high)
    ss.setdefault(GOOD, {})[key] = ss[key]
    box.number_input(label or t(key), value=None, step=step, key=key, on_change=_check,
                     args=(key, low, high, on_change), **widget)
    refused = ss.get(REFUSED)
    if refused and refused[0] == key:
        del ss[REFUSED]  # said once, where it happened
        box.warning(refusal(t, label or t(key), *refused[1:]))
    return ss[key]


def _check(key: str, low: float, high: float, then) -> None:
    ss = st.session_state
    value, kept = ss[key], ss.get(GOOD, {}).get(key)
    if value is None or not low <= value <= high:
        ss[key] = kept
        ss[REFUSED] = (key, value, low, high, kept)
    elif then is not None:
        then()


def refusal(t: Text, label: str, value, low, high, kept) -> str:
    """Why a box kept its value: it was emptied (or held letters), or what came lies outside low..high."""
    low, high, kept = _shown(low), _shown(high), _shown(kept)
    if value is None:
        return t("number_empty", label=label, low=low, high=high, kept=kept)
    return t("number_outside", label=label, low=low, high=high, value=_shown(value), kept=kept)


def _shown(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else f"{value:g}"
