package blocklog

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// Kind is what a record logs.
type Kind uint8

const (
	Write   Kind = 1 // bytes written at Off
	Flush   Kind = 2 // a cache flush (fsync of the image)
	Mark    Kind = 3 // a crash point of the program
	Discard Kind = 4 // Off..Off+Len reads back as zeros
)

func (k Kind) String() string {
	switch k {
	case Write:
		return "write"
	case Flush:
		return "flush"
	case Mark:
		return "mark"
	case Discard:
		return "discard"
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Record is one log entry.
type Record struct {
	Kind Kind
	Off  int64 // device offset (write, discard)
	Len  int64 // bytes (write, discard)
	Data int64 // offset of a write's bytes in the data file
	ID   int64 // a mark's crash point
}

const recordSize = 1 + 4*8

func (r Record) encode(b *[recordSize]byte) {
	b[0] = byte(r.Kind)
	binary.LittleEndian.PutUint64(b[1:], uint64(r.Off))
	binary.LittleEndian.PutUint64(b[9:], uint64(r.Len))
	binary.LittleEndian.PutUint64(b[17:], uint64(r.Data))
	binary.LittleEndian.PutUint64(b[25:], uint64(r.ID))
}

func decode(b []byte) Record {
	return Record{
		Kind: Kind(b[0]),
		Off:  int64(binary.LittleEndian.Uint64(b[1:])),
		Len:  int64(binary.LittleEndian.Uint64(b[9:])),
		Data: int64(binary.LittleEndian.Uint64(b[17:])),
		ID:   int64(binary.LittleEndian.Uint64(b[25:])),
	}
}

// Writer appends records and bytes to a log. It is not safe for
// concurrent use; the server serializes.
type Writer struct {
	recs, data *os.File
	rbuf       *bufio.Writer
	dataOff    int64
	n          int64
}

// Create makes a new log at name (and name.data); neither may exist.
func Create(name string) (*Writer, error) {
	recs, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	data, err := os.OpenFile(name+".data", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		recs.Close()
		os.Remove(name)
		return nil, err
	}
	return &Writer{recs: recs, data: data, rbuf: bufio.NewWriterSize(recs, 64<<10)}, nil
}

// Append logs r; for a write, p holds its bytes (r.Data is set here).
func (w *Writer) Append(r Record, p []byte) error {
	if r.Kind == Write {
		if int64(len(p)) != r.Len {
			return fmt.Errorf("blocklog: write of %d bytes logged with length %d", len(p), r.Len)
		}
		if _, err := w.data.Write(p); err != nil {
			return err
		}
		r.Data = w.dataOff
		w.dataOff += r.Len
	}
	var b [recordSize]byte
	r.encode(&b)
	_, err := w.rbuf.Write(b[:])
	w.n++
	return err
}

// Len is the number of records appended.
func (w *Writer) Len() int64 { return w.n }

// Sync makes what was appended readable by a Reader.
func (w *Writer) Sync() error { return w.rbuf.Flush() }

// Close flushes and closes the log.
func (w *Writer) Close() error {
	err := w.rbuf.Flush()
	if cerr := w.recs.Close(); err == nil {
		err = cerr
	}
	if cerr := w.data.Close(); err == nil {
		err = cerr
	}
	return err
}

// Reader reads a log in order.
type Reader struct {
	recs *os.File
	rbuf *bufio.Reader
	data *os.File
	name string
	n    int64
}

// OpenLog opens the log at name for reading.
func OpenLog(name string) (*Reader, error) {
	recs, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	data, err := os.Open(name + ".data")
	if err != nil {
		recs.Close()
		return nil, err
	}
	return &Reader{recs: recs, rbuf: bufio.NewReaderSize(recs, 64<<10), data: data, name: name}, nil
}

// Next returns the next record, or io.EOF.
func (r *Reader) Next() (Record, error) {
	var b [recordSize]byte
	if _, err := io.ReadFull(r.rbuf, b[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return Record{}, fmt.Errorf("%s: record %d: cut short (the log was not closed)", r.name, r.n+1)
		}
		return Record{}, err
	}
	r.n++
	rec := decode(b[:])
	if rec.Kind < Write || rec.Kind > Discard || rec.Off < 0 || rec.Len < 0 || rec.Data < 0 {
		return Record{}, fmt.Errorf("%s: record %d: not a blocklog record (%v)", r.name, r.n, rec)
	}
	return rec, nil
}

// Data is the file of written bytes, for ReadAt.
func (r *Reader) Data() io.ReaderAt { return r.data }

// Close closes the log.
func (r *Reader) Close() error {
	err := r.recs.Close()
	if cerr := r.data.Close(); err == nil {
		err = cerr
	}
	return err
}
