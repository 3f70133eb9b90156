package parser

import (
	"bytes"
	"fmt"
	"strings"
)

// diagCut returns where a diagnostic begins inside a line that it cut in
// two, or -1: "strace: ..." in any version, and the bare "Process N
// attached" (or detached, resumed, suspended) of strace 4.x, which printed
// it into the trace in the middle of the call it interrupted:
//
//	clone(Process 17943 attached
//	child_stack=NULL, flags=...) = 17943
func diagCut(text []byte) int {
	cut := bytes.LastIndex(text, []byte("strace: "))
	if k := lastProcessMsg(text); k > cut && (cut < 0 || k != cut+len("strace: ")) {
		cut = k
	}
	return cut
}

// lastProcessMsg finds the last "Process N WORD" message in text.
func lastProcessMsg(text []byte) int {
	for end := len(text); ; {
		k := bytes.LastIndex(text[:end], []byte("Process "))
		if k < 0 {
			return -1
		}
		if isProcessMsg(text[k:]) {
			return k
		}
		end = k
	}
}

// isProcessMsg matches "Process 123 attached", "... detached", "...
// resumed (parent 12 ready)", "... suspended", "... attached with 2
// threads", "... attached - interrupt to quit".
func isProcessMsg(t []byte) bool {
	t, ok := bytes.CutPrefix(t, []byte("Process "))
	if !ok {
		return false
	}
	n := 0
	for n < len(t) && isDigit(t[n]) {
		n++
	}
	if n == 0 || n >= len(t) || t[n] != ' ' {
		return false
	}
	rest := t[n+1:]
	for _, w := range []string{"attached", "detached", "resumed", "suspended"} {
		if bytes.HasPrefix(rest, []byte(w)) {
			return true
		}
	}
	return false
}

// explain adds to an error the likely reason the line could not be read,
// when the trace shows one: a log of another tool, or of an strace older
// than the shapes this parser knows.
func (r *Reader) explain(e *Error) *Error {
	// The line lies in the reader's buffer, which a look at the lines
	// after it (linesAfter) may move.
	text := bytes.Clone(r.lp.text)
	if hint := pastedHint(text); hint != "" {
		if k := elisionAt(text); k >= 0 {
			// Not "after the line prefix" ("[...]" reads as one): the
			// mark itself is what no strace prints.
			e.Msg = fmt.Sprintf("expected a syscall name, a signal (---) or an exit (+++), found %q", snippet(bytes.TrimSpace(text)))
			e.Pos.Col = k + 1
		}
		e.Msg += "; " + hint
		return e
	}
	if hint := foreignHint(text, e.Pos.Line); hint != "" {
		e.Msg += "; " + hint
		return e
	}
	if hint := r.stdinEchoHint(text); hint != "" {
		e.Msg += "; " + hint
		return e
	}
	if hint := mixedOutputHint(text, e.Msg); hint != "" {
		e.Msg += "; " + hint
		return e
	}
	if hint := r.cutExcerptHint(text, e.Msg); hint != "" {
		e.Msg += "; " + hint
		return e
	}
	if what := oldShapeIn(text); what != "" {
		r.sawOld(what, e.Pos.Line)
	}
	if r.old != "" {
		e.Msg += fmt.Sprintf("; this looks like strace before 5.x (line %d has %s): crashsim reads strace 4.x, but not this line; a recording with strace 5 or 6 avoids it", r.oldLine, r.old)
	}
	return e
}

// A line after the one that failed, as linesAfter finds it.
type lineAfter struct {
	line int
	text []byte
}

// linesAfter returns up to n lines that follow the line just read, blank
// ones left out. It looks at most 4 KiB ahead, a byte at a time, so a
// trace still being written (a pipe) is waited on no longer than it takes
// to write the lines looked at. The line just read may move in the
// buffer: explain keeps a copy.
func (r *Reader) linesAfter(n int) []lineAfter {
	var out []lineAfter
	start, num := 0, r.line
	for k := 1; k <= 4096 && len(out) < n; k++ {
		b, _ := r.br.Peek(k)
		if len(b) < k {
			// The end of the trace, or of what can be looked at: a last
			// line without its newline counts.
			if start < len(b) && !isBlank(b[start:]) {
				out = append(out, lineAfter{num + 1, bytes.Clone(b[start:])})
			}
			break
		}
		if b[k-1] != '\n' {
			continue
		}
		num++
		if line := b[start : k-1]; !isBlank(line) {
			out = append(out, lineAfter{num, bytes.Clone(line)})
		}
		start = k
	}
	return out
}

// stdinEchoHint names the input typed at the terminal, echoed in the
// middle of a read of stdin when strace wrote its trace to the terminal
// the program reads from: strace prints "read(0, " and waits; the
// terminal echoes what is typed ("file1.txt"), and its newline ends the
// line; strace then prints the rest of the call, the bytes read first:
//
//	read(0, file1.txt
//	"file1.txt\n", 1024) = 10
//
// strace prints the buffer of a read as a string, an address or NULL,
// never as bare text. When the next line starts with the bytes read and
// they are the text, it was typed; else the hint says what is seen.
func (r *Reader) stdinEchoHint(text []byte) string {
	call := skipPrefixes(bytes.TrimSpace(text))
	rest, ok := bytes.CutPrefix(call, []byte("read(0, "))
	if !ok {
		// -y: "read(0</dev/pts/0>, ".
		if rest, ok = bytes.CutPrefix(call, []byte("read(0<")); !ok {
			return ""
		}
		k := bytes.Index(rest, []byte(">, "))
		if k < 0 {
			return ""
		}
		rest = rest[k+3:]
	}
	if len(rest) == 0 || bytes.IndexByte([]byte("\" <[{"), rest[0]) >= 0 || hasPrefix(rest, "0x") || hasPrefix(rest, "NULL") {
		return ""
	}
	const fix = "strace wrote its trace to the terminal the program reads from (without -o), so what is typed there is mixed into the trace; record with strace -o FILE"
	if next := r.linesAfter(1); len(next) == 1 && next[0].line == r.line+1 && readStarts(next[0].text, rest) {
		return fmt.Sprintf("this read of stdin (fd 0) is cut by the input typed for it (%q), which the terminal echoed as it was typed; the read's result follows on the next line: ", snippet(rest)) + fix
	}
	return fmt.Sprintf("this read of stdin (fd 0) has text where strace prints the bytes read (%q), which strace never prints so (input typed at the terminal, or other output there?): ", snippet(rest)) + fix
}

// readStarts reports whether line, the one after a read of stdin cut by
// echoed input, starts as strace goes on with that read: with the bytes
// read, as a string that starts with the echoed text (or with as much of
// it as strace printed).
func readStarts(line, echoed []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	if len(t) == 0 || t[0] != '"' {
		return false
	}
	e := scanString(t, 0)
	if e < 0 {
		return false
	}
	read, ok := unescape(nil, t[1:e-1])
	echoed = bytes.TrimRight(echoed, " \t\r")
	n := min(len(read), len(echoed))
	return ok && n > 0 && bytes.Equal(read[:n], echoed[:n])
}

// cutExcerptHint names a line that stops inside its call, after a whole
// argument, when what follows is not strace output and holds no end of a
// call (") = N") before strace's lines go on, if they do (up to 32 lines,
// in 4 KiB): an excerpt cut there, with notes after it (and maybe another
// excerpt), or a recording stopped, not an old strace's shape, which the
// line holds none of. A call cut by output and ended after it has its end
// there; under -f, strace ends a line another call interrupts with
// "<unfinished ...>", so a line of strace's after the text is no end of
// this one. A line whose last argument runs into other text ("-1trying
// 49152") is left alone: output landed on it.
func (r *Reader) cutExcerptHint(text []byte, msg string) string {
	if !strings.HasPrefix(msg, "line ended inside ") || !endsAtWholeArg(bytes.TrimSpace(text)) {
		return ""
	}
	next := r.linesAfter(32)
	if len(next) == 0 || readsAsLine(next[0].text) {
		return ""
	}
	for _, l := range next {
		if readsAsLine(l.text) {
			break
		}
		if callEnd(l.text) {
			return ""
		}
	}
	return fmt.Sprintf("the line stops inside the call, and what follows it is not strace output (line %d: %q) and does not end the call: the trace looks cut here, with other text after it (an excerpt with notes, or a recording stopped?); crashsim cannot tell how the call ended: check the whole recording", next[0].line, snippet(bytes.TrimSpace(next[0].text)))
}

// endsAtWholeArg reports whether t, a trimmed line, ends as strace leaves
// a call's line it has not finished: right after a whole argument, a
// closing bracket, a string, a comment, or a number, a name or flags that
// start the argument (after "(", ", ", "=", "|", "[" or "{").
func endsAtWholeArg(t []byte) bool {
	if len(t) == 0 {
		return false
	}
	switch t[len(t)-1] {
	case '}', ']', ')', '"':
		return true
	}
	if bytes.HasSuffix(t, []byte("\"...")) || bytes.HasSuffix(t, []byte("*/")) {
		return true
	}
	k := len(t)
	for k > 0 && (nameByte[t[k-1]] || t[k-1] == '-') {
		k--
	}
	tok := t[k:]
	if k == 0 || len(tok) == 0 || bytes.IndexByte([]byte("(,=|[{"), t[k-1]) < 0 && !hasPrefix(t[max(k-2, 0):], ", ") {
		return false
	}
	if tok[0] == '-' || isDigit(tok[0]) {
		// A number: digits, or 0x and hex digits, all of it.
		n := bytes.TrimPrefix(tok, []byte("-"))
		if h, ok := bytes.CutPrefix(n, []byte("0x")); ok {
			n = h
			for _, c := range n {
				if _, ok := hexVal(c); !ok {
					return false
				}
			}
			return len(n) > 0
		}
		for _, c := range n {
			if !isDigit(c) {
				return false
			}
		}
		return len(n) > 0
	}
	return true
}

// callEnd reports whether line holds the end of a call, a ')' and then
// "= " and a return value after strace's padding: ")   = 1", the rest of
// a call that other text cut. Not "getppid() == 1", code in a note.
func callEnd(line []byte) bool {
	for i := bytes.IndexByte(line, ')'); i >= 0; {
		j := i + 1
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if j+2 < len(line) && line[j] == '=' && line[j+1] == ' ' && (isDigit(line[j+2]) || line[j+2] == '-' || line[j+2] == '?') {
			return true
		}
		k := bytes.IndexByte(line[j:], ')')
		if k < 0 {
			return false
		}
		i = j + k
	}
	return false
}

// foreignHint names the tool a line comes from when it is not strace.
func foreignHint(text []byte, line int) string {
	t := bytes.TrimSpace(text)
	switch {
	case enterExitMark(skipPrefixes(t)):
		return uRootHint
	case trussReturn(t) >= 0, trussError(t):
		return trussHint
	case bytes.Contains(t, []byte("+++ exited (status ")), bytes.Contains(t, []byte("<no return ...>")),
		bytes.HasPrefix(skipPID(t), []byte("SYS_")):
		return "this looks like an ltrace log (library calls): crashsim reads strace logs (strace -f -ttt -y -xx -o FILE CMD)"
	case bytes.Contains(t, []byte(" ms): ")) && bytes.Contains(t, []byte("(")):
		return "this looks like perf trace output: crashsim reads strace logs (strace -f -ttt -y -xx -o FILE CMD)"
	case bracketedDate(t) > 0 && readsAsLine(bytes.TrimSpace(t[bracketedDate(t):])):
		return datePrefixHint
	case line == 1 && len(t) > 0 && (t[0] == '{' || t[0] == '['):
		if t[0] == '{' || bytes.HasPrefix(t, []byte("[{")) || bytes.HasPrefix(t, []byte("[\"")) {
			return "this looks like JSON, not an strace log"
		}
	case line == 1 && bytes.HasPrefix(t, []byte("\xef\xbb\xbf")):
		return "the file starts with a UTF-8 byte order mark, which strace never writes (an editor added it): remove it (sed -i '1s/^\\xEF\\xBB\\xBF//' FILE)"
	case isDatePrefix(t):
		return datePrefixHint
	}
	return ""
}

const (
	datePrefixHint = "the lines start with a date, which strace never prints: a prefix added by another tool (a CI or journal log?); cut it off, or record with strace -o FILE"
	trussHint      = "this looks like FreeBSD truss output, which crashsim does not read; record on Linux with strace -f -o FILE CMD"
	uRootHint      = "this looks like the output of u-root's strace (an E or X before each call, for its entry and its exit), another tool's format, which crashsim does not read; record with strace -f -ttt -y -xx -o FILE CMD"
)

// foreignLines is how many lines at the start of a trace foreignLine
// looks at.
const foreignLines = 16

// foreignLine refuses a line of another tool's format that reads as strace
// output: FreeBSD truss prints a call much as strace does (no space after
// its commas, "\M^X" in its strings), and its lines read as strace's, but
// it follows the return value with the same value in hex ("= 16384
// (0x4000)"), which gives it away. Only the first lines of a trace are
// looked at (Reader.step), every reading of them alike and before any of
// them reads the line; a truss log shows the form on nearly every line.
func (r *Reader) foreignLine(text []byte) *Error {
	k := trussReturn(text)
	if k < 0 || enterExitMark(skipPrefixes(bytes.TrimSpace(text))) {
		// u-root's lines fail to parse, and explain names them.
		return nil
	}
	ret := bytes.TrimRight(text[bytes.LastIndex(text[:k], []byte("= ")):], " \t\r")
	return &Error{
		Pos:  Pos{File: r.name, Line: r.line, Col: k + 1},
		Msg:  fmt.Sprintf("the return value is followed by the same value in hex (%q), which strace never prints; ", snippet(ret)) + trussHint,
		Text: string(text[:min(len(text), 4096)]),
	}
}

// trussReturn finds where a line ends as FreeBSD truss ends a call that
// returned: ") = 16384 (0x4000)", the value in decimal, then in hex. It
// returns the index of the '(' before "0x", or -1. strace prints a return
// value in one base, and what it puts after it in parentheses has words
// in it ("(flags O_RDWR|O_LARGEFILE)", "(No such file or directory)").
func trussReturn(b []byte) int {
	e := len(b)
	for e > 0 && asciiSpace(b[e-1]) {
		e--
	}
	if e < 8 || b[e-1] != ')' {
		return -1
	}
	k := bytes.LastIndex(b[:e], []byte(" (0x"))
	if k < 0 || e-1-(k+4) < 1 || e-1-(k+4) > 16 {
		return -1
	}
	var hex uint64
	for _, c := range b[k+4 : e-1] {
		v, ok := hexVal(c)
		if !ok {
			return -1
		}
		hex = hex<<4 | uint64(v)
	}
	j := k
	for j > 0 && isDigit(b[j-1]) {
		j--
	}
	if j == k || k-j > 19 {
		return -1
	}
	var dec uint64
	for _, c := range b[j:k] {
		dec = dec*10 + uint64(c-'0')
	}
	if j > 0 && b[j-1] == '-' {
		dec = -dec
		j--
		if hex != dec && hex == uint64(uint32(dec)) {
			dec = hex // a 32-bit truss
		}
	}
	if hex != dec || j < 4 || string(b[j-2:j]) != "= " || b[j-3] != ' ' && b[j-3] != '\t' {
		return -1
	}
	// The call before: its name and '(' first, its ')' before the '='.
	p := j - 3
	for p > 0 && (b[p-1] == ' ' || b[p-1] == '\t') {
		p--
	}
	if p == 0 || b[p-1] != ')' || bytes.IndexByte(b[:p], '(') < 0 {
		return -1
	}
	return k + 1
}

// trussError matches how truss ends a call that failed: "ERR#2 'No such
// file or directory'".
func trussError(t []byte) bool {
	k := bytes.Index(t, []byte(" ERR#"))
	if k < 0 {
		return false
	}
	n := k + 5
	for n < len(t) && isDigit(t[n]) {
		n++
	}
	return n > k+5 && hasPrefix(t[n:], " '") && bytes.HasSuffix(t, []byte("'"))
}

// enterExitMark reports whether call starts as u-root's strace prints a
// call, with an E or an X for its entry or its exit before the name: "X
// newfstatat(...)".
func enterExitMark(call []byte) bool {
	if len(call) < 4 || call[0] != 'E' && call[0] != 'X' || call[1] != ' ' {
		return false
	}
	k := 2
	for k < len(call) && nameByte[call[k]] {
		k++
	}
	return k > 2 && k < len(call) && call[k] == '('
}

// mixedOutputHint recognises a trace that strace wrote to the terminal the
// program writes to (no -o): the program's own output then lands inside
// the write call that prints it, or on lines of its own.
func mixedOutputHint(text []byte, msg string) string {
	const fix = "strace wrote its trace where the program writes its output (the terminal, without -o), so the program's output is mixed into the trace; record with strace -o FILE"
	call := skipPrefixes(bytes.TrimSpace(text))
	// The output may end the line, or hold what reads as more arguments
	// ("127I0725 22:30:35 ...] text").
	cutArgs := strings.Contains(msg, "line ended inside the arguments of") || strings.HasPrefix(msg, "expected ',' or ')' after argument")
	// The bytes written, right after the count: whatever the message,
	// for the output may hold what reads as a bracket, a quote, a '<'
	// (an -y name) or a ')' (the call's end).
	echo := bytes.HasPrefix(call, []byte("write(")) && echoAfterCount(call)
	// -y names the fd's file after its number: "write(1</dev/pts/0>,".
	for _, w := range []string{"write(1,", "write(2,", "writev(1,", "writev(2,", "write(1<", "write(2<", "writev(1<", "writev(2<"} {
		if bytes.HasPrefix(call, []byte(w)) && (cutArgs || echo) {
			return "this write to the program's stdout or stderr is cut by its own output: " + fix
		}
	}
	if bytes.HasPrefix(call, []byte("write(")) && (echo || cutArgs && outputAfterCount(call)) {
		// Another fd: a copy of the terminal's (dup, F_DUPFD), which
		// the line itself cannot show.
		return "this write is cut by the program's own output, printed right after its byte count: " + fix
	}
	if strings.Contains(msg, "line ended inside the arguments of") && proseAfterArgs(call) {
		// A child's or the program's message on the terminal, printed
		// while strace was in the middle of a call (wait4 waiting for
		// the child that wrote it).
		return "this call is cut by the program's own output (or a child's): " + fix
	}
	if strings.HasPrefix(msg, "expected '(' after syscall name") && (bytes.IndexAny(call, "(") < 0 || namedMessage(call)) {
		return "this line is not strace output (a shell prompt, a program's own output, or text copied along with the trace?): " + fix + ", and cut off what is not the trace"
	}
	if k := bracketedDate(bytes.TrimSpace(text)); k > 0 {
		// Not another tool's prefix (foreignHint): no strace line
		// follows the date.
		return fmt.Sprintf("this line starts with a date in brackets (%q), which strace never prints: a log message of the program's, not strace output; ", bytes.TrimSpace(text)[:k]) + fix
	}
	if k := pidPrefixAfterText(text); k > 0 {
		return fmt.Sprintf("strace's line starts after %q, which strace does not print: the program's output, printed just before strace's line; ", snippet(text[:k])) + fix
	}
	return ""
}

// pidPrefixAfterText returns where "[pid N]" starts in text when other
// text comes before it, 0 when none does.
func pidPrefixAfterText(text []byte) int {
	k := bytes.Index(text, []byte("[pid "))
	if k <= 0 || len(bytes.TrimSpace(text[:k])) == 0 {
		return 0
	}
	j := k + len("[pid ")
	d := j
	for d < len(text) && isDigit(text[d]) {
		d++
	}
	if d == j || d >= len(text) || text[d] != ']' && text[d] != '<' {
		return 0
	}
	return k
}

// firstString finds the first string in call, the bytes of a write: q
// is its opening quote, e just past its closing one.
func firstString(call []byte) (q, e int, ok bool) {
	q = bytes.IndexByte(call, '"')
	if q < 0 {
		return 0, 0, false
	}
	e = scanString(call, q)
	return q, e, e >= 0
}

// outputAfterCount reports whether call, the line of a write cut short,
// goes on right after the byte count with text that is no part of a call:
// `write(23, "Hello"..., 34Hello, world`, the program's output landing
// where strace was about to print ") = 34"; or ends at the count of bytes
// that begin with a newline, which the program's output put there.
func outputAfterCount(call []byte) bool {
	q, e, ok := firstString(call)
	if !ok {
		return false
	}
	rest, ok := bytes.CutPrefix(bytes.TrimPrefix(call[e:], []byte("...")), []byte(", "))
	if !ok {
		return false
	}
	k := 0
	for k < len(rest) && isDigit(rest[k]) {
		k++
	}
	if k > 0 && k == len(rest) {
		// The line ends at the count: output that began with a newline
		// (the bytes written start with one), the rest of it and ") =
		// N" on lines of their own.
		return bytes.HasPrefix(call[q:], []byte(`"\n`))
	}
	return k > 0 && k < len(rest) && !bytes.ContainsRune([]byte(",) <"), rune(rest[k]))
}

// echoAfterCount reports whether call, the line of a write that did not
// read, shows the bytes it wrote right after its byte count, where strace
// was about to print ") = N": `write(2, ")", 1))  = 1`, `write(1,
// "(\n", 2(`. The program's output landed between the two halves of
// strace's line. strace's ')' follows the bytes, or the line ends at the
// first newline in them; a string strace cut short ("...") is matched as
// far as it goes. No strace prints a call so, whatever the bytes.
func echoAfterCount(call []byte) bool {
	q, e, ok := firstString(call)
	if !ok {
		return false
	}
	data, ok := unescape(nil, call[q+1:e-1])
	if !ok || len(data) == 0 {
		return false
	}
	after, cut := bytes.CutPrefix(call[e:], []byte("..."))
	rest, ok := bytes.CutPrefix(after, []byte(", "))
	if !ok {
		return false
	}
	k := 0
	for k < len(rest) && isDigit(rest[k]) {
		k++
	}
	if k == 0 {
		return false
	}
	out := rest[k:]
	if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
		// The terminal broke the line there: what it shows of the
		// bytes ends the line (its spaces trimmed with the line's).
		return bytes.Equal(bytes.TrimRight(out, " \t\r"), bytes.TrimRight(data[:nl], " \t\r"))
	}
	if !bytes.HasPrefix(out, data) {
		return false
	}
	return cut || hasPrefix(out[len(data):], ")")
}

// namedMessage reports whether line starts as a program's message does,
// a word and a colon: "ERROR: Could not find a version (from versions:
// none)", which has a '(' further on.
func namedMessage(line []byte) bool {
	k := 0
	for k < len(line) && nameByte[line[k]] {
		k++
	}
	return k > 0 && hasPrefix(line[k:], ": ")
}

// proseAfterArgs reports whether the last argument of call, a line cut
// short, reads as words rather than a value strace prints: `wait4(-1,
// mkdir: cannot create directory '/run/user/0': Permission denied`. A
// value with spaces in it has quotes, brackets, "=" or a comment.
func proseAfterArgs(call []byte) bool {
	k := bytes.LastIndex(call, []byte(", "))
	if k < 0 {
		if k = bytes.IndexByte(call, '('); k < 0 {
			return false
		}
		k--
	}
	last := bytes.TrimSpace(call[k+2:])
	if bytes.ContainsAny(last, "\"=[]{}()<>") || bytes.Contains(last, []byte("/*")) {
		return false
	}
	words := 0
	for _, w := range bytes.Fields(last) {
		n := 0
		for _, c := range w {
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
				n++
			}
		}
		if n >= 3 {
			words++
		}
	}
	return words >= 3
}

// skipPrefixes skips what strace puts before a call's name: "[pid N] ",
// "N ", timestamps, "[ADDR]" (-i) and "[NR]" (-n).
func skipPrefixes(t []byte) []byte {
	for {
		before := len(t)
		if bytes.HasPrefix(t, []byte("[pid ")) || bytes.HasPrefix(t, []byte("[")) {
			if k := bytes.IndexByte(t, ']'); k > 0 {
				t = bytes.TrimLeft(t[k+1:], " ")
			}
		}
		k := 0
		for k < len(t) && (isDigit(t[k]) || t[k] == '.' || t[k] == ':') {
			k++
		}
		if k > 0 && k < len(t) && t[k] == ' ' {
			t = bytes.TrimLeft(t[k:], " ")
		}
		if len(t) == before {
			return t
		}
	}
}

// skipPID skips "[pid N] " or "N " at the start of an ltrace line.
func skipPID(t []byte) []byte {
	if bytes.HasPrefix(t, []byte("[pid ")) {
		if k := bytes.IndexByte(t, ']'); k > 0 {
			return bytes.TrimLeft(t[k+1:], " ")
		}
	}
	k := 0
	for k < len(t) && isDigit(t[k]) {
		k++
	}
	if k > 0 && k < len(t) && t[k] == ' ' {
		return bytes.TrimLeft(t[k:], " ")
	}
	return t
}

// isDatePrefix matches "2024-05-01" or "2024/05/01" at the start.
func isDatePrefix(t []byte) bool {
	if len(t) < 10 {
		return false
	}
	for i, c := range t[:10] {
		switch i {
		case 4, 7:
			if c != '-' && c != '/' {
				return false
			}
		default:
			if !isDigit(c) {
				return false
			}
		}
	}
	return true
}

// bracketedDate returns where a date in brackets that starts t, a
// trimmed line, ends, past its ']' ("[2018-01-26 13:43:25 +0000]", as
// many programs start a log message), or 0. strace's own brackets hold a
// pid ("[pid 5]"), an address (-i) or a number (-n).
func bracketedDate(t []byte) int {
	if len(t) < 12 || t[0] != '[' || !isDatePrefix(t[1:]) {
		return 0
	}
	k := bytes.IndexByte(t, ']')
	if k < 0 || k > 64 {
		return 0
	}
	return k + 1
}

// oldShapeIn names a shape in text that only strace before 5.x prints.
func oldShapeIn(text []byte) string {
	switch {
	case bytes.Contains(text, []byte("[/* ")) && bytes.Contains(text, []byte(" vars */]")):
		return "[/* N vars */]"
	case bytes.Contains(text, []byte(", /* ")) && bytes.Contains(text, []byte(" entries */")):
		return "/* N entries */"
	case bytes.Contains(text, []byte(") @ 0 (0) ---")):
		return "an old signal line"
	}
	return ""
}
