#!/usr/bin/env bash
# Times crashsim's parse-only path (events --format count) against
# `grep -c fsync` on the same generated trace, alternately, in one run, and
# reports MB/s, the ratio to grep and crashsim's peak RSS.
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
	t0=$(now); grep -c fsync "$dir/big.strace" > /dev/null; t1=$(now)
	/usr/bin/time -f '%M' -o "$dir/rss" "$dir/crashsim" events --format count "$dir/big.strace" > "$dir/count"; t2=$(now)
	awk -v b="$bytes" -v g0="$t0" -v g1="$t1" -v c1="$t2" -v rss="$(cat "$dir/rss")" -v n="$(cat "$dir/count")" -v r="$r" 'BEGIN {
		g = g1 - g0; c = c1 - g1
		printf "round %d: grep %.2fs (%.0f MB/s)  crashsim %.2fs (%.0f MB/s)  crashsim/grep time %.2fx  peak RSS %.1f MB  [%s]\n",
			r, g, b/g/1e6, c, b/c/1e6, c/g, rss/1024, n
	}'
done
