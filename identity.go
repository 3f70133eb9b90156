package crashsim

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report"
	"github.com/crashsim/crashsim/source"
)

// A finding's identity is what names it the same way in every checkout
// and every run (report.Fingerprint): the call site in the program's own
// code when the trace says it (-k stacks, Python marks), else the path
// relative to a root or to where the traced program started.

// Identify fills in what names r's findings: opt.SrcRoot (the directory
// source files are named relative to: the caller gives the one crashsim
// runs in), opt.Repo (the repository it lies in, RepoRoot), opt.Roots (the
// roots in the order given, then those the traces' listings gave, then
// each trace's start directory), and the
// Source of each finding (the call site the traces' stacks and marks
// name).
// Problems reading a program's binary are given to warn (nil drops them),
// once each; the findings keep their trace lines.
func (r *Result) Identify(opt *report.Options, srcRoot string, roots []string, warn func(error)) error {
	if warn == nil {
		warn = func(error) {}
	}
	if srcRoot != "" {
		opt.SrcRoot = realDir(srcRoot)
		opt.Repo = RepoRoot(opt.SrcRoot)
	}
	opt.Roots = nil
	for _, d := range append(append(append([]string{}, roots...), r.Roots...), r.Starts...) {
		if d == "" {
			continue
		}
		d = realDir(d)
		if !contains(opt.Roots, d) {
			opt.Roots = append(opt.Roots, d)
		}
	}
	sort.SliceStable(r.marks, func(i, j int) bool {
		return r.marks[i].file < r.marks[j].file || r.marks[i].file == r.marks[j].file && r.marks[i].line < r.marks[j].line
	})
	stacked := map[string]bool{}
	for _, t := range r.Traces() {
		if p, err := parser.ProbeTrace(t); err == nil && p.Stacks {
			stacked[t] = true
		}
	}
	if len(stacked) == 0 && len(r.marks) == 0 {
		return nil
	}
	if r.Spilled() {
		// Call sites are set on findings held in memory (a spilled one is
		// read back fresh each time): a spilled result is read back whole
		// when its traces name some.
		if err := r.Load(); err != nil {
			return err
		}
	}
	fs, err := r.List()
	if err != nil {
		return err
	}
	r.locate(fs, stacked, warn)
	return nil
}

// locate sets the Source of each finding whose trace has stacks or marks
// to its call site in the program's code, at the call where its fix goes
// (fixAt); a mark wins over a stack.
func (r *Result) locate(findings []*check.Finding, stacked map[string]bool, warn func(error)) {
	markSources(findings, r.marks)
	byTrace := map[string][]*check.Finding{}
	for _, f := range findings {
		if stacked[f.Trace] {
			byTrace[f.Trace] = append(byTrace[f.Trace], f)
		}
	}
	res := source.NewResolver()
	said := map[string]bool{}
	for trace, fs := range byTrace {
		lines := map[int]bool{}
		for _, f := range fs {
			line, _ := fixAt(f)
			lines[line] = true
		}
		stacks, err := stacksAt(trace, lines)
		if err != nil {
			warn(fmt.Errorf("cannot read the stacks in %s: %w", textesc.Escape(trace), err))
			continue
		}
		for _, f := range fs {
			if f.Source != nil {
				continue // a Python mark named it
			}
			line, _ := fixAt(f)
			loc, ok, err := res.Locate(stacks[line])
			if err != nil && !said[err.Error()] {
				said[err.Error()] = true
				warn(fmt.Errorf("no source line for %s:%d: %w", textesc.Escape(f.Trace), line, err))
			}
			if ok {
				f.Source = &loc
			}
		}
	}
}

// stacksAt returns the stack of each call that starts on one of lines in
// a trace file. strace -k prints each call's stack under it; rather than
// hold a stack for each of the millions of events no finding names, the
// check leaves them, and this second reading keeps those of the lines
// findings point at. A call split by another process's line has its
// stack under the resumed half; the parser gives it to the call, which
// starts on the line a finding names.
func stacksAt(name string, lines map[int]bool) (map[int][]string, error) {
	stream, err := parser.Open(name, parser.Options{DecodeNone: true})
	if err != nil {
		return nil, err
	}
	defer stream.Close()
	out := map[int][]string{}
	for {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if lines[ev.Pos.Line] && len(ev.Stack()) > 0 {
			out[ev.Pos.Line] = ev.Stack()
		}
	}
}

// RepoRoot is the top directory of the repository dir lies in: the
// nearest directory from dir up that holds a .git (a directory, or the
// file of a worktree or submodule), as git rev-parse --show-toplevel
// finds it, without running git (which may refuse a checkout another user
// owns). dir itself when none does. SARIF names files relative to it, as
// code scanning expects of a repository, wherever in it crashsim runs.
func RepoRoot(dir string) string {
	dir = realDir(dir)
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// realDir is dir absolute and without symlinks, as the kernel names the
// paths in a -y trace; dir as it is when that fails.
func realDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			dir = real
		}
	}
	return dir
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
