#!/usr/bin/env bash
# trace-overhead.sh — what tracing costs. Each workload runs untraced, under
# plain `strace -f -o FILE` (default flags), under crashsim's own strace
# command line writing to /dev/null with no check ("floor": the least any
# recording with these flags can cost), and under
# `crashsim trace --fail-on never --out FILE --` (recording and check;
# CRASHSIM_TRACE overrides that prefix). The modes alternate within each
# round, each round starting with the next one, and every run starts after
# a sync, so drift and leftover writeback hit them alike; medians, their
# ratios, and the median of each round's own ratio ("paired") are printed.
#
#   scripts/trace-overhead.sh [ROUNDS]        (default 5; env DIR=workdir)
#
# Workloads:
#   fsync-heavy  crashsim iobench --mode fsync-every --every 1 at its
#                default 64 KiB blocks, 32 MiB: 512 × (write + fdatasync)
#   fsync-4k     the same with 4 KiB blocks, 4 MiB: 1024 × (write +
#                fdatasync), where the syscalls cost more than the syncs
#   write-heavy  16384 writes of 512 bytes, one closing fdatasync
#   stat-heavy   50000 stat calls, then 10 small writes and an fsync
#
# Targets (issue 6): crashsim trace never slower than plain strace -f -o on
# any workload; at most 1.5× untraced on the fsync workloads. Exit 1 when
# one is missed.
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

# The floor: the strace command line crashsim trace runs, with -o /dev/null.
argv=$("$bin/crashsim" trace -v --out "$work/argv.strace" -- true 2>&1 >/dev/null | sed -n 's/^crashsim: running: //p')
eval "full=($argv)"
floor=()
for ((i = 0; i < ${#full[@]}; i++)); do
	a=${full[i]}
	[ "$a" = -- ] && { floor+=(--); break; }
	[ "${full[i - 1]:-}" = -o ] && a=/dev/null
	floor+=("$a")
done

py=$(command -v python3 || true)
[ -n "$py" ] || { echo "python3 not found: the stat-heavy workload needs it" >&2; exit 3; }
fsync_cmd=("$bin/crashsim" iobench --mode fsync-every --every 1 --size-mb 32 "$work/fsync.bin")
fsync4k_cmd=("$bin/crashsim" iobench --mode fsync-every --every 1 --size-mb 4 --block-size 4096 "$work/fsync.bin")
write_cmd=("$bin/crashsim" iobench --mode buffered --size-mb 8 --block-size 512 "$work/write.bin")
stat_cmd=("$py" -c 'import os,sys
d=sys.argv[1]
for i in range(50000): os.stat(d)
with open(os.path.join(d,"stat.out"),"w") as f:
    for i in range(10): f.write("line %d\n" % i); f.flush()
    os.fsync(f.fileno())' "$work")
names=(fsync fsync4k write stat)
declare -A label=([fsync]=fsync-heavy [fsync4k]=fsync-4k [write]=write-heavy [stat]=stat-heavy)

echo "filesystem of $work: $(stat -f -c %T "$work"); strace $(strace -V | sed -n '1s/.*version //p'); $(nproc) CPUs; $rounds rounds"
echo "crashsim trace runs: $argv"

# time_ms NAME MODE CMD...: runs CMD once and appends its wall-clock ms to
# $work/NAME.MODE.
time_ms() {
	local name=$1 mode=$2; shift 2
	rm -f "$work"/*.bin "$work"/*.strace "$work/stat.out"
	sync # no run inherits the writeback of the one before
	local TIMEFORMAT='%3R' t
	t=$({ time "$@" >/dev/null 2>"$work/stderr"; } 2>&1) || { echo "$name/$mode failed:" >&2; cat "$work/stderr" >&2; exit 1; }
	awk -v r="$t" 'BEGIN {printf "%d\n", r * 1000}' >>"$work/$name.$mode"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# paired A B NAME: the median over rounds of A's time over B's.
paired() { paste "$work/$3.$1" "$work/$3.$2" | awk '{printf "%.4f\n", $1 / ($2 ? $2 : 1)}' | median | awk '{printf "%.2f", $1}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / (b ? b : 1)}'; }

for name in "${names[@]}"; do
	declare -n cmd="${name}_cmd"
	for ((r = 0; r < rounds; r++)); do
		# Each round starts with the next mode, so none always follows
		# the same one.
		for ((m = 0; m < 4; m++)); do
			case $(((r + m) % 4)) in
			0) time_ms "$name" untraced "${cmd[@]}" ;;
			1) time_ms "$name" plain strace -f -o "$work/plain.strace" "${cmd[@]}" ;;
			2) time_ms "$name" floor "${floor[@]}" "${cmd[@]}" ;;
			3) time_ms "$name" ours "${ours[@]}" "${cmd[@]}" ;;
			esac
		done
	done
	unset -n cmd
done

status=0
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '\n%-12s %8s %8s %8s %8s  %-8s %-8s %-8s  %-15s %s\n' "" untraced strace floor crashsim crashsim/ crashsim/ floor/ "" "paired crashsim/"
printf '%-12s %8s %8s %8s %8s  %-8s %-8s %-8s  %-15s %s\n' workload ms ms ms ms untraced strace untraced verdict "untraced strace"
for name in "${names[@]}"; do
	u=$(median <"$work/$name.untraced") p=$(median <"$work/$name.plain") f=$(median <"$work/$name.floor") o=$(median <"$work/$name.ours")
	ru=$(ratio "$o" "$u") rp=$(ratio "$o" "$p") fu=$(ratio "$f" "$u")
	verdict=ok
	if awk -v r="$rp" 'BEGIN {exit !(r > 1.0)}'; then verdict="MISS(>strace)"; status=1; fi
	if [[ $name == fsync* ]] && awk -v r="$ru" 'BEGIN {exit !(r > 1.5)}'; then verdict="MISS(>1.5x)"; status=1; fi
	printf '%-12s %8s %8s %8s %8s  %-8s %-8s %-8s  %-15s %sx %sx\n' "${label[$name]}" "$u" "$p" "$f" "$o" "${ru}x" "${rp}x" "${fu}x" "$verdict" "$(paired ours untraced "$name")" "$(paired ours plain "$name")"
done
echo "medians of $rounds runs; crashsim/X is the median crashsim trace time over X's; paired is the median of each round's own ratio"
exit $status
