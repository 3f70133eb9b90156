package parser

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/crashsim/crashsim/internal/inputfile"
	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/internal/textesc"
)

// The days of an -ff set stamped with the time of day (-t, -tt).
//
// One file tells its own midnights: a line more than 12 h before the one
// before it is on the next day (Reader.setTime). The files of a set do not
// tell each other's: a process whose first line came after midnight read
// as the first of the run, before every line of the day before, and its
// calls were merged ahead of the ones that came before them (a write after
// midnight moved before the fsync at 23:59:59 that it follows, and a
// missed sync read as a clean one).
//
// placeDays reads every file once before the merge (its calls'
// arguments left undecoded) and gives each one the day its first line is
// on, as a base its Reader adds to every time (Reader.dayOff):
//
//   - A file of a process that a clone, fork or vfork in another file
//     made goes on from that call: its first line is taken as the one
//     after the call's, by the rule one file follows (within 12 h of it).
//     A run that lasts several days is placed day by day this way.
//   - The files no such call made are the processes strace started or
//     attached to, which begin together: the first of them is the one
//     whose first line comes after the longest wait on the clock face
//     between their first lines, and the others follow it within 12 h.
//
// Where that cannot tell, placeDays says so rather than guess: when the
// first lines of the files no call made are spread over more than 12 h
// of the clock (which began first?), or when the run lasts so long that
// such a file's first line could be on a later day and still inside it.
const (
	dayNS     = 24 * int64(time.Hour)
	halfDayNS = 12 * int64(time.Hour)
)

// memberSpan is what placeDays reads of one member, its times on the
// member's own clock (its first line's day is day 0).
type memberSpan struct {
	has         bool
	first, last int64
	pos         Pos // where its first event is
	forks       []forkAt
}

// forkAt is a call that made a process: when, and the process's pid.
type forkAt struct {
	at    int64
	child int
}

// placeDays sets the base of every member of a set stamped with the time
// of day, or returns the error that says which member's day cannot be
// told. A set with other stamps is left as it is, read no further than
// its first event.
func (s *ffSet) placeDays() error {
	spans := make([]memberSpan, len(s.ms))
	opt := Options{DecodeNone: true, Arch: s.opt.Arch, MaxLine: s.opt.MaxLine}
	cache, evidence, handoff := new(internCache), new(syscalls.Evidence), map[int]*Event{}
	checked := false
	for i, m := range s.ms {
		r, err := openFile(m.path, opt, inputfile.Found)
		if err != nil {
			continue // the merge says so
		}
		r.pid, r.lp.cache, r.evidence, r.handoff = m.pid, cache, evidence, handoff
		sp := &spans[i]
		for {
			ev, err := r.Next()
			if err != nil {
				break // the end, or an error the merge gives
			}
			if !checked {
				checked = true
				if !ev.HasTime || r.tf != timeClock || r.lp.wholeSeconds {
					// -ttt, -r and no stamps need no days; -t and no
					// stamps are refused by the merge.
					r.Close()
					return nil
				}
			}
			if !ev.HasTime {
				continue
			}
			if !sp.has {
				sp.has, sp.first, sp.pos = true, ev.Time, ev.Pos
			}
			sp.last = max(sp.last, ev.Time)
			if ev.OK() && ev.Ret > 0 && ev.Call != 0 && ev.Call.Effect() == syscalls.Fork {
				sp.forks = append(sp.forks, forkAt{ev.Time, int(ev.Ret)})
			}
		}
		r.Close()
	}
	return s.setBases(spans)
}

// setBases places the members by what placeDays read of them (see there).
func (s *ffSet) setBases(spans []memberSpan) error {
	n := len(s.ms)
	byPID := make(map[int]int, n)
	for i, m := range s.ms {
		byPID[m.pid] = i
	}
	parent := make([]int, n)
	for i := range parent {
		parent[i] = -1
	}
	children := make([][]int, n)
	forkTime := make([]int64, n)
	for j := range spans {
		for _, f := range spans[j].forks {
			i, ok := byPID[f.child]
			if !ok || i == j || parent[i] >= 0 || !spans[i].has {
				continue
			}
			parent[i], forkTime[i] = j, f.at
			children[j] = append(children[j], i)
		}
	}
	var roots []int
	for i := range spans {
		if spans[i].has && parent[i] < 0 {
			roots = append(roots, i)
		}
	}
	// Members in a loop of forks (a pid used twice) descend from no root:
	// each the loop leaves out is taken as a root of its own.
	reached := make([]bool, n)
	var mark func(i int)
	mark = func(i int) {
		reached[i] = true
		for _, c := range children[i] {
			if !reached[c] {
				mark(c)
			}
		}
	}
	for _, i := range roots {
		mark(i)
	}
	for i := range spans {
		if spans[i].has && !reached[i] {
			roots = append(roots, i)
			mark(i)
		}
	}
	if len(roots) == 0 {
		return nil
	}
	// The roots begin together: the first is the one after the longest
	// wait on the clock face between their first lines, and the others
	// are placed within a day after it.
	slices.SortFunc(roots, func(a, b int) int {
		return cmp.Or(cmp.Compare(spans[a].first, spans[b].first), cmp.Compare(a, b))
	})
	start, gap := 0, spans[roots[0]].first+dayNS-spans[roots[len(roots)-1]].first
	for k := 1; k < len(roots); k++ {
		if g := spans[roots[k]].first - spans[roots[k-1]].first; g > gap {
			start, gap = k, g
		}
	}
	t0 := spans[roots[start]].first
	// end is how far each root's processes go.
	end := make([]int64, len(roots))
	var place func(i, k int)
	place = func(i, k int) {
		end[k] = max(end[k], spans[i].last+s.ms[i].base)
		for _, c := range children[i] {
			if c == roots[k] || parent[c] != i {
				continue
			}
			// The child's first line follows the call that made it, as
			// the next line of one file follows the one before.
			call := s.ms[i].base + forkTime[c]
			s.ms[c].base = ceilDiv(call-halfDayNS-spans[c].first, dayNS) * dayNS
			place(c, k)
		}
	}
	for k, i := range roots {
		if spans[i].first < t0 {
			s.ms[i].base = dayNS
		}
		end[k] = spans[i].first + s.ms[i].base
		place(i, k)
	}
	return s.doubtRoots(spans, roots, end, roots[start], t0)
}

// doubtRoots returns the error that says a root's day cannot be told, if
// one's cannot: roots begun at times of day 12 h or more apart, or a run
// that goes on long enough, without a root's processes, to hold that root
// begun a day later. end is how far each root's processes go.
func (s *ffSet) doubtRoots(spans []memberSpan, roots []int, end []int64, first int, t0 int64) error {
	if len(roots) < 2 {
		return nil
	}
	for _, i := range roots {
		if spans[i].first+s.ms[i].base-t0 >= halfDayNS {
			return s.dayError(spans[i].pos, i, fmt.Sprintf("its first line (%s) and that of %s (%s), neither made by a clone in the set, are 12 h or more apart on the clock, so which began first is unknown", clockOf(spans[i].first), s.memberName(first), clockOf(spans[first].first)))
		}
	}
	// How far the run goes without each root's processes: the furthest
	// end of the others, from the two furthest.
	top := [2]int{-1, -1}
	for k := range roots {
		switch {
		case top[0] < 0 || end[k] > end[top[0]]:
			top[0], top[1] = k, top[0]
		case top[1] < 0 || end[k] > end[top[1]]:
			top[1] = k
		}
	}
	for k, i := range roots {
		others := end[top[0]]
		if k == top[0] {
			others = end[top[1]]
		}
		if spans[i].first+s.ms[i].base+dayNS <= others {
			return s.dayError(spans[i].pos, i, fmt.Sprintf("no clone in the set made it, and the other processes go on for a day or more after its first line (%s), so it may have begun on that day or a later one", clockOf(spans[i].first)))
		}
	}
	return nil
}

// dayError says which member's day cannot be told, and why.
func (s *ffSet) dayError(pos Pos, i int, why string) error {
	return &Error{Pos: pos, Msg: fmt.Sprintf("the -ff set %s.* has times of day without a date (-t, -tt), and which day the calls of %s are on cannot be told: %s; record with -ttt (strace -ff -ttt -o %s CMD)", textesc.Escape(s.prefix), s.memberName(i), why, textesc.Escape(filepath.Base(s.prefix)))}
}

func (s *ffSet) memberName(i int) string { return textesc.Escape(filepath.Base(s.ms[i].path)) }

// clockOf writes t, on a member's own clock, as the time of day strace
// printed.
func clockOf(t int64) string {
	t %= dayNS
	return time.Unix(0, t).UTC().Format("15:04:05.000000")
}

// ceilDiv is a/b rounded up, for b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a > 0 {
		q++
	}
	return q
}
