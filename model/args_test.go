package model

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/parser"
)

// TestNarrowedCallsChangeNothing: the calls ArgPositions decodes only
// some positions of never change the model (no Effect but EffRead, which
// changes nothing, so no crash point prints them with their arguments),
// on any fixture trace or form.
func TestNarrowedCallsChangeNothing(t *testing.T) {
	forms, err := filepath.Glob("../parser/testdata/forms/*.strace")
	if err != nil || len(forms) == 0 {
		t.Fatalf("forms: %v", err)
	}
	var inputs []traceInput
	for _, f := range forms {
		inputs = append(inputs, traceInput{name: f, open: func() (parser.Stream, error) { return parser.Open(f, parser.Options{}) }})
	}
	inputs = append(inputs, fixtureInputs(t)...)
	seen := map[string]bool{}
	for _, in := range inputs {
		s, err := in.open()
		if err != nil {
			t.Fatal(err)
		}
		m := New(Options{Existed: in.listing.Existed, Reads: true, Observe: func(_ *Model, e *Effect) {
			if e.Kind != EffExit && e.Kind != EffRead && positions[e.Event.Call] != parser.AllArgs {
				t.Errorf("%s: %s changed the model, but ArgPositions decodes only some of its arguments", e.Event.Pos, e.Event.Name)
			}
		}})
		for {
			ev, err := s.Next()
			if err != nil {
				break
			}
			if positions[ev.Call] != parser.AllArgs {
				seen[ev.Name] = true
			}
			m.Apply(ev)
		}
		s.Close()
	}
	for _, name := range []string{"read", "newfstatat", "lseek", "statfs", "fchmod", "getdents64"} {
		if !seen[name] {
			t.Errorf("no fixture has a %s call, or it is not narrowed", name)
		}
	}
}

// TestArgPositions pins what the model reads of a few calls.
func TestArgPositions(t *testing.T) {
	for name, want := range map[string]parser.ArgSet{
		"openat":     parser.AllArgs,
		"write":      parser.AllArgs,
		"read":       parser.ArgPositions(0, 2), // its count: a short read met the end
		"readv":      parser.ArgPositions(0),
		"lseek":      parser.ArgPositions(0, 1, 2),
		"pread64":    parser.ArgPositions(0, 2, 3),
		"_llseek":    parser.ArgPositions(0, 2),
		"newfstatat": parser.ArgPositions(0, 1, 2),
		"statx":      parser.ArgPositions(0, 1, 4),
		"access":     parser.ArgPositions(0),
		"faccessat":  parser.ArgPositions(0, 1),
		"readlinkat": parser.ArgPositions(0, 1),
		"getdents64": parser.ArgPositions(0),
		"fchmodat":   parser.ArgPositions(0, 1),
		"mmap":       parser.AllArgs,
		"futex":      0,
		"sendto":     parser.ArgPositions(0), // its socket, for check's watcher
		"no_such":    0,
	} {
		if got := ArgPositions(name); got != want {
			t.Errorf("ArgPositions(%q) = %b, want %b", name, got, want)
		}
		if ReadsArgs(name) != (want != 0) {
			t.Errorf("ReadsArgs(%q) = %v", name, ReadsArgs(name))
		}
	}
}

// replayText replays a trace given as text with the model's options and
// returns the model.
func replayText(t testing.TB, text string, opt parser.Options) *Model {
	t.Helper()
	return replayTextWith(t, text, opt, Options{})
}

// replayTextWith is replayText with the model's own options (an
// observer, say).
func replayTextWith(t testing.TB, text string, opt parser.Options, mo Options) *Model {
	t.Helper()
	r := parser.NewReader(strings.NewReader(text), "t", opt)
	m := New(mo)
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return m
		}
		if err != nil {
			t.Fatal(err)
		}
		m.Apply(ev)
	}
}

// TestLlseekMovesOffset: i386's _llseek puts the new offset in its third
// argument and returns 0; the write after it lands there.
func TestLlseekMovesOffset(t *testing.T) {
	m := replayText(t, `openat(AT_FDCWD, "/d/f", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3
write(3, "0123456789", 10) = 10
_llseek(3, 4, [4], SEEK_SET) = 0
write(3, "ab", 2) = 2
`, parser.Options{})
	ino := m.name("/d/f").Cache
	if ino == nil || ino.Size != 10 {
		t.Fatalf("/d/f: %+v", ino)
	}
	ops := ino.pendingList().slice()
	if len(ops) != 3 || ops[2].Off != 4 {
		t.Errorf("the write after _llseek: ops %+v, want the last at offset 4", ops)
	}
}

// TestArm64FlagsReachTheModel: a file opened with arm64's O_DIRECT,
// printed as a number, gets direct writes when the trace is read as
// arm64's, and is a directory read as amd64's.
func TestArm64FlagsReachTheModel(t *testing.T) {
	const trace = "openat(0xffffff9c, \"/d/f\", 0x10241, 0644) = 3\nwrite(3, \"x\", 1) = 1\n"
	m := replayText(t, trace, parser.Options{Arch: syscalls.ARM64})
	ino := m.name("/d/f").Cache
	if ino == nil || ino.Dir {
		t.Fatalf("as arm64: /d/f is %+v", ino)
	}
	if ops := ino.pendingList().slice(); len(ops) == 0 || ops[len(ops)-1].Kind != DataWrite || !ops[len(ops)-1].Direct {
		t.Errorf("as arm64: ops %+v, want an O_DIRECT write last", ops)
	}
	m = replayText(t, trace, parser.Options{Arch: syscalls.AMD64})
	if ino := m.name("/d/f").Cache; ino == nil || !ino.Dir {
		t.Errorf("as amd64: /d/f is %+v, want the directory O_DIRECTORY makes it", ino)
	}
}
