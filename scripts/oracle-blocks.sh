#!/bin/bash
# oracle-blocks.sh: run `crashsim oracle` and `crashsim oracle --blocks`
# over the workloads of scripts/oracle-workloads.sh and print one table:
# per workload × filesystem × model (posix, and the filesystem's own), the
# crash points, and for the plain oracle (one copy per point) and for
# --blocks (every state the block log allows) the mismatches (soundness)
# and the precision (predicted outcomes some state showed, over all
# predicted). Then, per point, the distinct states each found.
#
#   sudo scripts/oracle-blocks.sh                      every workload on ext4 xfs btrfs
#   FS=ext4 sudo scripts/oracle-blocks.sh sed-i
#   MODELS="posix ext4 xfs btrfs" ...                  every model on every filesystem
#   TABLE_ONLY=1 OUT=DIR scripts/oracle-blocks.sh ...  the table again from DIR's JSON
#
# Needs what oracle-fixtures.sh needs, and /dev/fuse. Every run compares all
# four models (the runs are shared), so any model can be shown. JSON and
# stderr of each run are kept in $OUT (default /tmp/crashsim-oracle-blocks).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/crashsim-oracle-blocks}
if [ -n "${TABLE_ONLY:-}" ]; then
	FS=${FS:-"ext4 xfs btrfs"}
	PY=/usr/bin/python3
	ALL=$(sed -n 's/^ALL="\(.*\)"$/\1/p' "$REPO/scripts/oracle-workloads.sh")
else
	. "$REPO/scripts/oracle-workloads.sh"
fi

[ $# -eq 0 ] && set -- $ALL

if [ -z "${TABLE_ONLY:-}" ]; then
	for fs in $FS; do
		for w in "$@"; do
			workload "$w"
			for kind in plain blocks; do
				flag=""
				[ $kind = blocks ] && flag=--blocks
				echo "oracle $flag: $w on $fs" >&2
				rc=0
				"$BIN/crashsim" oracle $flag --fs "$fs" --model posix,ext4,xfs,btrfs --format json --setup "$SETUP" ${RUNAS:+--user "$RUNAS"} ${SIZE_MB:+--size-mb "$SIZE_MB"} -- "${CMD[@]}" \
					>"$OUT/$fs-$w.$kind.json" 2>"$OUT/$fs-$w.$kind.err" || rc=$?
				if [ $rc -gt 1 ]; then
					echo "  failed (exit $rc): $(tail -n 1 "$OUT/$fs-$w.$kind.err")" >&2
				fi
			done
		done
	done
fi

MODELS=${MODELS:-"posix own"} $PY "$REPO/scripts/oracle-table.py" blocks "$OUT" $FS -- "$@"
