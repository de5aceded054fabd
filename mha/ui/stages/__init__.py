"""One module per stage, in the post's order; each has render(view)."""

from . import dependency, heads, input, kv_cache, matmul, output, qk, scores, values

RENDER = {
    "matmul": matmul.render,
    "input": input.render,
    "qk": qk.render,
    "scores": scores.render,
    "values": values.render,
    "heads": heads.render,
    "output": output.render,
    "dependency": dependency.render,
    "kv_cache": kv_cache.render,
}
