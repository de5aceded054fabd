"""GPT-2 small's forward pass in the core (numpy, float64) against torch's GPT2LMHeadModel (float32), side by side.

Not a test: it prints times and their ratio and asserts nothing about speed. The weights are random (timing does not
depend on them): transformers builds the model at GPT-2 small's published sizes (12 layers, 12 heads, d_model 768,
1,024 positions, 50,257 tokens: Radford et al. 2019, and the `gpt2` config on the Hugging Face hub), saves it as a
checkpoint, and the core reads that checkpoint with mha.load_gpt2, so both run the same numbers. Each forward runs on
the same `--tokens` ids, `--repeats` times after one warm-up; the figures are medians. A head of layer 10 knocked out
runs from the start and resumed from the run with every head (mha.resume), side by side.

    python bench/gpt2_forward.py [--tokens 64] [--repeats 7] [--threads 0]

--threads N sets torch's and (through OPENBLAS_NUM_THREADS, before numpy loads) BLAS's thread counts alike; 0 leaves
both at their defaults.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args()
    if args.threads:
        os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    import numpy as np
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import mha

    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config()).eval()  # GPT-2 small's sizes are the config's defaults
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp, safe_serialization=True)
        (Path(tmp) / "tokenizer.json").write_text(_tokenizer_json())
        start = time.perf_counter()
        ours = mha.load_gpt2(tmp)
        loaded = time.perf_counter() - start
    ids = np.random.default_rng(0).integers(0, ours.weights.vocab_size, args.tokens)

    def numpy_run():
        return mha.model_forward(ids, ours.weights).logits

    def torch_run():
        with torch.no_grad():
            return model(torch.tensor(ids[None])).logits[0]

    whole = mha.model_forward(ids, ours.weights)
    knocked = ((9, 0),)  # head 10.1: the heads stage's knock-out resumes at layer 10 (mha.resume)

    def knocked_run():
        return mha.model_forward(ids, ours.weights, knocked=knocked).logits

    def resumed_run():
        return mha.resume(whole, ours.weights, knocked).logits

    times = {}
    for name, run in (("core (numpy, float64)", numpy_run), ("torch (float32)", torch_run),
                      ("core, head 10.1 knocked out, from the start", knocked_run),
                      ("core, head 10.1 knocked out, resumed at layer 10", resumed_run)):
        run()
        laps = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            run()
            laps.append(time.perf_counter() - start)
        times[name] = laps
    diff = np.abs(numpy_run() - torch_run().double().numpy()).max()
    params = sum(p.numel() for p in model.parameters())
    print(f"GPT-2 small ({params / 1e6:.1f} M parameters), {args.tokens} tokens, {args.repeats} runs after a "
          f"warm-up; load average {os.getloadavg()[0]:.2f}; threads {args.threads or 'default'}; the core read the "
          f"checkpoint in {loaded:.1f} s")
    print("| forward | median s | every run |")
    print("|---|---|---|")
    for name, laps in times.items():
        print(f"| {name} | {statistics.median(laps):.3f} | {', '.join(f'{t:.3f}' for t in laps)} |")
    core, ref, start, resumed = (statistics.median(v) for v in times.values())
    print(f"core ÷ torch: {core / ref:.2f}; largest logit difference {diff:.2e}")
    same = np.array_equal(knocked_run(), resumed_run())
    print(f"knock-out resumed ÷ from the start: {resumed / start:.2f} (3 of 12 blocks); the same logits: {same}")
    return 0


def _tokenizer_json() -> str:
    """A stand-in BPE (the forward pass reads ids, not text): one token per byte value."""
    from tokenizers import Tokenizer, models

    return Tokenizer(models.BPE(vocab={chr(33 + i): i for i in range(94)}, merges=[])).to_str()


if __name__ == "__main__":
    sys.exit(main())
