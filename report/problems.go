package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report/wire"
)

// A problem's identity (its id) is, like a finding's fingerprint, what
// names it the same way in every run and checkout: its rule and its
// place, the call site (file relative to the source root, and function)
// when known, else its primary's path relative to its root, or "program"
// for the program-level problem. Two problems that would share one (the
// same rule twice in one function) are told apart by their order.

// ProblemIDs returns the id of each of ps's problems, in their order.
func ProblemIDs(ps *check.Problems, opt Options) []string {
	ids := make([]string, len(ps.List))
	seen := map[string]int{}
	for n, p := range ps.List {
		key := "problem\x00" + p.Rule.ID + "\x00"
		switch {
		case p.Program:
			key += "program"
		case p.Source != nil:
			key += "src:" + opt.relSource(p.Source.File) + ":" + p.Source.Function
		default:
			key += "path:" + opt.RelPath(p.Path)
		}
		if p.StateIndex > 0 {
			key += fmt.Sprintf("\x00state:%d", p.StateIndex)
		}
		if k := seen[key]; k > 0 {
			seen[key]++
			key += fmt.Sprintf("\x00#%d", k)
		} else {
			seen[key] = 1
		}
		sum := sha256.Sum256([]byte(key))
		ids[n] = hex.EncodeToString(sum[:8])
	}
	return ids
}

// problems groups res's findings (check.Group) and names each problem.
func problems(res *check.Result, opt Options) (*check.Problems, []string, error) {
	ps, err := opt.problems(res)
	if err != nil {
		return nil, nil, err
	}
	return ps, ProblemIDs(ps, opt), nil
}

// problems are opt.Problems, else res's findings grouped.
func (o Options) problems(res *check.Result) (*check.Problems, error) {
	if o.Problems != nil && len(o.Problems.Of) == res.Len() {
		return o.Problems, nil
	}
	return check.Group(res)
}

// eachInProblems calls f with every finding in the order of the
// problems, each problem's in report order, and the problem's place.
func eachInProblems(res *check.Result, ps *check.Problems, f func(n int, x *check.Finding) error) error {
	for n, p := range ps.List {
		for _, i := range p.Members {
			x, err := res.At(int(i))
			if err != nil {
				return err
			}
			if err := f(n, x); err != nil {
				return err
			}
		}
	}
	return nil
}

// wireProblem is p as a report writes it; fps are its findings'
// fingerprints.
func (o Options) wireProblem(p *check.Problem, id string, fps []string) wire.Problem {
	wp := wire.Problem{
		ID: id, Rule: p.Rule.ID, Severity: p.Severity.String(), Path: p.Path, Paths: p.Paths,
		Trace: p.Trace, Line: p.Line, Message: p.Message, Fix: p.Fix, Program: p.Program,
		Findings: fps, StateIndex: p.StateIndex,
	}
	if loc := p.Source; loc != nil {
		wp.Source = &wire.Source{File: o.relSource(loc.File), Line: loc.Line, Function: loc.Function}
	}
	return wp
}

// memberPrints are the fingerprints of p's findings, its primary first.
func memberPrints(res *check.Result, p *check.Problem, opt Options) ([]string, error) {
	out := make([]string, 0, len(p.Members))
	if p.Primary >= 0 {
		f, err := res.At(p.Primary)
		if err != nil {
			return nil, err
		}
		out = append(out, Fingerprint(f, opt))
	}
	for _, i := range p.Members {
		if int(i) == p.Primary {
			continue
		}
		f, err := res.At(int(i))
		if err != nil {
			return nil, err
		}
		out = append(out, Fingerprint(f, opt))
	}
	return out, nil
}
