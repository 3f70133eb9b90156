#!/usr/bin/env bash
# iobench-vs-fio.sh — does `crashsim iobench` measure what fio measures?
#
# For each of iobench's seed modes it runs an fio job that issues the same
# syscalls (checked with strace): a new file, sequential 64 KiB write(2)s
# from offset 0, and the same syncs. The two tools alternate within every
# round, so drift in the machine hits both, and the median of the rounds is
# compared. The target directory must sit on a real device: on tmpfs both
# tools measure memory and agree for the wrong reason.
#
#   scripts/iobench-vs-fio.sh [-s SIZE_MB] [-r ROUNDS] [DIR]
#
# CRASHSIM=path/to/crashsim uses that binary instead of building one.
#
# What "the same" means here, job by job:
#   buffered      iobench prints the write loop and fsync_ms apart; the
#                 durable figure is bytes over the sum of both. fio: end_fsync=1,
#                 whose sync fio counts in the job's runtime.
#   fsync-every   --every 8 against fdatasync=8. fio skips the sync after its
#                 last 8 blocks, so end_fsync=1 adds it back.
#   direct        O_DIRECT, no sync, in both.
# fio is told fallocate=none: by default it preallocates the file, and
# writing into preallocated (unwritten) extents is not what iobench's
# O_TRUNC-and-append does — on ext4 every fdatasync then commits different
# metadata. Each run starts from a deleted file and a `sync`, so neither
# tool inherits the other's dirty pages, and an untimed run of the same
# mode comes before each pair (see the loop for why).
set -euo pipefail

size_mb=256
rounds=5
while getopts "s:r:h" opt; do
	case $opt in
	s) size_mb=$OPTARG ;;
	r) rounds=$OPTARG ;;
	*) sed -n '2,16p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

command -v fio >/dev/null || { echo "fio is not installed (Debian: apt-get install fio)" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-}
if [[ -z $dir ]]; then
	dir=$(mktemp -d /var/tmp/iobench-vs-fio.XXXXXX)
	trap 'rm -rf "$dir"' EXIT
fi
fstype=$(findmnt -no FSTYPE -T "$dir" 2>/dev/null | tail -n 1)
[[ -n $fstype ]] || fstype=$(stat -f -c %T "$dir")
case $fstype in
tmpfs | ramfs) echo "$dir is on $fstype: pick a directory on a real disk" >&2; exit 2 ;;
esac

bin=${CRASHSIM:-}
if [[ -z $bin ]]; then
	bin=$dir/crashsim
	(cd "$repo" && go build -o "$bin" ./cmd/crashsim)
fi
file=$dir/bench.bin
bytes=$((size_mb << 20))

# iobench MODE -> MiB/s on stdout
run_iobench() {
	local out fsync_ms
	case $1 in
	buffered) out=$("$bin" iobench --mode buffered --size-mb "$size_mb" "$file") ;;
	fsync-every) out=$("$bin" iobench --mode fsync-every --every 8 --size-mb "$size_mb" "$file") ;;
	direct) out=$("$bin" iobench --mode direct --size-mb "$size_mb" "$file") ;;
	esac
	fsync_ms=$(sed -n 's/^fsync_ms=//p' <<<"$out")
	case $1 in
	# The loop's time comes from its MiB/s, which has more digits than ms;
	# fsync_ms is truncated to whole milliseconds, so its midpoint is used.
	buffered)
		awk -v b="$bytes" -v r="$(sed -n 's/^mode=.* MiB\/s=//p' <<<"$out")" -v f="$fsync_ms" \
			'BEGIN { mib = b / 1048576; printf "%.1f\n", mib / (mib / r + (f + 0.5) / 1000) }' ;;
	*) sed -n 's/^mode=.* MiB\/s=//p' <<<"$out" ;;
	esac
}

# fio MODE -> MiB/s on stdout (field 48 of --minimal output: write KiB/s)
run_fio() {
	local extra=()
	case $1 in
	buffered) extra=(--end_fsync=1) ;;
	fsync-every) extra=(--fdatasync=8 --end_fsync=1) ;;
	direct) extra=(--direct=1) ;;
	esac
	fio --name=iobench --filename="$file" --rw=write --bs=64k --size="${size_mb}m" \
		--ioengine=sync --fallocate=none --minimal "${extra[@]}" |
		awk -F';' '{ printf "%.1f\n", $48 / 1024 }'
}

fresh() { rm -f "$file"; sync; }

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

modes=(buffered fsync-every direct)
declare -A ib fi pr
echo "# $size_mb MiB per run, $rounds rounds, $dir ($fstype), $(fio --version), kernel $(uname -r)"
for ((r = 1; r <= rounds; r++)); do
	for m in "${modes[@]}"; do
		# The first run after a change of mode is slower on this VM (a run
		# that follows one of its own kind is not), whichever tool makes
		# it: so an untimed run of the mode goes first, made by the tool
		# that is timed second. Which tool is timed first alternates.
		if ((r % 2)); then
			fresh; run_fio "$m" >/dev/null
			fresh; a=$(run_iobench "$m"); fresh; b=$(run_fio "$m")
		else
			fresh; run_iobench "$m" >/dev/null
			fresh; b=$(run_fio "$m"); fresh; a=$(run_iobench "$m")
		fi
		fresh
		ib[$m]+="$a "
		fi[$m]+="$b "
		pr[$m]+="$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }') "
		printf 'round %d %-11s iobench %8s MiB/s  fio %8s MiB/s\n' "$r" "$m" "$a" "$b"
	done
done

echo
# Medians over the rounds; "ratio" is iobench/fio of those medians, "paired"
# the median of the per-round ratios (each round's two runs are neighbours).
printf '%-11s %14s %14s %7s %7s\n' mode "iobench MiB/s" "fio MiB/s" ratio paired
status=0
for m in "${modes[@]}"; do
	a=$(tr ' ' '\n' <<<"${ib[$m]}" | grep . | median)
	b=$(tr ' ' '\n' <<<"${fi[$m]}" | grep . | median)
	ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')
	paired=$(tr ' ' '\n' <<<"${pr[$m]}" | grep . | median)
	printf '%-11s %14.1f %14.1f %7s %7s\n' "$m" "$a" "$b" "$ratio" "$paired"
	awk -v x="$ratio" 'BEGIN { exit !(x < 0.9 || x > 1.1) }' && status=1
done
exit $status
