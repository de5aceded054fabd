"""The matrix editor: a grid of a matrix's numbers the user types into, each cell read as a link reads a number,
anything else refused with a message naming the cell."""

import math

import numpy as np
import pandas as pd
import streamlit as st

from . import settings as S
from .strings import Text

SHOWN_MOST = 8  # characters of a number shown exactly in a cell ("-0.98765"); longer ones are rounded


def matrix_editor(key: str, base_key: str, base: np.ndarray, rows: list[str], t: Text, generation: int = 0,
                  **column) -> np.ndarray:
    """An editable grid over `base`; finite edits are kept in session_state[base_key], others refused
    with a message naming the cell. Columns are c0, c1, … (labelled 1, 2, …). A new `generation`
    (its parity, in an invisible index name) gives the editor a new identity: its edits are dropped.

    The grid is given the same numbers run after run (those `base` held when this generation began, or
    when its shape changed), its edits on top: given new numbers, the browser drops its edits and
    starts another run to say so, which took every first click after an edit a second run.

    Cells are text, read here: the grid's number editor (react-number-format) drops every key but
    digits, '.' and '-', so a typed 1e200 would arrive as 1200. Each number is shown in its shortest
    form that reads back exactly (repr), or, when that is float noise longer than a typed number
    (0.15000000000000002, a text's E + P), to 4 significant digits; only a changed cell is read back, so an
    untouched one keeps its value to the last bit either way."""
    held = st.session_state.get(f"{key}_data")
    if held is None or held[0] != generation or held[1].shape != base.shape:
        held = st.session_state[f"{key}_data"] = (generation, base.copy())
    data = held[1]
    cols = [f"c{j}" for j in range(data.shape[1])]
    shown = [[_shown(float(v)) for v in row] for row in data]
    frame = pd.DataFrame(shown, index=pd.Index(rows, name=" " * (generation % 2)), columns=cols, dtype=object)
    config = {c: st.column_config.TextColumn(str(j + 1), alignment="right", **column) for j, c in enumerate(cols)}
    edited = st.data_editor(frame, key=key, column_config=config, num_rows="fixed", width="content")
    values, refused = _read_edits(data, base, np.array(shown, dtype=object), edited.to_numpy(dtype=object))
    if refused:  # one notice, however many cells: a select-all and Delete empties every cell at once
        r, c, cell, v = refused[0]
        fields = dict(cell=f"{r + 1},{c + 1}", value=_word(cell, v))
        st.warning(t.md("notice_cells", kept=f"{base[r, c]:g}", **fields) if len(refused) == 1
                   else t.md("notice_cells_many", count=len(refused), **fields))
    st.session_state[base_key] = values
    return values


def _read_edits(data: np.ndarray, last: np.ndarray, shown: np.ndarray,
                cells: np.ndarray) -> tuple[np.ndarray, list[tuple]]:
    """The grid's numbers: `data` (shown as `shown`) with its changed cells read in (only those: a large grid's run
    reads a handful, not all), a refused one keeping its `last` value; and the refused cells, as (row, col, cell,
    value read or None), in reading order."""
    values, refused = data.astype(np.float64), []
    for r, c in zip(*np.nonzero(cells != shown)):
        cell = cells[r, c]
        v = read_cell(cell)
        if v is not None and math.isfinite(v):
            values[r, c] = v
        else:
            values[r, c] = last[r, c]
            refused.append((int(r), int(c), cell, v))
    return values, refused


def _shown(v: float) -> str:
    """A cell's number: its shortest exact text if that is short (as typed, or seeded to 2 decimals), else 4
    significant digits (audit #5: 16-digit float noise in a text's X)."""
    text = _shortest(v)
    return text if len(text) <= SHOWN_MOST else f"{v:.4g}"


def _shortest(v: float) -> str:
    """The shortest text that reads back as v: 0.53, -1.5, 2 (not 2.0), 1e+200; 0 for −0.0 too."""
    text = repr(v + 0.0)  # −0.0 + 0.0 is 0.0
    return text[:-2] if text.endswith(".0") else text


def _blank(cell) -> bool:
    if isinstance(cell, str):
        return not cell.strip()
    return cell is None or (isinstance(cell, float) and math.isnan(cell))


def read_cell(cell) -> float | None:
    """A grid cell as a number: None when empty or not a number, read as a link reads one (settings.read_number)."""
    if _blank(cell):
        return None
    if isinstance(cell, (int, float)):
        return float(cell)
    return S.read_number(str(cell))


def _word(cell, v: float | None) -> str:
    """How a refused cell is named in the message: ∞, −∞, — when empty, else what was typed."""
    if v is not None and math.isinf(v):
        return "∞" if v > 0 else "−∞"
    return "—" if _blank(cell) else f"“{S.shorten(str(cell).strip())}”"
