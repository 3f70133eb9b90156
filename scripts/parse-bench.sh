#!/usr/bin/env bash
# Times crashsim on two trace shapes against `grep -c fsync` on the same
# file, in one run, and reports MB/s, the ratio to grep's time and peak RSS:
#
#   real  copies of the fixture recordings (gentrace -shape real): about
#         128 bytes a line, mostly mmap, read, stat, rt_sigaction, futex:
#         the headline, the shape of everyday traces;
#   long  the synthetic save loop with 4 KiB writes printed -xx (about
#         1.35 KB a line, where parsing is cheap per byte): kept as a
#         second row to compare with earlier figures.
#
# For each it runs grep -c fsync, crashsim events --format count (parse
# only), crashsim check --format json (parse, both models, every rule) and
# crashsim states (the timeline of crash states, written to a file whose
# size is reported), alternately for ROUNDS rounds. Besides wall time it
# prints CPU time (user + system): on a shared machine the wall-clock
# figures move with the load, CPU time much less.
#
#   scripts/parse-bench.sh [SIZE] [ROUNDS] [SHAPES]   # default 200M 3 "real long"
#
# states prints every tracked path at every crash point, so its output
# (and time) grows with files times points: on a 200 MB real-shaped trace
# it wrote 13 GB in 17 minutes. It is cut off after $STATES_LIMIT seconds
# (default 120), and the line says so, with the output size reached.
#
# Traces go to $BENCH_DIR (default /var/tmp) and are deleted at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-200M}
rounds=${2:-3}
shapes=${3:-real long}
[ -x /usr/bin/time ] || { echo "parse-bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
dir=$(mktemp -d "${BENCH_DIR:-/var/tmp}/crashsim-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/crashsim" ./cmd/crashsim
go build -o "$dir/gentrace" ./internal/gentrace/cmd/gentrace

# run NAME CMD...: time CMD (output to $dir/NAME.out), keep its seconds
# and peak RSS in $dir/NAME.t and $dir/NAME.rss.
run() {
	local name=$1
	shift
	local t0 t1
	t0=$EPOCHREALTIME
	local limit=${LIMIT:-0}
	if [ "$limit" -gt 0 ]; then
		/usr/bin/time -v -o "$dir/$name.time" timeout "$limit" "$@" > "$dir/$name.out" || echo $? > "$dir/$name.status"
	else
		/usr/bin/time -v -o "$dir/$name.time" "$@" > "$dir/$name.out" || true
	fi
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f\n", b - a}' > "$dir/$name.t"
	awk -F': ' '/Maximum resident set size/{print $2}' "$dir/$name.time" > "$dir/$name.rss"
	awk -F': ' '/User time|System time/{s += $2} END{printf "%.3f\n", s}' "$dir/$name.time" > "$dir/$name.cpu"
}

for shape in $shapes; do
	trace=$dir/$shape.strace
	case $shape in
	real) "$dir/gentrace" -shape real -size "$size" -o "$trace" > /dev/null ;;
	long) "$dir/gentrace" -shape long -size "$size" -max-data 4096 -o "$trace" > /dev/null ;;
	*) echo "parse-bench: unknown shape $shape" >&2; exit 2 ;;
	esac
	bytes=$(stat -c %s "$trace")
	lines=$(wc -l < "$trace")
	echo "== $shape: $bytes bytes, $lines lines, $((bytes / lines)) bytes a line"
	cat "$trace" > /dev/null # warm the page cache for every tool
	for r in $(seq "$rounds"); do
		# Not to /dev/null: GNU grep stops at the first match when its output is discarded.
		run grep grep -c fsync "$trace"
		run events "$dir/crashsim" events --format count "$trace"
		run check "$dir/crashsim" check --fail-on never --format json "$trace"
		rm -f "$dir/states.status"
		LIMIT=${STATES_LIMIT:-120} run states "$dir/crashsim" states "$trace"
		g=$(cat "$dir/grep.t")
		for tool in grep events check states; do
			awk -v tool="$tool" -v r="$r" -v b="$bytes" -v t="$(cat "$dir/$tool.t")" -v g="$g" -v cpu="$(cat "$dir/$tool.cpu")" -v rss="$(cat "$dir/$tool.rss")" -v out="$(stat -c %s "$dir/$tool.out")" -v cut="$([ -f "$dir/$tool.status" ] && echo 1)" 'BEGIN {
				printf "round %d %-7s %7.2f s %6.0f MB/s %6.1fx grep  cpu %6.2f s  RSS %5.0f MB", r, tool, t, b/t/1e6, t/g, cpu, rss/1024
				if (tool == "states") printf "  output %.0f MB", out/1e6
				if (tool == "states" && cut) printf "  CUT OFF (timeout)"
				printf "\n"
			}'
		done
	done
	echo "   $(cat "$dir/events.out"); findings: $(grep -o '"rule"' "$dir/check.out" | wc -l)"
	rm -f "$trace" "$dir"/*.out
done
