package check

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
	"github.com/google/go-cmp/cmp"
)

// TestFixtures checks every recorded trace against the findings its want
// file expects: a missing finding and an unexpected one both fail. The
// findings are those of the default (posix) model, scoped to the case's
// directory.
func TestFixtures(t *testing.T) {
	wants := fixtureWants(t)
	for _, w := range wants {
		dir := filepath.Dir(w)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			want := readWant(t, w)
			got := checkFixture(t, filepath.Join(dir, "f-ttt-y-xx.strace"), name)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPrintingFlagsAgree: strace flags that change only how calls are
// printed leave the findings as they are. A case may hold, beside its
// f-ttt-y-xx.strace, recordings with -X raw (numbers for flags and
// modes, AT_FDCWD as -100, annotated under -y) and -e verbose=none (a
// stat's buffer as an address): each must give the case's want. Both
// once lost findings: a stat of /tmp whose mode did not say S_IFDIR made
// everything below it gone, and -100</dir> was not taken for the cwd.
func TestPrintingFlagsAgree(t *testing.T) {
	n := 0
	for _, w := range fixtureWants(t) {
		dir := filepath.Dir(w)
		for _, set := range []string{"f-y-Xraw", "f-y-noverbose"} {
			tr := filepath.Join(dir, set+".strace")
			if _, err := os.Stat(tr); err != nil {
				continue
			}
			n++
			name := filepath.Base(dir)
			t.Run(name+"/"+set, func(t *testing.T) {
				if diff := cmp.Diff(readWant(t, w), checkFixture(t, tr, name)); diff != "" {
					t.Errorf("findings (-want +got):\n%s", diff)
				}
			})
		}
	}
	if n < 4 {
		t.Errorf("%d recordings with printing flags, want at least 4 (fixtures/record.sh sed-i sqlite3-delete)", n)
	}
}

// fixtureWants lists the want file of every fixture case: the traces of
// small programs (fixtures/traces) and of real applications
// (fixtures/apps). Each case directory holds f-ttt-y-xx.strace and
// initial.list beside its want, and was recorded in
// /tmp/crashsim-fixtures/CASE.
func fixtureWants(t *testing.T) []string {
	t.Helper()
	var wants []string
	for _, g := range []string{"../fixtures/traces/*/want", "../fixtures/apps/*/want"} {
		m, err := filepath.Glob(g)
		if err != nil || len(m) == 0 {
			t.Fatalf("no fixtures match %s: %v", g, err)
		}
		wants = append(wants, m...)
	}
	return wants
}

func readWant(t *testing.T, name string) []string {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.Join(strings.Fields(line), " "))
	}
	sort.Strings(out)
	return out
}

func checkFixture(t *testing.T, trace, name string) []string {
	s, err := parser.Open(trace, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	initial := readListing(t, filepath.Join(filepath.Dir(trace), "initial.list"))
	res, err := Run(s, Options{Roots: []string{"/tmp/crashsim-fixtures/" + name}, Existed: initial.Existed})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range res.findings {
		k := f.Rule.ID + " " + f.Path
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func TestScopeRoots(t *testing.T) {
	tests := []struct {
		roots []string
		path  string
		want  bool
	}{
		{nil, "/tmp/a", true},
		{nil, "/proc", false},
		{nil, "/proc/1/fd", false},
		{nil, "/procfs/x", true},
		{[]string{"/"}, "/tmp/a", true},
		{[]string{"/tmp"}, "/tmp/a", true},
		{[]string{"/tmp"}, "/tmpx/a", false},
		{[]string{"/tmp/"}, "/tmp", true},
		{[]string{"."}, "a.txt", true},
		{[]string{"."}, "/abs/a.txt", false},
	}
	for _, tc := range tests {
		o := Options{Roots: tc.roots}
		if got := o.InScope(tc.path); got != tc.want {
			t.Errorf("roots %q, path %q: in scope %v, want %v", tc.roots, tc.path, got, tc.want)
		}
	}
}
