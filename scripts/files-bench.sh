#!/usr/bin/env bash
# Times `crashsim check` of two binaries, old and new, on traces of many
# files, beside `grep -c fsync` on the same file, in one run: for each row
# and round, grep, then old and new in turn (new first on even rounds).
# Each run prints wall time, CPU time (user + system), MB/s by both, peak
# RSS, output size and findings; the end is a markdown table of the ranges
# over the rounds, which also says whether old and new wrote the same
# bytes.
#
#   scripts/files-bench.sh [--old REV|BINARY] [--new REV|BINARY|worktree]
#                          [--rounds N] [--rows ROW,ROW,...]
#                          [--form trace|ttt-y] [--per-dir N]
#                          [--limit SECONDS] [--max-rss SIZE]
#
# A row is KIND-N: N files (with k or M for thousands and millions) of
#   unsynced  each created, written once and closed, nothing synced
#             (gentrace -shape files-unsynced): 2N findings and one a directory;
#   settled   each created, written, fsynced, and its directory fsynced
#             after it (gentrace -shape files-settled): no findings.
# The default rows are those of the speed and memory targets:
# unsynced-200k,settled-1M,settled-10M,unsynced-1M. A quick run leaves
# out the 10M row (6.9 GB of trace): --rows unsynced-200k,settled-1M.
# Each row's trace is written before its runs and deleted after them.
# The traces imitate crashsim trace's recording (--form trace, the
# default) or strace -f -ttt -y (--form ttt-y, half as long again).
#
# --old and --new name a git revision (built with -buildvcs=false in a
# temporary worktree, removed after), an executable file, or "worktree":
# the checkout this script is in, uncommitted changes included. Defaults:
# --old main --new worktree; gentrace comes from the checkout. --rounds
# defaults to 1. A run is cut off after --limit seconds (default 1800)
# and killed when its RSS passes --max-rss (default 7G, a CI runner's
# memory); the line says so. Before writing a trace the script checks
# that the disk holds it and a check's output, and skips the row, saying
# so, when it does not (exit status 1 at the end).
#
# Traces go to $BENCH_DIR (default /var/tmp).
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=bench-lib.sh
source ./bench-lib.sh
bench_name=files-bench

old=main new=worktree rounds=1 rows=unsynced-200k,settled-1M,settled-10M,unsynced-1M form=trace per_dir=1000 limit=1800 max_rss=7G
while [ $# -gt 0 ]; do
	case $1 in
	--old | --new | --rounds | --rows | --form | --per-dir | --limit | --max-rss)
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
[[ $per_dir =~ ^[1-9][0-9]*$ ]] || bench_die "--per-dir $per_dir: want a positive number"
max_rss_kb=$(($(bench_bytes "$max_rss") / 1024))
# Bytes a file takes in the trace and in check's JSON report, with room
# to spare (measured: 686 and 328 bytes a file in the trace form, 1067
# and 551 in ttt-y; 1.8 KB of report for an unsynced file).
case $form in
trace) settled_bytes=760 unsynced_bytes=370 ;;
ttt-y) settled_bytes=1180 unsynced_bytes=610 ;;
*) bench_die "--form $form: want trace or ttt-y" ;;
esac
for row in ${rows//,/ }; do
	case $row in
	unsynced-* | settled-*) bench_count "${row#*-}" > /dev/null ;;
	*) bench_die "--rows: unknown row $row (unsynced-N or settled-N)" ;;
	esac
done

bench_setup files-bench
bench_binary old "$old"
bench_binary new "$new"
bench_gentrace

skipped=0
for row in ${rows//,/ }; do
	kind=${row%%-*}
	n=$(bench_count "${row#*-}")
	trace=$dir/$row.strace
	echo "== $row: crashsim check --fail-on never --format json on $n files, $kind (gentrace -shape files-$kind -files $n -per-dir $per_dir -form $form)"
	if [ "$kind" = settled ]; then
		need=$((n * settled_bytes + (1 << 30)))
	else
		need=$((n * (unsynced_bytes + 2000) + (1 << 30)))
	fi
	if ! bench_space "$need" "$row (trace and report)"; then
		skipped=$((skipped + 1))
		continue
	fi
	"$dir/gentrace" -shape "files-$kind" -files "$n" -per-dir "$per_dir" -form "$form" -o "$trace" > /dev/null
	bytes=$(stat -c %s "$trace")
	lines=$(wc -l < "$trace")
	echo "   $bytes bytes, $lines lines, $((bytes / lines)) bytes a line"
	cat "$trace" > /dev/null # into the page cache, for every tool alike
	for r in $(seq "$rounds"); do
		bench_round "check $row" "$r" "$bytes" "$trace" CRASHSIM check --fail-on never --format json "$trace"
	done
	rm -f "$trace"
done
bench_summary
if [ "$skipped" -gt 0 ]; then
	echo "$bench_name: $skipped row(s) skipped for want of disk space" >&2
	exit 1
fi
