#!/bin/bash
# The scale-out series of docs/performance.md on a bigger machine, run by the kit of
# ../shared/tools/devkit-prepare.sh (trimmed to what travels by bench/devkit_trim.py):
# bash .devkit/run.sh 'T=55 bash bench/scale_out.sh'
# (PostgreSQL up, $PG_URL and $OUT set). WORKERS, CREDS, GAMES, T (seconds a run) change it.
set -u
cd "$(dirname "$0")/.."
PY=${PY:-python3}
summary() { grep -E "^end to end|^CPU time|^after the last|^exactness|^  worker-|^  server worker|^pipeline bench failed|^server exit" "$1" | cut -c1-400; }
pg() {  # workers credentials
  local log=$OUT/pg-w$1-$2.log
  echo "=== PostgreSQL, $1 worker process(es), credentials $2"
  timeout ${T:-100} $PY bench/pipeline.py --database-url "$PG_URL" --worker-processes $1 \
    --credentials $2 --skip-bare --no-steady --games ${GAMES:-48} --moves 20 --clients 16 \
    --sinks 4 >"$log" 2>&1
  echo "rc=$?"; summary "$log"
}
for n in ${WORKERS:-1 2 4 8}; do
  for c in ${CREDS:-warm cold}; do pg $n $c; done
done
for c in ${CREDS:-warm cold}; do
  log=$OUT/sqlite-serve-$c.log
  echo "=== SQLite, serve's defaults, credentials $c"
  timeout ${T:-100} $PY bench/pipeline.py --credentials $c --skip-bare --no-steady \
    --games ${GAMES:-48} --moves 20 --clients 16 --sinks 4 --rounds 1 >"$log" 2>&1
  echo "rc=$?"; summary "$log"
done
