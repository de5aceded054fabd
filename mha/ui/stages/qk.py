"""Stage `qk`: Q = X·W_Q and K = X·W_K for the chosen head, each laid out as a product."""

from ..product import product_view
from ..prose import equation, head_control, header
from ..view import Operand, View, name

# The numpy lines of mha behind this stage, for its code view (code.py): functions, or the names the walk
# (attention.walk) assigns.
CODE = [("q", "k")]


def render(v: View) -> None:
    t, h, tr = v.t, v.head, v.trace
    header(t, "qk", v.look, h=h + 1)
    head_control(t)
    n, d = v.x.shape
    k = v.cfg.d_k
    equation(v.look, (rf"Q_{{{h + 1}}} = X\,W_{{Q{h + 1}}},\quad K_{{{h + 1}}} = X\,W_{{K{h + 1}}}:",
                      rf"({n}\times {d})\cdot({d}\times {k}) \to {n}\times {k}"))
    x = Operand(v.x, name("X"), t("token"), t("feature"))
    for letter, w, out in (("Q", v.w.w_q, tr.q), ("K", v.w.w_k, tr.k)):
        wn, on = v.weight_name(letter), v.head_name(letter)
        product_view(f"qk_{letter.lower()}", v, x, Operand(w[h], wn, t("feature"), t("cols_of")),
                     Operand(out[h], on, t("token"), t("cols_of")), f"{on.html} = X · {wn.html}",
                     first=1 if letter == "Q" else None)  # under the head control
