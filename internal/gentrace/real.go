package gentrace

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// A Template is one recorded trace cut into parts, so that copies of it can
// be written with fresh pids, a fresh working directory and new timestamps
// without parsing each line again.
type Template struct {
	Name  string
	Lines [][]part // each line without its pid and timestamp
	Pids  int      // distinct pids of the recording
	Bytes int64    // the size of one copy, roughly
}

// A part of a template line: literal text, or a slot that each copy fills.
type part struct {
	lit  string
	pid  int  // with slot pidSlot: which of the recording's pids
	slot byte // 0 literal
}

const (
	pidSlot = 1 + iota
	dirSlot
)

// LoadTemplates reads every fixtures/traces/NAME/f-ttt-y-xx.strace below
// dir (the one flag set every fixture was recorded with) as a template.
// The recordings print every byte as \xNN (-xx); a template prints only
// the bytes that are not printable that way, as strace -x does, which is
// what line lengths of everyday recordings follow.
//
// strsize > 0 cuts every quoted string to that many bytes followed by
// "..., as strace -s does (strace's default is 32); 0 keeps them whole.
func LoadTemplates(dir string, strsize int) ([]*Template, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*", "f-ttt-y-xx.strace"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no */f-ttt-y-xx.strace below %s", dir)
	}
	sort.Strings(names)
	var ts []*Template
	for _, name := range names {
		fixture := filepath.Base(filepath.Dir(name))
		t, err := loadTemplate(name, "/tmp/crashsim-fixtures/"+fixture, strsize)
		if err != nil {
			return nil, err
		}
		t.Name = fixture
		ts = append(ts, t)
	}
	return ts, nil
}

// loadTemplate cuts a -f -ttt recording into template lines; root is the
// directory it was recorded in (fixtures/record.sh's), which each copy
// renames.
func loadTemplate(name, root string, strsize int) (*Template, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	var raw [][]byte
	pids := map[string]int{}
	for sc.Scan() {
		line := unhex(sc.Bytes())
		if strsize > 0 {
			line = clipData(line, strsize)
		}
		// "PID SECONDS.MICROS REST": strace -f -ttt.
		sp := bytes.IndexByte(line, ' ')
		if sp <= 0 {
			return nil, fmt.Errorf("%s:%d: no pid", name, len(raw)+1)
		}
		pid := string(line[:sp])
		if _, err := strconv.Atoi(pid); err != nil {
			return nil, fmt.Errorf("%s:%d: no pid", name, len(raw)+1)
		}
		if _, ok := pids[pid]; !ok {
			pids[pid] = len(pids)
		}
		// strace pads a pid shorter than five digits with spaces.
		rest := bytes.TrimLeft(line[sp+1:], " ")
		sp = bytes.IndexByte(rest, ' ')
		if sp <= 0 {
			return nil, fmt.Errorf("%s:%d: no timestamp", name, len(raw)+1)
		}
		raw = append(raw, append([]byte(pid+" "), rest[sp+1:]...))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	t := &Template{Pids: len(pids)}
	for _, line := range raw {
		sp := bytes.IndexByte(line, ' ')
		parts := []part{{slot: pidSlot, pid: pids[string(line[:sp])]}, {lit: " "}}
		parts = append(parts, cut(line[sp+1:], pids, root)...)
		t.Lines = append(t.Lines, parts)
		t.Bytes += int64(len(line)) + 18 // the timestamp
	}
	return t, nil
}

// cut splits text at the recording's pids (whole numbers only) and at its
// root directory.
func cut(text []byte, pids map[string]int, root string) []part {
	var parts []part
	lit := 0
	flush := func(end int) {
		if end > lit {
			parts = append(parts, part{lit: string(text[lit:end])})
		}
	}
	for i := 0; i < len(text); {
		if bytes.HasPrefix(text[i:], []byte(root)) {
			flush(i)
			parts = append(parts, part{slot: dirSlot})
			i += len(root)
			lit = i
			continue
		}
		c := text[i]
		if c >= '0' && c <= '9' && (i == 0 || !wordByte(text[i-1])) {
			j := i
			for j < len(text) && text[j] >= '0' && text[j] <= '9' {
				j++
			}
			if j == len(text) || !wordByte(text[j]) {
				if k, ok := pids[string(text[i:j])]; ok {
					flush(i)
					parts = append(parts, part{slot: pidSlot, pid: k})
					lit = j
				}
			}
			i = j
			continue
		}
		i++
	}
	flush(len(text))
	return parts
}

func wordByte(c byte) bool {
	return c == '.' || c == '_' || c == 'x' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// unhex turns -xx's \xNN escapes back into the bytes strace prints
// plainly without -xx: printable ASCII other than the quote, the backslash
// and the angle brackets of -y annotations.
func unhex(line []byte) []byte {
	out := make([]byte, 0, len(line))
	for i := 0; i < len(line); i++ {
		if line[i] == '\\' && i+3 < len(line) && line[i+1] == 'x' {
			if v, err := strconv.ParseUint(string(line[i+2:i+4]), 16, 8); err == nil {
				c := byte(v)
				if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>' {
					out = append(out, c)
				} else {
					out = append(out, line[i:i+4]...)
				}
				i += 3
				continue
			}
		}
		out = append(out, line[i])
	}
	return out
}

// dataCalls are the calls whose strings strace -s cuts: buffers of data.
// File names are never cut; of execve's strings, all but the first (the
// file name) are.
var dataCalls = map[string]int{
	"read": 0, "write": 0, "pread64": 0, "pwrite64": 0, "readv": 0, "writev": 0,
	"preadv": 0, "pwritev": 0, "preadv2": 0, "pwritev2": 0, "recvfrom": 0,
	"sendto": 0, "recvmsg": 0, "sendmsg": 0, "execve": 1,
}

// clipData clips the data strings of a line "PID TS CALL(...)" or
// "PID TS <... CALL resumed>...".
func clipData(line []byte, n int) []byte {
	f := bytes.Fields(line)
	if len(f) < 3 {
		return line
	}
	name := f[2]
	if bytes.Equal(name, []byte("<...")) && len(f) > 3 {
		name = f[3]
	} else if i := bytes.IndexByte(name, '('); i > 0 {
		name = name[:i]
	}
	skip, ok := dataCalls[string(name)]
	if !ok {
		return line
	}
	if skip > 0 && bytes.Contains(line, []byte("resumed>")) {
		skip = 0
	}
	return clip(line, n, skip)
}

// clip cuts each quoted string of line after the first skip to n bytes, as strace -s n prints
// it: the first n bytes, the closing quote and "...".
func clip(line []byte, n, skip int) []byte {
	out := make([]byte, 0, len(line))
	for i := 0; i < len(line); i++ {
		out = append(out, line[i])
		if line[i] != '"' {
			continue
		}
		if skip > 0 {
			skip--
			j := i + 1
			for j < len(line) && line[j] != '"' {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, line[i+1:min(j+1, len(line))]...)
			i = j
			continue
		}
		// A string: count its bytes (an escape is one) up to its end.
		j, count := i+1, 0
		for j < len(line) && line[j] != '"' {
			if count == n {
				break
			}
			k := j + 1
			if line[j] == '\\' && k < len(line) {
				if line[k] == 'x' {
					k += 3
				} else {
					k++
				}
			}
			out = append(out, line[j:min(k, len(line))]...)
			j, count = k, count+1
		}
		if j < len(line) && line[j] != '"' {
			// Cut: skip to the closing quote.
			for j < len(line) && line[j] != '"' {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, '"', '.', '.', '.')
			i = j
			continue
		}
		if j < len(line) {
			out = append(out, '"')
		}
		i = j
	}
	return out
}

// RealOptions shape a real-shaped trace.
type RealOptions struct {
	Bytes int64  // stop after the copy that passes this many bytes
	Seed  uint64 // the same seed gives the same trace
}

// WriteReal writes copies of the templates, picked at random, one after
// another: each with pids no other copy uses, its recording directory
// renamed to ROOT.rN, and timestamps that keep rising. It returns the
// number of lines written.
func WriteReal(w io.Writer, ts []*Template, opt RealOptions) (int64, error) {
	if len(ts) == 0 {
		return 0, fmt.Errorf("no templates")
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	rng := rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15))
	cw := &countWriter{w: bw}
	var lines int64
	ts0 := int64(1_795_000_000_000_000)
	nextPid := 10000
	var buf []byte
	pids := make([]string, 0, 64)
	for copyN := 0; cw.n < opt.Bytes; copyN++ {
		t := ts[rng.IntN(len(ts))]
		pids = pids[:0]
		for range t.Pids {
			pids = append(pids, strconv.Itoa(nextPid))
			nextPid++
		}
		dir := fmt.Sprintf("/tmp/crashsim-fixtures/%s.r%d", t.Name, copyN)
		for _, parts := range t.Lines {
			ts0 += int64(1 + rng.IntN(40))
			buf = buf[:0]
			for i, p := range parts {
				switch p.slot {
				case pidSlot:
					buf = append(buf, pids[p.pid]...)
				case dirSlot:
					buf = append(buf, dir...)
				default:
					buf = append(buf, p.lit...)
				}
				if i == 0 {
					// After the leading pid: the -ttt timestamp.
					buf = append(buf, ' ')
					buf = strconv.AppendInt(buf, ts0/1e6, 10)
					buf = append(buf, '.')
					buf = fmt.Appendf(buf, "%06d", ts0%1e6)
				}
			}
			buf = append(buf, '\n')
			if _, err := cw.Write(buf); err != nil {
				return lines, err
			}
			lines++
		}
	}
	return lines, bw.Flush()
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
