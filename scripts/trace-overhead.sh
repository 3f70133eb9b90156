#!/usr/bin/env bash
# trace-overhead.sh — what tracing costs: three workloads, each run untraced,
# under plain `strace -f -o FILE` (default flags) and under
# `crashsim trace --fail-on never --out FILE --` (recording and check;
# CRASHSIM_TRACE overrides that prefix). Runs alternate so drift hits every
# mode alike; medians and ratios are printed.
#
#   scripts/trace-overhead.sh [ROUNDS]        (default 5; env DIR=workdir)
#
# Targets (issue 6): crashsim trace never slower than plain strace -f -o on
# any workload; fsync-heavy at most 1.5× untraced. Exit 1 when one is
# missed.
set -euo pipefail

rounds=${1:-5}
cd "$(dirname "$0")/.."
command -v strace >/dev/null || { echo "strace not found: install it (apt-get install strace)" >&2; exit 3; }

bin=$(mktemp -d)
work=${DIR:-$(mktemp -d -p "${TMPDIR:-/var/tmp}" crashsim-overhead.XXXXXX)}
trap 'rm -rf "$bin" "$work"' EXIT
mkdir -p "$work"

go build -o "$bin/crashsim" ./cmd/crashsim
read -r -a ours <<<"${CRASHSIM_TRACE:-$bin/crashsim trace --fail-on never --out $work/ours.strace --}"

# Workloads.
py=$(command -v python3 || true)
# 1024 × (4 KiB write + fdatasync)
fsync_cmd=("$bin/crashsim" iobench --mode fsync-every --size-mb 4 --block-size 4096 --every 1 "$work/fsync.bin")
# 16384 writes of 512 bytes, one closing fdatasync
write_cmd=("$bin/crashsim" iobench --mode buffered --size-mb 8 --block-size 512 "$work/write.bin")
[ -n "$py" ] || { echo "python3 not found: the stat-heavy workload needs it" >&2; exit 3; }
# 200000 stat calls and 10 small writes with an fsync
stat_cmd=("$py" -c 'import os,sys
d=sys.argv[1]
for i in range(200000): os.stat(d)
with open(os.path.join(d,"stat.out"),"w") as f:
    for i in range(10): f.write("line %d\n" % i); f.flush()
    os.fsync(f.fileno())' "$work")

echo "filesystem of $work: $(stat -f -c %T "$work"); strace $(strace -V | sed -n '1s/.*version //p'); $(nproc) CPUs; $rounds rounds"
echo "tracer argv: $("$bin/crashsim" trace -v --out "$work/argv.strace" -- true 2>&1 >/dev/null | sed -n 's/^crashsim: running: //p')"

# time_ms NAME MODE CMD...: runs CMD once and appends its wall-clock ms to
# $work/NAME.MODE and its CPU ms (user+sys of the whole tree, strace
# included) to $work/NAME.MODE.cpu. CPU time says less about the target but
# is steadier on a busy machine.
time_ms() {
	local name=$1 mode=$2; shift 2
	rm -f "$work"/*.bin "$work"/*.strace "$work/stat.out"
	local TIMEFORMAT='%3R %3U %3S' t
	t=$({ time "$@" >/dev/null 2>"$work/stderr"; } 2>&1) || { echo "$name/$mode failed:" >&2; cat "$work/stderr" >&2; exit 1; }
	read -r real user sys <<<"$t"
	awk -v r="$real" 'BEGIN {printf "%d\n", r * 1000}' >>"$work/$name.$mode"
	awk -v u="$user" -v s="$sys" 'BEGIN {printf "%d\n", (u + s) * 1000}' >>"$work/$name.$mode.cpu"
}
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

for name in fsync write stat; do
	declare -n cmd="${name}_cmd"
	for ((r = 0; r < rounds; r++)); do
		time_ms "$name" untraced "${cmd[@]}"
		time_ms "$name" plain strace -f -o "$work/plain.strace" "${cmd[@]}"
		time_ms "$name" ours "${ours[@]}" "${cmd[@]}"
	done
	unset -n cmd
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / (b ? b : 1)}'; }
status=0
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '\n%-12s %9s %9s %9s %8s %8s  %-14s %8s %8s\n' "" untraced strace tracer tracer/ tracer/ "" "cpu" "cpu"
printf '%-12s %9s %9s %9s %8s %8s  %-14s %8s %8s\n' workload ms ms ms untraced strace verdict untraced strace
for name in fsync write stat; do
	u=$(median "$work/$name.untraced") p=$(median "$work/$name.plain") o=$(median "$work/$name.ours")
	ru=$(ratio "$o" "$u") rp=$(ratio "$o" "$p")
	cu=$(ratio "$(median "$work/$name.ours.cpu")" "$(median "$work/$name.untraced.cpu")")
	cp=$(ratio "$(median "$work/$name.ours.cpu")" "$(median "$work/$name.plain.cpu")")
	verdict=ok
	if awk -v r="$rp" 'BEGIN {exit !(r > 1.0)}'; then verdict="MISS(>strace)"; status=1; fi
	if [ "$name" = fsync ] && awk -v r="$ru" 'BEGIN {exit !(r > 1.5)}'; then verdict="MISS(>1.5x)"; status=1; fi
	printf '%-12s %9s %9s %9s %7sx %7sx  %-14s %7sx %7sx\n' "$name-heavy" "$u" "$p" "$o" "$ru" "$rp" "$verdict" "$cu" "$cp"
done
echo "medians of $rounds runs; ratios are tracer time over untraced and over plain strace -f -o"
exit $status
