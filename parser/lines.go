package parser

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultMaxLine is the longest physical line a Reader accepts unless
// Options.MaxLine says otherwise. A 64 MiB line holds 16 MiB of -xx data,
// far more than strace's -s default, yet a file without newlines (a binary,
// a log that is not strace's) stops well before it takes the machine's
// memory.
const DefaultMaxLine = 64 << 20

// ParseMaxLine reads a line limit (Options.MaxLine) written as 1048576,
// 512K, 64M, 64MiB or 1G, at most 1T.
func ParseMaxLine(s string) (int, error) {
	s = strings.TrimSpace(s)
	num := strings.TrimRight(s, "KMGiBkmgb")
	unit := strings.ToUpper(strings.TrimSuffix(strings.TrimSuffix(s[len(num):], "B"), "i"))
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q: want a positive size such as 64M or 1G", s)
	}
	shift, ok := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30}[unit]
	if !ok {
		return 0, fmt.Errorf("%q: the unit must be K, M or G", s)
	}
	if n > (1<<40)>>shift {
		return 0, fmt.Errorf("%q: at most 1T", s)
	}
	return int(n << shift), nil
}

// readBlock is the size of the Reader's buffer; a line longer than it is
// gathered into Reader.long (see longLine), which holds one copy of it and
// never grows past the limit plus a block.
const readBlock = 1 << 20

// sniffSize is how much of the start of a file is checked for binary
// content before any line is parsed.
const sniffSize = 4096

func (r *Reader) lineLimit() int {
	if r.opt.MaxLine > 0 {
		return r.opt.MaxLine
	}
	return DefaultMaxLine
}

// readLine returns the next physical line without its newline, its file
// offset, and whether it ended in a newline. The limit is checked while the
// line is gathered, so a file without newlines costs at most the limit. The
// line is good until the next readLine.
func (r *Reader) readLine() (text []byte, off int64, nl bool, err error) {
	off = r.off
	r.long.reset()
	b, err := r.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		limit := r.lineLimit()
		for {
			n := len(r.long.bytes())
			if n+len(b) > limit {
				r.off += int64(n + len(b))
				return nil, off, false, &Error{
					Pos: Pos{File: r.name, Line: r.line + 1, Col: 1},
					Msg: fmt.Sprintf("line longer than %s without a newline: this does not look like an strace log (or raise the limit with --max-line)", sizeWords(limit)),
				}
			}
			if merr := r.long.add(b, limit+readBlock); merr != nil {
				return nil, off, false, &Error{
					Pos: Pos{File: r.name, Line: r.line + 1, Col: 1},
					Msg: fmt.Sprintf("line longer than the memory there is to hold it (%s read, no more could be had: %v): lower --max-line, or give crashsim more memory", sizeWords(n), merr),
				}
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
			b, err = r.br.ReadSlice('\n')
		}
		b = r.long.bytes()
	}
	r.off += int64(len(b))
	if err != nil && err != io.EOF {
		return nil, off, false, err
	}
	if len(b) == 0 && err == io.EOF {
		return nil, off, false, io.EOF
	}
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return b[:n-1], off, true, nil
	}
	return b, off, false, nil
}

func sizeWords(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// sniff looks at the first block of the file before any line is read: a
// NUL byte or mostly control bytes mean a binary file, which is rejected
// here instead of being gathered into one enormous line.
func (r *Reader) sniff() error {
	head, _ := r.br.Peek(sniffSize)
	if len(head) == 0 {
		return nil
	}
	if what := packedAs(head); what != "" {
		return r.headError(head, 0, what)
	}
	if k := bytes.IndexByte(head, 0); k >= 0 {
		return r.headError(head, k, "NUL byte in the line: this is not an strace text log (a binary file?)")
	}
	ctl, first := 0, -1
	for i := 0; i < len(head); {
		c := head[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' && c != '\r' || c == 0x7f {
				ctl++
				if first < 0 {
					first = i
				}
			}
			i++
			continue
		}
		ru, size := utf8.DecodeRune(head[i:])
		if ru == utf8.RuneError && size == 1 && len(head)-i >= utf8.UTFMax {
			ctl++
			if first < 0 {
				first = i
			}
		}
		i += size
	}
	// strace escapes every unprintable byte it prints; a few raw ones can
	// come from a program writing to the same terminal, a lot cannot.
	if ctl > 0 && ctl*32 >= len(head) {
		return r.headError(head, first, fmt.Sprintf("%d of the first %d bytes are control or non-UTF-8 bytes: this is not an strace text log (a binary file?)", ctl, len(head)))
	}
	return nil
}

// headError positions an error at byte k of the first block.
// packedAs names what a file that starts with head is when its first
// bytes say it is a compressed log or text in UTF-16, with how to get the
// log strace wrote back; "" when they say nothing.
func packedAs(head []byte) string {
	const read = ", which crashsim does not read"
	for _, p := range []struct{ magic, what, undo string }{
		{"\x1f\x8b", "gzip", "zcat FILE > FILE.strace"},
		{"\xfd7zXZ\x00", "xz", "xzcat FILE > FILE.strace"},
		{"\x28\xb5\x2f\xfd", "zstd", "zstdcat FILE > FILE.strace"},
		{"BZh", "bzip2", "bzcat FILE > FILE.strace"},
	} {
		if bytes.HasPrefix(head, []byte(p.magic)) && (p.what != "bzip2" || len(head) > 3 && head[3] >= '1' && head[3] <= '9' && bytes.IndexByte(head, 0) >= 0) {
			article := "a "
			if p.what == "xz" {
				article = "an "
			}
			return "this is " + article + p.what + "-compressed file" + read + ": decompress it first (" + p.undo + ")"
		}
	}
	if bytes.HasPrefix(head, []byte("\xff\xfe")) || bytes.HasPrefix(head, []byte("\xfe\xff")) {
		return "this is UTF-16 text (as PowerShell's > or a Windows editor saves it)" + read + ": convert it to UTF-8 (iconv -f UTF-16 -t UTF-8 FILE > FILE.strace), or record with strace -o FILE"
	}
	return ""
}

func (r *Reader) headError(head []byte, k int, msg string) *Error {
	line := 1 + bytes.Count(head[:k], []byte("\n"))
	col := k + 1
	if nl := bytes.LastIndexByte(head[:k], '\n'); nl >= 0 {
		col = k - nl
	}
	return &Error{Pos: Pos{File: r.name, Line: line, Col: col}, Msg: msg}
}
