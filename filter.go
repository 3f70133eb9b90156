package crashsim

import (
	"bufio"
	"fmt"
	"path"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/inputfile"
	"github.com/crashsim/crashsim/internal/textesc"
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
	// Baseline leaves out the problems an earlier report already had;
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

// A Baseline is the problems and findings of an earlier report, by
// problem id (report.ProblemIDs) and fingerprint (report.Fingerprint).
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
// spilled result's findings too), counting each kind of finding left out
// in opt.Left and recounting the severities of what is left.
// Suppressions and baselines work on problems (check.Group): a
// suppression of a problem's rule leaves out the whole problem (its
// findings on the paths the suppression's glob matches), a suppression of
// a consequence's rule that one finding; a problem whose id is in the
// baseline, or all of whose findings are (a baseline written before
// problems), is left out whole. Fingerprints, and paths relative to a
// root, come from opt's identity: call Identify first.
func (r *Result) Filter(f Filter, opt *report.Options) error {
	if len(f.Ignore) == 0 && len(f.Suppress) == 0 && f.Baseline == nil {
		return nil
	}
	// The ignore globs match a path relative to the first of the
	// report's roots that holds it, as its fingerprint names it.
	ignore := check.Options{Roots: opt.Roots, Ignore: f.Ignore}
	suppress := f.byRule()
	var ps *check.Problems
	var inBaseline []bool
	if len(f.Suppress) > 0 || f.Baseline != nil {
		var err error
		if ps, err = check.Group(r.Result); err != nil {
			return err
		}
		if inBaseline, err = r.baselined(ps, f.Baseline, opt); err != nil {
			return err
		}
	}
	i := 0
	// check.Result.Filter counts again what it keeps, and sees the
	// findings in their order once each: i is a finding's index.
	return r.Result.Filter(func(fd *check.Finding) bool {
		k := i
		i++
		rel := opt.RelPath(fd.Path)
		switch {
		case ignore.Ignored(fd.Path):
			opt.Left.Ignored++
			return false
		case ps != nil && (suppress.covers(fd.Rule.ID, fd.Path, rel) || suppress.covers(ps.List[ps.Of[k]].Rule.ID, fd.Path, rel)):
			opt.Left.Suppressed++
			return false
		case ps != nil && inBaseline[ps.Of[k]]:
			opt.Left.Baseline++
			return false
		}
		return true
	})
}

// baselined says of each problem whether the baseline has it: its id, or
// the fingerprints of all its findings.
func (r *Result) baselined(ps *check.Problems, base Baseline, opt *report.Options) ([]bool, error) {
	out := make([]bool, ps.Len())
	if base == nil {
		return out, nil
	}
	ids := report.ProblemIDs(ps, *opt)
	for n, p := range ps.List {
		if base.Has(ids[n]) {
			out[n] = true
			continue
		}
		all := true
		for _, i := range p.Members {
			fd, err := r.At(int(i))
			if err != nil {
				return nil, err
			}
			if !base.Has(report.Fingerprint(fd, *opt)) {
				all = false
				break
			}
		}
		out[n] = all
	}
	return out, nil
}

// suppressions are a config's [[suppress]] entries by rule, so that a
// finding is matched against its own rule's entries only, and a path
// written out without wildcards by a lookup: a config can hold tens of
// thousands of entries, and a check millions of findings.
type suppressions map[string]*ruleSuppressions

type ruleSuppressions struct {
	all     bool            // an entry with no path
	literal map[string]bool // paths with no wildcard
	globs   []string
}

func (f Filter) byRule() suppressions {
	m := suppressions{}
	for _, s := range f.Suppress {
		r := m[s.Rule]
		if r == nil {
			r = &ruleSuppressions{literal: map[string]bool{}}
			m[s.Rule] = r
		}
		switch {
		case s.Path == "":
			r.all = true
		case !strings.ContainsAny(s.Path, `*?[]{}\`):
			r.literal[s.Path] = true
		default:
			r.globs = append(r.globs, s.Path)
		}
	}
	return m
}

// covers reports whether an entry of rule matches the path abs (rel
// relative to its root) as check.MatchGlob does.
func (m suppressions) covers(rule, abs, relPath string) bool {
	r := m[rule]
	if r == nil {
		return false
	}
	if r.all {
		return true
	}
	// A literal with no '/' also names a base name, as a glob does; one
	// with a '/' never equals a base name.
	if r.literal[abs] || r.literal[relPath] || r.literal[path.Base(abs)] {
		return true
	}
	for _, g := range r.globs {
		if check.MatchGlob(g, abs, relPath) {
			return true
		}
	}
	return false
}

// ReadBaseline reads the fingerprints of an earlier report: crashsim's
// JSON, or its SARIF. The report streams: one of a million findings is
// never whole in memory. It is a regular file or a pipe named on the
// command line (inputfile), and an error says where the reading failed,
// never what the file holds (wire's reader words it so): a baseline that
// is a link to a secret must not print it.
func ReadBaseline(name string) (Baseline, error) {
	file, err := inputfile.Open(name, inputfile.Named)
	if err != nil {
		return nil, &InputError{inputfile.Describe("--baseline", err)}
	}
	defer file.Close()
	fps, err := wire.ReadFingerprints(bufio.NewReaderSize(file, 256<<10))
	if err != nil {
		return nil, &InputError{fmt.Errorf("baseline %s: %w", textesc.Escape(name), err)}
	}
	return fps, nil
}
