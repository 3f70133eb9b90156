// Package parser reads strace logs into typed events.
//
// It accepts what users actually have: strace 4.x to 6.x output with or
// without -f, -ff sets (PREFIX.PID files merged by timestamp, each -tt file
// placed on its day of the run: see placeDays), -t/-tt/-ttt/-r
// timestamps, -T durations, -y/-yy fd annotations, -X raw/abbrev/verbose,
// -x/-xx escapes, -s truncation, -Y command names, and calls that strace
// split into "<unfinished ...>" and "<... NAME resumed>" halves, which the
// Reader joins back into one Event, even when the cut is inside an
// argument (see openCut).
//
// Terms:
//
//   - An Event is one completed call (or a signal or exit line). Its Pos is
//     the line where the call starts; EndLine the line that completes it.
//   - A Value is one printed argument: a number, a string, a symbolic
//     expression, a struct or an array, with its -y annotation decoded.
//   - A DataRef points at a quoted string's bytes in the trace file. Written
//     data is never held in memory: DataReader decodes it on demand, clipped
//     to the call's return value.
//   - Event.Call is the call's row in crashsim's syscall table
//     (internal/syscalls): its effect class and the kinds of its
//     arguments, which say which argument holds data (never decoded
//     inline) and which holds iovecs. The parser knows no call by name
//     beyond that table.
//   - Event.Arch is the architecture a flag printed as a number is read
//     with (Event.Bits): Options.Arch when the caller knows it (--arch,
//     the listing), else what the trace showed by that line (calls only
//     some architectures have, personality lines; syscalls.Evidence, one
//     for all members of an -ff set), else Unknown, read as amd64. Flag
//     tables (OpenFlags, MmapFlags, ...) are the syscall table's, per
//     architecture, not the host's.
//
// Reading only what is needed:
//
//   - Options.DecodePositions names, per call, the argument positions to
//     decode (an ArgSet). A position left out is walked by the same code
//     that decodes it, keeping nothing (no interning, no copies), so the
//     positions after it keep their numbers and every shape is delimited
//     as in a full reading; it comes as a Value of kind ValSkipped, and
//     those after the last position kept are left out of Args. An empty
//     set skips the whole call with a byte scan (skipArgs), which hands
//     anything it cannot read exactly back to the walk. A line that does
//     not read is read again in full, so it gives the same file:line:column
//     error whatever was asked. The scan looks only at the brackets,
//     strings, comments and annotations of the arguments it passes: an
//     argument list that breaks strace's grammar otherwise ("f(,)", which
//     no strace prints) reads when the call is skipped and not in full,
//     where the error is the walk's. Skipped arguments are gone for good: a
//     caller that prints a call must decode all of it (package model
//     narrows only calls that never change the model, so no crash point
//     prints them).
//   - Options.DecodeNone decodes no call, for a caller that only counts
//     events: with it, Reader.Skip (parser.Skip for any Stream) passes
//     the line of a whole call, or of a resumed half whose start is
//     pending, without building an Event (quickCall). quickCall keeps
//     nothing and says yes only for a line the full reading completes as
//     one plain call with nothing to note; it hands every other line to
//     the full reading, so errors, warnings and hints are those Next
//     gives (FuzzSkip compares the two).
//   - Events and argument Values are carved from slabs, one allocation per
//     64 events and per 256 Values. Without Options.Recycle nothing is
//     reused once handed out; a kept event keeps its slabs alive.
//   - Options.Recycle is for a caller that keeps no event (check): an
//     Event and everything reached from it but strings (Args, Elems, the
//     Extras, Stack) is valid only until the next call to Next. A
//     Pipeline then hands each batch's events back to its goroutine once
//     the caller has moved on to the next batch, and its Readers build
//     new events in them (eventPool) instead of carving from slabs. Each
//     recycled event owns the memory its Values, ValueExtras and
//     EventExtra are carved from (eventMem, found by the event's address
//     among the pool's chunks), grown to what the lines it served needed:
//     an event the Reader still holds (a call left unfinished, one held
//     for its -k stack, a parked member's) keeps its memory however far
//     the batches have gone, and a call's resumed half is reused with the
//     call it joined. Once the pool holds the events of the batches under
//     way, plain lines allocate nothing; strings are never reused (the
//     interned ones are shared, an address or a one-off path is its own).
//     Without a Pipeline, Recycle changes nothing.
//   - What few lines or values print (-Y command names, -k stacks, -i
//     addresses, exit statuses, text after the return value, comments,
//     "=>" exit values) sits behind Event.Extra and Value.Extra, nil when
//     absent, read through methods of the same names: an Event is 176
//     bytes and a Value 144. The Extras are carved from slabs too.
//   - A line longer than the Reader's buffer is gathered in anonymous
//     memory of its own, grown with mremap, so that it is held once; past
//     Options.MaxLine, or past the memory there is, it is an error at its
//     file:line:col.
//   - An -ff set keeps at most maxOpenMembers (64) of its files open. The
//     others are parked (Reader.park): file closed, buffers and slabs let
//     go, only the state the next line needs and the member's next call
//     kept, about 3 KiB a member, and opened again at their offset when
//     their turn in the merge comes.
//   - Pipeline runs a Stream on a goroutine of its own and hands events
//     over in batches of 256. Warnings and diagnostics travel in the batch
//     and reach the caller's callbacks from Next, on the caller's
//     goroutine, just before the event they preceded.
//
// Nothing outside this package reads trace text. What other packages need
// of a trace beyond its events has a reader here: ProbeTrace (what a
// trace's head shows: stacks, pids), ExitOf (how a process ended, for
// tracer), and for a live trace, one strace is still writing, NthStop,
// FirstCall, WriteCalls and TerminalInterrupt (for oracle and tracer).
//
// Every parse failure is an *Error that names file:line:column and what was
// expected. Panics never leave the package.
package parser
