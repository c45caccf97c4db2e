#!/bin/bash
# interleaved A/B: base (main 75bef1b) then prototype, per mode; one line per run
out=/tmp/ingest/ab.txt
run() { # side mode
  local dir=/work/wt/ingest-base; [ "$1" = proto ] && dir=/work/wt/ingest
  local env="BENCH_NO_REPORTS=1"; local arg=""
  case $2 in relay) arg=relay;; late) env="$env BENCH_LATE=1";; dense) env="$env BENCH_LATE=1 BENCH_SPAN_HOURS=6";; esac
  local load=$(cut -d' ' -f1 /proc/loadavg); local t=$(date -u +%H:%M:%S)
  local res=$(cd $dir && env $env node dist/bench/stats-ingest.js 20000 $arg 2>&1)
  echo "$t $1 $2 load=$load | $(echo "$res" | grep -o 'CPU per event: .*ratio [0-9.]*x' ) | $(echo "$res" | grep -o 'WAL: [0-9]* bytes') | $(echo "$res" | grep -o '[0-9]* minor and [0-9]* major') | $(echo "$res" | grep -o 'rolled up: [0-9]* messages, [0-9]* delivered') $(echo "$res" | grep -i -m1 'error')" >> $out
}
for mode in "$@"; do
  for pair in 1 2 3; do run base $mode; run proto $mode; done
done
