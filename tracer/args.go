package tracer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/internal/syscalls"
)

// StringLimit is the -s we pass: written bytes up to 64 MiB per call are
// printed in full. strace 6.1 accepts up to 1<<30-1, but on its first string
// it allocates 5×s bytes (the buffer and its \xNN rendering), which fails
// under strict overcommit or on a small machine long before 1 GiB. A longer
// write is printed cut ("..."...); its length still comes from the return
// value.
const StringLimit = 64 << 20

// option is one strace command-line option and the first strace version that
// has it. An option the installed strace lacks is dropped and said so.
type option struct {
	args     []string
	since    Version
	fallback []string // used instead before since, if any
	why      string
	data     bool // only when written bytes are recorded (not Options.NoData)
	noData   bool // only with Options.NoData
	fdPaths  bool // a data option kept with Options.NoData when Options.FDPaths asks for it
}

var options = []option{
	{args: []string{"-f"}, why: "follows forks: the whole process tree, one file, one order"},
	// Not in NoData recordings: strace 6.1 restarts the tracee with
	// PTRACE_SYSCALL after every traced call, so a run of traced calls
	// stops three times each instead of twice, and more with mmap in the
	// set (16k writes: 710-770 ms without the filter, 820-1020 ms with it,
	// 1460-1670 ms with mmap traced, which the model needs). It wins only
	// where most calls go untraced (see doc.go).
	{args: []string{"--seccomp-bpf"}, since: Version{5, 3}, data: true, why: "stops the tracee only on traced syscalls (without it every syscall stops it twice)"},
	{args: []string{"--kill-on-exit"}, since: Version{6, 6}, why: "kills the tracees if strace dies, instead of leaving them to run on untraced"},
	{args: []string{"-ttt"}, data: true, why: "dates each line"},
	// Not in NoData recordings unless asked for (crashsim trace
	// --fd-paths): strace reads the path of every fd it prints, and of
	// the cwd at every AT_FDCWD, from /proc (writes are raw there, with
	// no path): 8-22% more CPU to record and check an open-write-close
	// loop, Python's imports or an fsync loop. Only an fd that comes
	// over a Unix socket (SCM_RIGHTS) needs it: the fd model names the
	// others.
	{args: []string{"-y"}, since: Version{4, 7}, data: true, fdPaths: true, why: "gives each fd argument its path"},
	{args: []string{"-xx"}, data: true, why: "prints every byte as \\xNN: exact data"},
	// Everything in full except execve's environment, which would put
	// every secret of a CI job into the trace file for nothing.
	{args: []string{"-e", "abbrev=execve,?execveat"}, since: questionMark, fallback: []string{"-e", "abbrev=execve"}, why: "prints structures and arrays (writev's iovecs) in full"},
	{args: []string{"-s", strconv.Itoa(StringLimit)}, data: true, why: "prints written bytes in full"},
	{args: []string{"-s", "0"}, noData: true, why: "prints no written bytes (paths are printed in full whatever -s says)"},
}

// questionMark is the strace that first accepts "?name" in -e trace= (4.17).
var questionMark = Version{4, 17}

// Args returns the strace argument list (without the strace program itself)
// that traces cmd into out with the default syscall set, for strace v.
func Args(v Version, out string, cmd []string) []string {
	args, _ := plan(v, out, cmd, nil, false, false)
	return args
}

// plan builds the argument list and says what it dropped for v. calls nil
// means the default set; fdPaths keeps -y in a recording without data.
func plan(v Version, out string, cmd []string, calls []string, noData, fdPaths bool) (args []string, notes []string) {
	for _, o := range options {
		if o.data && noData && !(o.fdPaths && fdPaths) || o.noData && !noData {
			continue
		}
		if !v.AtLeast(o.since) && o.fallback != nil {
			notes = append(notes, fmt.Sprintf("using %s instead of %s: strace %s lacks it (since %s)", strings.Join(o.fallback, " "), strings.Join(o.args, " "), v, o.since))
			args = append(args, o.fallback...)
			continue
		}
		if !v.AtLeast(o.since) {
			notes = append(notes, fmt.Sprintf("dropping %s: strace %s lacks it (since %s); it %s", strings.Join(o.args, " "), v, o.since, o.why))
			continue
		}
		args = append(args, o.args...)
	}
	trace, raw, dropped := traceSet(v, calls, noData)
	if len(dropped) > 0 {
		notes = append(notes, fmt.Sprintf("not tracing %s: strace %s lacks \"?name\" (since %s) and some architectures lack them", strings.Join(dropped, ","), v, questionMark))
	}
	args = append(args, "-e", "trace="+strings.Join(trace, ","))
	if len(raw) > 0 {
		args = append(args, "-e", "raw="+strings.Join(raw, ","))
	}
	args = append(args, "-o", out, "--")
	args = append(args, cmd...)
	return args, notes
}

// traceSet renders the -e trace= and -e raw= lists. A caller's list is used
// as given.
func traceSet(v Version, calls []string, noData bool) (trace, raw, dropped []string) {
	if calls != nil {
		return calls, nil, nil
	}
	q := v.AtLeast(questionMark)
	for _, s := range defaultSyscalls {
		if s.NoDataOnly && !noData {
			continue
		}
		name := s.Name
		switch {
		case s.Optional && q:
			name = "?" + name
		case s.Optional:
			dropped = append(dropped, s.Name)
			continue
		}
		trace = append(trace, name)
		if s.Raw == syscalls.RawAlways || s.Raw == syscalls.RawNoData && noData {
			raw = append(raw, name)
		}
	}
	return trace, raw, dropped
}

// withStack adds -k to an argument list from plan: a stack under each call,
// from strace's own unwinder (libdw or libunwind), with each frame's file
// offset in its module. strace 6.1 has no --stack-trace=source, so the
// source lines come from the binaries' debug information (package source).
func withStack(args []string) []string {
	return append([]string{"-k"}, args...)
}
