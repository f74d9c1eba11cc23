#!/bin/bash
# Alternates cold rebuilds (`reindex --clear --json`) by two builds on one vault, N rounds, each under GNU time
# (CPU = user + sys of the process tree; peak RSS of its largest process; `ms` the pass's own wall time), and with
# `qmd` last, qmd's cold `collection add` into a fresh HOME each round (QMD_BIN). The load goes with every line.
#
#   bench/rebuild-pairs.sh VAULT N BASE_CLI NEW_CLI [qmd]
#   e.g. bench/rebuild-pairs.sh /tmp/v100000 5 /work/base/dist/bin/vaultkeeper.js dist/bin/vaultkeeper.js qmd
set -u
vault=$1; rounds=$2; base=$3; new=$4; qmd=${5:-}
one() { # label cli
  local tmp out e u s m ms
  tmp=$(mktemp)
  out=$(env -u NODE_EXTRA_CA_CERTS LANCE_CPU_THREADS=2 /usr/bin/time -f '%e %U %S %M' node "$2" --vault "$vault" reindex --clear --json 2>&1 >"$tmp" | tail -1)
  ms=$(grep '"ms"' "$tmp" | tr -dc 0-9); rm -f "$tmp"
  read -r e u s m <<<"$out"
  printf '%-6s wall %6.2f s  cpu %6.2f s (user %.2f sys %.2f)  rss %4d MiB  ms %6s  load %s\n' "$1" "$e" "$(echo "$u+$s" | bc)" "$u" "$s" $((m / 1024)) "$ms" "$(cut -d' ' -f1 /proc/loadavg)"
}
qmd_once() {
  local home out e u s m
  home=$(mktemp -d)
  out=$(env -u NODE_EXTRA_CA_CERTS HOME="$home" XDG_CACHE_HOME="$home/c" XDG_CONFIG_HOME="$home/cf" /usr/bin/time -f '%e %U %S %M' "$QMD_BIN" collection add "$vault" --name notes 2>&1 >/dev/null | tail -1)
  read -r e u s m <<<"$out"
  printf '%-6s wall %6.2f s  cpu %6.2f s (user %.2f sys %.2f)  rss %4d MiB  load %s\n' qmd "$e" "$(echo "$u+$s" | bc)" "$u" "$s" $((m / 1024)) "$(cut -d' ' -f1 /proc/loadavg)"
  rm -rf "$home"
}
for i in $(seq 1 "$rounds"); do
  echo "round $i $(date -u +%H:%M:%S)"
  one base "$base"
  one new "$new"
  if [ "$qmd" = qmd ]; then qmd_once; fi
done
