#!/usr/bin/env bash
# Mutation testing of the core, opt-in (not in CI): mutmut 3 mutates mha/*.py (pyproject.toml's [tool.mutmut]: the
# core's modules, not mha/ui or mha/figures) and runs tests/core against each mutant; then bench/mutation_scores.py
# prints each module's score. A mutant that survives is a change to the code that no test notices.
#
#   bash bench/mutation.sh                      # every core module (an hour or more on 2 cores)
#   bash bench/mutation.sh 'mha.attention*'     # one module: mutmut's mutant names are module.function__mutmut_N
#   .venv-mutmut/bin/mutmut browse              # the survivors, one by one, with their diffs
#
# mutmut lives in a venv of its own (.venv-mutmut), so the project's own holds only what CI needs. Its work goes to
# mutants/ (ignored by git); a second run only tests what changed since the first.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-mutmut
if [ ! -x "$venv/bin/mutmut" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r requirements-dev.txt "mutmut>=3.8,<3.9"
fi
# One thread for torch's OpenMP pool and numpy's BLAS: mutmut runs the tests once in its own process (tests/core's
# GPT-2 test runs torch), then forks a child per mutant, and a child forked from a process whose thread pools ran
# waits forever on a lock no thread holds (mutants of every function the GPT-2 test reaches hung with no CPU).
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
"$venv/bin/mutmut" run --max-children "$(nproc)" "$@" || true  # it exits non-zero when mutants survive
"$venv/bin/python" bench/mutation_scores.py
