# shellcheck shell=bash disable=SC2154 # limit and max_rss_kb are the caller's
# What scripts/parse-bench.sh and scripts/files-bench.sh share: the two
# crashsim binaries they compare, timing one run, the disk check, and the
# summary table. Sourced by them; not a script of its own.
#
# A run goes through /usr/bin/time -v (wall time, user + system CPU time,
# peak RSS) and timeout(1) (cut off after $limit seconds), while a watch
# loop reads the command's RSS from /proc five times a second and kills it past
# $max_rss_kb, as a CI runner's memory limit would. Its output goes to a
# file, which is hashed (old and new must write the same bytes) and
# deleted. Every run adds a line to $dir/runs.tsv, which bench_summary
# reads. The caller sets limit (seconds) and max_rss_kb (0: no limit).

bench_die() {
	echo "$bench_name: $*" >&2
	exit 2
}

# bench_count N: a count with an optional k or M suffix (thousands,
# millions: the issue's "200k" and "10M") as a number.
bench_count() {
	case $1 in
	*k) echo $((${1%k} * 1000)) ;;
	*M) echo $((${1%M} * 1000000)) ;;
	*[!0-9]* | '') bench_die "not a count: $1 (digits, with k or M)" ;;
	*) echo "$1" ;;
	esac
}

# bench_bytes SIZE: SIZE in bytes, with K, M or G meaning 2^10, 2^20, 2^30.
bench_bytes() {
	case $1 in
	*K) echo $((${1%K} << 10)) ;;
	*M) echo $((${1%M} << 20)) ;;
	*G) echo $((${1%G} << 30)) ;;
	*[!0-9]* | '') bench_die "not a size: $1" ;;
	*) echo "$1" ;;
	esac
}

# bench_setup NAME: the scratch directory in $BENCH_DIR (default
# /var/tmp), removed on exit with what is in it.
bench_setup() {
	bench_name=$1
	[ -x /usr/bin/time ] || bench_die "/usr/bin/time is missing (apt-get install time)"
	command -v timeout > /dev/null || bench_die "timeout is missing (apt-get install coreutils)"
	repo=$(git rev-parse --show-toplevel)
	dir=$(mktemp -d "${BENCH_DIR:-/var/tmp}/crashsim-$bench_name.XXXXXX")
	bench_timeout_pid=
	declare -gA bench_desc=([grep]="grep -c fsync")
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
	: > "$dir/runs.tsv"
	echo "$bench_name: working in $dir (removed at the end)"
}

bench_cleanup() {
	if [ -n "$bench_timeout_pid" ]; then
		kill -TERM "$bench_timeout_pid" 2> /dev/null || true
	fi
	local wt
	for wt in "$dir"/src-*; do
		if [ -d "$wt" ]; then
			git -C "$repo" worktree remove --force "$wt" 2> /dev/null || true
		fi
	done
	rm -rf "$dir"
}

# bench_binary NAME SPEC: builds or copies crashsim into $dir/NAME and
# sets bench_label_NAME. SPEC is an executable file, "worktree" (the
# checkout the script runs from, as it is, uncommitted changes included)
# or a git revision, built in a temporary worktree that is removed after.
# Builds use -buildvcs=false so that both binaries print the same tool
# version and their outputs can be compared byte for byte. Two specs of
# the same commit are built once.
bench_binary() {
	local name=$1 spec=$2 commit label
	if [ "$spec" = worktree ]; then
		(cd "$repo" && go build -buildvcs=false -o "$dir/$name" ./cmd/crashsim)
		label="work tree"
		if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
			label="work tree ($(git -C "$repo" rev-parse --short HEAD) + changes)"
		else
			label="work tree ($(git -C "$repo" rev-parse --short HEAD))"
		fi
	elif [ -f "$spec" ] && [ -x "$spec" ]; then
		cp "$spec" "$dir/$name"
		label="binary $spec"
	else
		commit=$(git -C "$repo" rev-parse --verify -q "$spec^{commit}") ||
			bench_die "--$name $spec: neither an executable file, nor worktree, nor a git revision"
		label="$spec = $(git -C "$repo" log -1 --format='%h %s' "$commit" | cut -c1-60)"
		if [ "$commit" = "${bench_built_commit:-}" ]; then
			cp "$dir/$bench_built_name" "$dir/$name"
		else
			git -C "$repo" worktree add -q --detach "$dir/src-$name" "$commit"
			(cd "$dir/src-$name" && go build -buildvcs=false -o "$dir/$name" ./cmd/crashsim)
			git -C "$repo" worktree remove --force "$dir/src-$name"
			bench_built_commit=$commit bench_built_name=$name
		fi
	fi
	bench_desc[$name]=$label
	echo "$name: $label"
}

# bench_gentrace: gentrace from the checkout the script runs from, so that
# both binaries read the same traces.
bench_gentrace() {
	(cd "$repo" && go build -o "$dir/gentrace" ./internal/gentrace/cmd/gentrace)
}

# bench_space NEED WHAT: says whether NEED bytes are free where the traces
# go; when not, says so and returns 1.
bench_space() {
	local need=$1 what=$2 avail
	avail=$(df -B1 --output=avail "$dir" | tail -n 1)
	if [ "$avail" -lt "$need" ]; then
		awk -v n="$need" -v a="$avail" -v w="$what" -v d="$dir" -v s="$bench_name" 'BEGIN {
			printf "%s: %s needs about %.1f GB in %s and only %.1f GB are free: skipped (set BENCH_DIR to a larger disk)\n", s, w, n/1e9, d, a/1e9 }' >&2
		return 1
	fi
	awk -v n="$need" -v a="$avail" -v w="$what" 'BEGIN { printf "   disk: %s needs about %.1f GB, %.1f GB free\n", w, n/1e9, a/1e9 }'
}

# bench_child PID: the pid of PID's first child (Linux 3.5+ with
# CONFIG_PROC_CHILDREN; nothing when the kernel does not say).
bench_child() {
	local c=
	{ read -r c _ < "/proc/$1/task/$1/children"; } 2> /dev/null || true
	echo "$c"
}

# bench_run ROW TOOL ROUND BYTES CMD...: runs CMD with its output in
# $dir/out, prints one line and adds it to runs.tsv. TOOL is grep, old or
# new.
bench_run() {
	local row=$1 tool=$2 round=$3 bytes=$4
	shift 4
	local tf=$dir/time.txt status=0 note="" timeout_pid="" child="" rss=0 k v _ state
	rm -f "$tf"
	/usr/bin/time -v -o "$tf" timeout "$limit" "$@" > "$dir/out" 2> "$dir/err" &
	local time_pid=$!
	while :; do
		state=
		{ read -r _ _ state _ < "/proc/$time_pid/stat"; } 2> /dev/null || true
		if [ -z "$state" ] || [ "$state" = Z ]; then
			break
		fi
		if [ -z "$timeout_pid" ]; then
			timeout_pid=$(bench_child "$time_pid")
			bench_timeout_pid=$timeout_pid
		fi
		if [ -n "$timeout_pid" ] && [ -z "$child" ]; then
			child=$(bench_child "$timeout_pid")
		fi
		if [ -n "$child" ]; then
			rss=0
			{ while read -r k v _; do [ "$k" = VmRSS: ] && rss=$v; done < "/proc/$child/status"; } 2> /dev/null || true
			if [ "$max_rss_kb" -gt 0 ] && [ "$rss" -gt "$max_rss_kb" ]; then
				kill -KILL "$child" 2> /dev/null || true
				note="KILLED past $((max_rss_kb / 1024)) MB RSS"
			fi
		fi
		sleep 0.2
	done
	wait "$time_pid" || status=$?
	bench_timeout_pid=
	if [ "$status" = 124 ]; then
		note="CUT OFF after $limit s"
	fi
	local out_bytes sha=-
	out_bytes=$(stat -c %s "$dir/out")
	if [ -z "$note" ]; then
		sha=$(sha256sum < "$dir/out" | cut -c1-16)
	fi
	local findings=-
	if [ "$tool" = grep ]; then
		findings=$(cat "$dir/out")
	elif [ -z "$note" ]; then
		findings=$(bench_findings "$dir/out")
	fi
	awk -F': ' -v row="$row" -v tool="$tool" -v round="$round" -v bytes="$bytes" -v status="$status" \
		-v note="$note" -v out="$out_bytes" -v sha="$sha" -v findings="$findings" -v runs="$dir/runs.tsv" '
		function speed(b, t) { return t > 0 ? sprintf("%.1f", b/t/1e6) : "-" }
		/Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = 0; for (i = 1; i <= n; i++) wall = wall * 60 + p[i] }
		/User time|System time/ { cpu += $2 }
		/Maximum resident set size/ { rss = $2 }
		END {
			# %.0f, not %d, for byte counts: the %d of mawk stops at 2^31 - 1,
			# which made a 6.9 GB trace 2147 MB in the summary.
			printf "%s\t%s\t%d\t%.0f\t%.3f\t%.3f\t%d\t%d\t%s\t%.0f\t%s\t%s\n", row, tool, round, bytes, wall, cpu, rss, status, note, out, sha, findings >> runs
			label = (tool == "grep" ? "grep -c fsync" : tool)
			printf "   round %d  %-14s %8.2f s  cpu %7.2f s  %7s MB/s (cpu %7s)  RSS %6.0f MB", round, label, wall, cpu, speed(bytes, wall), speed(bytes, cpu), rss/1024
			if (tool == "grep") printf "  %s matches", findings
			else printf "  output %.1f MB", out/1e6
			if (findings != "-" && tool != "grep") printf ", %s findings", findings
			if (status != 0 && note == "" && !(tool == "grep" && status == 1)) printf "  exit %d", status
			if (note != "") printf "  %s", note
			printf "\n"
		}' "$tf"
	if [ "$status" != 0 ] && [ "$status" != 1 ] && [ "$status" != 6 ] && [ -z "$note" ]; then
		tail -n 2 "$dir/err" | sed 's/^/      stderr: /'
	fi
	rm -f "$dir/out"
}

# bench_findings FILE: the number of findings of a check --format json
# report (from its summary), or - for other output.
bench_findings() {
	tail -n 40 "$1" | awk -F'[:,]' '
		/"errors":|"warningFindings":|"infos":/ { n += $2; seen++ }
		END { print (seen == 3 ? n : "-") }'
}

# bench_round ROW ROUND BYTES TRACE CMD...: grep -c fsync on TRACE, then
# CMD with the old and the new binary (CRASHSIM in CMD), new first on even
# rounds so that neither always runs on a cache the other warmed.
bench_round() {
	local row=$1 round=$2 bytes=$3 trace=$4
	shift 4
	# Not to /dev/null: GNU grep stops at the first match when its output is discarded.
	bench_run "$row" grep "$round" "$bytes" grep -c fsync "$trace"
	local order="old new"
	[ $((round % 2)) = 0 ] && order="new old"
	local b
	for b in $order; do
		bench_run "$row" "$b" "$round" "$bytes" "${@/#CRASHSIM/$dir/$b}"
	done
}

# bench_summary: one markdown table of every row: ranges over the rounds
# (min-max), and whether old and new wrote the same bytes.
bench_summary() {
	echo
	echo "## $bench_name: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "old: ${bench_desc[old]}"
	echo "new: ${bench_desc[new]}"
	echo
	awk -F'\t' -v oldl="old" -v newl="new" '
		function rng(a, b, fmt) { return (sprintf(fmt, a) == sprintf(fmt, b)) ? sprintf(fmt, a) : sprintf(fmt "-" fmt, a, b) }
		function upd(k, name, v) { if (!((k, name, "n") in s)) { s[k, name, "n"] = 1; s[k, name, "lo"] = v; s[k, name, "hi"] = v } else { if (v < s[k, name, "lo"]) s[k, name, "lo"] = v; if (v > s[k, name, "hi"]) s[k, name, "hi"] = v } }
		function r(k, name, fmt) { return ((k, name, "n") in s) ? rng(s[k, name, "lo"], s[k, name, "hi"], fmt) : "-" }
		{
			row = $1; tool = $2; round = $3; bytes[row] = $4; wall = $5; cpu = $6; rss = $7; note = $9; sha = $11; findings = $12
			if (!(row in seen)) { seen[row] = 1; rows[++nrows] = row }
			k = row SUBSEP tool
			if (tool == "grep") gwall[row, round] = wall
			upd(k, "wall", wall); upd(k, "cpu", cpu); upd(k, "rss", rss / 1024)
			if (wall > 0) upd(k, "mbs", bytes[row] / wall / 1e6)
			if (cpu > 0) upd(k, "mbc", bytes[row] / cpu / 1e6)
			if (tool != "grep" && gwall[row, round] > 0) upd(k, "x", wall / gwall[row, round])
			if (note != "") notes[k] = notes[k] (notes[k] == "" ? "" : "; ") "round " round ": " note
			if (tool != "grep") { shas[k] = shas[k] " " sha; if (findings != "-") find[k] = findings }
			runs[k]++
		}
		END {
			print "| row | run | wall s | CPU s | MB/s (wall) | MB/s (CPU) | peak RSS MB | × grep (wall) | output |"
			print "|---|---|---|---|---|---|---|---|---|"
			for (i = 1; i <= nrows; i++) {
				row = rows[i]
				for (t = 1; t <= 3; t++) {
					tool = (t == 1 ? "grep" : t == 2 ? "old" : "new"); k = row SUBSEP tool
					if (!(k in runs)) continue
					out = ""
					if (tool != "grep") {
						out = (k in find) ? find[k] " findings" : ""
						n = split(shas[k], h, " "); same = 1; cut = 0
						for (j = 1; j <= n; j++) { if (h[j] == "-") cut = 1; if (h[j] != h[1]) same = 0 }
						if (tool == "new") {
							ok = row SUBSEP "old"
							m = split(shas[ok], oh, " "); for (j = 1; j <= m; j++) { if (oh[j] == "-") cut = 1; if (oh[j] != h[1]) same = 0 }
							out = out (out == "" ? "" : ", ") (cut ? "not compared (a run was cut off or killed)" : same ? "same bytes as old" : "DIFFERS from old")
						} else if (!same && !cut) out = out (out == "" ? "" : ", ") "DIFFERS between rounds"
						if (k in notes) out = out (out == "" ? "" : ", ") notes[k]
					}
					printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", (t == 1 ? row " (" sprintf("%.0f", bytes[row] / 1e6) " MB)" : ""), tool, r(k, "wall", "%.2f"), r(k, "cpu", "%.2f"), r(k, "mbs", "%.0f"), r(k, "mbc", "%.0f"), r(k, "rss", "%.0f"), (tool == "grep" ? "1" : r(k, "x", "%.1f")), out
				}
			}
		}' "$dir/runs.tsv"
}
