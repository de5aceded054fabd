#!/usr/bin/env bash
# MHA Explorer on K Streamlit processes behind nginx, all on loopback (see deploy/README.md).
#
#   deploy/run.sh            start, wait for health, then stay in the foreground; Ctrl-C (or exit) stops all
#   deploy/run.sh start      start in the background and return (pids in $RUN_DIR)
#   deploy/run.sh stop       stop what `start` started
#   deploy/run.sh status     pids, ports and health
#
# Settings (environment): K=2 processes on ports BASE_PORT.. (8501..), nginx on NGINX_PORT (8500),
# STICKY=cookie (or ip), PYTHON (python3 with streamlit), RUN_DIR (/tmp/mha-deploy), NGINX_BIN (nginx),
# ROOMS=redis (a redis-server of its own on REDIS_PORT, 8499: the default when K > 1) or process (each process its
# own rooms); MHA_ROOMS=redis://… names a Redis that runs elsewhere instead.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
K=${K:-2}
BASE_PORT=${BASE_PORT:-8501}
NGINX_PORT=${NGINX_PORT:-8500}
STICKY=${STICKY:-cookie}
PYTHON=${PYTHON:-python3}
RUN_DIR=${RUN_DIR:-/tmp/mha-deploy}
NGINX_BIN=${NGINX_BIN:-$(command -v nginx || echo /usr/sbin/nginx)}
REDIS_PORT=${REDIS_PORT:-8499}
REDIS_BIN=${REDIS_BIN:-$(command -v redis-server || echo /usr/bin/redis-server)}
if [ -n "${MHA_ROOMS:-}" ]; then
  ROOMS=given
elif [ -z "${ROOMS:-}" ]; then
  ROOMS=$([ "$K" -gt 1 ] && echo redis || echo process)  # a class spread over processes needs one store of rooms
fi
unset NGINX  # nginx reads $NGINX as sockets handed over by a binary upgrade, and then stays in the foreground

log() { printf '%s\n' "$*" >&2; }

ensure_nginx() {
  [ -x "$NGINX_BIN" ] && return 0
  log "nginx not found: installing it (apt-get install nginx-light, else nginx)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
  NGINX_BIN=$(command -v nginx || echo /usr/sbin/nginx)
}

ensure_redis() {
  [ -x "$REDIS_BIN" ] && return 0
  log "redis-server not found: installing it (apt-get install redis-server)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  REDIS_BIN=$(command -v redis-server || echo /usr/bin/redis-server)
}

redis_answers() {
  local reply
  { exec 3<>"/dev/tcp/127.0.0.1/$REDIS_PORT"; } 2>/dev/null || return 1
  printf 'PING\r\n' >&3
  read -r -t 2 reply <&3 || true
  exec 3>&-
  [[ $reply == +PONG* ]]
}

# The classroom's rooms, shared by the processes: Redis on loopback, every change written to its append-only file in
# $RUN_DIR/redis, so that rooms outlive a restart of Redis or of the whole deployment (until they expire unused).
start_redis() {
  ensure_redis
  mkdir -p "$RUN_DIR/redis"
  "$REDIS_BIN" --port "$REDIS_PORT" --bind 127.0.0.1 --protected-mode yes --dir "$RUN_DIR/redis" \
    --appendonly yes --save "" >"$RUN_DIR/redis.log" 2>&1 &
  echo $! >"$RUN_DIR/redis.pid"
  wait_for 20 "redis-server did not answer on 127.0.0.1:$REDIS_PORT within 20 s (see $RUN_DIR/redis.log)" redis_answers
  export MHA_ROOMS="redis://127.0.0.1:$REDIS_PORT/0"
}

# The repository's nginx.conf with this run's listen port, upstream servers and sticky method.
render_conf() {
  local servers="" i
  for ((i = 0; i < K; i++)); do
    servers+="        server 127.0.0.1:$((BASE_PORT + i)) max_fails=1 fail_timeout=10s;"$'\n'
  done
  awk -v servers="$servers" -v port="$NGINX_PORT" -v sticky="$STICKY" '
    /# servers: run.sh rewrites/ { print; printf "%s", servers; skip = 1; next }
    /# servers end/ { skip = 0 }
    skip { next }
    /^ *listen 127\.0\.0\.1:[0-9]+;/ { sub(/:[0-9]+;/, ":" port ";") }
    sticky == "ip" && /^ *hash \$mha_route consistent;/ { $0 = "        ip_hash;  # STICKY=ip: by client address" }
    { print }' "$HERE/nginx.conf" >"$RUN_DIR/nginx.conf"
}

healthy() {
  curl -fsS --max-time 2 -o /dev/null "http://127.0.0.1:$1/_stcore/health" 2>/dev/null
}

# Run a command every 0.5 s until it succeeds, for up to $1 seconds; after that, say $2 and fail.
wait_for() {
  local seconds=$1 what=$2 tries=0
  shift 2
  until "$@"; do
    tries=$((tries + 1))
    if [ "$tries" -gt $((seconds * 2)) ]; then
      log "$what"
      return 1
    fi
    sleep 0.5
  done
}

wait_healthy() {
  wait_for 60 "no answer on 127.0.0.1:$1/_stcore/health after 60 s" healthy "$1"
}

start_streamlit() {
  local port=$1
  # cwd = repository root, so .streamlit/config.toml applies; one cookie secret for all processes.
  (cd "$ROOT" && exec "$PYTHON" -m streamlit run app.py --server.headless true \
    --server.port "$port" --server.address 127.0.0.1 --global.developmentMode false \
    --server.fileWatcherType none --browser.gatherUsageStats false) \
    >"$RUN_DIR/streamlit-$port.log" 2>&1 &
  echo $! >"$RUN_DIR/streamlit-$port.pid"
}

refuse_if_running() {
  if [ -f "$RUN_DIR/nginx.pid" ] || compgen -G "$RUN_DIR/streamlit-*.pid" >/dev/null; then
    log "$RUN_DIR holds pids of a running deployment: run '$0 stop' first"
    exit 1
  fi
}

start_all() {
  ensure_nginx
  mkdir -p "$RUN_DIR"
  rm -f "$RUN_DIR"/*.log  # logs of the last run (kept by stop for a look)
  chmod 755 "$RUN_DIR"  # nginx's workers (nobody, when started as root) use the temp dirs inside it
  STREAMLIT_SERVER_COOKIE_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
  export STREAMLIT_SERVER_COOKIE_SECRET
  if [ "$ROOMS" = redis ]; then start_redis; fi
  if [ "$ROOMS" = process ] && [ "$K" -gt 1 ]; then
    log "ROOMS=process: a room's followers on another process than its presenter's will not find it"
  fi
  local i
  for ((i = 0; i < K; i++)); do start_streamlit $((BASE_PORT + i)); done
  for ((i = 0; i < K; i++)); do wait_healthy $((BASE_PORT + i)); done
  render_conf
  echo "$NGINX_PORT" >"$RUN_DIR/nginx.port"
  "$NGINX_BIN" -t -q -p "$RUN_DIR/" -c "$RUN_DIR/nginx.conf" -e "$RUN_DIR/error.log"
  "$NGINX_BIN" -p "$RUN_DIR/" -c "$RUN_DIR/nginx.conf" -e "$RUN_DIR/error.log"
  wait_healthy "$NGINX_PORT"
  status
}

any_alive() {
  local pid
  for pid in "$@"; do kill -0 "$pid" 2>/dev/null && return 0; done
  return 1
}

stop_all() {
  local file pid pids=()
  for file in "$RUN_DIR/nginx.pid" "$RUN_DIR"/streamlit-*.pid "$RUN_DIR/redis.pid"; do
    [ -f "$file" ] || continue
    pid=$(cat "$file")
    kill "$pid" 2>/dev/null && pids+=("$pid")  # TERM: nginx's master stops its workers, Streamlit shuts down
  done
  local tries=0
  while any_alive "${pids[@]}" && [ "$tries" -lt 50 ]; do  # up to 10 s, then KILL what is left
    sleep 0.2
    tries=$((tries + 1))
  done
  for pid in "${pids[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; fi
  done
  rm -f "$RUN_DIR"/streamlit-*.pid "$RUN_DIR/nginx.pid" "$RUN_DIR/nginx.port" "$RUN_DIR/redis.pid"
  log "stopped (logs stay in $RUN_DIR)"
}

all_alive() {
  local file
  for file in "$RUN_DIR"/streamlit-*.pid "$RUN_DIR/nginx.pid" "$RUN_DIR/redis.pid"; do
    [ "$file" = "$RUN_DIR/redis.pid" ] && [ ! -f "$file" ] && continue
    kill -0 "$(cat "$file" 2>/dev/null)" 2>/dev/null || return 1
  done
}

status() {
  local file port state
  for file in "$RUN_DIR"/streamlit-*.pid; do
    [ -f "$file" ] || continue
    port=${file##*streamlit-}
    port=${port%.pid}
    state=$(healthy "$port" && echo healthy || echo down)
    echo "streamlit pid $(cat "$file") on 127.0.0.1:$port: $state"
  done
  if [ -f "$RUN_DIR/nginx.pid" ]; then
    port=$(cat "$RUN_DIR/nginx.port" 2>/dev/null || echo "$NGINX_PORT")
    state=$(healthy "$port" && echo healthy || echo down)
    echo "nginx pid $(cat "$RUN_DIR/nginx.pid") on http://127.0.0.1:$port: $state"
  fi
  if [ -f "$RUN_DIR/redis.pid" ]; then
    state=$(redis_answers && echo answering || echo down)
    echo "redis-server pid $(cat "$RUN_DIR/redis.pid") on 127.0.0.1:$REDIS_PORT (the classroom's rooms): $state"
  fi
}

case "${1:-run}" in
  start)
    refuse_if_running
    trap stop_all EXIT  # a start that fails half-way leaves nothing running
    start_all
    trap - EXIT
    ;;
  stop) stop_all ;;
  status) status ;;
  run)
    refuse_if_running
    trap stop_all EXIT
    trap 'exit 130' INT TERM
    start_all
    log "serving on http://127.0.0.1:$NGINX_PORT; Ctrl-C stops everything"
    while all_alive; do
      sleep 5 &
      wait $!  # a signal ends the wait at once (a plain `sleep` would hold the trap back)
    done
    log "a process has exited: stopping the rest"
    exit 1
    ;;
  *)
    log "usage: $0 [run|start|stop|status]"
    exit 2
    ;;
esac
