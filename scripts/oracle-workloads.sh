# oracle-workloads.sh: the workloads both oracle scripts run, sourced by
# scripts/oracle-fixtures.sh and scripts/oracle-blocks.sh (set OUT first).
# It builds crashsim and the Go fixture program into $OUT/bin, fixes the
# environment, and defines workload NAME (sets SETUP and CMD) and ALL.

# Without OUT the lines below would build into /bin and empty nothing
# useful: refuse, rather than write beside the system's files.
case ${OUT:-} in
/?*) ;;
*) echo "oracle-workloads.sh: set OUT to an absolute directory of its own before sourcing it" >&2; exit 2 ;;
esac
REPO=$(cd "$(dirname "$0")/.." && pwd)
BIN=$OUT/bin
FS=${FS:-"ext4 xfs btrfs"}
PY=/usr/bin/python3

rm -rf "$OUT"
mkdir -p "$BIN" "$OUT/home"
(cd "$REPO" && go build -o "$BIN/crashsim" ./cmd/crashsim)
(cd "$REPO" && CGO_ENABLED=0 go build -trimpath -o "$BIN/go-atomic" ./fixtures/programs/go-atomic)
(cd "$REPO" && CGO_ENABLED=0 go build -trimpath -o "$BIN/go-threads" ./fixtures/programs/go-threads)
cp "$REPO"/fixtures/programs/*.py "$BIN/"

# The same environment for every run, so that reruns are deterministic
# (git's commit dates above all).
export HOME=$OUT/home LANG=C.UTF-8 TZ=UTC PYTHONDONTWRITEBYTECODE=1 GIT_CONFIG_NOSYSTEM=1 HGRCPATH=/dev/null HGPLAIN=1 \
	GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'

git_setup="git init -q -b main . && git config user.name Fixture && git config user.email fixture@example.invalid && printf 'hello\n' > README && git add README && git commit -q -m first && printf 'hello again\n' >> README && git add README"

# PostgreSQL 15 (apt-get install postgresql), run as its own user: a
# cluster with 1 MB WAL segments and a table (setup, as root), then a
# start, an insert and a fast stop (a shutdown checkpoint). Its socket
# lives in $OUT/pgsock. Not in ALL: a plain run starts the server once
# per crash point (115 of them); run it by name.
PGBIN=/usr/lib/postgresql/15/bin
pg_psql="$PGBIN/psql -h $OUT/pgsock -p 5498 -U postgres -X -q -d postgres"
pg_setup="mkdir -p $OUT/pgsock && chown postgres: $OUT/pgsock && mkdir pgdata && chown postgres: pgdata && chmod 700 pgdata \
 && runuser -u postgres -- $PGBIN/initdb -D pgdata -A trust -U postgres -E UTF8 --locale=C --wal-segsize=1 --no-instructions >/dev/null \
 && printf \"listen_addresses = ''\\nunix_socket_directories = '$OUT/pgsock'\\nport = 5498\\nautovacuum = off\\ntrack_counts = off\\nmin_wal_size = 2MB\\nmax_wal_size = 4MB\\n\" >> pgdata/postgresql.conf \
 && runuser -u postgres -- $PGBIN/pg_ctl -D pgdata -w -l $OUT/pgsock/setup.log start >/dev/null \
 && runuser -u postgres -- $pg_psql -c 'CREATE TABLE t(x int)' -c 'INSERT INTO t VALUES (1)' \
 && runuser -u postgres -- $PGBIN/pg_ctl -D pgdata -w stop >/dev/null"
pg_run="$PGBIN/pg_ctl -D pgdata -w -l $OUT/pgsock/run.log start >/dev/null && $pg_psql -c 'INSERT INTO t VALUES (2)' && $PGBIN/pg_ctl -D pgdata -w -m fast stop >/dev/null"

# workload NAME: sets SETUP, CMD (an array), RUNAS (the user CMD runs
# as, or empty for root) and SIZE_MB (the image's size, or empty for the
# filesystem's default).
workload() {
	SETUP=":"
	RUNAS=""
	SIZE_MB=""
	case $1 in
	python-flush) SETUP="printf 'version=1\nreplicas=1\n' > config.txt"; CMD=($PY "$BIN/save.py" flush) ;;
	python-noflush) SETUP="printf 'version=1\nreplicas=1\n' > config.txt"; CMD=($PY "$BIN/save.py" noflush) ;;
	json-save) CMD=($PY "$BIN/json_save.py") ;;
	json-save-existing) SETUP="printf '{\"version\": 1}\n' > config.json"; CMD=($PY "$BIN/json_save.py") ;;
	dirsync-file-only | dirsync-file-then-dir | dirsync-dir-only | dirsync-rename)
		SETUP="mkdir data"; CMD=($PY "$BIN/dirsync.py" "${1#dirsync-}") ;;
	go-atomic) SETUP="printf '{\"version\": 1}\n' > config.json"; CMD=("$BIN/go-atomic") ;;
	# Four goroutines each write and fsync their own file at once. Not in
	# ALL: the oracle stops one thread, and the others run on until the
	# block log is marked, so most points are noted "other threads ran
	# while the log was marked" and their states can belong to calls
	# the trace does not show yet (docs/oracle.md).
	go-threads) CMD=("$BIN/go-threads") ;;
	sed-i) SETUP="printf '[main]\nmode=old\npath=/srv/old\nkeep=yes\n' > settings.ini"; CMD=(/usr/bin/sed -i s/old/new/ settings.ini) ;;
	sqlite3-delete) SETUP="sqlite3 test.db 'CREATE TABLE t(x); INSERT INTO t VALUES(1);'"
		CMD=(/usr/bin/sqlite3 test.db 'PRAGMA journal_mode=DELETE; INSERT INTO t VALUES(2);') ;;
	git-commit) SETUP=$git_setup; CMD=(/usr/bin/git commit -q -m msg) ;;
	makedirs-fsync | mkdirp-sync | mkdirp-nosync | grow | link-unlink) CMD=($PY "$BIN/tree_save.py" "$1") ;;
	dir-rename-over) SETUP="mkdir cur"; CMD=($PY "$BIN/tree_save.py" "$1") ;;
	append-log) SETUP="$PY $BIN/tree_save.py append-log"; CMD=($PY "$BIN/tree_save.py" "$1") ;;
	# The model questions of fixtures/programs/probe.py, and git with
	# core.fsync=all (objects linked, or renamed, into place).
	overwrite-scatter) SETUP="head -c 32768 /dev/zero | tr '\\0' o > db.bin"; CMD=($PY "$BIN/probe.py" "$1") ;;
	lsm-manifest) SETUP="printf 'MANIFEST-000001\\n' > CURRENT && printf 'manifest 1\\n' > MANIFEST-000001 && : > 000001.log"
		CMD=($PY "$BIN/probe.py" "$1") ;;
	fsync-clean) SETUP="mkdir sub"; CMD=($PY "$BIN/probe.py" "$1") ;;
	fsync-old-change) SETUP="head -c 32768 /dev/zero | tr '\\0' o > db.bin && printf 'x\\n' > other.txt"; CMD=($PY "$BIN/probe.py" "$1") ;;
	dsync-range | dsync-trunc | dsync-grow) SETUP="head -c 16384 /dev/zero | tr '\\0' o > db.bin"; CMD=($PY "$BIN/probe.py" "$1") ;;
	writeback-started | overwrite-extend | relog-size | fdatasync-rename | fdatasync-rename-inplace | fdatasync-rename-only) CMD=($PY "$BIN/probe.py" "$1") ;;
	git-commit-fsync) SETUP=$git_setup; CMD=(/usr/bin/git -c core.fsync=all -c core.fsyncMethod=fsync commit -q -m msg) ;;
	git-commit-fsync-rename) SETUP=$git_setup
		CMD=(/usr/bin/git -c core.fsync=all -c core.fsyncMethod=fsync -c core.createObject=rename commit -q -m msg) ;;
	# git gc repacks with pack-objects, which runs two threads: the
	# oracle must stop and continue it once per crash point.
	git-gc) SETUP="$git_setup && git commit -q -m second && for i in 1 2 3; do echo \$i > f\$i && git add f\$i && git commit -q -m c\$i; done"
		CMD=(/usr/bin/git -c core.fsync=all -c core.fsyncMethod=fsync gc -q) ;;
	postgres-insert) SETUP=$pg_setup; RUNAS=postgres; SIZE_MB=320; CMD=(/bin/sh -c "$pg_run") ;;
	# The applications of fixtures/apps, as their RECORD runs them (not
	# in ALL; run by name).
	sqlite3-wal) SETUP="sqlite3 test.db 'PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES(1);'"
		CMD=(/usr/bin/sqlite3 test.db "PRAGMA synchronous=FULL; INSERT INTO t VALUES(2); SELECT 'committed';") ;;
	lmdb-load) SETUP="mkdir db && for i in \$(seq 1 50); do printf 'key%03d\nvalue%03d\n' \$i \$i; done > first.txt && for i in \$(seq 51 300); do printf 'key%03d\nvalue%03d\n' \$i \$i; done > second.txt && mdb_load -T -f first.txt db"
		CMD=(/usr/bin/mdb_load -T -f second.txt db) ;;
	gdbm-store) SETUP="printf 'store k01 v01\nstore k02 v02\nstore k03 v03\n' | gdbmtool -N -q -n -m db.gdbm >/dev/null"
		CMD=(/bin/sh -c 'for i in 04 05 06; do gdbmtool -N -q -s -m db.gdbm store k$i v$i; done') ;;
	redis-aof) SETUP="mkdir -p $OUT/rsock && printf 'port 0\nunixsocket $OUT/rsock/r.sock\nunixsocketperm 700\ndir ./\ndaemonize no\nsave \"\"\nappendonly yes\nappendfsync always\nlogfile \"\"\n' > redis.conf"
		CMD=(/bin/sh -c "redis-server ./redis.conf & i=0; until redis-cli -s $OUT/rsock/r.sock ping >/dev/null 2>&1; do i=\$((i+1)); [ \$i -lt 300 ] || exit 1; sleep 0.1; done; for k in 1 2 3; do redis-cli -s $OUT/rsock/r.sock set k\$k v\$k >/dev/null || exit 1; done; redis-cli -s $OUT/rsock/r.sock shutdown >/dev/null; wait") ;;
	hg-commit) SETUP="hg init . && printf 'hello\\n' > README && hg add -q README && hg commit -q -u Fixture -d '2026-01-01 00:00 +0000' -m first && printf 'hello again\\n' >> README"
		CMD=(/usr/bin/hg commit -q -u Fixture -d '2026-01-01 00:00 +0000' -m second) ;;
	leveldb-open) SETUP="$PY $BIN/leveldb_put.py 1 50 >/dev/null"; CMD=($PY "$BIN/leveldb_put.py" 51 60) ;;
	sqlite3-full) SETUP="sqlite3 test.db 'CREATE TABLE t(x); INSERT INTO t VALUES(1);'"
		CMD=(/usr/bin/sqlite3 test.db "PRAGMA synchronous=FULL; PRAGMA journal_mode=DELETE; INSERT INTO t VALUES(2); SELECT 'committed';") ;;
	dpkg-install) SETUP="mkdir -p pkg/DEBIAN pkg/usr/share/demo var/lib/dpkg/info var/lib/dpkg/updates var/lib/dpkg/triggers && printf 'Package: crashdemo\\nVersion: 1.0\\nArchitecture: all\\nMaintainer: Fixture <fixture@example.invalid>\\nDescription: a package of two files\\n' > pkg/DEBIAN/control && seq 1 500 > pkg/usr/share/demo/a.txt && seq 501 900 > pkg/usr/share/demo/b.txt && dpkg-deb --root-owner-group -Zxz --build pkg demo.deb >/dev/null"
		CMD=(/bin/sh -c 'exec /usr/bin/dpkg --refuse-unsafe-io --root="$PWD" --log=/dev/null -i demo.deb >/dev/null') ;;
	*) echo "unknown workload $1" >&2; exit 2 ;;
	esac
}

ALL="python-flush python-noflush json-save json-save-existing dirsync-file-only dirsync-file-then-dir dirsync-dir-only dirsync-rename go-atomic sed-i sqlite3-delete git-commit makedirs-fsync mkdirp-sync mkdirp-nosync dir-rename-over append-log grow link-unlink overwrite-scatter lsm-manifest fsync-clean fsync-old-change dsync-range dsync-trunc dsync-grow writeback-started git-commit-fsync git-commit-fsync-rename git-gc overwrite-extend relog-size fdatasync-rename fdatasync-rename-inplace fdatasync-rename-only"
