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
//	100.00    0.000234           8        29         1 total
//
// It counts calls and records none, so it is skipped; a trace that is only
// the table (strace -c) has nothing to judge and is refused.

// summaryLine reports whether text belongs to a summary table (and is to be
// skipped), or the error for a trace that holds only the table.
func (r *Reader) summaryLine(text []byte) (bool, error) {
	if !r.summary && !maybeSummaryHeader(text) {
		return false, nil
	}
	t := bytes.TrimSpace(text)
	if isSummaryHeader(t) {
		if r.calls == 0 && len(r.pending) == 0 {
			return true, &Error{Pos: Pos{File: r.name, Line: r.line, Col: 1}, Msg: "this is an strace -c summary: it counts calls but records none; record without -c (e.g. strace -f -ttt -y -xx -o FILE CMD)"}
		}
		r.summary = true
		r.diag(Pos{File: r.name, Line: r.line, Col: 1}, []byte("the strace -c/-C summary table starts here: skipped"))
		return true, nil
	}
	if !r.summary {
		return false, nil
	}
	if len(t) == 0 || isSummaryRule(t) || isSummaryRow(t) || bytes.HasPrefix(t, []byte("System call usage summary for")) {
		return true, nil
	}
	r.summary = false
	return false, nil
}

// maybeSummaryHeader is false for a line isSummaryHeader is false for,
// decided by its first and last bytes that are not ASCII spaces: a head
// starts with '%' or ends in "syscall" once trimmed (bytes.TrimSpace, which
// trims Unicode spaces too, so a byte past ASCII there leaves it open).
func maybeSummaryHeader(b []byte) bool {
	i := 0
	for i < len(b) && asciiSpace(b[i]) {
		i++
	}
	if i == len(b) {
		return false
	}
	if b[i] == '%' || b[i] >= utf8.RuneSelf {
		return true
	}
	k := len(b) - 1
	for asciiSpace(b[k]) {
		k--
	}
	return b[k] == 'l' || b[k] >= utf8.RuneSelf
}

// isSummaryHeader matches the column heads: "% time ... syscall", or the
// columns chosen with -U, which always name the calls and the syscall.
func isSummaryHeader(t []byte) bool {
	if bytes.HasPrefix(t, []byte("% time")) {
		return true
	}
	if !bytes.HasSuffix(t, []byte(" syscall")) {
		return false
	}
	f := bytes.Fields(t)
	return len(f) >= 2 && string(f[len(f)-1]) == "syscall" && bytes.Contains(t, []byte("calls")) && !bytes.ContainsAny(t, "()=")
}

func isSummaryRule(t []byte) bool {
	for _, c := range t {
		if c != '-' && c != ' ' {
			return false
		}
	}
	return len(t) > 0
}

// isSummaryRow matches "  0.00    0.000000           0         1           read":
// numbers, then the syscall name (or "total").
func isSummaryRow(t []byte) bool {
	f := bytes.Fields(t)
	if len(f) < 2 {
		return false
	}
	for _, w := range f[:len(f)-1] {
		for _, c := range w {
			if !isDigit(c) && c != '.' && c != '%' {
				return false
			}
		}
	}
	for _, c := range f[len(f)-1] {
		if !isNameByte(c) && c != '?' {
			return false
		}
	}
	return true
}
