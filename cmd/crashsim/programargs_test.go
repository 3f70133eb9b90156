package main

import (
	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/alecthomas/kong"
)

// parsed is what a parse of crashsim's command line left: the command
// structs, what kong printed and how it ended.
type parsed struct {
	cli      cli
	selected string
	err      string
	exit     int // kong's exit (--help), -1 when none
	out      string
}

// parseWith parses args on a fresh parser with parseFn.
func parseWith(t *testing.T, args []string, parseFn func(*kong.Kong, []string) (*kong.Context, error)) (p parsed) {
	t.Helper()
	var out bytes.Buffer
	p.cli.stdout, p.cli.stderr = &out, &out
	k, err := newParser(&p.cli)
	if err != nil {
		t.Fatal(err)
	}
	p.exit = -1
	func() {
		defer func() {
			if r := recover(); r != nil {
				code, ok := r.(kongExit)
				if !ok {
					panic(r)
				}
				p.exit = int(code)
			}
		}()
		ctx, err := parseFn(k, args)
		if err != nil {
			p.err = err.Error()
		}
		if ctx != nil && ctx.Selected() != nil {
			p.selected = ctx.Selected().Path()
		}
	}()
	p.out = out.String()
	p.cli.stdout, p.cli.stderr = nil, nil
	return p
}

// commandLines are command lines whose "--" is trace's or explore's, or
// is not, or is a program's own.
var commandLines = [][]string{
	{"trace", "--", "prog", "a", "b"},
	{"trace", "--", "prog", "--help", "-v", "--out", "x", "--", "--", "y"},
	{"trace", "--out", "t.strace", "--linger", "0", "--format", "json", "--", "prog"},
	{"trace", "--", "--", "x"},
	{"trace", "--"},
	{"trace", "prog", "a", "--", "b"},
	{"trace", "prog", "--help", "--", "b"},
	{"trace", "--bogus", "--", "x"},
	{"trace", "--out", "--", "--", "x"},
	{"trace", "--linger", "soon", "--", "x"},
	{"-v", "trace", "--", "x", ""},
	{"--max-line", "1M", "trace", "-o", "r.txt", "--", "x"},
	{"trace", "--help", "--", "x"},
	{"trace", "-h", "--", "x"},
	{"--help", "--", "trace", "x"},
	{"--", "trace", "x"},
	{"explore", "--checker", "true", "--", "prog", "--checker", "false"},
	{"explore", "--checker", "true", "t.strace", "--", "x"},
	{"explore", "--", "prog"},
	{"explore", "--checker=--", "-j", "2", "--", "prog", "a\nb"},
	{"explore", "--help", "--", "prog"},
	{"check", "--", "sed", "-i", "s/a/b/", "f"},
	{"check", "t.strace", "--", "x"},
	{"events", "--", "t.strace"},
	{"iobench", "--", "--size-mb"},
	{"rules", "--"},
}

// The arguments after trace's or explore's "--" go to the command as kong
// would have given them, and every other command line parses as before:
// the same command structs, errors, help and exit. (After an error the
// structs are half filled and unused.)
func TestProgramArgsAsKongParses(t *testing.T) {
	t.Chdir(t.TempDir()) // no .crashsim.toml
	for _, args := range commandLines {
		t.Run(fmt.Sprintf("%q", args), func(t *testing.T) {
			got := parseWith(t, args, parse)
			want := parseWith(t, args, (*kong.Kong).Parse)
			if want.err != "" {
				got.cli, want.cli = cli{}, cli{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("parse:\n%+v\nkong alone:\n%+v", got, want)
			}
		})
	}
}

// A program's arguments that are not UTF-8 reach it as they are. Kong's
// scan of them made each such byte U+FFFD.
func TestProgramArgsNotUTF8(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, args := range [][]string{
		{"trace", "--", "prog", "\xff", "a\x80b", "\xc3"},
		{"explore", "--checker", "true", "--", "prog", "\xff", "a\x80b", "\xc3"},
	} {
		p := parseWith(t, args, parse)
		got := p.cli.Trace.Command
		if args[0] == "explore" {
			got = p.cli.Explore.Args
		}
		if want := args[slices.Index(args, "--"):]; !slices.Equal(got, want) {
			t.Errorf("%q: the command got %q, want %q", args, got, want)
		}
	}
}

// Kong sees a program's arguments only up to trace's or explore's first
// "--", wherever a flag of the program or a "--" of its own comes after.
func TestSplitProgram(t *testing.T) {
	var c cli
	k, err := newParser(&c)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args      []string
		headWords int // -1: no cut
	}{
		{[]string{"trace", "--", "prog", "--", "x"}, 2},
		{[]string{"-v", "--arch", "arm64", "trace", "--out", "t", "--", "prog", "--help"}, 7},
		{[]string{"explore", "--checker", "c", "--", "prog"}, 4},
		{[]string{"trace", "prog", "--", "x"}, 3},
		{[]string{"trace", "--bogus", "--", "x"}, 3}, // kong's error is in the head
		{[]string{"trace", "prog", "x"}, -1},
		{[]string{"check", "--", "sed"}, -1},
		{[]string{"--", "trace", "x"}, -1},
		{[]string{"--help", "--", "trace", "x"}, -1},
		{[]string{"--bogus", "trace", "--", "x"}, -1},
	} {
		head, rest := splitProgram(k, tc.args)
		if tc.headWords < 0 {
			if rest != nil || !slices.Equal(head, tc.args) {
				t.Errorf("%q: cut into %q and %q, want it whole", tc.args, head, rest)
			}
			continue
		}
		if !slices.Equal(head, tc.args[:tc.headWords]) || !slices.Equal(rest, tc.args[tc.headWords:]) {
			t.Errorf("%q: cut into %q and %q, want after word %d", tc.args, head, rest, tc.headWords)
		}
	}
}

// programLine is explore (which stops at its flags before anything runs:
// --timeout 0) with a program of n arguments.
func programLine(n int) []string {
	args := []string{"explore", "--checker", "true", "--timeout", "0", "--", "prog"}
	for i := range n {
		args = append(args, strconv.Itoa(i))
	}
	return args
}

// allocated is how many bytes parsing args allocates.
func allocated(t *testing.T, args []string) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var c cli
	c.stdout, c.stderr = &bytes.Buffer{}, &bytes.Buffer{}
	k, err := newParser(&c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parse(k, args); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := c.Explore.Args; len(got) != len(args)-5 {
		t.Fatalf("%d program words, want %d", len(got), len(args)-5)
	}
	return after.TotalAlloc - before.TotalAlloc
}

// Parsing a program's arguments costs memory in proportion to their
// number. Kong's own scan of them copied what was left of them once per
// argument: 32 bytes × n² in all, which is what made 100,000 arguments
// take over a minute (the time itself is BenchmarkProgramArgs's).
func TestProgramArgsParseInLinearMemory(t *testing.T) {
	t.Chdir(t.TempDir())
	const small, large = 1000, 4000
	a, b := allocated(t, programLine(small)), allocated(t, programLine(large))
	perArg := float64(int64(b)-int64(a)) / (large - small)
	// Kong's scan: some 128,000 bytes for each added argument here; what
	// an argument itself takes is well under 1 KiB.
	t.Logf("%.0f bytes for each added argument", perArg)
	if perArg > 4096 {
		t.Errorf("parsing %d arguments allocated %d bytes, %d arguments %d: %.0f bytes for each added one, want it linear (< 4096)", small, a, large, b, perArg)
	}
}

// BenchmarkProgramArgs parses explore with a program of 100,000
// arguments (go test ./cmd/crashsim -run '^$' -bench ProgramArgs).
func BenchmarkProgramArgs(b *testing.B) {
	b.Chdir(b.TempDir())
	args := programLine(100_000)
	for b.Loop() {
		var c cli
		c.stdout, c.stderr = &bytes.Buffer{}, &bytes.Buffer{}
		k, err := newParser(&c)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := parse(k, args); err != nil {
			b.Fatal(err)
		}
	}
}
