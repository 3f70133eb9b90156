package oracle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// maxVersionBytes bounds the files whose versions are rebuilt in memory.
const maxVersionBytes = 16 << 20

// readInitialBytes keeps the bytes of the small files the program will
// find, so that the versions it writes can be rebuilt from its trace.
func readInitialBytes(work string, t Tree) map[string][]byte {
	out := map[string][]byte{}
	for rel, e := range t {
		if e.Kind != "file" || e.Size > maxVersionBytes {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(work, filepath.FromSlash(rel))); err == nil {
			out[rel] = b
		}
	}
	return out
}

// ownVersions rebuilds, from one run's own trace, every content each file
// had after each of its data operations, and returns their keys (as key
// gives them). Programs that write different bytes in each run (SQLite's
// journal nonce) can then be recognised as showing an earlier version of
// the same run, which versions seen live in other runs cannot show.
func (r *runner) ownVersions(trace string) (map[string]bool, error) {
	st, err := parser.Open(trace, parser.Options{})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	data := parser.NewDataReader()
	defer data.Close()
	prefix := r.work + "/"
	content := map[*model.Inode][]byte{}
	gave := map[*model.Inode]bool{} // inodes whose bytes cannot be rebuilt
	keys := map[string]bool{}
	m := model.New(model.Options{Existed: r.listing.Existed, Observe: func(m *model.Model, e *model.Effect) {
		ino := e.Inode
		if e.Data == nil || ino == nil || ino.Dir || gave[ino] {
			return
		}
		c, ok := content[ino]
		if !ok {
			if ino.Initial {
				rel, inside := strings.CutPrefix(ino.Paths()[0], prefix)
				b, known := r.initialBytes[rel]
				if !inside || !known {
					gave[ino] = true
					return
				}
				c = append([]byte(nil), b...)
			}
		}
		c, ok = apply(c, *e.Data, data)
		if !ok {
			gave[ino] = true
			return
		}
		content[ino] = c
		sum := sha256.Sum256(c)
		keys[key(Entry{Kind: "file", Sum: hex.EncodeToString(sum[:])})] = true
	}})
	for {
		ev, err := st.Next()
		if errors.Is(err, io.EOF) {
			return keys, nil
		}
		if err != nil {
			return nil, err
		}
		m.Apply(ev)
	}
}

// apply performs one data operation on an in-memory copy of a file.
func apply(c []byte, op model.DataOp, data *parser.DataReader) ([]byte, bool) {
	resize := func(n int64) {
		if n < 0 || n > maxVersionBytes {
			return
		}
		if int64(len(c)) > n {
			c = c[:n]
			return
		}
		c = append(c, make([]byte, n-int64(len(c)))...)
	}
	switch op.Kind {
	case model.DataTruncate, model.DataExtend:
		if op.Size < 0 || op.Size > maxVersionBytes {
			return nil, false
		}
		resize(op.Size)
	case model.DataZero:
		end := op.Off + op.Len
		if op.Off < 0 || end > maxVersionBytes || op.Size < 0 {
			return nil, false // (a size the trace did not know: grown or not)
		}
		if op.Size > int64(len(c)) {
			resize(op.Size) // zeroed past the end, without FALLOC_FL_KEEP_SIZE
		}
		// With FALLOC_FL_KEEP_SIZE, what lies past the end stays outside
		// the file.
		clear(c[min(op.Off, int64(len(c))):min(end, int64(len(c)))])
	case model.DataWrite:
		off := op.Off
		if off < 0 {
			off = int64(len(c)) // O_APPEND at a size the trace did not know
		}
		var buf bytes.Buffer
		for _, ch := range op.Chunks() {
			if !ch.Ref.Valid() || ch.Ref.Truncated {
				return nil, false
			}
			if _, err := data.Copy(&buf, ch.Ref, ch.Len); err != nil {
				return nil, false
			}
		}
		end := off + int64(buf.Len())
		if end > maxVersionBytes {
			return nil, false
		}
		if int64(len(c)) < end {
			resize(end)
		}
		copy(c[off:end], buf.Bytes())
	}
	return c, true
}
