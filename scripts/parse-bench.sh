#!/usr/bin/env bash
# Times crashsim's parse-only path (events --format count) and the whole
# check (parse, both persistence models, every rule) against `grep -c fsync`
# on the same generated trace, alternately, in one run, and reports MB/s,
# the ratio to grep and peak RSS.
#
#   scripts/parse-bench.sh [SIZE] [ROUNDS]     # default 1G, 3 rounds
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1G}
rounds=${2:-3}
dir=$(mktemp -d /tmp/crashsim-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/crashsim" ./cmd/crashsim
go run ./internal/gentrace/cmd/gentrace -size "$size" -max-data 4096 -o "$dir/big.strace"
bytes=$(stat -c %s "$dir/big.strace")
echo "trace: $bytes bytes, $(awk 'END{print NR}' "$dir/big.strace") lines"
cat "$dir/big.strace" > /dev/null   # warm the page cache for both tools

now() { echo "$EPOCHREALTIME"; }
for r in $(seq "$rounds"); do
	# Not to /dev/null: GNU grep stops at the first match when its output is discarded.
	t0=$(now); grep -c fsync "$dir/big.strace" > "$dir/grep.out"; t1=$(now)
	/usr/bin/time -f '%M' -o "$dir/rss1" "$dir/crashsim" events --format count "$dir/big.strace" > "$dir/count"; t2=$(now)
	/usr/bin/time -f '%M' -o "$dir/rss2" "$dir/crashsim" check --fail-on never --format json -o "$dir/findings.json" "$dir/big.strace"; t3=$(now)
	awk -v b="$bytes" -v g0="$t0" -v g1="$t1" -v p1="$t2" -v c1="$t3" -v rss1="$(cat "$dir/rss1")" -v rss2="$(cat "$dir/rss2")" -v r="$r" 'BEGIN {
		g = g1 - g0; p = p1 - g1; c = c1 - p1
		printf "round %d: grep -c fsync %.2fs (%.0f MB/s) | parse %.2fs (%.0f MB/s, %.1fx grep, RSS %.0f MB) | check %.2fs (%.0f MB/s, %.1fx grep, RSS %.0f MB)\n",
			r, g, b/g/1e6, p, b/p/1e6, p/g, rss1/1024, c, b/c/1e6, c/g, rss2/1024
	}'
done
echo "$(cat "$dir/count"); findings: $(grep -c '"rule"' "$dir/findings.json")"
