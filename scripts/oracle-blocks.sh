#!/bin/bash
# oracle-blocks.sh: run `crashsim oracle` and `crashsim oracle --blocks` over
# the fixture workloads of scripts/oracle-fixtures.sh and print, per
# workload × filesystem × model × crash point, the distinct states each
# found (the plain oracle copies one per point), the mismatches, the
# precision and the replay speed of --blocks.
#
#   sudo scripts/oracle-blocks.sh                      every workload on ext4 xfs btrfs
#   FS=ext4 sudo scripts/oracle-blocks.sh sed-i
#
# Needs what oracle-fixtures.sh needs, and /dev/fuse. The workloads (setup
# and command) come from scripts/oracle-workloads.sh, as for oracle-fixtures.sh. JSON
# and stderr of each run are kept in $OUT (default /tmp/crashsim-oracle-blocks).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/crashsim-oracle-blocks}
. "$REPO/scripts/oracle-workloads.sh"

[ $# -eq 0 ] && set -- $ALL

for fs in $FS; do
	for w in "$@"; do
		workload "$w"
		for kind in plain blocks; do
			flag=""
			[ $kind = blocks ] && flag=--blocks
			echo "oracle $flag: $w on $fs" >&2
			rc=0
			"$BIN/crashsim" oracle $flag --fs "$fs" --model posix,ext4 --format json --setup "$SETUP" -- "${CMD[@]}" \
				>"$OUT/$fs-$w.$kind.json" 2>"$OUT/$fs-$w.$kind.err" || rc=$?
			if [ $rc -gt 1 ]; then
				echo "  failed (exit $rc): $(tail -n 1 "$OUT/$fs-$w.$kind.err")" >&2
			fi
		done
	done
done

$PY - "$OUT" $FS -- "$@" <<'PYEOF'
import json, sys, os
out = sys.argv[1]
i = sys.argv.index("--")
fss, ws = sys.argv[2:i], sys.argv[i+1:]

def docs(path):
    text = open(path).read() if os.path.exists(path) else ""
    dec, pos, res = json.JSONDecoder(), 0, []
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        d, pos = dec.raw_decode(text, pos)
        res.append(d)
    return {d["model"]: d for d in res}

print("per point: plain = distinct states the single-snapshot oracle copied (1 when reached);")
print("blocks = distinct trees at the point + during its call (= distinct in all)")
print(f"{'workload':<22} {'fs':<6} {'model':<6} {'points':>6} {'plain':>6} {'blocks':>7} {'more':>5} {'mism.':>5} {'b-mism.':>7} {'precision':>9} {'states':>6} {'st/s':>5}  per point (at+during=all)")
for w in ws:
    for fs in fss:
        plain, blocks = docs(f"{out}/{fs}-{w}.plain.json"), docs(f"{out}/{fs}-{w}.blocks.json")
        if not blocks:
            err = open(f"{out}/{fs}-{w}.blocks.err").read().strip().splitlines()
            print(f"{w:<22} {fs:<6} {'-':<6} failed: {err[-1] if err else '?'}")
            continue
        for m, b in blocks.items():
            p = plain.get(m)
            pp = sum(1 for x in p["points"] if x["reached"]) if p else 0
            bd = sum(x["distinct"] for x in b["points"])
            more = sum(1 for x in b["points"] if x["distinct"] > 1)
            per = " ".join(f"{x['distinctAt']}+{x['distinctDuring']}={x['distinct']}" for x in b["points"])
            s = b["summary"]
            pm = p["summary"]["mismatches"] if p else "-"
            print(f"{w:<22} {fs:<6} {m:<6} {s['points']:>6} {pp:>6} {bd:>7} {more:>5} {pm:>5} {s['mismatches']:>7} {s['precision']:>9.2f} {s['states']:>6} {s['statesPerSecond']:>5.1f}  {per}")
PYEOF
