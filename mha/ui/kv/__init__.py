"""The KV-cache stage's pieces: what its two parts share, the step, the cost (stages/kv_cache.py draws them)."""
