#!/usr/bin/env bash
# `make load`: an exam's load over real HTTP. A fresh database with the demo quiz and
# LOAD_USERS students, Redis db 11 (LOAD_BROKER) as broker, gunicorn with two worker processes
# on loopback, two single-process grading workers; locust runs headless for a bounded time
# and stops by itself, then tests/load/report.py prints the figures as JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
USERS="${LOAD_USERS:-300}"
export LOAD_USERS="$USERS" LOAD_SPAWN_S="${LOAD_SPAWN_S:-60}" LOAD_EXAM_S="${LOAD_EXAM_S:-150}"
export LOAD_SUBMIT_WINDOW_S="${LOAD_SUBMIT_WINDOW_S:-50}"
# The exam, the minute the submits spread over, and 20 s for the last ones to return.
RUN_S=$(( ${LOAD_EXAM_S%.*} + ${LOAD_SUBMIT_WINDOW_S%.*} + 20 ))
PORT="${LOAD_PORT:-8765}"
DB="${LOAD_DB:-vivabank_load}"
PGURL="${LOAD_PG:-postgres://postgres@127.0.0.1:5432}"
OUT="${LOAD_OUT:-var/load}"
export DATABASE_URL="$PGURL/$DB"
export CELERY_BROKER_URL="${LOAD_BROKER:-redis://127.0.0.1:6379/11}"
export SECRET_KEY="${SECRET_KEY:-load-run-only-not-a-secret}" DEBUG=false LOG_LEVEL=WARNING
export ALLOWED_HOSTS=127.0.0.1 LOAD_TIMES="$OUT/times.json"
# Every student shares the loopback address: the sign-in and Run limits are per user.
export GRADING_CODE_RUN_RATE=100/min
mkdir -p "$OUT"

psql "$PGURL/postgres" -qc "DROP DATABASE IF EXISTS $DB" -qc "CREATE DATABASE $DB"
$PY manage.py migrate --noinput -v0
DEBUG=true $PY manage.py load_demo >/dev/null
$PY -m tests.load.seed "$USERS" >/dev/null
$PY -c "import redis, os; redis.Redis.from_url(os.environ['CELERY_BROKER_URL']).flushdb()"

pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM
for n in 1 2; do
  .venv/bin/celery -A config worker -Q cpu,default -c 1 -n "load$n@%h" --without-gossip \
    --without-mingle -l WARNING >"$OUT/worker$n.log" 2>&1 &
  pids+=($!)
done
.venv/bin/gunicorn config.wsgi --bind "127.0.0.1:$PORT" --workers 2 --timeout 60 \
  --log-level warning >"$OUT/gunicorn.log" 2>&1 &
pids+=($!)
for _ in $(seq 60); do curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 1; done

.venv/bin/locust -f tests/load/locustfile.py --headless -u "$USERS" \
  -r "$(( USERS / ${LOAD_SPAWN_S%.*} + 1 ))" -t "${RUN_S}s" --host "http://127.0.0.1:$PORT" \
  --only-summary --stop-timeout 30 --loglevel WARNING >"$OUT/locust.log" 2>&1 || true
$PY -m tests.load.report "$LOAD_TIMES" | tee "$OUT/report.json"
