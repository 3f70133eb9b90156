package crashsim

import (
	"bufio"
	"fmt"
	"os"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report"
	"github.com/crashsim/crashsim/report/wire"
)

// Filter says which findings the caller asked not to see. Every finding it
// leaves out is counted by kind (wire.Left), so that a report says what
// it left out.
type Filter struct {
	// Ignore leaves out findings on paths matching these globs, as
	// Scope.Ignore leaves the paths out of scope (check.MatchGlob).
	Ignore []string
	// Suppress leaves out findings of a rule, on paths matching a glob,
	// for a stated reason (a config's [[suppress]] entries).
	Suppress []Suppress
	// Baseline leaves out the findings an earlier report already had;
	// nil has none.
	Baseline Baseline
}

// Suppress leaves out findings of one rule at paths matching a glob (all
// paths when Path is ""), for a stated reason: a path the program rebuilds
// at start, a cache.
type Suppress struct {
	Rule   string `toml:"rule"`
	Path   string `toml:"path"`
	Reason string `toml:"reason"`
}

// A Baseline is the findings of an earlier report, by fingerprint
// (report.Fingerprint).
type Baseline interface {
	Has(fingerprint string) bool
}

// Report names r's findings (Identify) and then leaves out what f covers
// (Filter): the report options every renderer of r needs, the findings'
// identity and what was left out.
func (r *Result) Report(f Filter, srcRoot string, roots []string, warn func(error)) (report.Options, error) {
	var opt report.Options
	if err := r.Identify(&opt, srcRoot, roots, warn); err != nil {
		return opt, err
	}
	return opt, r.Filter(f, &opt)
}

// Validate rejects a glob that cannot be matched, before any work is done.
func (f Filter) Validate() error {
	return Scope{Ignore: f.Ignore}.Validate()
}

// Filter leaves out of r the findings f covers, in one pass (over a
// spilled result's findings too), counting each kind in opt.Left and
// recounting the severities of what is left. Fingerprints, and paths
// relative to a root, come from opt's identity: call Identify first.
func (r *Result) Filter(f Filter, opt *report.Options) error {
	if len(f.Ignore) == 0 && len(f.Suppress) == 0 && f.Baseline == nil {
		return nil
	}
	// The ignore globs match a path relative to the first of the
	// report's roots that holds it, as its fingerprint names it.
	ignore := check.Options{Roots: opt.Roots, Ignore: f.Ignore}
	// check.Result.Filter counts again what it keeps.
	return r.Result.Filter(func(fd *check.Finding) bool {
		switch {
		case ignore.Ignored(fd.Path):
			opt.Left.Ignored++
			return false
		case f.suppressed(fd, opt.RelPath(fd.Path)):
			opt.Left.Suppressed++
			return false
		case f.Baseline != nil && f.Baseline.Has(report.Fingerprint(fd, *opt)):
			opt.Left.Baseline++
			return false
		}
		return true
	})
}

func (f Filter) suppressed(fd *check.Finding, rel string) bool {
	for _, s := range f.Suppress {
		if s.Rule == fd.Rule.ID && (s.Path == "" || check.MatchGlob(s.Path, fd.Path, rel)) {
			return true
		}
	}
	return false
}

// ReadBaseline reads the fingerprints of an earlier report: crashsim's
// JSON, or its SARIF. The report streams: one of a million findings is
// never whole in memory.
func ReadBaseline(name string) (Baseline, error) {
	file, err := os.Open(name)
	if err != nil {
		return nil, &InputError{fmt.Errorf("baseline: %w", err)}
	}
	defer file.Close()
	fps, err := wire.ReadFingerprints(bufio.NewReaderSize(file, 256<<10))
	if err != nil {
		return nil, &InputError{fmt.Errorf("baseline %s: %w", name, err)}
	}
	return fps, nil
}
