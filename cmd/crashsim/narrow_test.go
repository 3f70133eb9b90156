package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// modelArgsTraces are the traces whose outputs must not change when check
// and states decode only the arguments the model reads.
func modelArgsTraces(t *testing.T) []string {
	t.Helper()
	var traces []string
	for _, g := range []string{"../../fixtures/traces/*/*.strace", "../../parser/testdata/forms/*.strace", "../../fixtures/arch/*.strace", "../../fixtures/arch/i386/*.strace"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, m...)
	}
	if len(traces) < 50 {
		t.Fatalf("only %d traces", len(traces))
	}
	return traces
}

// modelArgsViews are the outputs compared: what a user reads of check and
// states. states text prints the call of every point, arguments and all.
var modelArgsViews = [][]string{
	{"check", "--format", "json"},
	{"check"},
	{"states", "--format", "json"},
	{"states", "--format", "json", "--all-paths"},
	{"states"},
}

// runWithArgs runs crashsim with check and states decoding the argument
// positions decode keeps (all when nil), and returns all it printed.
func runWithArgs(t *testing.T, decode func(string) parser.ArgSet, args ...string) string {
	t.Helper()
	saved := modelArgs
	modelArgs = decode
	defer func() { modelArgs = saved }()
	out, errs, code := runCLI(t, args...)
	return "exit " + strconv.Itoa(code) + "\nstdout:\n" + out + "\nstderr:\n" + errs
}

// TestModelArgsSameOutput: check and states print byte for byte the same
// whether every call's arguments are decoded or only the positions
// model.ArgPositions names.
func TestModelArgsSameOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs every fixture trace in five views, twice (TestCheckStatesGolden still pins check and states)")
	}
	for _, trace := range modelArgsTraces(t) {
		for _, view := range modelArgsViews {
			args := append(slices.Clone(view), trace)
			full := runWithArgs(t, nil, args...)
			some := runWithArgs(t, model.ArgPositions, args...)
			if full != some {
				t.Errorf("crashsim %s: output differs when only model.ArgPositions positions are decoded:\n%s", strings.Join(args, " "), firstDiff(full, some))
			}
		}
	}
}

// TestModelArgsComparisonSeesAMissingCall: leaving out a call the model
// needs, or one position of a call that it reads, changes some output, so
// TestModelArgsSameOutput would catch a set that misses one.
func TestModelArgsComparisonSeesAMissingCall(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a test of TestModelArgsSameOutput's fixtures, which -short skips")
	}
	traces := modelArgsTraces(t)
	for _, c := range []struct {
		call string
		pos  int // -1: the whole call
	}{
		{"rename", -1}, {"openat", -1}, {"write", -1}, {"fsync", -1}, {"clone", -1},
		// Positions: a stat's buffer (a file's size before the trace), an
		// open's flags, the path of a rename's new name, the offset of a
		// pwrite64. (No fixture's output depends on the fd of a read or an
		// lseek: the offsets they move are not printed.)
		{"newfstatat", 2}, {"openat", 2}, {"rename", 1}, {"pwrite64", 3},
	} {
		if !model.ArgPositions(c.call).Has(max(c.pos, 0)) {
			t.Errorf("model.ArgPositions(%q) lacks position %d", c.call, c.pos)
			continue
		}
		without := func(name string) parser.ArgSet {
			s := model.ArgPositions(name)
			if name != c.call {
				return s
			}
			if c.pos < 0 {
				return 0
			}
			return s &^ parser.ArgPositions(c.pos)
		}
		found := false
		for _, trace := range traces {
			for _, view := range modelArgsViews {
				args := append(slices.Clone(view), trace)
				if runWithArgs(t, nil, args...) != runWithArgs(t, without, args...) {
					found = true
					break
				}
			}
			if found {
				break
			}
		}
		switch {
		case !found && c.pos < 0:
			t.Errorf("without %s's arguments every output stays the same: the fixtures do not test it", c.call)
		case !found:
			t.Errorf("without argument %d of %s every output stays the same: the fixtures do not test it", c.pos, c.call)
		}
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n- " + x + "\n+ " + y
		}
	}
	return "(same lines)"
}

// modelCalls decodes every argument of the calls model.ReadsArgs names,
// and none of the others: the reading before positions were narrowed.
func modelCalls(name string) parser.ArgSet {
	if model.ReadsArgs(name) {
		return parser.AllArgs
	}
	return 0
}

// BenchmarkModelArgs runs check and states in process on the real-shaped
// trace, decoding every call's arguments and only those model.ReadsArgs
// names, side by side:
//
//	go test ./cmd/crashsim -run '^$' -bench ModelArgs -benchmem
func BenchmarkModelArgs(b *testing.B) {
	trace := genTrace(b, b.TempDir(), "real")
	fi, err := os.Stat(trace)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range [][]string{{"check", "--fail-on", "never", "--format", "json"}, {"states", "--format", "json"}} {
		for _, side := range []struct {
			name   string
			decode func(string) parser.ArgSet
		}{{"all-args", nil}, {"model-calls", modelCalls}, {"model-positions", model.ArgPositions}} {
			b.Run(c[0]+"/"+side.name, func(b *testing.B) {
				saved := modelArgs
				modelArgs = side.decode
				defer func() { modelArgs = saved }()
				b.SetBytes(fi.Size())
				b.ReportAllocs()
				for b.Loop() {
					if code := run(append(slices.Clone(c), trace), io.Discard, io.Discard); code != 0 {
						b.Fatalf("crashsim %v: exit status %d", c, code)
					}
				}
			})
		}
	}
}
