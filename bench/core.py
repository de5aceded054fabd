"""Benchmark of mha's numpy core: forward vs a naive loop and PyTorch, the KV cache vs recomputing, the variants.

Not a test: it asserts nothing about speed, it prints figures. The machine may be shared and noisy,
so every comparison is measured side by side in one run: the compared variants take turns within
each round (the order rotating), a figure is the median over the rounds, and a ratio is the median
of the per-round ratios.

    python bench/core.py [--quick] [--keep-freed-memory]
    PYTHONPATH=. /path/to/venv-with-torch/bin/python bench/core.py     # adds the torch column

PyTorch is optional and never a project dependency: without it the torch figures say "not installed".
Where OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are set (some machines need them for correctness), a run
with both unset for that one command (env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE ...) shows what
the default kernel does; the env line says which kernel ran.

On a VM that hands freed memory back to its host (virtio-balloon free page reporting), a call that
allocates hundreds of MB may now and then pay host page faults and take several times longer; each
section says how much memory went back during its rounds. --keep-freed-memory makes glibc keep
freed memory in the process, which shows the times without any fresh-page cost.
"""

import argparse
import copy
import ctypes
import dataclasses
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

try:
    import mha
except ModuleNotFoundError:  # run as `python bench/core.py`: put the repo root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import mha

try:
    import torch
except ImportError:
    torch = None

try:
    import threadpoolctl
except ImportError:
    threadpoolctl = None

GPT2_SMALL = mha.AttentionConfig(n_tokens=1024, d_model=768, d_k=64, d_v=64, n_heads=12, seed=0)
SIZES = "d_model=768 n_heads=12 d_k=d_v=64 float64 (GPT-2 small)"
MB = 1e6
OPENBLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
TORCH_PAUSE = 0.15  # seconds idle before each torch call (see interleaved)
REPORTED_KIB = Path("/sys/module/page_reporting/parameters/reported_kib")


# ---------------------------------------------------------------- timing


@dataclass
class Case:
    """One variant to time: run(prepare()) is timed, prepare() (untimed) hands it its argument."""

    run: Callable[[object], object]
    prepare: Callable[[], object] = lambda: None
    burst: int = 1  # calls back to back in each round
    pause: float = 0.0  # seconds idle before its turn (see interleaved)


def time_burst(case: Case) -> list[float]:
    """Seconds for each of case.burst calls in a row, garbage collector off (as timeit does)."""
    times = []
    for _ in range(case.burst):
        arg = case.prepare()
        gc.disable()
        try:
            start = time.perf_counter()
            case.run(arg)
            times.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return times


def interleaved(cases: dict[str, Case], rounds: int) -> dict[str, list[list[float]]]:
    """Time every case once per round, rotating the order; per case, per round, its burst's seconds.

    A case's pause lets the previous variant's idle worker threads stop spinning first: OpenBLAS's
    busy-wait about 0.1 s after each call and would otherwise steal cores from torch's threads.
    """
    names = list(cases)
    times: dict[str, list[list[float]]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[: r % len(names)]:
            time.sleep(cases[name].pause)
            times[name].append(time_burst(cases[name]))
    return times


def first(bursts: list[list[float]]) -> list[float]:
    """Per round, the burst's first call (the only one when burst=1)."""
    return [b[0] for b in bursts]


def warm(bursts: list[list[float]]) -> list[float]:
    """Per round, the median of the burst's calls after the first (caches and threads warm)."""
    return [statistics.median(b[1:]) for b in bursts]


def ratio(slow: list[float], fast: list[float]) -> float:
    """Median over rounds of slow/fast, each pair measured in the same round."""
    return statistics.median(s / f for s, f in zip(slow, fast, strict=True))


def ms(seconds: list[float]) -> str:
    return f"{statistics.median(seconds) * 1e3:9.2f} ms (min {min(seconds) * 1e3:8.2f})"


def time_row(label: str, seconds: list[float]) -> None:
    print(f"   {label:<62}{ms(seconds)}")


# ---------------------------------------------------------------- environment


def blas_info() -> tuple[str, int]:
    """A description of numpy's BLAS and its thread count (threadpoolctl, else numpy.show_config)."""
    if threadpoolctl is not None:
        libs = [i for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
        lib = next((i for i in libs if "numpy" in i["filepath"]), libs[0] if libs else None)
        if lib is not None:
            kernel = lib.get("architecture", "?")
            desc = f"{lib['internal_api']} {lib['version']} kernel={kernel} (threadpoolctl)"
            return desc, lib["num_threads"]
    blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    kernel, threads = _openblas_query()
    desc = f"{blas['name']} {blas.get('version', '?')} kernel={kernel} (no threadpoolctl: asked OpenBLAS)"
    return desc, threads


def _openblas_query() -> tuple[str, int]:
    """(core name, threads) asked of the OpenBLAS that numpy loaded, as threadpoolctl would; or ("?", cpus)."""
    with open("/proc/self/maps") as fh:
        paths = {line.split()[-1] for line in fh if "openblas" in line and line.rstrip().endswith(".so")}
    for path in sorted(paths):
        lib = ctypes.CDLL(path)
        for prefix, suffix in (("scipy_", "64_"), ("", "64_"), ("scipy_", ""), ("", "")):
            corename = getattr(lib, f"{prefix}openblas_get_corename{suffix}", None)
            if corename is not None:
                corename.restype = ctypes.c_char_p
                return corename().decode(), getattr(lib, f"{prefix}openblas_get_num_threads{suffix}")()
    return "?", os.cpu_count() or 1


def env_line(threads: int) -> str:
    torch_desc = "torch: not installed"
    if torch is not None:
        torch_desc = f"torch {torch.__version__} ({torch.get_num_threads()} threads)"
    blas, _ = blas_info()
    openblas = " ".join(f"{v}={os.environ.get(v, 'unset')}" for v in OPENBLAS_VARS)
    return (
        f"python {platform.python_version()} | numpy {np.__version__} | BLAS {blas}, {threads} threads | "
        f"{torch_desc} | {openblas} | cpus {os.cpu_count()}"
    )


def reported_mib() -> float | None:
    """MiB of freed memory this VM has handed back to its host so far (virtio-balloon page reporting)."""
    try:
        return int(REPORTED_KIB.read_text()) / 1024
    except (OSError, ValueError):
        return None


def print_reporting(since: float | None) -> None:
    """Say how much freed memory went back to the host during a section's timed rounds, if we can tell."""
    now = reported_mib()
    if since is not None and now is not None:
        print(f"   freed memory handed back to the VM's host during these rounds: {now - since:.0f} MiB; the "
              "calls that next touch it pay host page faults (see --keep-freed-memory)")


def keep_freed_memory() -> None:
    """Make glibc keep freed memory in the process: big blocks come from the heap (no mmap) and the heap
    is never trimmed, so later allocations reuse mapped pages and no variant pays fresh page faults."""
    libc = ctypes.CDLL(None)
    m_trim_threshold, m_mmap_max = -1, -4  # glibc's malloc.h
    if not (libc.mallopt(m_mmap_max, 0) and libc.mallopt(m_trim_threshold, 2**31 - 1)):
        raise SystemExit("mallopt failed: --keep-freed-memory needs glibc")


# ---------------------------------------------------------------- the forward variants


def naive_forward(x: np.ndarray, w: mha.Weights) -> np.ndarray:
    """Y straight from the formulas: a Python loop over heads, each step its own line."""
    n = x.shape[0]
    future = np.triu(np.ones((n, n), dtype=bool), k=1)  # (n, n): True where j > i
    heads = []
    for i in range(w.n_heads):
        q = x @ w.w_q[i]  # (n, d_model) @ (d_model, d_k) -> (n, d_k)
        k = x @ w.w_k[i]  # (n, d_k)
        v = x @ w.w_v[i]  # (n, d_v)
        scores = q @ k.T  # (n, d_k) @ (d_k, n) -> (n, n)
        scaled = scores / np.sqrt(w.d_k)
        masked = np.where(future, -np.inf, scaled)
        e = np.exp(masked - masked.max(axis=1, keepdims=True))
        probs = e / e.sum(axis=1, keepdims=True)
        heads.append(probs @ v)  # (n, n) @ (n, d_v) -> (n, d_v)
    concat = np.concatenate(heads, axis=1)  # (n, h d_v)
    return concat @ w.w_o  # (n, h d_v) @ (h d_v, d_model) -> (n, d_model)


def torch_forward_fn(w: mha.Weights) -> Callable[[np.ndarray], np.ndarray]:
    """The same layer in torch float64: projections, fused causal SDPA, concat, output projection."""
    w_q, w_k, w_v, w_o = (torch.from_numpy(np.ascontiguousarray(a)) for a in (w.w_q, w.w_k, w.w_v, w.w_o))
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def run(x: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            xt = torch.from_numpy(x)  # (n, d_model), shares x's memory
            q, k, v = xt @ w_q, xt @ w_k, xt @ w_v  # (n, d_model) @ (h, d_model, d_k) -> (h, n, d_k)
            heads = sdpa(q, k, v, is_causal=True)  # (h, n, d_v); scale 1/√d_k by default
            concat = heads.transpose(0, 1).reshape(x.shape[0], -1)  # (n, h d_v)
            return (concat @ w_o).numpy()  # (n, h d_v) @ (h d_v, d_model) -> (n, d_model)

    return run


def forward_variants(w: mha.Weights) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """name -> f(x) giving Y (n, d_model). mha.forward returns its whole Trace (every intermediate)."""
    variants = {"mha.forward": lambda x: mha.forward(x, w), "naive per-head": lambda x: naive_forward(x, w)}
    if torch is not None:
        variants["torch sdpa"] = torch_forward_fn(w)
    return variants


def output_y(out) -> np.ndarray:
    return out.y if isinstance(out, mha.Trace) else out


# ---------------------------------------------------------------- peak memory


def tracemalloc_peak(f: Callable[[], object]) -> float:
    """Peak bytes numpy allocated during f(), its result still held (inputs and weights excluded)."""
    gc.collect()
    tracemalloc.start()
    try:
        out = f()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del out
    return peak


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith(field + ":"))


def _reset_peak_rss() -> bool:
    """Set this process's peak-RSS mark (VmHWM) to its current RSS, where Linux allows it."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def mem_child(name: str) -> None:
    """In a fresh process: warm the variant up on 32 tokens, then print its peak RSS growth on 1024.

    VmHWM, not ru_maxrss: ru_maxrss also keeps the RSS of the parent's forked image from before exec.
    """
    w, x = mha.init_weights(GPT2_SMALL), mha.init_input(GPT2_SMALL)
    f = forward_variants(w)[name]
    f(x[:32])  # load lazy kernels and thread pools outside the measurement
    gc.collect()
    if _reset_peak_rss():
        method, before = "VmHWM reset via /proc/self/clear_refs", _status_kb("VmRSS")
    else:
        method, before = "VmHWM growth without a reset: may undercount", _status_kb("VmHWM")
    out = f(x)
    growth = (_status_kb("VmHWM") - before) * 1024
    del out
    print(json.dumps({"growth": growth, "method": method}))


def rss_peak(name: str, repeats: int) -> tuple[float, str]:
    """Median over fresh subprocesses of the peak RSS growth while one forward runs and is held."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--mem-child", name]
    runs = [json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            for _ in range(repeats)]
    return statistics.median(r["growth"] for r in runs), runs[0]["method"]


# ---------------------------------------------------------------- 1. forward at GPT-2 small


def bench_forward(rounds: int, mem_repeats: int) -> None:
    w, x = mha.init_weights(GPT2_SMALL), mha.init_input(GPT2_SMALL)
    variants = forward_variants(w)
    for f in variants.values():
        f(x)  # warm-up
    cases = {name: Case(lambda _, f=f: f(x), pause=TORCH_PAUSE if name == "torch sdpa" else 0.0)
             for name, f in variants.items()}
    since = reported_mib()
    times = {name: first(bursts) for name, bursts in interleaved(cases, rounds).items()}
    print(f"\n1. one forward pass, n_tokens=1024 {SIZES}; {rounds} rounds")
    print(f"   {'variant':<16}{'time: median (min)':>35}{'peak tracemalloc':>19}{'peak RSS':>11}  max|Δy| vs mha")
    ref = mha.forward(x, w).y
    methods = {forward_row(name, f, x, ref, times[name], mem_repeats) for name, f in variants.items()}
    if torch is None:
        print(f"   {'torch sdpa':<16}{'not installed':>35}")
    print_forward_ratios(times)
    print("   peak tracemalloc: numpy's own allocations during one call, result held, inputs excluded "
          "(torch's allocator is not traced)")
    print(f"   peak RSS: growth of resident memory during one call in a fresh subprocess after a 32-token "
          f"warm-up, result held; median of {mem_repeats} ({', '.join(sorted(methods))})")
    print("   mha.forward keeps its whole Trace (q, k, v, heads, concat and 4 (h, n, n) arrays: scores, "
          "scaled, masked, probs); naive and torch keep only Y")
    print_reporting(since)
    if torch is not None:
        print(f"   torch's turn starts after a {TORCH_PAUSE} s pause: numpy's OpenBLAS threads spin ~0.1 s "
              "after each call")


def forward_row(name: str, f, x: np.ndarray, ref: np.ndarray, seconds: list[float], mem_repeats: int) -> str:
    """Print one variant's row; return how its RSS was measured."""
    err = np.max(np.abs(output_y(f(x)) - ref))
    traced = "n/a (untraced)"
    if name != "torch sdpa":
        traced = f"{tracemalloc_peak(lambda: f(x)) / MB:.0f} MB"
    rss, method = rss_peak(name, mem_repeats)
    print(f"   {name:<16}{ms(seconds):>35}{traced:>19}{rss / MB:>8.0f} MB  {err:.1e}")
    return method


def print_forward_ratios(times: dict[str, list[float]]) -> None:
    naive = ratio(times["naive per-head"], times["mha.forward"])
    print(f"   naive / mha.forward = {naive:.2f}×")
    if "torch sdpa" not in times:
        print("   mha.forward / torch = n/a (torch not installed)")
        return
    fwd, ref = times["mha.forward"], times["torch sdpa"]
    r = ratio(fwd, ref)
    print(f"   mha.forward / torch = {r:.2f}×  (target ≤ 1.5×: {'met' if r <= 1.5 else 'NOT met'}); "
          f"ratio of the medians {statistics.median(fwd) / statistics.median(ref):.2f}×, "
          f"of the minima {min(fwd) / min(ref):.2f}×")


# ---------------------------------------------------------------- 2. one decode step at t=512


def prefilled_cache(w: mha.Weights, x: np.ndarray) -> mha.KVCache:
    """A cache holding the rows of x, with room for one more (no doubling inside a timed step)."""
    cache = mha.KVCache(w, capacity=2 * len(x))
    for row in x:
        cache.append(row)
    return cache


def bench_decode_step(rounds: int, t: int = 512, burst: int = 21) -> None:
    cfg = dataclasses.replace(GPT2_SMALL, n_tokens=t + 1)
    w, x = mha.init_weights(cfg), mha.init_input(cfg)  # x: (t + 1, d_model)
    base = prefilled_cache(w, x[:t])
    # A shallow copy shares base's K/V buffers; its append writes row t, spare capacity that base
    # never reads (len(base) stays t), so every timed call is the same step t -> t + 1.
    cases = {
        "step": Case(lambda c: c.append(x[t]), lambda: copy.copy(base), burst=burst),
        "forward": Case(lambda _: mha.forward(x, w)),
    }
    mha.forward(x, w)  # warm-up
    since = reported_mib()
    bursts = interleaved(cases, rounds)
    fwd, cold, hot = first(bursts["forward"]), first(bursts["step"]), warm(bursts["step"])
    err = np.max(np.abs(copy.copy(base).append(x[t]).y - mha.forward(x, w).y[-1]))
    c = mha.cost(cfg, t + 1)
    print(f"\n2. one decode step at t={t} (append token {t + 1}), {SIZES}; {rounds} rounds")
    time_row(f"KVCache.append, warm: median of calls 2..{burst} in a row", hot)
    time_row("KVCache.append, cold: 1st call after a forward ran", cold)
    time_row(f"mha.forward on {t + 1} tokens", fwd)
    r_hot, r_cold = ratio(fwd, hot), ratio(fwd, cold)
    print(f"   forward / cached step = {r_hot:.0f}× warm (target ≥ 100×: {'met' if r_hot >= 100 else 'NOT met'}), "
          f"{r_cold:.0f}× cold; cost model FLOPs ratio {c.step_flops_recompute / c.step_flops_cached:.0f}×; "
          f"max|Δy_{t + 1}| = {err:.1e}")
    print("   cold: the forward that ran just before has pushed the weights (19 MB) and K, V (6 MB) "
          "out of the CPU caches")
    print_reporting(since)


# ---------------------------------------------------------------- 3. generating T tokens


def generate_cached(x: np.ndarray, w: mha.Weights) -> np.ndarray:
    cache = mha.KVCache(w)  # default capacity: the amortised doublings are part of the cost
    return np.stack([cache.append(row).y for row in x])  # (T, d_model)


def generate_recompute(x: np.ndarray, w: mha.Weights) -> np.ndarray:
    return np.stack([mha.forward(x[:t], w).y[-1] for t in range(1, len(x) + 1)])  # (T, d_model)


def bench_generate(rounds: int, n: int = 256) -> None:
    w, x = mha.init_weights(GPT2_SMALL), mha.init_input(GPT2_SMALL)[:n]
    cases = {
        "cached": Case(lambda _: generate_cached(x, w)),
        "recompute": Case(lambda _: generate_recompute(x, w)),
    }
    since = reported_mib()
    times = {name: first(bursts) for name, bursts in interleaved(cases, rounds).items()}
    err = np.max(np.abs(generate_cached(x, w) - generate_recompute(x, w)))
    c = mha.cost(GPT2_SMALL, n)
    r = ratio(times["recompute"], times["cached"])
    print(f"\n3. generating T={n} tokens, {SIZES}; {rounds} rounds")
    time_row(f"with the cache: {n} appends", times["cached"])
    time_row(f"without: forward on 1..t tokens for t=1..{n}, last row each", times["recompute"])
    print(f"   without / with = {r:.1f}×; cost({n}) predicts gen_flops_recompute / gen_flops_cached = "
          f"{c.gen_flops_recompute / c.gen_flops_cached:.1f}×; max|ΔY| = {err:.1e}")
    print_reporting(since)


# ---------------------------------------------------------------- 4. a 2-layer GPT, 256 tokens


def bench_model_generate(rounds: int, n: int = 256, layers: int = 2, vocab: int = 512) -> None:
    """The coda's whole model (LN, attention, FFN per block, final LN, tied logits): per-layer KV caches
    against running model_forward on 1..t tokens for every t."""
    cfg = dataclasses.replace(GPT2_SMALL, d_ff=4 * GPT2_SMALL.d_model)
    mw = mha.init_model(cfg, [f"t{i}" for i in range(vocab)], n_layers=layers, positions="learned", n_ctx=n)
    ids = np.random.default_rng(0).integers(vocab, size=n)

    def cached(_):
        cache = mha.ModelCache(mw)
        return np.stack([cache.append(int(i)) for i in ids])  # (T, vocab)

    def recompute(_):
        return np.stack([mha.model_forward(ids[:t], mw).logits[-1] for t in range(1, n + 1)])

    since = reported_mib()
    times = {name: first(b) for name, b in interleaved({"cached": Case(cached), "recompute": Case(recompute)},
                                                        rounds).items()}
    err = np.max(np.abs(cached(None) - recompute(None)))
    print(f"\n4. a {layers}-layer GPT (pre-LN blocks, d_ff={cfg.d_ff}, tied {vocab}-token embedding, learned "
          f"positions) generating T={n} tokens, {SIZES}; {rounds} rounds")
    time_row(f"with a KV cache per layer: {n} ModelCache.append", times["cached"])
    time_row(f"without: model_forward on 1..t tokens for t=1..{n}, last row each", times["recompute"])
    print(f"   without / with = {ratio(times['recompute'], times['cached']):.1f}×; max|Δlogits| = {err:.1e}")
    print_reporting(since)


# ---------------------------------------------------------------- 5. a decode step, variant by variant

VARIANT_KV_HEADS, VARIANT_WINDOW, VARIANT_LATENT = 4, 256, 256


def variant_caches(w: mha.Weights, x: np.ndarray) -> dict[str, object]:
    """Each variant's cache holding the rows of x (room for one more): the post's MHA, GQA, MQA, a window, MLA."""
    cfg = dataclasses.replace(GPT2_SMALL, n_tokens=len(x) + 1)
    caches = {
        "MHA": mha.KVCache(w, capacity=len(x) + 1),
        f"GQA ({VARIANT_KV_HEADS} kv heads)": mha.KVCache(mha.share_kv(w, VARIANT_KV_HEADS),
                                                          dataclasses.replace(cfg, n_kv_heads=VARIANT_KV_HEADS),
                                                          capacity=len(x) + 1),
        "MQA (1 kv head)": mha.KVCache(mha.share_kv(w, 1), dataclasses.replace(cfg, n_kv_heads=1),
                                       capacity=len(x) + 1),
        f"window {VARIANT_WINDOW}": mha.KVCache(w, dataclasses.replace(cfg, window=VARIANT_WINDOW)),
        f"MLA (d_latent {VARIANT_LATENT})": mha.MLACache(mha.mla_from(w, VARIANT_LATENT)),
    }
    for cache in caches.values():
        for row in x:
            cache.append(row)
    return caches


def fresh(cache):
    """A copy whose append leaves `cache` as it was: a shallow copy appends into spare capacity that `cache` never
    reads (and MLACache makes a new array), but a full window closes its gap in place, so its arrays are copied."""
    copied = copy.copy(cache)
    if isinstance(cache, mha.KVCache) and cache.cfg.window:
        copied._kept = [[a.copy() for a in parts] for parts in cache._kept]
        copied._pos = cache._pos.copy()
    return copied


def bench_variant_steps(rounds: int, lengths: tuple[int, ...], burst: int = 11) -> None:
    """One decode step (token t + 1) through each variant's cache at each context length t, side by side."""
    cfg = dataclasses.replace(GPT2_SMALL, n_tokens=max(lengths) + 1)
    w, x = mha.init_weights(cfg), mha.init_input(cfg)
    print(f"\n5. one decode step by variant (append token t + 1 to a cache holding t), {SIZES}; GQA "
          f"{VARIANT_KV_HEADS} kv heads, a window of {VARIANT_WINDOW}, MLA d_latent {VARIANT_LATENT} "
          f"(mha.MLACache on mha.mla_from(w)); {rounds} rounds, each the median of calls 2..{burst} in a row")
    print(f"   {'t':>5}  {'variant':<22}{'step: median (min)':>35}{'cache bytes':>14}{'time / MHA':>12}"
          f"{'bytes / MHA':>13}")
    since = reported_mib()
    for t in lengths:
        caches = variant_caches(w, x[:t])
        row = x[t]
        cases = {name: Case(lambda c, row=row: c.append(row), lambda c=c: fresh(c), burst=burst)
                 for name, c in caches.items()}
        times = {name: warm(bursts) for name, bursts in interleaved(cases, rounds).items()}
        held = {name: c.nbytes for name, c in caches.items()}
        for name in caches:
            print(f"   {t:>5}  {name:<22}{ms(times[name]):>35}{held[name] / MB:>11.2f} MB"
                  f"{ratio(times[name], times['MHA']):>11.2f}×{held[name] / held['MHA']:>12.3f}×")
    print("   cache bytes: what the cache holds after t tokens (float64), all of it read by the next step; a real "
          "model in bf16 holds a quarter. time / MHA: median of per-round ratios")
    print_reporting(since)


# ---------------------------------------------------------------- main


def match_threads() -> int:
    """numpy's BLAS thread count, given to torch too so both use the same cores."""
    threads = blas_info()[1]
    if torch is not None:
        torch.set_num_threads(threads)
    return threads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a rough look, ~1 min)")
    parser.add_argument("--keep-freed-memory", action="store_true",
                        help="glibc keeps freed memory in-process: times without fresh-page faults")
    parser.add_argument("--only", type=int, choices=(1, 2, 3, 4, 5), help="run this section alone")
    parser.add_argument("--mem-child", help=argparse.SUPPRESS)  # internal: one fresh-process memory run
    args = parser.parse_args()
    threads = match_threads()
    if args.mem_child:
        mem_child(args.mem_child)
        return
    print("MHA Explorer core benchmark: medians over interleaved rounds, ratios = median of per-round ratios")
    print("env:", env_line(threads))
    if args.keep_freed_memory:
        keep_freed_memory()
    print("allocator:", "glibc keeps freed memory (--keep-freed-memory), peak RSS children excepted"
          if args.keep_freed_memory else "glibc default: freed big arrays go back to the OS")
    sections = {1: lambda: bench_forward(rounds=3 if args.quick else 15, mem_repeats=1 if args.quick else 3),
                2: lambda: bench_decode_step(rounds=10 if args.quick else 40),
                3: lambda: bench_generate(rounds=2 if args.quick else 5),
                4: lambda: bench_model_generate(rounds=2 if args.quick else 5),
                5: lambda: bench_variant_steps(rounds=3 if args.quick else 10,
                                               lengths=(256, 1024) if args.quick else (256, 1024, 4096))}
    for number, run in sections.items():
        if args.only in (None, number):
            run()


if __name__ == "__main__":
    main()
