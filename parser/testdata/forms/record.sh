#!/bin/bash
# Records the strace-forms fixtures: fixtures/programs/save.py noflush (the
# Python flush bug) under the strace flags whose output shapes the parser
# must read. Run from the repository root: parser/testdata/forms/record.sh
# It writes NAME.strace here and the command lines into RECORD.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
DIR=/tmp/crashsim-forms
BIN=/tmp/crashsim-forms-bin
mkdir -p "$BIN"
cp "$REPO/fixtures/programs/save.py" "$BIN/save.py"
ENV="env -i PATH=/usr/bin:/bin HOME=/tmp LANG=C.UTF-8 TZ=UTC PYTHONDONTWRITEBYTECODE=1"
PROG="/usr/bin/python3 $BIN/save.py noflush"

setup() {
	rm -rf "$DIR" && mkdir -p "$DIR" && cd "$DIR"
	printf 'version=1\nreplicas=1\n' >config.txt
}

{
	echo "# How the traces in this directory were recorded (written by record.sh)."
	echo "# $(strace -V | head -n 1); $(uname -sr); $($ENV /usr/bin/python3 -V)"
	echo "# Setup before each: rm -rf $DIR && mkdir -p $DIR && cd $DIR && printf 'version=1\\nreplicas=1\\n' > config.txt"
	echo "# Environment: $ENV"
	echo "# Program: $PROG  (save.py copied from fixtures/programs)"
	echo
} >"$HERE/RECORD"

run() { # NAME STRACE-FLAGS...
	local name=$1
	shift
	setup
	echo "strace $* -o \$HERE/$name.strace $PROG" >>"$HERE/RECORD"
	$ENV strace "$@" -o "$HERE/$name.strace" $PROG
	cd /
}

run f-k -f -k -y
run f-ttt-n-i -f -ttt -n -i -y
run f-C -f -C -y
run f-X-verbose -f -X verbose -y
run f-tt-r -f -tt -r -y

# -p: attach to a shell that waits for a file, then runs the program; the
# trace starts inside the shell's wait.
setup
$ENV sh -c "while [ ! -e go ]; do sleep 0.1; done; exec $PROG" &
pid=$!
strace -f -y -p "$pid" -o "$HERE/p.strace" &
spid=$!
sleep 1
touch "$DIR/go"
wait "$pid" || true
wait "$spid" || true
cat >>"$HERE/RECORD" <<REC
# p.strace: the shell waits for a file "go", strace attaches, then go is created:
#   env ... sh -c "while [ ! -e go ]; do sleep 0.1; done; exec $PROG" &
#   strace -f -y -p \$! -o \$HERE/p.strace &  sleep 1; touch go
REC

# p-interrupted: strace -p stopped by SIGINT while the program sleeps in
# poll: the last call is cut.
setup
$ENV /usr/bin/python3 -c 'import os,select; r,w=os.pipe(); p=select.poll(); p.register(r); open("x","w").write("a"); p.poll(30000)' &
pid=$!
sleep 0.5
strace -f -y -p "$pid" -o "$HERE/p-interrupted.strace" &
spid=$!
sleep 1
kill -INT "$spid"
wait "$spid" || true
kill "$pid" || true
wait "$pid" 2>/dev/null || true
cat >>"$HERE/RECORD" <<'REC'
# p-interrupted.strace: a python that blocks in poll(30 s); strace attached, then stopped with SIGINT:
#   env ... /usr/bin/python3 -c 'import os,select; r,w=os.pipe(); p=select.poll(); p.register(r); open("x","w").write("a"); p.poll(30000)' &
#   sleep 0.5; strace -f -y -p $! -o $HERE/p-interrupted.strace &  sleep 1; kill -INT $strace_pid
REC
rm -rf "$DIR" "$BIN"
