package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// jointInputs are the fixture traces (fixtures/traces and the real
// applications' of fixtures/apps, each with its listing) and a few small
// generated ones: saves through temp files with and without syncs,
// renames over existing names, directories made and removed, hard links.
func jointInputs(t *testing.T) []traceInput {
	inputs := fixtureInputs(t)
	apps, err := filepath.Glob("../fixtures/apps/*/*.strace")
	if err != nil || len(apps) == 0 {
		t.Fatalf("application traces: %v (%d)", err, len(apps))
	}
	for _, tr := range apps {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(tr), "initial.list"))
		if err != nil {
			t.Fatal(err)
		}
		l, err := ReadInitial(bytes.NewReader(b), "initial.list")
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, traceInput{tr, func() (parser.Stream, error) { return parser.Open(tr, parser.Options{}) }, l})
	}
	gen := map[string]string{}
	var saves strings.Builder
	for i := range 12 {
		p := fmt.Sprintf("/d/f%d", i%3)
		fmt.Fprintf(&saves, "openat(AT_FDCWD, \"%s.tmp\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3\nwrite(3, \"save %d\\n\", 7) = 7\nwrite(3, \"more\\n\", 5) = 5\n", p, i%10)
		if i%2 == 0 {
			saves.WriteString("fsync(3) = 0\n")
		}
		fmt.Fprintf(&saves, "close(3) = 0\nrename(\"%s.tmp\", \"%s\") = 0\n", p, p)
		if i%5 == 4 {
			saves.WriteString("openat(AT_FDCWD, \"/d\", O_RDONLY|O_DIRECTORY) = 4\nfsync(4) = 0\nclose(4) = 0\n")
		}
	}
	gen["saves"] = saves.String()
	gen["journaled"] = journaledTrace()
	gen["tree"] = strings.Join([]string{
		`mkdir("/d/a", 0755) = 0`,
		`mkdir("/d/a/b", 0755) = 0`,
		`openat(AT_FDCWD, "/d/a/b/f", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
		`pwrite64(3, "` + strings.Repeat("x", 5000) + `", 5000, 0) = 5000`,
		`link("/d/a/b/f", "/d/g") = 0`,
		`rename("/d/a", "/d/c") = 0`,
		`unlink("/d/g") = 0`,
		`openat(AT_FDCWD, "/d/h", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 4`,
		`write(4, "h", 1) = 1`,
		`rmdir("/d/e") = 0`,
		`fsync(3) = 0`,
	}, "\n") + "\n"
	for name, text := range gen {
		inputs = append(inputs, traceInput{name, func() (parser.Stream, error) {
			return parser.NewReader(strings.NewReader(text), name, parser.Options{}), nil
		}, nil})
	}
	return inputs
}

// eachPoint replays every joint input under every model and calls f at
// every crash point, while it is the timeline's latest.
func eachPoint(t *testing.T, f func(name string, p Persistence, pt Point)) {
	for _, in := range jointInputs(t) {
		for _, p := range testModels() {
			s, err := in.open()
			if err != nil {
				t.Fatal(err)
			}
			opt := in.options(p)
			tl := NewTimeline(opt, func(p string) bool { return !strings.HasPrefix(p, "/proc/") && !strings.HasPrefix(p, "/dev/") }, 256)
			for {
				ev, err := s.Next()
				if errors.Is(err, io.EOF) || err != nil {
					break // the fixtures of bad input end with an error
				}
				if pt, ok := tl.Step(ev); ok {
					f(in.name, p, pt)
				}
			}
			s.Close()
		}
	}
}

// TestJointStatesMatchCount: wherever the joint count of a crash point is
// exact, the joint states enumerated are exactly that many, each one
// different (by key), and every state of the families is one of them.
func TestJointStatesMatchCount(t *testing.T) {
	points, enumerated, sized := 0, 0, 0
	eachPoint(t, func(name string, p Persistence, pt Point) {
		sp := pt.Joint()
		if pt.Exact != sp.Exact() {
			t.Errorf("%s under %s, line %d: count exact %v, enumeration exact %v", name, p, pt.Event.Line, pt.Exact, sp.Exact())
			return
		}
		if !pt.Exact {
			return
		}
		points++
		if n := sp.Count(); n != pt.States {
			t.Errorf("%s under %s, line %d: %d joint states enumerated, the model counts %d", name, p, pt.Event.Line, n, pt.States)
			return
		}
		if pt.States > 3000 {
			return
		}
		keys, trees := map[string]bool{}, map[[32]byte]bool{}
		n := int64(0)
		for s := range sp.All {
			n++
			k := s.Key()
			if keys[k] {
				t.Errorf("%s under %s, line %d: state %s twice", name, p, pt.Event.Line, k)
			}
			keys[k] = true
			if tk := s.TreeKey(); trees[tk] {
				t.Errorf("%s under %s, line %d: tree %x twice", name, p, pt.Event.Line, tk)
			} else {
				trees[tk] = true
			}
		}
		enumerated++
		if n != pt.States {
			t.Errorf("%s under %s, line %d: All yields %d states, the model counts %d", name, p, pt.Event.Line, n, pt.States)
		}
		// The families build states the model admits.
		var fam []*JointState
		pending := sp.Pending()
		for k := range len(pending) + 1 {
			fam = append(fam, sp.Prefix(k))
		}
		for k := range pending {
			fam = append(fam, sp.Drop(k))
			if s, ok := sp.Torn(k); ok {
				fam = append(fam, s)
			}
			if s, ok := sp.SizeOnly(k); ok {
				fam = append(fam, s)
				sized++
			}
		}
		for _, path := range sp.Paths() {
			po, _ := pt.Outcome(path)
			for _, ps := range po.States {
				for _, most := range []bool{true, false} {
					if s, ok := sp.With(path, ps, most); ok {
						fam = append(fam, s)
						if got := s.Path(path); got.Outcome != ps.Outcome || got.Persisted != ps.Persisted {
							t.Errorf("%s under %s, line %d: With(%s, %s %s) holds %s %s", name, p, pt.Event.Line, path, ps.Outcome, ps.Persisted, got.Outcome, got.Persisted)
						}
					} else {
						t.Errorf("%s under %s, line %d: With(%s, %s %s): no such state", name, p, pt.Event.Line, path, ps.Outcome, ps.Persisted)
					}
				}
			}
		}
		r := rand.New(rand.NewPCG(1, uint64(pt.Index)))
		for range 8 {
			fam = append(fam, sp.Sample(r))
		}
		for _, s := range fam {
			if !trees[s.TreeKey()] {
				t.Errorf("%s under %s, line %d: a family's state is none of the model's: %s", name, p, pt.Event.Line, s.Key())
				return
			}
		}
	})
	if points < 200 || enumerated < 200 || sized < 50 {
		t.Errorf("only %d exact points, %d enumerated, %d size-only states", points, enumerated, sized)
	}
	t.Logf("%d exact points, %d enumerated, %d size-only states", points, enumerated, sized)
}

// TestJointStatesOrder: two enumerations of the same point yield the same
// states in the same order (explore finds a state again by its place).
func TestJointStatesOrder(t *testing.T) {
	eachPoint(t, func(name string, p Persistence, pt Point) {
		if !pt.Exact || pt.States > 200 {
			return
		}
		var a, b []string
		for s := range pt.Joint().All {
			a = append(a, s.Key())
		}
		for s := range pt.Joint().All {
			b = append(b, s.Key())
		}
		if strings.Join(a, "\n") != strings.Join(b, "\n") {
			t.Fatalf("%s under %s, line %d: two enumerations differ", name, p, pt.Event.Line)
		}
	})
}

// A cross-file state: the rename of a file persisted while the creation
// of another, earlier, did not (posix), which the ordered models never
// leave.
func TestJointStateAcrossFiles(t *testing.T) {
	text := strings.Join([]string{
		`openat(AT_FDCWD, "/d/obj", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
		`write(3, "object", 6) = 6`,
		`fsync(3) = 0`,
		`close(3) = 0`,
		`openat(AT_FDCWD, "/d/ref.lock", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
		`write(3, "obj", 3) = 3`,
		`fsync(3) = 0`,
		`close(3) = 0`,
		`rename("/d/ref.lock", "/d/ref") = 0`,
	}, "\n") + "\n"
	for _, p := range []Persistence{Posix, Ext4} {
		existed := func(p string) (bool, bool) { return p == "/d", true } // only the directory
		_, last := replayToLast(t, text, Options{Persistence: p, Existed: existed}, 256)
		found := false
		for s := range last.Joint().All {
			obj, ref := s.Path("/d/obj"), s.Path("/d/ref")
			if obj.Outcome == Missing && ref.Outcome == Latest {
				found = true
			}
		}
		if want := p == Posix; found != want {
			t.Errorf("under %s: a state with ref renamed and obj missing: %v, want %v", p, found, want)
		}
		// With builds it too, from the outcome of obj alone.
		var missing PathState
		po, _ := last.Outcome("/d/obj")
		for _, s := range po.States {
			if s.Outcome == Missing {
				missing = s
			}
		}
		s, ok := last.Joint().With("/d/obj", missing, true)
		if p != Posix {
			// An fsync commits ext4's running transaction: obj's name is
			// durable, and no state has it missing.
			if ok {
				t.Errorf("under %s: a state with obj missing after its fsync", p)
			}
			continue
		}
		if !ok {
			t.Fatalf("under %s: no state with obj missing", p)
		}
		got := []string{string(s.Path("/d/obj").Outcome), string(s.Path("/d/ref").Outcome), string(s.Path("/d/ref.lock").Outcome)}
		if want := "missing latest missing"; strings.Join(got, " ") != want {
			t.Errorf("under %s: With(obj missing, most) leaves obj, ref, ref.lock %v, want %s", p, got, want)
		}
	}
}
