#!/usr/bin/env bash
# The GitHub Action's work (action.yml), runnable anywhere: build crashsim,
# run `crashsim trace` or `crashsim check` with a SARIF report, print the
# findings as text in the log, and exit with crashsim's status.
#
# Inputs come as environment variables, as action.yml passes them:
#   CRASHSIM_SRC     the crashsim checkout to build (the action's own path)
#   CRASHSIM_BIN     a crashsim binary to use instead of building one
#   INPUT_COMMAND    trace (run a program) or check (check saved traces)
#   INPUT_ARGS       trace: the program and its arguments; check: the traces
#                    (split like a shell command line)
#   INPUT_CONFIG     a .crashsim.toml to use ("": the one in the directory or above)
#   INPUT_BASELINE   an earlier JSON or SARIF report: fail only on new findings
#   INPUT_FAIL_ON    error, warning, info or never ("": the config's, else warning)
#   INPUT_STACK      "true" (default): trace --stack, findings at the program's
#                    source lines, when strace can record stacks (strace -V
#                    lists a stack-trace feature); "false": never
#   INPUT_ACCEPT_BLIND  blind spots to accept (IDs, separated by spaces)
#   INPUT_SARIF      where to write the SARIF report (default crashsim.sarif)
#   INPUT_HTML       where to write the HTML report (default crashsim-report.html;
#                    "" for none)
#   RUNNER_TEMP      scratch directory (default: a new temp directory)
#   GITHUB_OUTPUT    when set, gets exit-code=N, sarif=PATH and html=PATH
set -uo pipefail

die() { echo "crashsim action: $*" >&2; exit 2; }

src=${CRASHSIM_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
command=${INPUT_COMMAND:-trace}
sarif=${INPUT_SARIF:-crashsim.sarif}
html=${INPUT_HTML-crashsim-report.html}
tmp=${RUNNER_TEMP:-}
if [ -z "$tmp" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
fi
case $command in
trace | check) ;;
*) die "command must be trace or check, not '$command'" ;;
esac
[ -n "${INPUT_ARGS:-}" ] || die "args is empty: give the program to trace, or the traces to check"

if [ "$command" = trace ] && ! command -v strace >/dev/null 2>&1; then
	echo "crashsim action: installing strace"
	sudo=
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq strace >/dev/null ||
		die "strace is missing and could not be installed"
fi

bin=${CRASHSIM_BIN:-}
if [ -z "$bin" ]; then
	bin=$tmp/crashsim-bin
	(cd "$src" && go build -o "$bin" ./cmd/crashsim) || die "cannot build crashsim from $src"
fi
"$bin" --version

flags=()
[ -n "${INPUT_CONFIG:-}" ] && flags+=(--config "$INPUT_CONFIG")
[ -n "${INPUT_BASELINE:-}" ] && flags+=(--baseline "$INPUT_BASELINE")
[ -n "${INPUT_FAIL_ON:-}" ] && flags+=(--fail-on "$INPUT_FAIL_ON")
for id in ${INPUT_ACCEPT_BLIND:-}; do
	flags+=(--accept-blind "$id")
done

# The inputs are one string; split it the way a shell would.
eval "args=($INPUT_ARGS)"

if [ "$command" = trace ]; then
	trace=$tmp/crashsim-run.strace
	stack=()
	if [ "${INPUT_STACK:-true}" = true ]; then
		# strace -k exists only when strace was built with an unwinder;
		# without one, findings stay at trace lines rather than the job
		# failing.
		if strace -V 2>/dev/null | grep -q 'stack-trace='; then
			stack=(--stack)
		else
			echo "crashsim action: this strace cannot record stacks (strace -V lists no stack-trace feature): tracing without --stack, so findings point at trace lines"
		fi
	fi
	# Global flags (--config) go before the command, the rest after it.
	"$bin" trace "${flags[@]}" "${stack[@]}" --format sarif -o "$sarif" --out "$trace" -- "${args[@]}"
	status=$?
	traces=("$trace")
else
	"$bin" check "${flags[@]}" --format sarif -o "$sarif" "${args[@]}"
	status=$?
	traces=("${args[@]}")
fi

# The same findings as text, for the log, and as an HTML page kept as an
# artifact; the status is the first run's.
if [ "$status" -le 1 ] || [ "$status" = 5 ] || [ "$status" = 6 ]; then
	"$bin" check "${flags[@]}" --fail-on never "${traces[@]}" || true
	if [ -n "$html" ]; then
		"$bin" check "${flags[@]}" --fail-on never --format html -o "$html" "${traces[@]}" ||
			echo "crashsim action: the HTML report could not be written"
	fi
fi
[ -n "$html" ] && [ -f "$html" ] || html=

if [ -n "${GITHUB_OUTPUT:-}" ]; then
	{
		echo "exit-code=$status"
		echo "sarif=$sarif"
		echo "html=$html"
	} >>"$GITHUB_OUTPUT"
fi
exit "$status"
