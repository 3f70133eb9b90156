package model

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// sizeOrderTrace: log is durable with 4 bytes; then the journal is created
// (its name not synced), log rewritten in place, then appended to.
const sizeOrderTrace = `openat(AT_FDCWD, "/d/log", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3
write(3, "one\n", 4) = 4
fsync(3) = 0
openat(AT_FDCWD, "/d", O_RDONLY|O_DIRECTORY) = 4
fsync(4) = 0
close(4) = 0
openat(AT_FDCWD, "/d/journal", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 5
write(5, "undo\n", 5) = 5
pwrite64(3, "ONE\n", 4, 0) = 4
write(3, "two\n", 4) = 4
`

// Under the ordered models a size change reaches the disk with every
// entry operation made before it (sizeorder.go): no joint state has log
// appended to while the journal, created before the append, is missing.
// The rewrite in place changes no size and may persist without it. posix
// admits both.
func TestJointSizeAfterEntry(t *testing.T) {
	for _, p := range testModels() {
		existed := func(p string) (bool, bool) { return p == "/d", true }
		tl, last := replayToLast(t, sizeOrderTrace, Options{Persistence: p, Existed: existed}, 256)
		log := tl.m.names["/d/log"].Cache
		ops := log.maybeOps()
		if ops.len() != 2 {
			t.Fatalf("under %s: log has %d pending ops, want the rewrite and the append", p, ops.len())
		}
		// What of log's pending ops a state puts on disk: rewrite, append.
		onDisk := func(s *JointState) (rewrite, appended bool) {
			cs, _ := s.Content(log.ID)
			b0, _ := cs.Persists(0, *ops.at(0))
			b1, so := cs.Persists(1, *ops.at(1))
			return b0 > 0, b1 > 0 || so
		}
		journalMissing := func(s *JointState) bool { return s.Path("/d/journal").Outcome == Missing }
		var appendedWithout, rewrittenWithout bool
		n := int64(0)
		for s := range last.Joint().All {
			n++
			rw, ap := onDisk(s)
			if journalMissing(s) {
				appendedWithout = appendedWithout || ap
				rewrittenWithout = rewrittenWithout || rw
			}
		}
		if want := p == Posix; appendedWithout != want {
			t.Errorf("under %s: a state with log appended to and the journal missing: %v, want %v", p, appendedWithout, want)
		}
		if !rewrittenWithout {
			t.Errorf("under %s: no state with log rewritten in place and the journal missing", p)
		}
		if !last.Exact || n != last.States {
			t.Errorf("under %s: %d states enumerated, the timeline counts %d (exact %v)", p, n, last.States, last.Exact)
		}
		sp := last.Joint()
		// The families: dropping the journal's creation drops the append
		// with it under the ordered models (not the rewrite), and a state
		// with the append and the least else on disk has the journal.
		for k, po := range sp.Pending() {
			if po.Entry == nil || po.Entry.Event().Line != 7 {
				continue
			}
			s := sp.Drop(k)
			rw, ap := onDisk(s)
			if !journalMissing(s) || ap != (p == Posix) || !rw {
				t.Errorf("under %s: Drop(the journal's creation): journal missing %v, log rewritten %v, appended %v", p, journalMissing(s), rw, ap)
			}
		}
		pl, _ := last.Outcome("/d/log")
		for _, target := range pl.States {
			if target.Outcome != Latest {
				continue
			}
			s, ok := sp.With("/d/log", target, false)
			if !ok {
				t.Fatalf("under %s: no state with log as the program saw it", p)
			}
			if journalMissing(s) != (p == Posix) {
				t.Errorf("under %s: With(log latest, least): journal missing %v", p, journalMissing(s))
			}
		}
		r := rand.New(rand.NewPCG(1, 2))
		for range 200 {
			s := sp.Sample(r)
			if _, ap := onDisk(s); ap && journalMissing(s) && p != Posix {
				t.Fatalf("under %s: Sample drew log appended to with the journal missing", p)
			}
		}
	}
}

// The journal's order is a constraint on size changes only: a trace with
// none (rewrites in place) has as many joint states as without it.
func TestJointSizeOrderRewritesOnly(t *testing.T) {
	text := strings.Replace(sizeOrderTrace, `write(3, "two\n", 4) = 4`, `pwrite64(3, "two\n", 4, 0) = 4`, 1)
	_, a := replayToLast(t, text, Options{Persistence: Ext4, Existed: func(p string) (bool, bool) { return p == "/d", true }}, 256)
	n := int64(0)
	for s := range a.Joint().All {
		n++
		_ = s
	}
	// journal: missing, or there with 3 contents (none, all, size only);
	// log: 4 subsets of its two rewrites in place.
	if want := int64((1 + 3) * 4); n != want || a.States != want {
		t.Errorf("%d joint states enumerated, %d counted, want %d", n, a.States, want)
	}
}

// journaledTrace: many durable files (one with a second name), a
// directory and a file in it not yet durable, then a journal created and
// every file appended to, the journal synced halfway: the paths whose
// states a cut leaves out pass jointCutPaths, drop below it at the sync,
// and include hard links and a path hanging below a new directory.
func journaledTrace() string {
	var b strings.Builder
	for i := range 70 {
		fmt.Fprintf(&b, "openat(AT_FDCWD, \"/j/f%d\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3\nwrite(3, \"one\\n\", 4) = 4\nfsync(3) = 0\nclose(3) = 0\n", i)
	}
	b.WriteString("link(\"/j/f0\", \"/j/h0\") = 0\nopenat(AT_FDCWD, \"/j\", O_RDONLY|O_DIRECTORY) = 4\nfsync(4) = 0\nclose(4) = 0\n")
	b.WriteString("mkdir(\"/j/sub\", 0755) = 0\nopenat(AT_FDCWD, \"/j/sub/x\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 6\nwrite(6, \"x\", 1) = 1\n")
	b.WriteString("openat(AT_FDCWD, \"/j/journal\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 5\nwrite(5, \"undo\\n\", 5) = 5\n")
	for i := range 70 {
		fmt.Fprintf(&b, "openat(AT_FDCWD, \"/j/f%d\", O_WRONLY|O_APPEND) = 3\nwrite(3, \"more\", 4) = 4\nclose(3) = 0\n", i)
		if i == 0 {
			b.WriteString("write(6, \"y\", 1) = 1\n")
		}
		if i == 66 {
			b.WriteString("fsync(5) = 0\nopenat(AT_FDCWD, \"/j/journal2\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 7\n")
		}
	}
	return b.String()
}

// sizeSeqs, which the joint count and the enumeration both take a state's
// newest size change from, gives what sizeSeq gives state by state (its
// prefix table is a shortcut, not another rule), at every crash point of
// the joint inputs under every model.
func TestSizeSeqsAgree(t *testing.T) {
	checked := 0
	eachPoint(t, func(name string, p Persistence, pt Point) {
		var buf []int
		for path, po := range pt.All() {
			seen := map[int]bool{}
			for _, s := range po.States {
				ino := pt.tl.m.Inode(s.Inode)
				if s.Inode == 0 || seen[s.Inode] || ino == nil {
					continue
				}
				seen[s.Inode] = true
				sizeSeqs(ino, po.States, &buf, func(k, seq int) {
					checked++
					if want := sizeSeq(ino, po.States[k]); seq != want {
						t.Fatalf("%s under %s, line %d, %s: state %q: sizeSeqs %d, sizeSeq %d", name, p, pt.Event.Line, path, po.States[k].Persisted, seq, want)
					}
				})
			}
		}
	})
	if checked == 0 {
		t.Fatal("no state checked")
	}
	t.Logf("%d states", checked)
}
