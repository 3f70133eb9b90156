package parser

import (
	"bufio"
	"fmt"
	"io"

	"github.com/crashsim/crashsim/internal/inputfile"
)

// DataReader decodes the bytes a DataRef points at, re-reading them from
// the trace file. It keeps the files it opened; Close them when done.
type DataReader struct {
	files map[string]io.ReaderAt
}

// NewDataReader returns an empty DataReader.
func NewDataReader() *DataReader { return &DataReader{files: map[string]io.ReaderAt{}} }

// Close closes every trace file the reader opened.
func (d *DataReader) Close() error {
	var first error
	for _, f := range d.files {
		if c, ok := f.(io.Closer); ok {
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	d.files = map[string]io.ReaderAt{}
	return first
}

// setSource makes references to name read from r instead of the file (the
// fuzzers parse traces held in memory).
func (d *DataReader) setSource(name string, r io.ReaderAt) { d.files[name] = r }

func (d *DataReader) file(name string) (io.ReaderAt, error) {
	if f, ok := d.files[name]; ok {
		return f, nil
	}
	f, err := inputfile.Open(name, inputfile.Named)
	if err != nil {
		return nil, err
	}
	d.files[name] = f
	return f, nil
}

// Copy decodes the string at ref into w, at most limit bytes (limit < 0:
// all). strace prints the count the program asked for; callers clip to the
// call's return value with limit. It returns the number of bytes written.
func (d *DataReader) Copy(w io.Writer, ref DataRef, limit int64) (int64, error) {
	if !ref.Valid() {
		return 0, fmt.Errorf("no data reference")
	}
	f, err := d.file(ref.File)
	if err != nil {
		return 0, err
	}
	// Buffers sized to the string: most are a few bytes, and a reader of
	// a whole trace decodes many of them.
	size := min(64<<10, max(16, ref.Len))
	br := bufio.NewReaderSize(io.NewSectionReader(f, ref.Off, int64(ref.Len)), size)
	bw := bufio.NewWriterSize(w, size)
	var n int64
	for limit < 0 || n < limit {
		c, err := br.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		if c == '\\' {
			if c, err = unescapeOne(br); err != nil {
				return n, fmt.Errorf("%s: bad escape in data at offset %d: %w", ref.File, ref.Off, err)
			}
		}
		if err := bw.WriteByte(c); err != nil {
			return n, err
		}
		n++
	}
	return n, bw.Flush()
}

// Bytes decodes the string at ref, at most limit bytes (limit < 0: all).
func (d *DataReader) Bytes(ref DataRef, limit int64) ([]byte, error) {
	var b bytesBuffer
	_, err := d.Copy(&b, ref, limit)
	return b, err
}

type bytesBuffer []byte

func (b *bytesBuffer) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}

// unescapeOne decodes the escape after a backslash.
func unescapeOne(br *bufio.Reader) (byte, error) {
	c, err := br.ReadByte()
	if err != nil {
		return 0, fmt.Errorf("text ends after a backslash")
	}
	if b, ok := simpleEscape(c); ok {
		return b, nil
	}
	switch c {
	case 'x':
		h, err1 := br.ReadByte()
		l, err2 := br.ReadByte()
		hi, ok1 := hexVal(h)
		lo, ok2 := hexVal(l)
		if err1 != nil || err2 != nil || !ok1 || !ok2 {
			return 0, fmt.Errorf("bad \\x escape")
		}
		return hi<<4 | lo, nil
	}
	if c < '0' || c > '7' {
		return 0, fmt.Errorf("unknown escape \\%c", c)
	}
	v := int(c - '0')
	for n := 1; n < 3; n++ {
		p, err := br.Peek(1)
		if err != nil || p[0] < '0' || p[0] > '7' {
			break
		}
		br.ReadByte()
		v = v*8 + int(p[0]-'0')
	}
	if v > 0xff {
		return 0, fmt.Errorf("octal escape out of range")
	}
	return byte(v), nil
}
