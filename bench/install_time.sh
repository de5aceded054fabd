#!/usr/bin/env bash
# Time from a fresh `pip install -r requirements.txt` (new venv, no pip cache) to the app answering,
# the way a host such as Streamlit Community Cloud starts it. Usage: bash bench/install_time.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
pid=""
cp -r "$repo/app.py" "$repo/mha" "$repo/requirements.txt" "$repo/.streamlit" "$work/"
cd "$work"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
t0=$(date +%s.%N)
python3 -m venv venv
venv/bin/pip install -q --no-cache-dir -r requirements.txt
t1=$(date +%s.%N)
venv/bin/streamlit run app.py --server.headless true --server.address 127.0.0.1 --server.port "$port" \
  --browser.gatherUsageStats false >/dev/null 2>&1 &
pid=$!
until curl -sf "http://127.0.0.1:$port/_stcore/health" >/dev/null; do sleep 0.1; done
t2=$(date +%s.%N)
python3 -c "print(f'install {$t1 - $t0:.1f} s, start to answering {$t2 - $t1:.1f} s, total {$t2 - $t0:.1f} s')"
