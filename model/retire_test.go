package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/gentrace"
	"github.com/crashsim/crashsim/parser"
	"github.com/google/go-cmp/cmp"
)

// effectWords describes what an event did, for comparing two models
// event by event.
func effectWords(e *Effect) string {
	var b strings.Builder
	fmt.Fprintf(&b, "kind %d line %d", e.Kind, e.Ref.Line)
	if e.Inode != nil {
		fmt.Fprintf(&b, " inode %d %q size %d/%d v%d", e.Inode.ID, e.Inode.Path, e.Inode.Size, e.Inode.DurableSize, e.Inode.Versions())
	}
	if d := e.Data; d != nil {
		fmt.Fprintf(&b, " data %d off %d len %d size %d<-%d hist %d", d.Kind, d.Off, d.Len, d.Size, d.SizeBefore, d.Hist)
	}
	ops := func(what string, l []*EntryOp) {
		for _, op := range l {
			fmt.Fprintf(&b, " %s %s@%d", what, op.Kind, op.Event().Line)
			for _, c := range op.Changes {
				fmt.Fprintf(&b, " %s:%d>%d", c.Path, inodeID(c.Old), inodeID(c.New))
			}
		}
	}
	if e.Entry != nil {
		ops("entry", []*EntryOp{e.Entry})
	}
	ops("persisted", e.Persisted)
	ops("covered", e.Covered)
	if h := e.Handle; h != nil {
		fmt.Fprintf(&b, " handle %q %d %d", h.Path, h.Offset, inodeID(h.Node))
	}
	for _, op := range e.PendingBefore() {
		fmt.Fprintf(&b, " before %d@%d", op.Kind, op.Event().Line)
	}
	return b.String()
}

func inodeID(n *Inode) int {
	if n == nil {
		return 0
	}
	return n.ID
}

// inodeView is what anyone outside the model can read of an inode.
type inodeView struct {
	ID                            int
	Dir, Initial, Unsure          bool
	Path, LastPath                string
	Names, Paths                  []string
	Size, DurableSize             int64
	Written, Modified, HadContent bool
	LastSync, FailedSync          *Ref
	SyncRange, Unmodeled          *Ref
	Versions                      int
	Pending                       []DataOp
	DataPending                   bool
}

func viewOf(n *Inode) inodeView {
	return inodeView{n.ID, n.Dir, n.Initial, n.Unsure, n.Path, n.LastPath(), n.Names(), n.Paths(), n.Size, n.DurableSize,
		n.Written, n.Modified, n.HadContent, n.LastSync, n.FailedSync(), n.SyncRange(), n.Unmodeled(),
		n.Versions(), n.PendingWrites(), n.DataPending()}
}

// pair replays the same events through a model that retires files (at
// every event, with collections in between so that retired inodes nobody
// holds are rebuilt) and one that does not.
type pair struct {
	t          *testing.T
	name       string
	ret, keep  *Model
	effR, effK []string
	touched    []string // the paths the event's effects name
	events     int
	maxRetired int
	spilled    int // records of the retiring model in the temp file, most at once
}

// newPair makes the pair, and has the retiring model sweep its weak
// pointers at every retirement until the test ends.
func newPair(t *testing.T, name string, opt Options) *pair {
	if n := weakSweepMin; n != 1 {
		weakSweepMin = 1
		t.Cleanup(func() { weakSweepMin = n })
	}
	pr := &pair{t: t, name: name}
	ro, ko := opt, opt
	ro.Retire, ro.RetireBatch = true, 1
	ro.Observe = func(m *Model, e *Effect) { pr.effR = append(pr.effR, effectWords(e)) }
	ko.Observe = func(m *Model, e *Effect) {
		pr.effK = append(pr.effK, effectWords(e))
		if e.Inode != nil {
			pr.touched = append(pr.touched, e.Inode.Paths()...)
		}
		for _, op := range append([]*EntryOp{e.Entry}, e.Persisted...) {
			if op != nil {
				for _, c := range op.Changes {
					pr.touched = append(pr.touched, c.Path)
				}
			}
		}
	}
	pr.ret, pr.keep = New(ro), New(ko)
	// Only the shared records: a cleanup that held pr would keep both
	// models of every replay until the test ends, and each runtime.GC
	// of step would scan them all again.
	sh := pr.ret.opt.Shared
	t.Cleanup(func() { sh.Close() })
	return pr
}

// step applies one event to both and compares what it did and the crash
// states of the paths it touched.
func (pr *pair) step(ev *parser.Event) bool {
	pr.effR, pr.effK, pr.touched = pr.effR[:0], pr.effK[:0], pr.touched[:0]
	pr.ret.Apply(ev)
	pr.keep.Apply(ev)
	pr.events++
	if pr.events%64 == 0 {
		runtime.GC()
	}
	pr.maxRetired = max(pr.maxRetired, pr.ret.Retired())
	pr.spilled = max(pr.spilled, spilledRecords(pr.ret))
	if d := cmp.Diff(pr.effK, pr.effR); d != "" {
		pr.t.Errorf("%s line %d: effects differ (-keep +retire):\n%s", pr.name, ev.Pos.Line, d)
		return false
	}
	for _, p := range pr.touched {
		if !pr.same(p, ev.Pos.Line) {
			return false
		}
	}
	return true
}

func (pr *pair) same(p string, line int) bool {
	want, got := pr.keep.Crash(p, 256), pr.ret.Crash(p, 256)
	if d := cmp.Diff(want, got, cmp.AllowUnexported(PathOutcomes{}, cutState{})); d != "" {
		pr.t.Errorf("%s line %d: crash states of %s differ (-keep +retire):\n%s", pr.name, line, p, d)
		return false
	}
	return true
}

// finish compares the whole of both models: every path's crash states,
// every inode, the pending entry operations and the names with some.
func (pr *pair) finish() {
	paths := make([]string, 0, len(pr.keep.names))
	for p := range pr.keep.names {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var want, got []inodeView
	pr.keep.EachInode(func(n *Inode) { want = append(want, viewOf(n)) })
	pr.ret.EachInode(func(n *Inode) { got = append(got, viewOf(n)) })
	// EachFile reads the retiring model's records without rebuilding
	// them: the same three facts as the inodes of the model that keeps
	// everything.
	type fileView struct {
		name          string
		dir, modified bool
	}
	var wantFiles, gotFiles []fileView
	pr.keep.EachInode(func(n *Inode) { wantFiles = append(wantFiles, fileView{n.Name(), n.Dir, n.Modified}) })
	pr.ret.EachFile(func(name string, dir, modified bool) { gotFiles = append(gotFiles, fileView{name, dir, modified}) })
	if d := cmp.Diff(wantFiles, gotFiles, cmp.AllowUnexported(fileView{})); d != "" {
		pr.t.Errorf("%s: EachFile differs at the end (-keep EachInode +retire EachFile):\n%s", pr.name, d)
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(DataOp{}, opMore{}), cmp.Comparer(func(a, b opRef) bool { return a.ref() == b.ref() })); d != "" {
		pr.t.Errorf("%s: inodes differ at the end (-keep +retire):\n%s", pr.name, d)
	}
	pending := func(m *Model) (out []string) {
		for p, n := range m.Names() {
			if len(n.Ops) > 0 || n.Unsure {
				out = append(out, fmt.Sprintf("%s %d ops unsure %v", p, len(n.Ops), n.Unsure))
			}
		}
		for _, op := range m.PendingEntries() {
			out = append(out, fmt.Sprintf("pending %s@%d", op.Kind, op.Event().Line))
		}
		sort.Strings(out)
		return out
	}
	if d := cmp.Diff(pending(pr.keep), pending(pr.ret)); d != "" {
		pr.t.Errorf("%s: pending names differ at the end (-keep +retire):\n%s", pr.name, d)
	}
	for _, p := range paths {
		if !pr.same(p, -1) {
			return
		}
	}
	if len(pr.keep.Names()) != len(pr.ret.Names()) {
		pr.t.Errorf("%s: %d names kept, %d after asking every path of the retiring model", pr.name, len(pr.keep.Names()), len(pr.ret.Names()))
	}
}

// TestRetireSameAsLive: a model that retires files answers exactly as one
// that keeps everything, event by event and at the end, on every fixture
// trace (with and without its listing), a many-files trace and repeated
// saves, under every persistence model; and it does retire files.
func TestRetireSameAsLive(t *testing.T) { retireSameAsLive(t) }

// retireSameAsLive is TestRetireSameAsLive, returning how many replays
// had records in the temp file and how many there were.
func retireSameAsLive(t *testing.T) (spilled, replays int) {
	inputs := fixtureInputs(t)
	var files bytes.Buffer
	if _, err := gentrace.WriteFiles(&files, gentrace.FilesOptions{Files: 300, PerDir: 40}); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"files": files.String(), "revive": reviveTrace} {
		inputs = append(inputs, traceInput{name, func() (parser.Stream, error) {
			return parser.NewReader(strings.NewReader(text), name, parser.Options{}), nil
		}, nil})
	}
	retired := 0
	for _, in := range inputs {
		for _, p := range testModels() {
			s, err := in.open()
			if err != nil {
				t.Fatal(err)
			}
			opt := in.options(p)
			pr := newPair(t, fmt.Sprintf("%s under %s", in.name, p), opt)
			ok := true
			for ok {
				ev, err := s.Next()
				if err != nil {
					break // the end, or where a fixture of bad input stops
				}
				ok = pr.step(ev)
			}
			s.Close()
			if ok {
				pr.finish()
			}
			if pr.maxRetired > 0 {
				retired++
			}
			if pr.spilled > 0 {
				spilled++
			}
			if err := pr.ret.opt.Shared.Err(); err != nil {
				t.Errorf("%s: %v", pr.name, err)
			}
		}
	}
	// At least one replay in four must retire files.
	replays = len(inputs) * len(testModels())
	if retired*4 < replays {
		t.Errorf("retirement happened in %d of %d replays: the comparison tests little", retired, replays)
	}
	return spilled, replays
}

// reviveTrace retires files and then uses them again every way a trace
// can: reopened and appended to, truncated, renamed, linked, unlinked,
// their directory synced and renamed, written through an fd held open
// across the retirement.
const reviveTrace = `openat(AT_FDCWD, "/d/a.tmp", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3
write(3, "one\n", 4) = 4
fsync(3) = 0
close(3) = 0
rename("/d/a.tmp", "/d/a") = 0
openat(AT_FDCWD, "/d/b", O_WRONLY|O_CREAT|O_EXCL, 0666) = 5
write(5, "held\n", 5) = 5
fdatasync(5) = 0
openat(AT_FDCWD, "/d/c", O_WRONLY|O_CREAT|O_EXCL, 0666) = 6
write(6, "cee\n", 4) = 4
fsync(6) = 0
close(6) = 0
mkdir("/d/sub", 0755) = 0
openat(AT_FDCWD, "/d/sub/e", O_WRONLY|O_CREAT|O_EXCL, 0666) = 6
write(6, "eee\n", 4) = 4
fsync(6) = 0
close(6) = 0
openat(AT_FDCWD, "/d/sub", O_RDONLY|O_DIRECTORY) = 6
fsync(6) = 0
close(6) = 0
openat(AT_FDCWD, "/d", O_RDONLY|O_DIRECTORY) = 4
fsync(4) = 0
newfstatat(AT_FDCWD, "/d/old", {st_mode=S_IFREG|0644, st_size=9, ...}, 0) = 0
openat(AT_FDCWD, "/d/a", O_WRONLY|O_APPEND) = 3
write(3, "two\n", 4) = 4
close(3) = 0
write(5, "later\n", 6) = 6
close(5) = 0
truncate("/d/c", 2) = 0
link("/d/a", "/d/a2") = 0
fsync(4) = 0
rename("/d/c", "/d/a") = 0
unlink("/d/a2") = 0
openat(AT_FDCWD, "/d/old", O_RDONLY) = 3
read(3, "old data\n", 64) = 9
close(3) = 0
rename("/d/sub", "/d/moved") = 0
openat(AT_FDCWD, "/d/moved/e", O_WRONLY|O_TRUNC) = 3
write(3, "new\n", 4) = 4
close(3) = 0
fsync(4) = 0
unlink("/d/b") = 0
sync() = 0
openat(AT_FDCWD, "/d/a.tmp", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3
write(3, "again\n", 6) = 6
close(3) = 0
rename("/d/a.tmp", "/d/moved/e") = 0
exit_group(0) = ?
+++ exited with 0 +++
`

// TestRetireThenRevive replays each prefix of reviveTrace in a retiring
// and a keeping model and compares every path's crash states after it, so
// that asking never brings a file back before the events that follow use
// it: files retire once durable, and come back the same.
func TestRetireThenRevive(t *testing.T) {
	lines := strings.SplitAfter(reviveTrace, "\n")
	for _, p := range Persistences {
		retiredAt := map[int]int{}
		for k := 1; k <= len(lines); k++ {
			text := strings.Join(lines[:k], "")
			name := fmt.Sprintf("first %d lines under %s", k, p)
			pr := newPair(t, name, Options{Persistence: p})
			s := parser.NewReader(strings.NewReader(text), "revive", parser.Options{})
			ok := true
			for ok {
				ev, err := s.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				ok = pr.step(ev)
			}
			pr.ret.retirePass()
			runtime.GC()
			retiredAt[k] = pr.ret.Retired()
			if ok {
				pr.finish()
			}
		}
		// After "fsync(4)" of /d (line 22) a.tmp's name, a, c, sub and
		// sub/e are durable and closed; b is still open, and retires too.
		if retiredAt[22] < 4 {
			t.Errorf("under %s: %d inodes retired after the directory fsync, want at least 4 (a, b, c, sub/e)", p, retiredAt[22])
		}
	}
}

// TestRetireShared: models of every persistence model that share their
// retired records (Options.Shared), one of them numbering its inodes one
// off from the others, each answer exactly as a model that keeps
// everything; and the models that agree do share records.
func TestRetireShared(t *testing.T) {
	var files bytes.Buffer
	if _, err := gentrace.WriteFiles(&files, gentrace.FilesOptions{Files: 300, PerDir: 40}); err != nil {
		t.Fatal(err)
	}
	// An inode made before the trace's own shifts the IDs of the last
	// model's.
	const extra = "openat(AT_FDCWD, \"/elsewhere\", O_WRONLY|O_CREAT|O_EXCL, 0666) = 9\nclose(9) = 0\n"
	for name, text := range map[string]string{"files": files.String(), "revive": reviveTrace} {
		shared := new(Shared)
		var pairs []*pair
		for _, p := range Persistences {
			pairs = append(pairs, newPair(t, fmt.Sprintf("%s under %s, shared", name, p), Options{Persistence: p, Shared: shared}))
		}
		off := newPair(t, name+" under posix, shared, its IDs one off", Options{Persistence: Posix, Shared: shared})
		s := parser.NewReader(strings.NewReader(extra), "extra", parser.Options{})
		for {
			ev, err := s.Next()
			if err != nil {
				break
			}
			off.ret.Apply(ev)
			off.keep.Apply(ev)
		}
		pairs = append(pairs, off)
		s = parser.NewReader(strings.NewReader(text), name, parser.Options{})
		ok := true
		for ok {
			ev, err := s.Next()
			if err != nil {
				break
			}
			for _, pr := range pairs {
				ok = ok && pr.step(ev)
			}
		}
		if !ok {
			continue
		}
		records, retired := map[*restInode]bool{}, 0
		for _, pr := range pairs {
			pr.ret.retirePass()
			for id := 1; id <= pr.ret.inodes.n; id++ {
				if pr.ret.inodes.get(id) == nil {
					records[pr.ret.record(int32(id))] = true
					retired++
				}
			}
		}
		for _, pr := range pairs {
			pr.finish()
		}
		t.Logf("%s: %d records for %d retired inodes", name, len(records), retired)
		if name == "files" && len(records)*2 > retired {
			t.Errorf("%s: %d records for %d retired inodes in %d models: they are not shared", name, len(records), retired, len(pairs))
		}
	}
}
