#!/usr/bin/env bash
# `make run`: migrate, load the bank and demo data, then serve the site with a
# grading worker and the beat scheduler on the embedded defaults (SQLite, the
# filesystem broker). The worker and beat are started again if they stop; Ctrl-C stops
# all three. PORT (default 8000) is the site's port;
# VIVABANK_VAR_DIR (default var/) holds the broker's folders and the logs.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
CELERY=.venv/bin/celery
PORT="${PORT:-8000}"
VAR="${VIVABANK_VAR_DIR:-var}"
export DEBUG="${DEBUG:-true}"

if [ "$(id -u)" != "0" ] && [ -z "${RUNNER_ALLOW_UNSANDBOXED:-}" ]; then
  echo "!! Not root: the runner cannot create its sandbox. Code answers will run"
  echo "!! UNSANDBOXED (rlimits only). Fine for a laptop demo, never for real students."
  export RUNNER_ALLOW_UNSANDBOXED=true
fi

mkdir -p "$VAR/broker" "$VAR/broker-control" "$VAR/log"
$PY manage.py migrate --noinput
$PY manage.py load_demo

pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

# Run a command in the background and start it again whenever it exits, as a service
# manager would: a worker that crashed (or was killed) must not leave answers waiting.
supervise() {
  local name=$1 log=$2 child status
  shift 2
  trap 'kill "$child" 2>/dev/null; wait "$child" 2>/dev/null; exit 0' INT TERM
  while true; do
    # In a process group of its own: Ctrl-C (or a signal to make run's group) reaches only
    # this loop, which stops the command's main process; a Celery worker's pool children
    # signalled at the same moment can die holding the pool's queue lock and leave the
    # worker's shutdown waiting on it for ever.
    setsid "$@" >>"$log" 2>&1 &
    child=$!
    status=0
    wait "$child" || status=$?
    echo "!! The $name stopped (exit status $status); starting it again (log: $log)." >&2
    sleep 2
  done
}

supervise worker "$VAR/log/worker.log" $CELERY -A config worker -Q default,cpu -c 2 --loglevel=INFO &
pids+=($!)
supervise beat "$VAR/log/beat.log" $CELERY -A config beat --loglevel=INFO &
pids+=($!)
echo "Worker and beat are running, restarted if they stop (logs in $VAR/log/)."
echo "Serving Vivabank on http://127.0.0.1:$PORT/ (admin at /admin/, API docs at /api/docs/)"
$PY manage.py devserver "127.0.0.1:$PORT" --noreload
