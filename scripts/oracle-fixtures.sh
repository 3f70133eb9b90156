#!/bin/bash
# oracle-fixtures.sh: run `crashsim oracle` over the fixture workloads on
# real filesystems and print a table: workload × filesystem × model with
# crash points, observed states (distinct), mismatches (soundness) and
# precision: of the outcomes the model predicted for a path at a point, the
# share that was observed there (summed over the points reached).
#
#   sudo scripts/oracle-fixtures.sh                 every workload on ext4 xfs btrfs
#   FS="ext4" sudo scripts/oracle-fixtures.sh sed-i git-commit
#
# Needs root, loop devices, strace, go, /usr/bin/python3, sqlite3, git, and
# mkfs.ext4 / mkfs.xfs / mkfs.btrfs (apt-get install -y xfsprogs btrfs-progs).
# The setups are those of fixtures/record.sh. Each run's JSON (one document
# per model) and stderr are kept in $OUT (default /tmp/crashsim-oracle-fixtures).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/crashsim-oracle-fixtures}
. "$REPO/scripts/oracle-workloads.sh"

[ $# -eq 0 ] && set -- $ALL

for fs in $FS; do
	for w in "$@"; do
		workload "$w"
		echo "oracle: $w on $fs" >&2
		rc=0
		# posix, and the model of the filesystem itself.
		"$BIN/crashsim" oracle --fs "$fs" --model "posix,$fs" --format json --setup "$SETUP" ${RUNAS:+--user "$RUNAS"} ${SIZE_MB:+--size-mb "$SIZE_MB"} -- "${CMD[@]}" \
			>"$OUT/$fs-$w.json" 2>"$OUT/$fs-$w.err" || rc=$?
		if [ $rc -gt 1 ]; then
			echo "  failed (exit $rc): $(tail -n 1 "$OUT/$fs-$w.err")" >&2
		fi
	done
done

# The table, from the JSON documents.
$PY "$REPO/scripts/oracle-table.py" fixtures "$OUT" $FS -- "$@"
