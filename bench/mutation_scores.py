"""Each core module's mutation score, from what `mutmut run` left in mutants/ (bench/mutation.sh runs both).

    python bench/mutation_scores.py [--survivors]

A mutant is killed when tests/core fails on it (or times out: the change made the code loop); it survives when
every test passes, or when no test reaches its function at all. The score is killed / (killed + survived);
mutants not checked yet (a run cut short, or a module left out of it) are counted apart. --survivors lists each
survivor's name, for `mutmut show NAME`.
"""

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KILLED = {1, 3, 24, -24, 36, 152, 255}  # tests failed, pytest's internal error, timeouts (mutmut's stats.py)
SURVIVED = {0, 33}  # every test passed; 33: no test of tests/core reaches the mutated function (a gap too)


def tally(meta: dict) -> tuple[Counter, list[str]]:
    counts, survivors = Counter(), []
    for name, code in meta["exit_code_by_key"].items():
        kind = "killed" if code in KILLED else "survived" if code in SURVIVED else "not checked" if code is None \
            else f"other ({code})"
        counts[kind] += 1
        if kind == "survived":
            survivors.append(name)
    return counts, survivors


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--survivors", action="store_true", help="list every surviving mutant's name")
    args = p.parse_args()
    metas = sorted((ROOT / "mutants" / "mha").glob("*.py.meta"))
    if not metas:
        print("no mutants/mha/*.py.meta: run bash bench/mutation.sh first", file=sys.stderr)
        return 1
    print("| module | mutants | killed | survived | not checked | score |\n|---|---|---|---|---|---|")
    names = []
    for path in metas:
        counts, survivors = tally(json.loads(path.read_text()))
        done = counts["killed"] + counts["survived"]
        score = f"{100 * counts['killed'] / done:.1f}%" if done else "–"
        others = sum(v for k, v in counts.items() if k not in ("killed", "survived"))
        print(f"| {path.name.removesuffix('.meta')} | {sum(counts.values())} | {counts['killed']} | "
              f"{counts['survived']} | {others} | {score} |")
        names += survivors
    if args.survivors:
        print("\n".join(["", "survivors:", *names]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
