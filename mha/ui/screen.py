"""Which screen the page is drawn for: a desk window, a projector (presenter mode) or a phone.

Figures are built on the server at a fixed pixel size, so the server must know the window's width. A
tiny component reports whether the window is at most PHONE_MAX px wide, once when the page opens and again
when the window crosses that width; only a change of answer causes a rerun.
"""

import streamlit as st

from mha import figures as F

PHONE_MAX = 640  # px: narrower windows get the phone layout

_JS = """
export default function ({ data, setStateValue, parentElement }) {
  // What the server drew this run for, on the component's element: lets a browser test wait for it.
  (parentElement.host || parentElement).dataset.screen = data.phone ? "phone" : "wide";
  const report = () => {
    const phone = window.innerWidth <= data.phone_max;
    if (phone !== data.phone) setStateValue("phone", phone);
  };
  report();
  window.addEventListener("resize", report);
  return () => window.removeEventListener("resize", report);
}
"""
_probe = st.components.v2.component("mha_screen", js=_JS)


def look(present: bool) -> F.Look:
    """The Look for this session's window; a phone wins over presenter mode (a projector is wide)."""
    phone = bool(st.session_state.get("screen_phone", False))
    result = _probe(key="screen", data={"phone_max": PHONE_MAX, "phone": phone}, default={"phone": phone},
                    on_phone_change=_remember, height=0)
    phone = bool(result.phone) if result is not None and result.phone is not None else phone
    st.session_state["screen_phone"] = phone
    return F.PHONE if phone else F.PRESENT if present else F.DESK


def _remember() -> None:
    st.session_state["screen_phone"] = bool(st.session_state["screen"].phone)
