// Package crashsim is the library under the crashsim command: what a Go
// program embeds to ask "if the power failed while this program saved its
// data, what could be on disk, and is that acceptable?" of an strace log.
//
// The packages below it each own one step: parser reads strace text into
// events, model replays them through a page cache and a durable disk,
// check holds the rules and works out what a recording could not show,
// report renders findings, explore builds crash states on disk. This
// package joins them the one way every caller needs, so that the command
// line, a test and a Go program get the same answers from the same
// values.
//
// Terms:
//
//   - Inputs are what was recorded: the traces (a file, or the PREFIX of
//     an strace -ff set), and what a trace alone does not say. The
//     listing (TRACE.initial, as crashsim trace writes it, or another
//     named by Inputs.Listing) says what existed before the trace, where
//     the program started and which files it had open; Cwd says where it
//     started when the caller knows better; Mounts say which filesystems
//     of the recording machine lose everything in a power cut. A trace's
//     Start is what all of them say before its first event: the model's
//     options, and a process model for views of single calls.
//   - Scope is which paths are reported on: below the Roots, not matching
//     an Ignore glob, and never pseudo files (/proc, /sys, /dev, pipes,
//     sockets) or volatile filesystems. It is decided in one place:
//     Inputs and Scope make one check.Options for a trace, whose InScope
//     the check, the replay, the HTML page and explore all ask. An ignore
//     glob is matched by check.MatchGlob everywhere ("**" crosses
//     directories).
//   - A Record runs a command under strace (package tracer) and keeps the
//     listing beside its trace. A Listing is taken before the command runs
//     and written after it: written before, it would share the program's
//     first journal commits.
//   - A Check reads each trace once under every persistence model and
//     joins the traces into one Result: findings in trace order, counts
//     summed, every trace's blind spots. A Replay reads one trace through
//     one persistence model crash point by crash point, for views of
//     every point (crashsim states, the HTML page). An Explore builds a
//     trace's crash states on disk and runs a checker on each. EachCall
//     reads a trace through the process model alone, for views of single
//     calls (crashsim events, crashsim stats). Each reading decodes only
//     the arguments it needs (parser.Options), through Inputs.Open.
//   - Identity is what names a finding the same way in every checkout:
//     the call site in the program's code when the trace says it (-k
//     stacks, the marks crashsim's Python shim leaves), else its path
//     relative to a root or to where the program started
//     (report.Fingerprint). The call site is that of the call where the
//     finding's fix goes, chosen per rule (fixat.go): the fsync that came
//     too early, the rename that published unsynced data, the last write
//     never synced (for Python, the f.write the shim could see, else the
//     open), the sync whose failure was ignored. Result.Identify fills it
//     in. The marks are
//     events like any other: the check collects them as it reads the
//     trace; stacks are read back, for the lines findings name, only when
//     the trace's head shows some (parser.ProbeTrace).
//   - A Filter leaves out what the caller asked not to see (ignore globs,
//     a config's suppressions, the problems of a baseline report) and
//     counts each kind, so that a report says what it left out.
//     Suppressions and baselines work on problems (check.Group): a
//     suppression of a problem's rule, or a baseline that has the problem,
//     leaves out all its findings; a suppression of a consequence's rule
//     leaves out that finding only.
//   - A Config is a .crashsim.toml: roots, ignore globs, models, the
//     severity to fail on, and suppressions, each checked against what
//     crashsim knows (model.ParsePersistence, the rule registry).
//     LoadConfig reads the one named, or finds one in the directory or
//     above it; one found must belong to the user or to root, as git
//     refuses a repository another user owns, since a config decides
//     which findings are reported.
//
// Every file read here (a listing, a config; the parser's traces) opens
// through internal/inputfile: a regular file, or a pipe the shell made
// when the user named it; a device, a named pipe or a file of /proc is
// refused before a byte is read. What is held whole has a cap
// (MaxConfigSize, MaxListingSize), and a message quotes what an input
// holds in a few dozen bytes at most.
//
// Errors are worded for a person. A *UsageError is a request that cannot
// be met as asked; an *InputError a trace, listing or report that cannot
// be read (a parse error shows file:line:column, the line and a caret).
//
// The command line (cmd/crashsim) translates its flags and the config
// into these values, prints what comes back, and maps errors to exit
// statuses: a UsageError exits 2, any other error 3. The flags that judge
// a trace (--fail-on, --accept-blind) and the formats are the command
// line's; what they judge is computed here.
package crashsim
