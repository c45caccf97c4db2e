#!/bin/bash
# usage: 0144-wire-pairs.sh tag rate B M M B ...   (B: /work/wt/base-linger, M: /work/wt/linger; both built with
# `node scripts/build.mjs --server-only`); one summary line a run: latency, CPU a message, PGSS statements a message,
# dispatch group commits and relay reads a message (docs/decisions/0144)
tag=$1; rate=$2; shift 2
for side in "$@"; do
  if [ $side = B ]; then d=/work/wt/base-linger; else d=/work/wt/linger; fi
  f=/tmp/sb-linger/$tag-$side-$(date -u +%H%M%S).txt
  { echo "start $(date -u +%H:%M:%S) load $(cat /proc/loadavg)"; cd $d && PGSS=${PGSS-1} timeout 400 node --expose-gc dist/bench/inbox-wire-ws.js $rate 10; echo "end load $(cat /proc/loadavg)"; } > $f 2>&1
  stm=$(grep -m1 -E '^PostgreSQL statements' $f | grep -oE '^[^:]+: [0-9.]+' | grep -oE '[0-9.]+$')
  grp=$(grep -m1 'WITH x AS ( SELECT x.uuid::uuid' $f | awk '{print $1}')
  rly=$(grep -m1 'WITH l AS MATERIALIZED' $f | awk '{print $1}')
  echo "$side $(head -1 $f | cut -c1-30) | $(grep -E '^wire:' $f | sed -E 's/.*offered ([0-9]+\/s).*latency (p50 [0-9.]+ m?s).*(p99 [0-9.]+ m?s).*CPU per message: (node [0-9.]+ ms), (PostgreSQL [0-9.]+ ms).*WAL ([0-9]+).*/\1 \2 \3 \4 \5 WAL \6/') | stm $stm grp $grp relay $rly | $(grep -E '^wire:' $f | grep -oE '[0-9]+/[0-9]+ arrived') $(grep -ciE 'lost|ECONNRESET|closed' $f)"
done
