#!/bin/bash
# Records go-threads.strace: fixtures/programs/go-threads under
# `crashsim trace --stack`, retried until the trace shows a thread that
# exited inside a call it had started, with the stack strace took as that
# call started printed after the thread's exit line. That happens when the
# main thread's exit_group ends the Go runtime's sysmon thread in its sleep
# (about one run in twenty here). Run from the repository root:
# parser/testdata/kstack/record.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
BIN=/tmp/crashsim-kstack-bin
DIR=/tmp/crashsim-kstack
mkdir -p "$BIN"
(cd "$REPO" && go build -o "$BIN/crashsim" ./cmd/crashsim && go build -o "$BIN/go-threads" ./fixtures/programs/go-threads)
ENV="env -i PATH=/usr/bin:/bin HOME=/tmp LANG=C.UTF-8 TZ=UTC CRASHSIM_MOUNTINFO=/dev/null"

# cut_stack FILE: a pid's "+++ exited" line, while that pid has a call
# <unfinished ...>, followed by a stack line.
cut_stack() {
	awk '
		/^[0-9]+ +<\.\.\. .* resumed>/ { delete open[$1]; next }
		/^[0-9]+ +\+\+\+ (exited|killed)/ { exitcut = ($1 in open); delete open[$1]; next }
		/^ > / { if (exitcut) found = 1; next }
		/^[0-9]+ / { exitcut = 0; if (/<unfinished \.\.\.>$/) open[$1] = 1; else delete open[$1] }
		END { exit !found }
	' "$1"
}

for try in $(seq 1 200); do
	rm -rf "$DIR" && mkdir -p "$DIR" && cd "$DIR"
	$ENV "$BIN/crashsim" trace --stack --out "$DIR/t.strace" -- "$BIN/go-threads" >/dev/null 2>&1 || true
	if cut_stack "$DIR/t.strace"; then
		cp "$DIR/t.strace" "$HERE/go-threads.strace"
		{
			echo "# go-threads.strace (written by record.sh): try $try of up to 200."
			echo "# $(strace -V | head -n 1); $(uname -sr); $(go version)"
			echo "# Setup before each try: rm -rf $DIR && mkdir -p $DIR && cd $DIR"
			echo "# Built: go build -o $BIN/crashsim ./cmd/crashsim; go build -o $BIN/go-threads ./fixtures/programs/go-threads"
			echo
			echo "$ENV $BIN/crashsim trace --stack --out $DIR/t.strace -- $BIN/go-threads"
		} >"$HERE/RECORD"
		cd / && rm -rf "$DIR" "$BIN"
		exit 0
	fi
done
echo "record.sh: no trace with a cut call's stack in 200 tries" >&2
exit 1
