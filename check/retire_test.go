package check

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/fixtures"
	"github.com/crashsim/crashsim/internal/gentrace"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestRetireSameFindings: with models that retire files as soon as they
// can, and the history of names pruned at every op, Run finds exactly what
// it finds with models that keep everything and a history never pruned,
// under every persistence model, on every fixture trace (with its listing
// when it has one), a many-files trace and a real-shaped one.
func TestRetireSameFindings(t *testing.T) {
	inputs := retireInputs(t)
	defer func(on bool, batch, prune int) {
		retireModels, retireBatch, namePrune = on, batch, prune
	}(retireModels, retireBatch, namePrune)
	run := func(in retireInput, retire bool) *Result {
		retireModels, retireBatch, namePrune = retire, 1, math.MaxInt
		if retire {
			namePrune = 0
		}
		return runAllModels(t, in)
	}
	for _, in := range inputs {
		sameResults(t, in.name, "-keep +retire", run(in, false), run(in, true))
	}
}

// runAllModels checks in under every persistence model. An error is
// logged (a fixture may hold a bad line on purpose), not failed on.
func runAllModels(t *testing.T, in retireInput) *Result {
	t.Helper()
	opt := in.opt
	opt.Models = model.Persistences
	res, err := Run(parser.NewReader(bytes.NewReader(in.text), in.name, parser.Options{}), opt)
	if err != nil && !strings.Contains(in.name, "bad") {
		t.Logf("%s: %v", in.name, err)
	}
	return res
}

// sameResults fails unless two results of the same trace hold the same
// findings, in memory (neither spilled), and says which differ under
// legend ("-want +got" in the test's words).
func sameResults(t *testing.T, name, legend string, want, got *Result) {
	t.Helper()
	if want != nil && len(want.parts) > 0 || got != nil && len(got.parts) > 0 {
		t.Fatalf("%s: findings spilled; this test compares them in memory", name)
	}
	// The findings are the result's own, in memory: compare them too.
	if d := cmp.Diff(want, got, cmp.AllowUnexported(Result{}), cmpopts.IgnoreUnexported(Finding{}, Rule{}), sameDirSets); d != "" {
		t.Errorf("%s: findings differ (%s):\n%s", name, legend, d)
	}
}

// sameDirSets compares the directory sets of two results by how many
// directories each holds: each run hashes them with a seed of its own.
var sameDirSets = cmp.Comparer(func(a, b dirSets) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i].hashes) != len(b[i].hashes) {
			return false
		}
	}
	return true
})

// retireInput is a trace the retirement tests run: its name, text and
// check options.
type retireInput struct {
	name string
	text []byte
	opt  Options
}

// retireInputs returns every fixture trace (with its listing when it has
// one), a many-files trace and a real-shaped one.
func retireInputs(t *testing.T) []retireInput {
	t.Helper()
	traces := fixtures.Traces(t, "../fixtures/traces")
	var inputs []retireInput
	for _, tr := range traces {
		b, err := os.ReadFile(tr)
		if err != nil {
			t.Fatal(err)
		}
		opt := Options{}
		if _, err := os.Stat(filepath.Join(filepath.Dir(tr), "initial.list")); err == nil {
			l := readListing(t, filepath.Join(filepath.Dir(tr), "initial.list"))
			opt.Existed, opt.Cwd, opt.FDs = l.Existed, l.Cwd, l.FDs
		}
		inputs = append(inputs, retireInput{tr, b, opt})
	}
	var files, real bytes.Buffer
	if _, err := gentrace.WriteFiles(&files, gentrace.FilesOptions{Files: 2000, PerDir: 100}); err != nil {
		t.Fatal(err)
	}
	ts, err := gentrace.LoadTemplates("../fixtures/traces", 32)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gentrace.WriteReal(&real, ts, gentrace.RealOptions{Bytes: 4 << 20, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, retireInput{"files", files.Bytes(), Options{}}, retireInput{"real", real.Bytes(), Options{}})

	return inputs
}
