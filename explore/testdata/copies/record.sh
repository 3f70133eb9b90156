#!/bin/bash
# record.sh: record the saves by a copy made in the kernel that
# explore/copy_test.go explores (TestRealCopySaves).
#
#   explore/testdata/copies/record.sh
#
# Each case runs in a fresh directory /tmp/crashsim-copies/CASE, made
# by its setup; strace then runs the program there, with a small fixed
# environment, as fixtures/record.sh does. Each case's directory here gets
# trace.strace, initial.list (what existed before the program ran) and
# RECORD (the setup, the program and the strace command line).
#
# Needs: strace, coreutils' cp (copy_file_range), /usr/bin/python3 (its
# shutil.copyfile uses sendfile on Linux).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=/tmp/crashsim-copies

# Both cases start from staged.conf (the new config, 20000 lines), app.conf
# (the old one) and app.conf.orig (a copy of the old one the checker
# compares with; the programs never touch it).
setup='seq 1 20000 > staged.conf && seq 1 1000 > app.conf && cp app.conf app.conf.orig'

# record CASE PROGRAM: record PROGRAM (shell text) in $ROOT/CASE.
record() {
	local case=$1 cmd=$2 dir=$ROOT/$1 out=$HERE/$1
	rm -rf "$dir"
	mkdir -p "$dir" "$out"
	(cd "$dir" && eval "$setup")
	{ echo "# what existed in $dir before the program ran (written by record.sh)"; echo "root $dir"; find "$dir" -mindepth 1 | LC_ALL=C sort; } >"$out/initial.list"
	{
		echo "# $case: how trace.strace was recorded (written by explore/testdata/copies/record.sh)."
		echo "# Environment: env -i PATH=/usr/bin:/bin LANG=C.UTF-8 TZ=UTC PYTHONDONTWRITEBYTECODE=1"
		echo "# $(strace -V | head -n 1); $(uname -sr); $(cp --version | head -n 1); $(/usr/bin/python3 --version)"
		echo
		echo "## setup (not traced)"
		echo "rm -rf $dir && mkdir -p $dir && cd $dir"
		echo "$setup"
		echo
		echo "## program"
		echo "$cmd"
		echo
		echo "## strace command line (run in $dir)"
		echo "strace -f -ttt -y -xx -s 65536 -o trace.strace $cmd"
	} >"$out/RECORD"
	(cd "$dir" && eval "env -i PATH=/usr/bin:/bin LANG=C.UTF-8 TZ=UTC PYTHONDONTWRITEBYTECODE=1 strace -f -ttt -y -xx -s 65536 -o '$out/trace.strace' $cmd")
	rm -rf "$dir"
}

# cp over an existing file: cp opens app.conf with O_TRUNC and copies
# staged.conf into it with copy_file_range. Nothing is synced.
record cp-over "/usr/bin/cp staged.conf app.conf"

# Python's shutil.copyfile into a temp name (with sendfile), then
# os.replace over app.conf. Nothing is synced.
record shutil-replace "/usr/bin/python3 -c 'import os, shutil; shutil.copyfile(\"staged.conf\", \"app.conf.tmp\"); os.replace(\"app.conf.tmp\", \"app.conf\")'"
rmdir "$ROOT" 2>/dev/null || true
