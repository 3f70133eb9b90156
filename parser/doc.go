// Package parser reads strace logs into typed events.
//
// It accepts what users actually have: strace 4.x to 6.x output with or
// without -f, -ff sets (PREFIX.PID files merged by timestamp), -t/-tt/-ttt/-r
// timestamps, -T durations, -y/-yy fd annotations, -X raw/abbrev/verbose,
// -x/-xx escapes, -s truncation, -Y command names, and calls that strace
// split into "<unfinished ...>" and "<... NAME resumed>" halves, which the
// Reader joins back into one Event.
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
//
// Every parse failure is an *Error that names file:line:column and what was
// expected. Panics never leave the package.
package parser
