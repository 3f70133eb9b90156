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
# and command) are those of oracle-fixtures.sh: keep the two in step. JSON
# and stderr of each run are kept in $OUT (default /tmp/crashsim-oracle-blocks).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/crashsim-oracle-blocks}
BIN=$OUT/bin
FS=${FS:-"ext4 xfs btrfs"}
PY=/usr/bin/python3

rm -rf "$OUT"
mkdir -p "$BIN" "$OUT/home"
(cd "$REPO" && go build -o "$BIN/crashsim" ./cmd/crashsim)
(cd "$REPO" && CGO_ENABLED=0 go build -trimpath -o "$BIN/go-atomic" ./fixtures/programs/go-atomic)
cp "$REPO"/fixtures/programs/*.py "$BIN/"

export HOME=$OUT/home LANG=C.UTF-8 TZ=UTC PYTHONDONTWRITEBYTECODE=1 GIT_CONFIG_NOSYSTEM=1 \
	GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'

git_setup="git init -q -b main . && git config user.name Fixture && git config user.email fixture@example.invalid && printf 'hello\n' > README && git add README && git commit -q -m first && printf 'hello again\n' >> README && git add README"

# workload NAME: sets SETUP and CMD (an array), as oracle-fixtures.sh does.
workload() {
	SETUP=":"
	case $1 in
	python-flush) SETUP="printf 'version=1\nreplicas=1\n' > config.txt"; CMD=($PY "$BIN/save.py" flush) ;;
	python-noflush) SETUP="printf 'version=1\nreplicas=1\n' > config.txt"; CMD=($PY "$BIN/save.py" noflush) ;;
	json-save) CMD=($PY "$BIN/json_save.py") ;;
	json-save-existing) SETUP="printf '{\"version\": 1}\n' > config.json"; CMD=($PY "$BIN/json_save.py") ;;
	dirsync-file-only | dirsync-file-then-dir | dirsync-dir-only | dirsync-rename)
		SETUP="mkdir data"; CMD=($PY "$BIN/dirsync.py" "${1#dirsync-}") ;;
	go-atomic) SETUP="printf '{\"version\": 1}\n' > config.json"; CMD=("$BIN/go-atomic") ;;
	sed-i) SETUP="printf '[main]\nmode=old\npath=/srv/old\nkeep=yes\n' > settings.ini"; CMD=(/usr/bin/sed -i s/old/new/ settings.ini) ;;
	sqlite3-delete) SETUP="sqlite3 test.db 'CREATE TABLE t(x); INSERT INTO t VALUES(1);'"
		CMD=(/usr/bin/sqlite3 test.db 'PRAGMA journal_mode=DELETE; INSERT INTO t VALUES(2);') ;;
	git-commit) SETUP=$git_setup; CMD=(/usr/bin/git commit -q -m msg) ;;
	*) echo "unknown workload $1" >&2; exit 2 ;;
	esac
}

ALL="python-flush python-noflush json-save json-save-existing dirsync-file-only dirsync-file-then-dir dirsync-dir-only dirsync-rename go-atomic sed-i sqlite3-delete git-commit"
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
