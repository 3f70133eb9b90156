package parser

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"
)

// endless yields pattern forever (after head), counting what was read: a
// file of any size with no newline in it.
type endless struct {
	head    []byte
	pattern byte
	n       int64
}

func (e *endless) Read(p []byte) (int, error) {
	k := 0
	if int64(len(e.head)) > e.n {
		k = copy(p, e.head[e.n:])
	}
	for i := k; i < len(p); i++ {
		p[i] = e.pattern
	}
	e.n += int64(len(p))
	return len(p), nil
}

func readAll(r *Reader) error {
	for {
		if _, err := r.Next(); err != nil {
			return err
		}
	}
}

// TestLineLimitWhileReading feeds a line that never ends: the limit must
// stop it while it is read, holding no more than the limit and one block.
func TestLineLimitWhileReading(t *testing.T) {
	for _, limit := range []int{1 << 20, 3<<20 + 5} {
		src := &endless{head: []byte(`write(3, "`), pattern: 'a'}
		r := NewReader(src, "big", Options{MaxLine: limit})
		err := readAll(r)
		var pe *Error
		if !errors.As(err, &pe) || pe.Pos.Line != 1 || pe.Pos.Col != 1 || !strings.Contains(pe.Msg, "line longer than") {
			t.Fatalf("limit %d: got %v, want a line-length error at big:1:1", limit, err)
		}
		if c := r.long.size(); c > limit+readBlock {
			t.Errorf("limit %d: the reader buffered %d bytes, more than the limit and a block", limit, c)
		}
		if src.n > int64(limit)+2*readBlock {
			t.Errorf("limit %d: read %d bytes of the endless line before giving up", limit, src.n)
		}
	}
}

func TestLineLimitMessage(t *testing.T) {
	r := NewReader(&endless{pattern: 'x'}, "big", Options{MaxLine: 2 << 20})
	err := readAll(r)
	want := "big:1:1: line longer than 2 MiB without a newline: this does not look like an strace log (or raise the limit with --max-line)"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

func TestLineLimitDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB")
	}
	src := &endless{pattern: 'x'}
	r := NewReader(src, "big", Options{})
	err := readAll(r)
	if err == nil || !strings.Contains(err.Error(), "line longer than 64 MiB") {
		t.Fatalf("got %v, want the 64 MiB default", err)
	}
	if c := r.long.size(); c > DefaultMaxLine+readBlock {
		t.Errorf("buffered %d bytes", c)
	}
}

// TestLongLineWithinLimit: a line just under the limit still reads.
func TestLongLineWithinLimit(t *testing.T) {
	data := strings.Repeat("a", 3<<20)
	in := `write(3, "` + data + `", 3145728) = 3145728` + "\nclose(3) = 0\n"
	r := NewReader(strings.NewReader(in), "t", Options{MaxLine: len(in)})
	var n int
	for {
		ev, err := r.Next()
		if err != nil {
			if n != 2 {
				t.Fatalf("%d events, then %v", n, err)
			}
			break
		}
		n++
		if n == 1 && ev.Args[1].Data.Len != len(data) {
			t.Errorf("data length %d", ev.Args[1].Data.Len)
		}
	}
}

// TestBinaryRejectedInFirstBlock: a binary file with no newline for
// gigabytes is refused after its first block, not after a whole "line".
func TestBinaryRejectedInFirstBlock(t *testing.T) {
	src := &endless{head: []byte("\x7fELF\x02\x01\x01\x00"), pattern: 0x90}
	r := NewReader(src, "prog", Options{})
	err := readAll(r)
	want := "prog:1:8: NUL byte in the line: this is not an strace text log (a binary file?)"
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
	if src.n > readBlock {
		t.Errorf("read %d bytes before refusing a binary file", src.n)
	}

	src = &endless{pattern: 0xff} // no NUL, but not text either
	r = NewReader(src, "noise", Options{})
	err = readAll(r)
	if err == nil || !strings.Contains(err.Error(), "noise:1:1: 4093 of the first 4096 bytes are control or non-UTF-8 bytes") {
		t.Fatalf("got %v", err)
	}
	if src.n > readBlock {
		t.Errorf("read %d bytes before refusing noise", src.n)
	}
}

// TestTextWithSomeUTF8 is not mistaken for binary: -Y command names and
// strace messages can hold UTF-8.
func TestTextWithSomeUTF8(t *testing.T) {
	evs, _, _ := parseText(t, "12<résumé> close(3) = 0\nstrace: Prozess 5 angehängt\n")
	if len(evs) != 1 || evs[0].Comm() != "résumé" {
		t.Errorf("got %+v", evs)
	}
}

func TestParseMaxLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		err  string
	}{
		{"1048576", 1 << 20, ""}, {"512K", 512 << 10, ""}, {"64M", 64 << 20, ""}, {"64MiB", 64 << 20, ""}, {" 1G ", 1 << 30, ""}, {"1024G", 1 << 40, ""},
		{"0", 0, `"0": want a positive size such as 64M or 1G`},
		{"-5", 0, `"-5": want a positive size such as 64M or 1G`},
		{"lots", 0, `"lots": want a positive size such as 64M or 1G`},
		{"12Bi", 0, `"12Bi": the unit must be K, M or G`},
		{"1025G", 0, `"1025G": at most 1T`},
	} {
		n, err := ParseMaxLine(c.in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if n != c.want || got != c.err {
			t.Errorf("ParseMaxLine(%q) = %d, %q; want %d, %q", c.in, n, got, c.want, c.err)
		}
	}
}

// TestPackedLogNamed: a compressed log, or one saved as UTF-16 or with a
// byte order mark, is refused with what it is and how to get the text
// back, not as "a binary file?".
func TestPackedLogNamed(t *testing.T) {
	const log = "execve(\"/bin/true\", [\"true\"], 0x7ffd /* 3 vars */) = 0\nexit_group(0) = ?\n+++ exited with 0 +++\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write([]byte(log)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	utf16 := []byte{0xff, 0xfe}
	for _, c := range []byte(log) {
		utf16 = append(utf16, c, 0)
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"gzip", gz.Bytes(), "t.strace:1:1: this is a gzip-compressed file, which crashsim does not read: decompress it first (zcat FILE > FILE.strace)"},
		{"xz", append([]byte("\xfd7zXZ\x00\x00\x04"), 0xe6, 0xd6, 0xb4, 0x46), "this is an xz-compressed file"},
		{"zstd", []byte("\x28\xb5\x2f\xfd\x04\x58\x00\x00"), "this is a zstd-compressed file"},
		{"bzip2", []byte("BZh91AY&SY\x00\x01"), "this is a bzip2-compressed file"},
		{"UTF-16", utf16, "this is UTF-16 text"},
		{"a byte order mark", append([]byte("\xef\xbb\xbf"), log...), "t.strace:1:1: expected a syscall name, a signal (---) or an exit (+++), found \"\\ufeffexecve(\\\"/bin/true...\"; the file starts with a UTF-8 byte order mark"},
	} {
		err := readAll(NewReader(bytes.NewReader(c.data), "t.strace", Options{}))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	// A log that merely starts with "BZh" is read.
	if err := readAll(NewReader(strings.NewReader("BZh(1) = 0\n"), "t.strace", Options{})); err != nil && strings.Contains(err.Error(), "bzip2") {
		t.Errorf("a call named BZh: %v", err)
	}
}
