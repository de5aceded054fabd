"""Stage `values`: V = X·W_V (with a checkpoint, XW_V and the bias after it), then H = S·V for the chosen head."""

from ..product import bias_note, product_view
from ..prose import equation, head_control, header
from ..view import Operand, View, name, product_name

# The numpy lines of mha behind this stage, for its code view (code.py): functions, or the names the walk
# (attention.walk) assigns.
CODE = [("v", "heads")]


def render(v: View) -> None:
    t, h, tr = v.t, v.head, v.trace
    header(t, "values", v.look, h=h + 1)
    head_control(t)
    n, d, dv = *v.x.shape, v.cfg.d_v
    s, vn, hn, wn = v.head_name("S"), v.head_name("V"), v.head_name("H"), v.weight_name("V")
    bias = rf" + b_{{V{h + 1}}}" if v.w.b_v is not None else ""
    equation(v.look, (rf"V_{{{h + 1}}} = X\,W_{{V{h + 1}}}{bias}:",
                      rf"({n}\times {d})\cdot({d}\times {dv}) \to {n}\times {dv}"),
             (rf"H_{{{h + 1}}} = S_{{{h + 1}}}\,V_{{{h + 1}}}:",
              rf"({n}\times {n})\cdot({n}\times {dv}) \to {n}\times {dv}"))
    token, col = t("token"), t("cols_of")
    values = Operand(tr.v[h], vn, token, col)
    xw = values if not bias else Operand(v.x @ v.w.w_v[h], product_name(name("X"), wn), token, col)
    product_view("values_v", v, Operand(v.x, name("X"), token, t("feature")),
                 Operand(v.w.w_v[h], wn, t("feature"), col), xw, f"{xw.name.html} = X · {wn.html}",
                 first=1)  # under the head control
    if bias:
        bias_note(t, xw.name, name("b", f"V{h + 1}"), vn, dv)
    product_view("values_h", v, Operand(tr.probs[h], s, token, t("key_pos"), "probs", v.masked(h)), values,
                 Operand(tr.heads[h], hn, token, col), f"{hn.html} = {s.html} · {vn.html}")
