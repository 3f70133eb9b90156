package main

import (
	"os"
	"path/filepath"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report"
)

// identify fills in what names findings the same way in every checkout:
// the source root (the directory crashsim runs in, as code scanning
// expects of a repository), the roots paths are relative to, and the call
// sites that stacks name.
func (f *checkFlags) identify(g *Globals, res *check.Result, opt *report.Options) error {
	if wd, err := os.Getwd(); err == nil {
		opt.SrcRoot = wd
		if real, err := filepath.EvalSymlinks(wd); err == nil {
			opt.SrcRoot = real
		}
	}
	// The roots first, in the order given, then each trace's start
	// directory.
	starts := f.bases
	f.bases = nil
	for _, r := range f.Root {
		f.addBase(r)
	}
	for _, s := range starts {
		f.addBase(s)
	}
	opt.Roots = f.bases
	if res.Spilled() {
		// Call sites are set on findings held in memory (a spilled one is
		// read back fresh each time): a spilled result is read back whole
		// when one of its traces has stacks or Python marks, and otherwise
		// has no sources and streams.
		named := false
		for _, t := range res.Traces() {
			named = named || hasStacks(t) || hasShim(t) && hasMarks(t)
		}
		if !named {
			return nil
		}
		if err := res.Load(); err != nil {
			return err
		}
	}
	fs, err := res.List()
	if err != nil {
		return err
	}
	locateFindings(g, fs)
	return nil
}

// addBase adds a directory traced paths may be named relative to.
func (f *checkFlags) addBase(dir string) {
	if dir == "" {
		return
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			dir = real
		}
	}
	for _, b := range f.bases {
		if b == dir {
			return
		}
	}
	f.bases = append(f.bases, dir)
}
