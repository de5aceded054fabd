"""One module per stage, in the post's order; each has render(view)."""

from . import block, dependency, heads, input, kv_cache, matmul, next_token, output, qk, scores, tokens, values

RENDER = {
    "matmul": matmul.render,
    "tokens": tokens.render,
    "input": input.render,
    "qk": qk.render,
    "scores": scores.render,
    "values": values.render,
    "heads": heads.render,
    "output": output.render,
    "dependency": dependency.render,
    "kv_cache": kv_cache.render,
    "block": block.render,
    "next_token": next_token.render,
}
