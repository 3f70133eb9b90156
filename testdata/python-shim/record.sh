#!/bin/bash
# Records the traces in testdata/python-shim: fixtures/programs/save.py
# forgetting f.flush() before os.fsync(), with crashsim's Python shim
# (source/shim/sitecustomize.py) marking each file operation's .py line;
# the package tests read the marks back from them. Run from the
# repository root: testdata/python-shim/record.sh (it needs strace,
# /usr/bin/python3 and a Python 3.12 or later, PY312, by default pyenv's).
# It writes the traces here and the commands into RECORD.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
PY312=${PY312:-$(ls -d /root/.pyenv/versions/3.12.*/bin/python3.12 | tail -n 1)}
BIN=/tmp/crashsim-fixtures/bin
SHIM=/tmp/crashsim-pyshim-fixture
DIR=/tmp/crashsim-fixtures/python-shim
mkdir -p "$BIN" "$SHIM"
cp "$REPO/fixtures/programs/save.py" "$BIN/save.py"
cp "$REPO/source/shim/sitecustomize.py" "$SHIM/"
(cd "$REPO" && go build -o "$BIN/crashsim" ./cmd/crashsim)
ENV="env -i PATH=/usr/bin:/bin HOME=/tmp/crashsim-fixtures/home LANG=C.UTF-8 TZ=UTC PYTHONDONTWRITEBYTECODE=1 CRASHSIM_MOUNTINFO=/dev/null"

setup() {
	rm -rf "$DIR" && mkdir -p "$DIR" && cd "$DIR"
	printf 'version=1\nreplicas=1\n' >config.txt
}

{
	echo "# python-shim: how the traces in this directory were recorded (written by record.sh)."
	echo "# $(strace -V | head -n 1); $(uname -sr); $(/usr/bin/python3 -V); $($PY312 -V)"
	echo "# Setup before each: rm -rf $DIR && mkdir -p $DIR && cd $DIR && printf 'version=1\\nreplicas=1\\n' > config.txt"
	echo "# save.py is fixtures/programs/save.py, copied to $BIN; crashsim is built from this tree into $BIN;"
	echo "# $SHIM holds a copy of source/shim/sitecustomize.py."
	echo
	echo "## stack.strace (and its listing stack.strace.initial): as a user records it, with Python 3.11"
	echo "$ENV $BIN/crashsim trace --stack --out \$HERE/stack.strace -- /usr/bin/python3 $BIN/save.py noflush"
	echo "## stack-py312.strace: the same with Python 3.12, whose sys.monitoring shows the f.write line"
	echo "$ENV $BIN/crashsim trace --stack --out \$HERE/stack-py312.strace -- $PY312 $BIN/save.py noflush"
	echo "## f-ttt-y-xx.strace: every byte of every string escaped (-xx), so that a mark's path reads only once decoded"
	echo "$ENV PYTHONPATH=$SHIM strace -f -ttt -y -xx -s 32 -o \$HERE/f-ttt-y-xx.strace /usr/bin/python3 $BIN/save.py noflush"
} >"$HERE/RECORD"

setup
$ENV "$BIN/crashsim" trace --stack --out "$HERE/stack.strace" -- /usr/bin/python3 "$BIN/save.py" noflush >/dev/null 2>&1 || true
setup
$ENV "$BIN/crashsim" trace --stack --out "$HERE/stack-py312.strace" -- "$PY312" "$BIN/save.py" noflush >/dev/null 2>&1 || true
setup
$ENV PYTHONPATH="$SHIM" strace -f -ttt -y -xx -s 32 -o "$HERE/f-ttt-y-xx.strace" /usr/bin/python3 "$BIN/save.py" noflush
cd / && rm -rf "$DIR" "$SHIM" "$BIN"
