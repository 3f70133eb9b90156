package model

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/gentrace"
	"github.com/crashsim/crashsim/parser"
	"github.com/google/go-cmp/cmp"
)

// spillAll has every record that every model holds go to the temp file at
// once, written record by record and read back chunk bytes at a time in
// order and half that alone (a record longer than that takes a read of
// its own), in a temp dir of the test's, returned, until the test ends.
func spillAll(t *testing.T, chunk int) string {
	t.Helper()
	keep, buf, ch, near := restKeep, spillBuf, spillChunk, spillNear
	restKeep, spillBuf, spillChunk, spillNear = 0, 1, chunk, chunk/2
	t.Cleanup(func() { restKeep, spillBuf, spillChunk, spillNear = keep, buf, ch, near })
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	return dir
}

// spilledRecords counts the retired inodes of m whose record is in the
// temp file.
func spilledRecords(m *Model) int {
	n := 0
	for id := 1; id <= m.inodes.n; id++ {
		if m.shared().spill.loc(int32(id)) != 0 {
			n++
		}
	}
	return n
}

func filesTrace(t *testing.T, n int) string {
	var files bytes.Buffer
	if _, err := gentrace.WriteFiles(&files, gentrace.FilesOptions{Files: n, PerDir: 40}); err != nil {
		t.Fatal(err)
	}
	return files.String()
}

// replayPairs applies text to pairs, event by event, reporting whether
// every step agreed; before each event it calls before, if not nil.
func replayPairs(t *testing.T, name, text string, pairs []*pair, before func()) bool {
	s := parser.NewReader(strings.NewReader(text), name, parser.Options{})
	defer s.Close()
	for {
		ev, err := s.Next()
		if err != nil {
			return true
		}
		if before != nil {
			before()
		}
		for _, pr := range pairs {
			if !pr.step(ev) {
				return false
			}
		}
	}
}

// TestRetireSpilledSameAsLive is TestRetireSameAsLive with every settled
// record in the temp file, read back from the file (not the write
// buffer) a few records at a time.
func TestRetireSpilledSameAsLive(t *testing.T) {
	spillAll(t, 48)
	spilled, replays := retireSameAsLive(t)
	if spilled*4 < replays {
		t.Errorf("records went to the temp file in %d of %d replays: the comparison tests little", spilled, replays)
	}
}

// TestRetireSpilledRevive: inodes whose records are in the temp file come
// back (reviveTrace uses retired files again every way a trace can, and
// renames the directory above some), through models that share records
// and models of their own, and answer as models that keep everything.
func TestRetireSpilledRevive(t *testing.T) {
	for _, chunk := range []int{48, 4096} {
		spillAll(t, chunk)
		for _, shared := range []bool{false, true} {
			var pairs []*pair
			sh := new(Shared)
			for _, p := range Persistences {
				opt := Options{Persistence: p}
				if shared {
					opt.Shared = sh
				}
				pairs = append(pairs, newPair(t, fmt.Sprintf("revive under %s, shared %v, chunk %d", p, shared, chunk), opt))
			}
			// The IDs of each retiring model in the file before the event.
			inFile := make([][]int32, len(pairs))
			revived := 0
			before := func() {
				for k, pr := range pairs {
					for _, id := range inFile[k] {
						if pr.ret.inodes.get(int(id)) != nil {
							revived++
						}
					}
					inFile[k] = inFile[k][:0]
					for id := 1; id <= pr.ret.inodes.n; id++ {
						if pr.ret.shared().spill.loc(int32(id)) != 0 {
							inFile[k] = append(inFile[k], int32(id))
						}
					}
				}
			}
			if !replayPairs(t, "revive", reviveTrace, pairs, before) {
				continue
			}
			before()
			for _, pr := range pairs {
				pr.finish()
				if err := pr.ret.opt.Shared.Err(); err != nil {
					t.Errorf("%s: %v", pr.name, err)
				}
			}
			// a, c, sub/e and a.tmp's inode are retired with the fsync of
			// /d, and used again after.
			if revived < 3*len(pairs) {
				t.Errorf("shared %v, chunk %d: %d inodes came back from the temp file in %d models, want at least 3 each", shared, chunk, revived, len(pairs))
			}
		}
	}
}

// TestRetireSpilledCollisions: with a hash that makes every two paths of
// one length collide, models with records in the temp file and in memory
// tell every path from the others, and answer as models that keep
// everything; a path never named but colliding with retired ones is not
// retired.
func TestRetireSpilledCollisions(t *testing.T) {
	h := restHash
	restHash = func(_ maphash.Seed, p string) uint64 { return uint64(len(p)) }
	t.Cleanup(func() { restHash = h })
	for _, keep := range []int{0, 40} {
		spillAll(t, 256)
		restKeep = keep
		for name, text := range map[string]string{"files": filesTrace(t, 200), "revive": reviveTrace} {
			sh := new(Shared)
			var pairs []*pair
			for _, p := range Persistences {
				pairs = append(pairs, newPair(t, fmt.Sprintf("%s under %s, keep %d", name, p, keep), Options{Persistence: p, Shared: sh}))
			}
			if !replayPairs(t, name, text, pairs, nil) {
				continue
			}
			ret := pairs[0].ret
			ret.retirePass()
			asked := 0
			for id := 1; id <= ret.inodes.n; id++ {
				if ret.inodes.get(id) != nil || ret.shared().spill.loc(int32(id)) == 0 {
					continue
				}
				p := ret.materialize(id).Path
				if p == "" {
					continue
				}
				if got, ok := ret.restGet(p); !ok || got != int32(id) {
					t.Errorf("%s, keep %d: restGet(%s) = %d, %v; want %d", name, keep, p, got, ok, id)
				}
				q := p[:len(p)-1] + "#"
				if _, named := pairs[0].keep.names[q]; !named {
					if got, ok := ret.restGet(q); ok {
						t.Errorf("%s, keep %d: restGet(%s), never named, = %d, true", name, keep, q, got)
					}
					asked++
				}
			}
			if name == "files" && asked < 20 {
				t.Errorf("keep %d: %d paths in the temp file asked for", keep, asked)
			}
			for _, pr := range pairs {
				pr.finish()
			}
			if err := sh.Err(); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestRestSpillLeavesNothing: the temp file has no name in TMPDIR while it
// is written and read, and once closed no descriptor is left open on it.
func TestRestSpillLeavesNothing(t *testing.T) {
	dir := spillAll(t, 4096)
	sh := new(Shared)
	m := New(Options{Retire: true, RetireBatch: 1, Shared: sh})
	s := parser.NewReader(strings.NewReader(filesTrace(t, 100)), "files", parser.Options{})
	for {
		ev, err := s.Next()
		if err != nil {
			break
		}
		m.Apply(ev)
	}
	if spilledRecords(m) < 40 {
		t.Fatalf("%d records in the temp file, want at least 40", spilledRecords(m))
	}
	f := sh.rest.spill.f
	if f == nil {
		t.Fatal("no temp file")
	}
	names := func() []string {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	if got := names(); len(got) > 0 {
		t.Errorf("while in use, TMPDIR holds %v", got)
	}
	link := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	target, err := os.Readlink(link)
	if err == nil && !strings.HasPrefix(target, filepath.Join(dir, "crashsim-settled-")) {
		t.Errorf("descriptor %s is %s, not the temp file", link, target)
	}
	if err := sh.Close(); err != nil {
		t.Fatal(err)
	}
	if got := names(); len(got) > 0 {
		t.Errorf("once closed, TMPDIR holds %v", got)
	}
	if err == nil {
		if now, err := os.Readlink(link); err == nil && now == target {
			t.Errorf("descriptor %s still open on %s once closed", link, target)
		}
	}
	if sh.rest.spill.f != nil || sh.rest.spill.buf != nil {
		t.Error("Close kept the file or its buffer")
	}
}

// TestRestSpillWriteError: a temp file that cannot be written is an error
// of Shared.Err, and the records it could not take stay in its buffer,
// from where the models still answer right.
func TestRestSpillWriteError(t *testing.T) {
	spillAll(t, 4096)
	ro, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	sh := new(Shared)
	var pairs []*pair
	for _, p := range Persistences {
		pairs = append(pairs, newPair(t, fmt.Sprintf("files under %s, unwritable", p), Options{Persistence: p, Shared: sh}))
	}
	sh.rest.spill.f = ro
	if replayPairs(t, "files", filesTrace(t, 100), pairs, nil) {
		for _, pr := range pairs {
			pr.finish()
		}
	}
	err = sh.Err()
	if err == nil || !strings.Contains(err.Error(), "TMPDIR") {
		t.Errorf("Err() = %v, want the write's error", err)
	}
	if sh.rest.spill.end != 0 || len(sh.rest.spill.buf) == 0 {
		t.Errorf("%d bytes written, %d kept in the buffer", sh.rest.spill.end, len(sh.rest.spill.buf))
	}
}

// TestRestSpillReadError: records that cannot be read back from the temp
// file make an error of Shared.Err, and no panic, whatever asks for them.
func TestRestSpillReadError(t *testing.T) {
	spillAll(t, 4096)
	sh := new(Shared)
	m, keep := New(Options{Retire: true, RetireBatch: 1, Shared: sh}), New(Options{})
	text := filesTrace(t, 100)
	s := parser.NewReader(strings.NewReader(text), "files", parser.Options{})
	for {
		ev, err := s.Next()
		if err != nil {
			break
		}
		m.Apply(ev)
		keep.Apply(ev)
	}
	var paths []string
	for p := range keep.Names() {
		paths = append(paths, p)
	}
	if spilledRecords(m) < 40 || sh.rest.spill.end == 0 {
		t.Fatalf("%d records, %d bytes in the temp file", spilledRecords(m), sh.rest.spill.end)
	}
	sh.rest.spill.f.Close() // behind its back: every read fails
	n := 0
	m.EachInode(func(*Inode) { n++ })
	for _, p := range paths {
		m.Crash(p, 16)
	}
	m.reviveBelow("/")
	if err := sh.Err(); err == nil {
		t.Error("reads of a closed temp file made no error")
	}
}

// TestRestRecordRoundTrip: a record and its restMore come back from their
// bytes in the file as they went in (nil and empty path lists told
// apart), and every cut of those bytes short is refused, not misread.
func TestRestRecordRoundTrip(t *testing.T) {
	sync := &Ref{Seq: 1 << 40, File: "t.strace", Line: -3, EndLine: 7, PID: -1, Syscall: "fsync"}
	recs := []struct {
		r    restInode
		more *restMore
	}{
		{restInode{lastPath: "/a", size: 12, hist: 3, syncSeq: 9, syncLine: 10, syncEnd: 1, syncPID: 77, syncKind: 2, flags: restNamed | restWritten}, nil},
		{restInode{lastPath: "", size: -1, hist: math.MaxInt32, syncPID: math.MinInt32, flags: restDir | restInitial}, nil},
		{restInode{lastPath: strings.Repeat("/long", 1000), flags: restHasMore}, &restMore{paths: []string{"/x.tmp", "/x"}, ownPaths: true, syncRange: sync}},
		{restInode{lastPath: "/b", flags: restHasMore | restNamed}, &restMore{paths: []string{}, ownPaths: true, lastSync: sync}},
		{restInode{lastPath: "/c", flags: restHasMore}, &restMore{syncRange: sync, lastSync: &Ref{}}},
	}
	for i, c := range recs {
		id := int32(1000*i + 1)
		b, _ := appendRecord(nil, nil, id, &c.r, c.more)
		body := frame(b, 0)
		if body == nil || len(body) >= len(b) {
			t.Fatalf("record %d: no frame in %d bytes", i, len(b))
		}
		gotID, r, more, ok := decodeRecord(body)
		if !ok || gotID != id {
			t.Fatalf("record %d: decoded id %d, ok %v", i, gotID, ok)
		}
		if r != c.r {
			t.Errorf("record %d: came back as %+v, want %+v", i, r, c.r)
		}
		if d := cmp.Diff(c.more, more, cmp.AllowUnexported(restMore{})); d != "" {
			t.Errorf("record %d: restMore differs (-want +got):\n%s", i, d)
		}
		if c.more != nil && (more.paths == nil) != (c.more.paths == nil) {
			t.Errorf("record %d: paths nil %v, want %v", i, more.paths == nil, c.more.paths == nil)
		}
		if hid, path, flags, size, ok := recordHead(body); !ok || hid != id || string(path) != c.r.lastPath || flags != c.r.flags || size != c.r.size {
			t.Errorf("record %d: head %d %q %d %d %v", i, hid, path, flags, size, ok)
		}
		for n := range len(body) {
			if _, _, _, ok := decodeRecord(body[:n]); ok {
				t.Errorf("record %d: its first %d of %d bytes decoded", i, n, len(body))
			}
		}
		if frame(b[:len(b)-1], 0) != nil {
			t.Errorf("record %d: a frame cut short was taken", i)
		}
	}
}
