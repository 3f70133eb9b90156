package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

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

// wireProblem is p as a report writes it; fps are its findings'
// fingerprints.
func (o Options) wireProblem(p *check.Problem, id string, fps []string) wire.Problem {
	// Names escaped as the findings' are (name): reversible, never raw
	// control or bidi characters.
	paths := make([]string, len(p.Paths))
	for i, x := range p.Paths {
		paths[i] = name(x)
	}
	wp := wire.Problem{
		ID: id, Rule: p.Rule.ID, Severity: p.Severity.String(), Path: name(p.Path), Paths: paths,
		Trace: name(p.Trace), Line: p.Line, Message: name(p.Message), Fix: p.Fix, Program: p.Program,
		Findings: fps, StateIndex: p.StateIndex,
	}
	if loc := p.Source; loc != nil {
		wp.Source = &wire.Source{File: name(o.relSource(loc.File)), Line: loc.Line, Function: name(loc.Function)}
	}
	return wp
}

// memberSums are the fingerprints of p's findings (fingerprintSum), in
// the order of p.Members.
func memberSums(res *check.Result, p *check.Problem, opt Options) ([][8]byte, error) {
	out := make([][8]byte, len(p.Members))
	g := encoders(len(p.Members))
	if g == 1 {
		var f check.Finding // what a fingerprint reads of each, reused
		for k, i := range p.Members {
			if err := res.Brief(int(i), &f); err != nil {
				return nil, err
			}
			out[k] = fingerprintSum(&f, opt)
		}
		return out, nil
	}
	// Each goroutine sums a run of the members, reading the result
	// through a Reading of its own (the program-level problem of a
	// check of many unsynced files has them all).
	errs := make([]error, g)
	var wg sync.WaitGroup
	for w := range g {
		lo, hi := w*len(p.Members)/g, (w+1)*len(p.Members)/g
		wg.Go(func() {
			rd := res.NewReading()
			var f check.Finding // what a fingerprint reads of each, reused
			for k := lo; k < hi; k++ {
				if errs[w] = rd.Brief(int(p.Members[k]), &f); errs[w] != nil {
					return
				}
				out[k] = fingerprintSum(&f, opt)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// memberPrints spells the fingerprints of p's findings, sums in the order
// of p.Members, as a problem lists them: its primary first.
func memberPrints(p *check.Problem, sums [][8]byte) []string {
	out := make([]string, 0, len(p.Members))
	for k, i := range p.Members {
		if int(i) == p.Primary {
			out = append(out, hex.EncodeToString(sums[k][:]))
		}
	}
	for k, i := range p.Members {
		if int(i) != p.Primary {
			out = append(out, hex.EncodeToString(sums[k][:]))
		}
	}
	return out
}
