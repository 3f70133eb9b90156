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
		"$BIN/crashsim" oracle --fs "$fs" --model "posix,$fs" --format json --setup "$SETUP" -- "${CMD[@]}" \
			>"$OUT/$fs-$w.json" 2>"$OUT/$fs-$w.err" || rc=$?
		if [ $rc -gt 1 ]; then
			echo "  failed (exit $rc): $(tail -n 1 "$OUT/$fs-$w.err")" >&2
		fi
	done
done

# The table, from the JSON documents.
$PY - "$OUT" $FS -- "$@" <<'PYEOF'
import json, sys, os
out = sys.argv[1]
i = sys.argv.index("--")
fss, ws = sys.argv[2:i], sys.argv[i+1:]
print(f"{'workload':<22} {'fs':<6} {'model':<6} {'points':>6} {'observed':>8} {'distinct':>8} {'mismatches':>10} {'precision':>9}")
for w in ws:
    for fs in fss:
        path = os.path.join(out, f"{fs}-{w}.json")
        text = open(path).read() if os.path.exists(path) else ""
        dec, pos, docs = json.JSONDecoder(), 0, []
        while pos < len(text):
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos >= len(text):
                break
            d, pos = dec.raw_decode(text, pos)
            docs.append(d)
        if not docs:
            err = open(os.path.join(out, f"{fs}-{w}.err")).read().strip().splitlines()
            print(f"{w:<22} {fs:<6} {'-':<6} failed: {err[-1] if err else '?'}")
            continue
        for d in docs:
            s = d["summary"]
            hit = total = 0
            for p in d["points"] if "predicted" not in s else []:
                if not p["reached"]:
                    continue
                for path, pred in (p["predicted"] or {}).items():
                    total += len(pred)
                    if (p["observed"] or {}).get(path) in pred:
                        hit += 1
            if "predicted" in s:  # the oracle counts it itself
                hit, total = s["seen"], s["predicted"]
            prec = f"{hit}/{total}" if total else "-"
            print(f"{w:<22} {fs:<6} {d['model']:<6} {s['points']:>6} {s['observed']:>8} {s['distinct']:>8} {s['mismatches']:>10} {prec:>9}")
PYEOF
