"""Stage `qk`: Q = X·W_Q and K = X·W_K for the chosen head, each laid out as a product (with a checkpoint, XW_Q,
and the bias GPT-2 adds after it said under it)."""

from ..product import bias_note, product_view
from ..prose import equation, head_control, header
from ..view import Operand, View, name, product_name

# The numpy lines of mha behind this stage, for its code view (code.py): functions, or the names the walk
# (attention.walk) assigns.
CODE = [("q", "k")]


def render(v: View) -> None:
    t, h, tr = v.t, v.head, v.trace
    header(t, "qk", v.look, h=h + 1)
    head_control(t)
    n, d = v.x.shape
    k = v.cfg.d_k
    bq, bk = (rf" + b_{{{letter}{h + 1}}}" if v.w.biased else "" for letter in "QK")
    equation(v.look, (rf"Q_{{{h + 1}}} = X\,W_{{Q{h + 1}}}{bq},\quad K_{{{h + 1}}} = X\,W_{{K{h + 1}}}{bk}:",
                      rf"({n}\times {d})\cdot({d}\times {k}) \to {n}\times {k}"))
    x = Operand(v.x, name("X"), t("token"), t("feature"))
    for letter, w, b, out in (("Q", v.w.w_q, v.w.b_q, tr.q), ("K", v.w.w_k, v.w.b_k, tr.k)):
        wn, on = v.weight_name(letter), v.head_name(letter)
        c, cn = (out[h], on) if b is None else (v.x @ w[h], product_name(name("X"), wn))  # C: the product alone
        product_view(f"qk_{letter.lower()}", v, x, Operand(w[h], wn, t("feature"), t("cols_of")),
                     Operand(c, cn, t("token"), t("cols_of")), f"{cn.html} = X · {wn.html}",
                     first=1 if letter == "Q" else None)  # under the head control
        if b is not None:
            bias_note(t, cn, name("b", f"{letter}{h + 1}"), on, b.shape[1])
