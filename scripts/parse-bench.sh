#!/usr/bin/env bash
# Times two crashsim binaries, old and new, on a real-shaped trace, beside
# `grep -c fsync` on the same file, in one run: for each row and round,
# grep, then old and new in turn (new first on even rounds). Each run
# prints wall time, CPU time (user + system: on a shared machine the wall
# figures move with the load, CPU time much less), MB/s by both, peak RSS
# and output size; the end is a markdown table of the ranges over the
# rounds, which also says whether old and new wrote the same bytes.
#
#   scripts/parse-bench.sh [--old REV|BINARY] [--new REV|BINARY|worktree]
#                          [--rounds N] [--rows check,states,events]
#                          [--shape real|long] [--size 200M]
#                          [--limit SECONDS] [--max-rss SIZE]
#
# Rows (default check,states):
#   check   crashsim check --fail-on never --format json: parse, every
#           persistence model, every rule;
#   states  crashsim states: the timeline of crash states;
#   events  crashsim events --format count: the parser alone.
#
# --old and --new name a git revision (built with -buildvcs=false in a
# temporary worktree, removed after), an executable file, or "worktree":
# the checkout this script is in, uncommitted changes included. Defaults:
# --old main --new worktree. The trace comes from the checkout's gentrace:
#   real  copies of the fixture recordings (gentrace -shape real): about
#         128 bytes a line, mostly mmap, read, stat, rt_sigaction, futex,
#         the shape of everyday traces (the default);
#   long  the synthetic save loop with 4 KiB writes printed -xx (about
#         1.35 KB a line, where parsing is cheap per byte), as figures
#         before the real shape were measured on.
# --size is the trace's size (default 200M). --rounds defaults to 3.
# A run is cut off after --limit seconds (default 1800) and killed when
# its RSS passes --max-rss (default 7G, a CI runner's memory); the line
# says so. Exit statuses 1 (findings) and 6 (blind spots: the real trace
# has a shared mapping) are crashsim's answers, not failures.
#
# The trace goes to $BENCH_DIR (default /var/tmp) and is deleted at the
# end with every output.
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=bench-lib.sh
source ./bench-lib.sh
bench_name=parse-bench

old=main new=worktree rounds=3 rows=check,states shape=real size=200M limit=1800 max_rss=7G
while [ $# -gt 0 ]; do
	case $1 in
	--old | --new | --rounds | --rows | --shape | --size | --limit | --max-rss)
		[ $# -ge 2 ] || bench_die "$1 needs a value"
		opt=${1#--}
		printf -v "${opt//-/_}" '%s' "$2"
		shift 2
		;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*) bench_die "unknown argument $1 (see --help)" ;;
	esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || bench_die "--rounds $rounds: want a positive number"
[[ $limit =~ ^[1-9][0-9]*$ ]] || bench_die "--limit $limit: want seconds"
max_rss_kb=$(($(bench_bytes "$max_rss") / 1024))
case $shape in real | long) ;; *) bench_die "--shape $shape: want real or long" ;; esac
for row in ${rows//,/ }; do
	case $row in check | states | events) ;; *) bench_die "--rows: unknown row $row (check, states, events)" ;; esac
done

bench_setup parse-bench
bench_binary old "$old"
bench_binary new "$new"
bench_gentrace

trace=$dir/$shape.strace
bench_space $(($(bench_bytes "$size") * 11 / 10 + (1 << 30))) "a $size $shape trace" || exit 1
case $shape in
real) "$dir/gentrace" -shape real -fixtures "$repo/fixtures/traces" -size "$size" -o "$trace" > /dev/null ;;
long) "$dir/gentrace" -shape long -size "$size" -max-data 4096 -o "$trace" > /dev/null ;;
esac
bytes=$(stat -c %s "$trace")
lines=$(wc -l < "$trace")
echo "== $shape $size: $bytes bytes, $lines lines, $((bytes / lines)) bytes a line"
cat "$trace" > /dev/null # into the page cache, for every tool alike

for row in ${rows//,/ }; do
	case $row in
	check) cmd=(CRASHSIM check --fail-on never --format json "$trace") ;;
	states) cmd=(CRASHSIM states "$trace") ;;
	events) cmd=(CRASHSIM events --format count "$trace") ;;
	esac
	echo "== $row: crashsim ${cmd[*]:1}"
	for r in $(seq "$rounds"); do
		bench_round "$row $shape $size" "$r" "$bytes" "$trace" "${cmd[@]}"
	done
done
bench_summary
