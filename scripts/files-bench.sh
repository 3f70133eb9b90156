#!/usr/bin/env bash
# Measures how crashsim scales with the number of distinct files: a trace
# saving N files (gentrace -shape files: each created as a temp file,
# written, fsynced or not, renamed; every directory of 1000 fsynced but
# one in four) is checked, and its states timeline written, with wall
# time, CPU time, peak RSS and output size.
#
#   scripts/files-bench.sh [CHECK_FILES] [STATES_FILES...]
#       # default: check on 1000000 files, states on 1000 3000 10000
#
# Each run is cut off after $LIMIT seconds (default 900). Traces go to
# $BENCH_DIR (default /var/tmp) and are deleted at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
check_files=${1:-1000000}
shift || true
states_files=${*:-1000 3000 10000}
limit=${LIMIT:-900}
[ -x /usr/bin/time ] || { echo "files-bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
dir=$(mktemp -d "${BENCH_DIR:-/var/tmp}/crashsim-files.XXXXXX")
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/crashsim" ./cmd/crashsim
go build -o "$dir/gentrace" ./internal/gentrace/cmd/gentrace

# measure LABEL N CMD...: run CMD on a fresh N-file trace and print one line.
measure() {
	local label=$1 n=$2
	shift 2
	local trace=$dir/files-$n.strace
	[ -f "$trace" ] || "$dir/gentrace" -shape files -files "$n" -o "$trace" > /dev/null
	local t0 t1 status=0
	t0=$EPOCHREALTIME
	/usr/bin/time -v -o "$dir/time" timeout "$limit" "$@" "$trace" > "$dir/out" 2> "$dir/err" || status=$?
	t1=$EPOCHREALTIME
	awk -v label="$label" -v n="$n" -v a="$t0" -v b="$t1" -v st="$status" -v lim="$limit" \
		-v bytes="$(stat -c %s "$trace")" -v out="$(stat -c %s "$dir/out")" '
		/Maximum resident set size/ { split($0, f, ": "); rss = f[2] }
		/User time|System time/ { split($0, f, ": "); cpu += f[2] }
		END {
			printf "%-6s %8d files (%4.0f MB trace): %7.2f s, cpu %7.2f s, RSS %6.0f MB, output %7.1f MB", label, n, bytes/1e6, b - a, cpu, rss/1024, out/1e6
			if (st == 124) printf "  CUT OFF after %d s (RSS and CPU up to then)", lim
			else if (st != 0) printf "  exit status %d", st
			printf "\n"
		}' "$dir/time"
	tail -n 1 "$dir/err" | grep -v '^$' | sed 's/^/       last stderr: /' || true
}

measure check "$check_files" "$dir/crashsim" check --fail-on never --format json
rm -f "$dir"/files-*.strace
for n in $states_files; do
	measure states "$n" "$dir/crashsim" states
	grep -oE '\((at least )?[0-9]+ of (at least )?[0-9]+ states explored\)' "$dir/out" | sort | uniq -c | sort -rn | head -n 2 | sed 's/^/       /' || true
done
