#!/usr/bin/env bash
# pyshim-overhead.sh — what crashsim's Python shim (source/shim) costs a
# program. A save loop (N saves of write, flush, fsync, replace into a
# directory on /dev/shm) runs without and with the shim, alternating, for
# ROUNDS rounds, in two modes:
#   plain  python alone, with and without PYTHONPATH=<the shim>
#   trace  crashsim trace, and crashsim trace --stack (for a python
#          command --stack adds only the shim)
# The loop times itself (wall, and the process's CPU), so that Python's
# start and crashsim's check are left out. Prints each round and the
# medians of the ratios, with their range.
#
#   scripts/pyshim-overhead.sh [PYTHON [ROUNDS [N]]]   (python3, 7, 10000)
set -euo pipefail

py=${1:-python3}
rounds=${2:-7}
n=${3:-10000}
cd "$(dirname "$0")/.."
command -v strace >/dev/null || { echo "strace not found: install it (apt-get install strace)" >&2; exit 3; }
work=$(mktemp -d)
data=$(mktemp -d /dev/shm/pyshim-overhead.XXXXXX)
trap 'rm -rf "$work" "$data"' EXIT
go build -o "$work/crashsim" ./cmd/crashsim
mkdir "$work/shim"
cp source/shim/sitecustomize.py "$work/shim/"
cat >"$work/saveloop.py" <<'PY'
import os
import sys
import time

d, n = sys.argv[1], int(sys.argv[2])
p = os.path.join(d, "cfg.txt")
t0, c0 = time.perf_counter(), time.process_time()
for i in range(n):
    with open(p + ".tmp", "w") as f:
        f.write("version=%d\n" % i)
        f.flush()
        os.fsync(f.fileno())
    os.replace(p + ".tmp", p)
print("%.3f %.3f" % (time.perf_counter() - t0, time.process_time() - c0))
PY

run() { # MODE WITH(0|1): prints "wall cpu"
	if [ "$1" = plain ]; then
		if [ "$2" = 1 ]; then
			PYTHONPATH="$work/shim" "$py" "$work/saveloop.py" "$data" "$n"
		else
			env -u PYTHONPATH "$py" "$work/saveloop.py" "$data" "$n"
		fi
	else
		local stack=()
		[ "$2" = 1 ] && stack=(--stack)
		(cd "$data" && "$work/crashsim" trace "${stack[@]}" --fail-on never --out "$work/t.strace" -- "$py" "$work/saveloop.py" "$data" "$n" 2>/dev/null | grep -E '^[0-9.]+ [0-9.]+$')
	fi
}

echo "$("$py" -V), $n saves, $rounds rounds; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for mode in plain trace; do
	echo "== $mode"
	for r in $(seq 1 "$rounds"); do
		echo "$(run $mode 0) $(run $mode 1)"
	done | python3 -c '
import sys
w, c = [], []
for line in sys.stdin:
    a, ac, b, bc = map(float, line.split())
    w.append(b / a)
    c.append(bc / ac)
    print("without %.3f s (cpu %.3f s), with %.3f s (cpu %.3f s): %.2fx wall, %.2fx cpu" % (a, ac, b, bc, b / a, bc / ac))
w.sort()
c.sort()
print("median %.2fx wall (%.2f-%.2f), %.2fx cpu (%.2f-%.2f)" % (w[len(w) // 2], w[0], w[-1], c[len(c) // 2], c[0], c[-1]))
'
done
