package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report"
	"github.com/crashsim/crashsim/report/wire"
)

// checkIgnores rejects a bad --ignore glob before any work is done.
func (f *checkFlags) checkIgnores() error {
	for _, g := range f.Ignore {
		if !doublestar.ValidatePattern(g) {
			return withCode(exitUsage, fmt.Errorf("--ignore %q: bad glob (a '[' with no ']'?)", g))
		}
	}
	return nil
}

// pathMatch reports whether a glob matches a traced path: the absolute
// path, the path relative to its root, or (for a glob with no slash) the
// base name. "**" crosses directories.
func pathMatch(glob, abs, rel string) bool {
	if ok, _ := doublestar.Match(glob, abs); ok {
		return true
	}
	if ok, _ := doublestar.Match(glob, rel); ok {
		return true
	}
	if !strings.Contains(glob, "/") {
		ok, _ := doublestar.Match(glob, filepath.Base(abs))
		return ok
	}
	return false
}

// filter leaves out the findings the user asked not to see: paths matching
// an ignore glob (flags and config), findings a [[suppress]] entry covers,
// and findings already in the baseline. It counts each kind, so that the
// summary says what was left out.
func (f *checkFlags) filter(g *Globals, res *check.Result, opt *report.Options) error {
	ignore := append([]string{}, f.Ignore...)
	var sup []suppress
	if g.cfg != nil {
		ignore = append(ignore, g.cfg.Ignore...)
		sup = g.cfg.Suppress
	}
	var base *wire.Fingerprints
	if f.Baseline != "" {
		var err error
		if base, err = readBaseline(f.Baseline); err != nil {
			return withCode(exitInput, err)
		}
	}
	if len(ignore) == 0 && len(sup) == 0 && base == nil {
		return nil
	}
	// One pass, over a spilled result's stream too: each finding is
	// matched once, and what is left is counted again as it is kept.
	return res.Filter(func(fd *check.Finding) bool {
		rel := opt.RelPath(fd.Path)
		switch {
		case matchAny(ignore, fd.Path, rel):
			opt.Left.Ignored++
			return false
		case suppressed(sup, fd, rel):
			opt.Left.Suppressed++
			return false
		case base.Has(report.Fingerprint(fd, *opt)):
			opt.Left.Baseline++
			return false
		}
		return true
	})
}

func matchAny(globs []string, abs, rel string) bool {
	for _, g := range globs {
		if pathMatch(g, abs, rel) {
			return true
		}
	}
	return false
}

func suppressed(sup []suppress, fd *check.Finding, rel string) bool {
	for _, s := range sup {
		if s.Rule == fd.Rule.ID && (s.Path == "" || pathMatch(s.Path, fd.Path, rel)) {
			return true
		}
	}
	return false
}
