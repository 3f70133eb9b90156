package parser

import (
	"bytes"
	"unicode/utf8"
)

// The -c and -C summary table strace prints after the calls:
//
//	% time     seconds  usecs/call     calls    errors syscall
//	------ ----------- ----------- --------- --------- ----------------
//	 54.26    0.000127          12        10           mmap
//	------ ----------- ----------- --------- --------- ----------------
//	100.00    0.000234           8        29         1 total
//
// It counts calls and records none, so it is skipped; a trace that is only
// the table (strace -c) has nothing to judge and is refused.
//
// strace 5.x and later let the user choose the columns and their order
// (-U, --summary-columns): "-U name,calls,errors" prints
//
//	syscall              calls    errors
//	---------------- --------- ---------
//	access                   1         1
//	execve                   1
//	---------------- --------- ---------
//	total                   29         1
//
// so no column is in a fixed place, not even the name, and a table may be
// the names alone (-U name: "syscall", then a rule, then a name a line).
// The head is read as the columns it names, in its order; a line of
// column heads is a head only when the rule of dashes under it has as many
// groups of dashes as there are heads; a row is a name and numbers where the
// head says; the "total" row ends the table, and only another table may
// follow it (strace prints one a personality, the second and later after
// a "System call usage summary for ... mode:" line). No trace line reads
// as a row: a call, a signal and an exit all hold a byte no name has.

// summaryColumn is what one column of a summary table holds.
type summaryColumn uint8

const (
	sumName    summaryColumn = iota // "syscall": the call's name, "total" on the last row
	sumDecimal                      // "% time", seconds, shortest, longest, wall-total, wall-min, wall-max: 0.000127
	sumCount                        // calls, usecs/call, wall-avg: a whole number
	sumErrors                       // errors: a whole number, blank where it is 0
)

// summaryHeads are the words strace heads its columns with (count.c, 4.x
// to 6.x: "% time" is the two words "%" and "time"), each with what its
// column holds. The wall-* columns are strace's after 6.16.
var summaryHeads = map[string]summaryColumn{
	"%":          sumDecimal, // then "time"
	"time":       sumDecimal, // "% time" with its "%" lost (a table copied from a terminal)
	"seconds":    sumDecimal,
	"shortest":   sumDecimal, // -U min-time
	"longest":    sumDecimal, // -U max-time
	"usecs/call": sumCount,   // -U avg-time
	"calls":      sumCount,
	"errors":     sumErrors,
	"syscall":    sumName,
	"wall-total": sumDecimal,
	"wall-min":   sumDecimal,
	"wall-max":   sumDecimal,
	"wall-avg":   sumCount,
}

// maxSummaryColumns bounds the columns of a head: each of strace's at most
// once.
const maxSummaryColumns = 12

// summaryTable is the summary table being read.
type summaryTable struct {
	cols [maxSummaryColumns]summaryColumn
	n    int  // columns; 0 before the head (after a personality's title)
	done bool // the total row was read: only another table may follow
}

// summaryTitle starts the table of each personality but the first
// ("System call usage summary for 32 bit mode:").
const summaryTitle = "System call usage summary for "

// summaryLine reports whether text belongs to a summary table (and is to be
// skipped), or the error for a trace that holds only the table. Every path
// that looks past text (at the line under a head) returns true or an
// error: the look may move the buffer text is in.
func (r *Reader) summaryLine(text []byte) (bool, error) {
	if !r.summary && !maybeSummaryHeader(text) {
		return false, nil
	}
	t := bytes.TrimSpace(text)
	if tab := &r.table; r.summary && tab.n > 0 && !tab.done {
		// A row before a head: "syscall" is a call's name on some
		// architectures (mips), a row of a table of names alone.
		if summaryRule(t) == tab.n {
			return true, nil
		}
		if row, total := tab.row(t); row {
			tab.done = total
			return true, nil
		}
	}
	if tab, ok := summaryHeader(t); ok {
		pos := Pos{File: r.name, Line: r.line, Col: 1}
		if rule, end := r.peekLine(); !end && summaryRule(rule) != tab.n {
			// A line of heads alone is no strace line either: say
			// what it looks like rather than that it lacks a '('.
			return true, &Error{Pos: pos, Msg: "this line is the column heads of an strace -c/-C summary table, but the line under it is not the row of dashes strace prints there: the table was cut or edited; cut it off the trace"}
		}
		if r.calls == 0 && len(r.pending) == 0 {
			return true, &Error{Pos: pos, Msg: "this is an strace -c summary: it counts calls but records none; record without -c (e.g. strace -f -ttt -y -xx -o FILE CMD)"}
		}
		r.summary, r.table = true, tab
		r.diag(pos, []byte("the strace -c/-C summary table starts here: skipped"))
		return true, nil
	}
	if isSummaryTitle(t) {
		// Before its head (checked on its own line): with nothing
		// but the title and no head, the line after ends the table.
		r.summary, r.table = true, summaryTable{}
		return true, nil
	}
	if r.summary && len(t) == 0 {
		return true, nil
	}
	r.summary, r.table = false, summaryTable{}
	return false, nil
}

// peekLine returns the line after the one just read, without reading it
// (up to 4 KiB of it, far more than a rule of dashes takes), and end when
// the trace ends before it.
func (r *Reader) peekLine() (line []byte, end bool) {
	for n := 256; ; n *= 4 {
		b, _ := r.br.Peek(n)
		if k := bytes.IndexByte(b, '\n'); k >= 0 {
			return b[:k], false
		}
		if len(b) < n || n >= 4096 {
			return b, len(b) == 0
		}
	}
}

// maybeSummaryHeader is false for a line isSummaryHeader and isSummaryTitle
// are false for, decided by its first and last bytes that are not ASCII
// spaces: a head starts with '%' or a lower-case letter and ends in one,
// and a title starts with 'S' and ends in ':', once trimmed
// (bytes.TrimSpace, which trims Unicode spaces too, so a byte past ASCII
// there leaves it open).
func maybeSummaryHeader(b []byte) bool {
	i := 0
	for i < len(b) && asciiSpace(b[i]) {
		i++
	}
	if i == len(b) {
		return false
	}
	if c := b[i]; c != '%' && c != 'S' && !lower(c) && c < utf8.RuneSelf {
		return false
	}
	k := len(b) - 1
	for asciiSpace(b[k]) {
		k--
	}
	c := b[k]
	return lower(c) || c == ':' || c >= utf8.RuneSelf
}

func lower(c byte) bool { return c >= 'a' && c <= 'z' }

// isSummaryHeader reports whether t (trimmed) heads a summary table's
// columns, as summaryHeader does.
func isSummaryHeader(t []byte) bool {
	_, ok := summaryHeader(t)
	return ok
}

// summaryHeader reads t (trimmed) as the heads of a summary table's
// columns: heads strace prints (summaryHeads), each at most once, the
// name's among them (strace adds it when -U leaves it out).
func summaryHeader(t []byte) (tab summaryTable, ok bool) {
	var seen [maxSummaryColumns]string
	name := false
	for w, rest := nextWord(t); len(w) > 0; w, rest = nextWord(rest) {
		kind, known := summaryHeads[string(w)]
		if !known || tab.n == maxSummaryColumns {
			return summaryTable{}, false
		}
		if string(w) == "%" {
			if w, rest = nextWord(rest); string(w) != "time" {
				return summaryTable{}, false
			}
		}
		for _, s := range seen[:tab.n] {
			if s == string(w) {
				return summaryTable{}, false
			}
		}
		seen[tab.n] = string(w)
		tab.cols[tab.n] = kind
		tab.n++
		name = name || kind == sumName
	}
	return tab, name
}

// isSummaryTitle matches the line before the table of a personality past
// the first: "System call usage summary for 32 bit mode:".
func isSummaryTitle(t []byte) bool {
	return hasPrefix(t, summaryTitle) && hasSuffix(t, " mode:")
}

// summaryRule returns how many groups of dashes t (trimmed, or a line as
// peekLine returns it) is, or 0 when it holds anything else: the rule
// under a head has a group for each column.
func summaryRule(t []byte) int {
	t = bytes.TrimSpace(t)
	n := 0
	for w, rest := nextWord(t); len(w) > 0; w, rest = nextWord(rest) {
		for _, c := range w {
			if c != '-' {
				return 0
			}
		}
		n++
	}
	return n
}

// row reports whether t (trimmed) is a row of the table, the name and
// numbers where its head says, and whether it is the total row. The
// errors column is blank where no call failed, so a row may have one word
// fewer than the head: the errors column's.
func (tab *summaryTable) row(t []byte) (row, total bool) {
	var words [maxSummaryColumns][]byte
	n := 0
	for w, rest := nextWord(t); len(w) > 0; w, rest = nextWord(rest) {
		if n == tab.n {
			return false, false
		}
		words[n] = w
		n++
	}
	blank := n == tab.n-1 // the errors column, if there is one
	if n != tab.n && !blank {
		return false, false
	}
	j := 0
	for _, kind := range tab.cols[:tab.n] {
		if kind == sumErrors && blank {
			blank = false
			continue
		}
		if j == n {
			return false, false
		}
		w := words[j]
		j++
		switch kind {
		case sumName:
			if !isSummaryName(w) {
				return false, false
			}
			total = string(w) == "total"
		case sumDecimal:
			if !isSummaryDecimal(w) {
				return false, false
			}
		default:
			if !allDigits(w) {
				return false, false
			}
		}
	}
	return j == n && !blank, total
}

// isSummaryName matches a syscall's name in a row ("?" where strace had
// none).
func isSummaryName(w []byte) bool {
	for _, c := range w {
		if !isNameByte(c) && c != '?' {
			return false
		}
	}
	return len(w) > 0
}

// isSummaryDecimal matches strace's %.2f and %.6f: digits, a point (a
// comma in a locale that writes one), digits.
func isSummaryDecimal(w []byte) bool {
	k := bytes.IndexAny(w, ".,")
	return k > 0 && allDigits(w[:k]) && allDigits(w[k+1:])
}

// nextWord returns the first word of b, split at ASCII spaces, and what
// follows it (empty words at the end).
func nextWord(b []byte) (w, rest []byte) {
	i := 0
	for i < len(b) && asciiSpace(b[i]) {
		i++
	}
	j := i
	for j < len(b) && !asciiSpace(b[j]) {
		j++
	}
	return b[i:j], b[j:]
}
