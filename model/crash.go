package model

import (
	"cmp"
	"math"
	"math/bits"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"sync"
)

// Outcome is what a path can hold after a crash, compared with what the
// program saw.
type Outcome string

const (
	Missing Outcome = "missing" // the name does not exist
	Initial Outcome = "initial" // the content it had before the trace
	Latest  Outcome = "latest"  // the page-cache content at the crash point
	Earlier Outcome = "earlier" // an older version written in the trace
	Empty   Outcome = "empty"   // an empty file
	Torn    Outcome = "torn"    // some but not all pending writes; or a size without its data after bytes that are there
	Zeros   Outcome = "zeros"   // the size persisted, the data did not: a file of zeros
)

// outcomesInOrder are the outcomes in the order outcome sets are printed in.
var outcomesInOrder = [...]Outcome{Missing, Initial, Earlier, Latest, Empty, Torn, Zeros}

// rank is o's place in outcomesInOrder, len(outcomesInOrder) for an
// outcome not there.
func (o Outcome) rank() int {
	for i, x := range outcomesInOrder {
		if x == o {
			return i
		}
	}
	return len(outcomesInOrder)
}

// outcomeSets holds every set of outcomes, in printing order, by the bits
// of their ranks: the outcome sets crashes give share them. Each is
// full to its capacity, so that an append copies it.
var outcomeSets = func() (t [1 << len(outcomesInOrder)][]Outcome) {
	for set := range t {
		var os []Outcome
		for i, o := range outcomesInOrder {
			if set&(1<<i) != 0 {
				os = append(os, o)
			}
		}
		t[set] = os[:len(os):len(os)]
	}
	return t
}()

// setOfOutcomes is the bits of the ranks of os.
func setOfOutcomes(os []Outcome) int {
	set := 0
	for _, o := range os {
		if r := o.rank(); r < len(outcomesInOrder) {
			set |= 1 << r
		}
	}
	return set
}

// SortOutcomes orders outcomes the way they are printed.
func SortOutcomes(os []Outcome) {
	slices.SortStableFunc(os, func(a, b Outcome) int { return a.rank() - b.rank() })
}

// Loses reports whether an outcome loses something the program wrote.
func (o Outcome) Loses() bool { return o != Latest }

// PathState is one crash state of one path, precisely enough to rebuild
// it: which inode the name points to and which of its pending data
// operations persisted.
type PathState struct {
	Outcome Outcome
	Inode   int // 0 when the name is missing
	// Name is the entry operation whose result the name shows (nil: the
	// name as it was last durable).
	Name *Ref
	// Persisted describes which pending data operations of the inode made
	// it to disk: "none", "all", "up to line N", "all but line N",
	// "line N torn after B bytes", "size of line N without its data".
	Persisted string
	// Applied lists the lines of the pending data operations that persisted
	// (whole); Torn is the line of a write that persisted in part, with
	// TornBytes of it on disk; SizeOnly is a write whose size persisted
	// without its data.
	Applied   []int
	Torn      int
	TornBytes int64
	SizeOnly  int
	// Version is the event whose version of the file this is, for earlier.
	Version *Ref
	// Gone is the directory above the path whose absence makes it missing
	// (a directory made or renamed in the trace and not yet durable); ""
	// when the path's own name is what is missing.
	Gone string

	// Kind, J and Mask say the same as Persisted for a program: see
	// Persists.
	Kind StateKind
	J    int
	Mask uint32
}

// StateKind says how a PathState chose the pending data ops that persisted.
type StateKind uint8

const (
	StatePrefix   StateKind = iota // MaybeOps()[:J] persisted
	StateOmit                      // all but MaybeOps()[J]
	StateSubset                    // those whose bit is set in Mask
	StateTorn                      // MaybeOps()[:J], and TornBytes of op J
	StateSizeOnly                  // MaybeOps()[:J], and the size of op J without its data
)

// Persists says what of the inode's pending op i (an index into
// MaybeOps()) is on disk in this state: how many of its bytes (its whole
// Len, none, or a torn part), and whether only the size change it made
// persisted.
func (s *PathState) Persists(i int, op DataOp) (bytes int64, sizeOnly bool) {
	whole := op.Len
	if op.Kind != DataWrite && op.Kind != DataZero {
		whole = 1 // a size change: persisted or not
	}
	switch s.Kind {
	case StatePrefix:
		if i < s.J {
			return whole, false
		}
	case StateOmit:
		if i != s.J {
			return whole, false
		}
	case StateSubset:
		if s.Mask&(1<<i) != 0 {
			return whole, false
		}
	case StateTorn:
		if i < s.J {
			return whole, false
		}
		if i == s.J {
			return s.TornBytes, false
		}
	case StateSizeOnly:
		if i < s.J {
			return whole, false
		}
		if i == s.J {
			return 0, true
		}
	}
	return 0, false
}

// PathOutcomes is everything a crash can leave at one path.
type PathOutcomes struct {
	Path string
	// Outcomes is shared with other answers: it must not be changed.
	Outcomes []Outcome
	States   []PathState // the explored states, deduplicated
	// Total is how many ways the path's states come about (saturating):
	// a state counts once for each entry operation that can leave the
	// name on its inode, so a file renamed back and forth counts more
	// than the distinct States. Exact says Total is exact, else a lower
	// bound.
	Total int64
	Exact bool
	// Ancestor is the nearest directory above the path that a crash can
	// leave missing (see PathState.Gone), or "".
	Ancestor string
	// leftOut are the content states the journal's order of sizes and
	// names left out (see pathCuts): no configuration that names their
	// inode at the path admits them. The joint counts take them as the
	// states a configuration's cut leaves out, as they do the explored
	// states their own cut leaves out.
	leftOut []cutState
	// summed are the states the answer counts without listing them, by
	// inode (a summary's: see Model.crashSummary). States lists the
	// others; Outcomes and Total hold them all.
	summed []inoCount
}

// Unlisted is how many of the path's states the answer counts without
// listing them in States: in a summarized timeline's answer
// (Timeline.Summarize), the subsets of a file's pending operations that
// posix enumerates one by one, each a state of its own; Outcomes and
// Total take them in. It is 0 for Crash's answer, which lists every
// state it explored.
func (po PathOutcomes) Unlisted() int64 {
	var n int64
	for _, c := range po.summed {
		n += c.n
	}
	return n
}

// inoCount is how many of a path's states name inode id.
type inoCount struct {
	id int
	n  int64
}

// cutState is a content state of inode ino left out of a path's states:
// seq is the sizeSeq that left it out.
type cutState struct {
	ino, seq int
}

// ExhaustiveOps is how many pending data operations of one file are
// enumerated in every subset; past it, crash states are sampled in a fixed
// order: none, all, prefixes, one operation omitted, torn writes.
const ExhaustiveOps = 16

const pageSize = 4096

// MaybeOps returns the inode's data operations that may or may not be on
// disk: lost to a failed sync, or pending, in program order. A PathState's
// Persisted, Applied, Torn and SizeOnly refer to these.
func (n *Inode) MaybeOps() []DataOp {
	ops := n.ops()
	if len(n.Lost()) == 0 {
		return ops.slice()
	}
	out := make([]DataOp, 0, len(n.Lost())+ops.len())
	out = append(out, n.Lost()...)
	return ops.appendTo(out)
}

// maybeOps is MaybeOps in place: a crash point looks at a few of a file's
// pending ops, however many there are, and must not copy them all.
type maybeOps struct {
	lost    []DataOp
	pending opList
}

func (n *Inode) maybeOps() maybeOps { return maybeOps{n.Lost(), n.ops()} }

func (o maybeOps) len() int { return len(o.lost) + o.pending.len() }

func (o maybeOps) at(i int) *DataOp {
	if i < len(o.lost) {
		return &o.lost[i]
	}
	return o.pending.at(i - len(o.lost))
}

// stateKey tells a path's states apart: by their words (Persisted), or
// when they have none by which ops persisted (kind, j, mask): see keyOf.
type stateKey struct {
	inode     int
	outcome   Outcome
	persisted string
	kind      StateKind
	j         int
	mask      uint32
}

// missingKey is the key of the state in which the path is missing.
var missingKey = stateKey{outcome: Missing, persisted: "none"}

// keyOf is s's key: by its words, or, when there are none (words false:
// crashSummary without them), by which ops persisted. The two tell the
// same states apart because each pending op of an inode has an event of
// its own (a call makes one data op), so no two share the line their
// words name.
func keyOf(s *PathState, words bool) stateKey {
	if !words {
		return stateKey{s.Inode, s.Outcome, s.Persisted, s.Kind, s.J, s.Mask}
	}
	return stateKey{inode: s.Inode, outcome: s.Outcome, persisted: s.Persisted}
}

type crashRoom struct {
	states  []PathState
	leftOut []cutState
	seen    map[stateKey]bool
}

var crashScratch = sync.Pool{New: func() any { return &crashRoom{seen: map[stateKey]bool{}} }}

// Crash computes the outcomes a crash now can leave at path p, exploring
// at most maxStates states.
func (m *Model) Crash(p string, maxStates int) PathOutcomes {
	return m.crash(p, maxStates, nil, nil)
}

// CrashReuse is Crash with its States in reuse's memory when they fit:
// for a caller that asks about path after path and lets each answer go
// before the next (a rule's Finish), the copy out of the scratch room
// was most of what Crash allocated.
func (m *Model) CrashReuse(p string, maxStates int, reuse []PathState) PathOutcomes {
	return m.crash(p, maxStates, nil, reuse[:0])
}

// CrashFirst returns the first of the states Crash(p, maxStates) lists
// that want accepts, and false when none does. It stops enumerating at
// that state: a rule that picks one state to show (the name missing) asks
// for it after a rule before it had all of them worked out, and working
// out a file's content states again for every name of a trace was a
// tenth of a check of many new files.
func (m *Model) CrashFirst(p string, maxStates int, want func(PathState) bool) (PathState, bool) {
	var found PathState
	ok := false
	m.crash(p, maxStates, func(s PathState) bool {
		if want(s) {
			found, ok = s, true
		}
		return ok
	}, nil)
	return found, ok
}

// crash is Crash; with stop, it ends the enumeration after the first
// state, in Crash's order, for which stop returns true, and what it
// returns is then incomplete.
func (m *Model) crash(p string, maxStates int, stop func(PathState) bool, reuse []PathState) PathOutcomes {
	return m.crashName(m.nameOf(p), p, maxStates, stop, reuse, listStates)
}

// crashSummary is Crash for a reader that wants of each path its outcome
// set and how many states each inode gives it, not every state: the
// subsets of a file's pending ops that posix enumerates one by one (up to
// 2^ExhaustiveOps of them at each point where a file with many unsynced
// writes is written again) are counted, not listed (PathOutcomes.summed).
// The outcome set, the count and its exactness are Crash's. words says
// whether the states it lists say in words which pending ops persisted
// (Persisted, Applied, Torn, SizeOnly): without them they say it only as
// Kind, J and Mask do, for a reader of outcome sets and counts alone.
func (m *Model) crashSummary(p string, maxStates int, words bool) PathOutcomes {
	mode := summarize
	if !words {
		mode = countStates
	}
	return m.crashName(m.nameOf(p), p, maxStates, nil, nil, mode)
}

// crashMode is what crashName is asked for: every state (Crash), a
// summary (crashSummary), or a summary without words.
type crashMode uint8

const (
	listStates crashMode = iota
	summarize
	countStates
)

// crashName is crash with p's Name looked up (nil: the trace never
// named p). It changes nothing in the model (see Still). mode says which
// answer it gives.
func (m *Model) crashName(n *Name, p string, maxStates int, stop func(PathState) bool, reuse []PathState, mode crashMode) PathOutcomes {
	summary, words := mode != listStates, mode != countStates
	res := PathOutcomes{Path: p, Exact: true}
	if n == nil {
		return res
	}
	if maxStates <= 0 {
		maxStates = 1 << 16
	}
	// Scratch room for the states, copied out at their size: growing a
	// slice and a map per call was a fifth of a replay, and the timeline
	// keeps every path's states.
	sc := crashScratch.Get().(*crashRoom)
	defer crashScratch.Put(sc)
	clear(sc.seen)
	seen := sc.seen
	res.States = sc.states[:0]
	leftOut := sc.leftOut[:0]
	stopped := false
	// The states counted, not listed (summary), and their outcomes.
	var sumN int64
	var sumSet uint32
	add := func(s PathState) bool {
		key := keyOf(&s, words)
		if seen[key] {
			return true
		}
		if int64(len(res.States))+sumN >= int64(maxStates) {
			res.Exact = false
			return false
		}
		seen[key] = true
		res.States = append(res.States, s)
		if stop != nil && stop(s) {
			stopped = true
			return false
		}
		return true
	}
	// A state counted, not listed: one that no other can equal (see
	// contentStates), so no key is needed to tell it apart.
	var sum *stateCount
	if summary && stop == nil {
		sum = &stateCount{
			room: func() int64 { return int64(maxStates) - int64(len(res.States)) - sumN },
			add: func(n int64, set uint32) {
				sumN += n
				sumSet |= set
			},
			over: func() { res.Exact = false },
		}
	}
	// The inodes the name can point to: as last durable, or as any pending
	// entry operation left it (posix: any subset persists, and the last
	// persisted one wins; ext4: a prefix persists in order, same set).
	type cand struct {
		ino *Inode
		op  *EntryOp
	}
	var candRoom [4]cand
	cands := append(candRoom[:0], cand{n.Durable, nil})
	for _, op := range n.Ops {
		for _, c := range op.Changes {
			if c.Path == p {
				cands = append(cands, cand{c.New, op})
			}
		}
	}
	var total int64
	// Several pending entry operations can give the name the same inode (a
	// file renamed back and forth): its contents are the same states each
	// time, already seen, so they are enumerated once and counted again.
	type counted struct {
		cnt   int64
		exact bool
	}
	type doneIno struct {
		id int
		counted
	}
	// Most names have a candidate or two: a map per call only for a name
	// with many (saved over and over without a directory fsync), where a
	// scan of a slice would cost the square of them.
	var doneRoom [4]doneIno
	done := doneRoom[:0]
	var doneMap map[int]counted
	doneOf := func(id int) (counted, bool) {
		if doneMap != nil {
			d, ok := doneMap[id]
			return d, ok
		}
		for _, d := range done {
			if d.id == id {
				return d.counted, true
			}
		}
		return counted{}, false
	}
	setDone := func(id int, c counted) {
		if doneMap == nil && len(done) == 16 {
			doneMap = make(map[int]counted, 32)
			for _, d := range done {
				doneMap[d.id] = d.counted
			}
		}
		if doneMap != nil {
			doneMap[id] = c
			return
		}
		done = append(done, doneIno{id, c})
	}
	// Under the ordered models the name shows candidate i only in a
	// configuration that left the next candidate's entry operation out:
	// one cut at that operation at the widest, which admits no size
	// change made at or after it (sizeorder.go), and in which the
	// directories above are there. cuts has each candidate's widest cut
	// when one of them constrains an inode.
	var aboveRoom [4]*Name
	var above []*Name
	if m.opt.Persistence.Ordered() {
		above = aboveRoom[:0]
	}
	vanishing, gone, above := m.ancestors(p, n.Cache != nil, above)
	if gone != "" {
		cands = cands[:0]
	}
	cuts := m.candidateCuts(above, len(cands), func(i int) (*Inode, *EntryOp) { return cands[i].ino, cands[i].op })
	for i, c := range cands {
		if stopped {
			break
		}
		var ref *Ref
		if c.op != nil {
			r := c.op.Event()
			ref = &r
		}
		if cuts != nil && cuts.cut[i] == unreachable {
			continue // a directory above is missing wherever the name shows it
		}
		if c.ino == nil {
			if !seen[missingKey] {
				total = satAdd(total, 1) // the name missing is one state, however reached
			}
			add(PathState{Outcome: Missing, Name: ref, Persisted: "none"})
			continue
		}
		if cuts != nil {
			if d := cuts.of(c.ino); !d.enumerated {
				d.enumerated = true
				d.all, d.complete = m.contentStates(c.ino, c.ino == n.Cache, c.op, maxStates, nil, words, func(s PathState) bool {
					seq := sizeSeq(c.ino, s)
					if seq >= d.widest {
						// No configuration naming this inode admits it.
						if key := keyOf(&s, words); !seen[key] {
							seen[key] = true
							leftOut = append(leftOut, cutState{s.Inode, seq})
						}
						return true
					}
					s.Name = ref
					had := len(res.States)
					ok := add(s)
					if len(res.States) > had {
						d.seqs = append(d.seqs, seq)
					}
					return ok
				})
			}
			cnt, exact := cuts.count(i, c.ino)
			total = satAdd(total, cnt)
			res.Exact = res.Exact && exact
			continue
		}
		if d, ok := doneOf(c.ino.ID); ok {
			total = satAdd(total, d.cnt)
			res.Exact = res.Exact && d.exact
			continue
		}
		before := sumN
		cnt, exact := m.contentStates(c.ino, c.ino == n.Cache, c.op, maxStates, sum, words, func(s PathState) bool {
			s.Name = ref
			return add(s)
		})
		if sumN > before {
			res.summed = append(res.summed, inoCount{c.ino.ID, sumN - before})
		}
		setDone(c.ino.ID, counted{cnt, exact})
		total = satAdd(total, cnt)
		res.Exact = res.Exact && exact
	}
	// A name lives in its directory: when a directory above it can be
	// missing after the crash, so can the name, whatever its own entry
	// operations did.
	sc.leftOut = leftOut[:0]
	if len(leftOut) > 0 {
		res.leftOut = slices.Clone(leftOut)
	}
	if stopped {
		// The caller took the state it wanted; the states stay scratch.
		sc.states, res.States = res.States[:0], nil
		return res
	}
	if q := cmp.Or(gone, vanishing); q != "" && !seen[missingKey] {
		res.Ancestor = q
		if add(PathState{Outcome: Missing, Persisted: "none", Gone: q}) {
			total = satAdd(total, 1)
		}
	}
	// The space counted is every subset of pending ops plus the torn and
	// size-only variants explored; never report fewer than were seen.
	res.Total = max(total, int64(len(res.States))+sumN)
	states := res.States
	res.States = nil
	if len(states) > 0 && len(states) <= cap(reuse) {
		res.States = append(reuse, states...)
	} else if len(states) > 0 {
		res.States = slices.Clone(states)
	}
	defer func() {
		sc.states = states[:0]
		if len(seen) > 1024 { // a big map costs its size to clear: let it go
			sc.seen, sc.states = map[stateKey]bool{}, nil
		}
	}()
	// The outcome set, in printing order, without a map and a sort per
	// call (a tenth of Crash on a trace of many files), nor a slice.
	set := sumSet
	for _, s := range res.States {
		set |= 1 << s.Outcome.rank()
	}
	res.Outcomes = outcomeSets[set&(1<<len(outcomesInOrder)-1)]
	return res
}

func satAdd(a, b int64) int64 {
	if a > 1<<62-b {
		return 1 << 62
	}
	return a + b
}

// sizeWithoutData reports whether a write to ino can reach the disk as
// its size without its data (zeros where its bytes should be): always
// under posix and ext4 (which can commit the new size of an unwritten
// extent before the data lands), and under the other ordered models once
// writeback of the file started without waiting for it.
func (m *Model) sizeWithoutData(ino *Inode) bool {
	return !m.opt.Persistence.Ordered() || m.opt.Persistence == Ext4 || ino.writeback()
}

// contentStates enumerates the contents inode ino can have after a crash,
// calling add for each until it returns false, and returns how many states
// exist and whether that count is exact. current says whether ino is what
// the path names in the page cache (so that "all persisted" is latest).
// via is the entry operation that made the path name ino, if any. words
// false leaves out the words of the states (see crashSummary).
func (m *Model) contentStates(ino *Inode, current bool, via *EntryOp, maxStates int, sum *stateCount, words bool, add func(PathState) bool) (int64, bool) {
	if ino.Dir {
		// A directory's content is its entries, which are the names'
		// states: here only which directory the path names.
		o := Latest
		switch {
		case current:
		case ino.Initial:
			o = Initial
		default:
			o = Earlier // made in the trace, since renamed away or removed
		}
		add(PathState{Outcome: o, Inode: ino.ID, Persisted: "all"})
		return 1, true
	}
	ops := ino.maybeOps()
	k := ops.len()
	cl := classifier{ino: ino, ops: ops, current: current, files: m.opt.NameFiles, noWords: !words}
	minPrefix := 0
	ordered := m.opt.Persistence.Ordered() // a shorter file, never holes
	// ext4's auto_da_alloc starts writeback of a file renamed over another
	// but does not wait for it: the commit of the rename can carry the new
	// size while the blocks are still unwritten, so zeros read back (seen
	// by crashsim oracle on ext4). Delayed allocation alone never gives
	// zeros; a started writeback does. And on ext4 writeback can start on
	// its own at any time (the flusher's 30 s expiry, memory pressure, a
	// sync by another process): with dioread_nolock, the default, it
	// allocates unwritten extents and the journal can commit the new size
	// before the data lands. crashsim oracle --blocks replayed exactly
	// that on a naive save (size 10, extent unwritten: zeros), so under
	// ext4 any unsynced write can come back as zeros (sizeWithoutData,
	// which posix always allows).
	sizeOnly := m.sizeWithoutData(ino)
	if k > ExhaustiveOps {
		maxStates = min(maxStates, BoundedStates)
	}
	n := 0
	emit := func(s PathState) bool {
		if n >= maxStates {
			return false
		}
		n++
		return add(s)
	}
	total := cl.count(ordered, minPrefix)
	const look = 64 // how far back to look for a torn, size-only or in-place write
	// Under the ordered models, rewrites in place (see inPlace) persist in
	// any subset beside a prefix of the other ops: free has their bits
	// when there are few enough ops to enumerate, newestFree is the
	// newest of them before the last op (or -1).
	free, newestFree := 0, -1
	if ordered {
		for j := k - 2; j >= max(0, k-look); j-- {
			if cl.inPlace(j) {
				newestFree = j
				break
			}
		}
		if k <= ExhaustiveOps {
			free = cl.inPlaceMask()
		}
	}
	// One state of each kind first, so that the outcome set does not depend
	// on the budget: none, all, the newest prefix, the newest op omitted
	// (under the ordered models, the newest rewrite in place), the newest
	// torn write and the newest size without its data.
	if !emit(cl.prefix(minPrefix)) || !emit(cl.prefix(k)) {
		return total, false
	}
	if k-1 > minPrefix && !emit(cl.prefix(k-1)) {
		return total, false
	}
	if !ordered && k >= 2 && !emit(cl.omit(k-2)) {
		return total, false
	}
	if newestFree >= 0 && !emit(cl.omit(newestFree)) {
		return total, false
	}
	for j := k - 1; j >= max(minPrefix, k-look); j-- {
		if s, ok := cl.tornAt(j); ok {
			if !emit(s) {
				return total, false
			}
			break
		}
	}
	if sizeOnly {
		for j := k - 1; j >= max(0, k-look); j-- {
			if s, ok := cl.sizeOnly(j); ok {
				if !emit(s) {
					return total, false
				}
				break
			}
		}
	}
	// Then the rest, newest first: prefixes (the versions the program
	// itself saw), one op omitted, torn writes, sizes without data. Under
	// the ordered models (delayed allocation) data comes back as a shorter file, never
	// with holes: only prefixes and a torn last write.
	for j := k - 1; j >= minPrefix; j-- {
		if j > minPrefix && !emit(cl.prefix(j)) {
			return total, false
		}
		if !ordered && j+1 < k && !emit(cl.omit(j)) {
			return total, false
		}
		if s, ok := cl.tornAt(j); ok && !emit(s) {
			return total, false
		}
		if sizeOnly {
			if s, ok := cl.sizeOnly(j); ok && !emit(s) {
				return total, false
			}
		}
	}
	if ordered && free != 0 {
		// Every subset whose other ops are a prefix of theirs (the
		// prefixes themselves, and the newest rewrite omitted, were
		// emitted above).
		omitted := -1
		if newestFree >= 0 {
			omitted = (1<<k - 1) &^ (1 << newestFree)
		}
		for mask := 0; mask < 1<<k; mask++ {
			if mask&(mask+1) != 0 && mask != omitted && orderedPrefix(mask, free, k) {
				if !emit(cl.subset(mask)) {
					return total, false
				}
			}
		}
		return total, true
	}
	if ordered {
		// Every prefix and its torn last write; past ExhaustiveOps the
		// subsets of rewrites in place are left out.
		return total, k <= ExhaustiveOps || newestFree < 0 && !cl.inPlace(k-1)
	}
	if k > ExhaustiveOps {
		return total, false
	}
	if sum != nil {
		return total, m.countSubsets(&cl, k, maxStates, &n, sum, emit)
	}
	for mask := 0; mask < 1<<k; mask++ {
		if !emit(cl.subset(mask)) {
			return total, false
		}
	}
	return total, true
}

// stateCount is how contentStates hands over the states it counts
// without listing them: room is how many more the caller takes (none
// when it is zero or less), add counts n more whose outcomes are the
// ranks set in set, and over says that one more was offered than room
// allowed, which makes the caller's answer inexact.
type stateCount struct {
	room func() int64
	add  func(n int64, set uint32)
	over func()
}

// countSubsets ends contentStates' posix enumeration for a summary: it
// goes through the subsets of the k (at most ExhaustiveOps) pending ops
// in the order of their masks, as the listing does, with n states
// emitted so far. The few subsets no state above stands for (prefixes,
// every op but one) are emitted; the others, each a state of its own
// (its words name its mask), are counted a run of masks at a time, not
// one by one: a program that keeps a file with a dozen or more writes
// unsynced at every commit (SQLite's WAL between its fsyncs) made
// 2^16 calls at each such point, most of a states run. It stops where
// the mask-by-mask walk would have stopped: at the first mask past the
// budget of maxStates emitted or counted (*n so far, which emit counts
// too), or past what sum takes, and reports whether it went through
// every subset.
func (m *Model) countSubsets(cl *classifier, k, maxStates int, n *int, sum *stateCount, emit func(PathState) bool) bool {
	so := cl.subsetOutcomes()
	var room [2*(ExhaustiveOps+1) + 1]int
	stops := nonOwnMasks(k, room[:0])
	mask := 0
	for _, q := range stops {
		if c := q - mask; c > 0 {
			// masks mask..q-1 are states of their own: each takes one
			// of the budget, then one of what sum takes.
			budget, taken := int64(maxStates-*n), max(sum.room(), 0)
			if cnt := int64(c); budget < cnt || taken < cnt {
				if part := min(budget, taken); part > 0 {
					sum.add(part, so.outcomesIn(mask, mask+int(part)))
				}
				if taken < budget {
					sum.over()
				}
				return false
			}
			sum.add(int64(c), so.outcomesIn(mask, q))
			*n += c
		}
		if q == 1<<k {
			break
		}
		if !emit(cl.subset(q)) {
			return false
		}
		mask = q + 1
	}
	return true
}

// nonOwnMasks appends to buf, in increasing order and once each, the
// masks of k ops that are not states of their own (ownState): the
// prefixes and the sets of every op but one, then 1<<k, an end mark.
func nonOwnMasks(k int, buf []int) []int {
	all := 1<<k - 1
	for j := 0; j <= k; j++ {
		buf = append(buf, 1<<j-1)
	}
	for j := range k {
		buf = append(buf, all&^(1<<j))
	}
	buf = append(buf, 1<<k)
	slices.Sort(buf)
	return slices.Compact(buf)
}

// outcomesIn is the set (bits of rank) of the outcomes of masks lo to
// hi-1, all states of their own, lo at least 1: a mask's outcome is
// decided by its highest op's size and whether it holds a write
// (subsetOutcomes.of), so each run of masks with one highest bit asks
// only whether it holds a mask without writes and one with.
func (so subsetOutcomes) outcomesIn(lo, hi int) uint32 {
	var set uint32
	for lo < hi {
		h := bits.Len(uint(lo)) - 1
		end := min(hi, 1<<(h+1))
		size := so.sizes[h]
		if firstWithout(lo, so.writes) < end {
			set |= 1 << so.c.mixedOutcome(size, true).rank()
		}
		if firstWith(lo, so.writes) < end {
			set |= 1 << so.c.mixedOutcome(size, false).rank()
		}
		lo = end
	}
	return set
}

// firstWithout is the least mask at or above lo that has no bit of w.
func firstWithout(lo, w int) int {
	for lo&w != 0 {
		// Every mask from lo up to lo with the bits below b set keeps
		// bit b of w: skip past them.
		b := bits.Len(uint(lo&w)) - 1
		lo = (lo | (1<<b - 1)) + 1
	}
	return lo
}

// firstWith is the least mask at or above lo that has a bit of w (a mask
// past every other when w is 0).
func firstWith(lo, w int) int {
	if lo&w != 0 {
		return lo
	}
	best := math.MaxInt
	for r := w; r != 0; r &= r - 1 {
		b := bits.TrailingZeros(uint(r))
		// lo has no bit b: the least mask above it with bit b keeps lo's
		// higher bits and clears the lower ones.
		best = min(best, (lo|1<<b)&^(1<<b-1))
	}
	return best
}

// subsetOutcomes classifies the subsets of a file's pending ops as
// classifier.subset does, without building their states: which ops are
// writes, and the size after each.
type subsetOutcomes struct {
	c      *classifier
	writes int
	sizes  [ExhaustiveOps]int64
}

func (c *classifier) subsetOutcomes() subsetOutcomes {
	so := subsetOutcomes{c: c}
	for k := range c.ops.len() {
		op := c.ops.at(k)
		so.sizes[k] = op.Size
		if op.Kind == DataWrite {
			so.writes |= 1 << k
		}
	}
	return so
}

// of is the outcome of a subset that is a state of its own (ownState):
// ops missing between others leave a hole, which mixedOutcome names.
func (so subsetOutcomes) of(mask int) Outcome {
	return so.c.mixedOutcome(so.sizes[bits.Len(uint(mask))-1], mask&so.writes == 0)
}

// orderedPrefix reports whether the ops of mask outside free are a prefix
// of the ops outside free: the ordered models' other ops persist in
// program order, whichever rewrites in place persisted between them.
func orderedPrefix(mask, free, k int) bool {
	missing := false
	for i := range k {
		bit := 1 << i
		if free&bit != 0 {
			continue
		}
		if mask&bit == 0 {
			missing = true
		} else if missing {
			return false
		}
	}
	return true
}

// BoundedStates is how many states of one file are explored at a crash
// point once it has more than ExhaustiveOps pending data operations.
const BoundedStates = 64

// classifier names the outcome of applying some of an inode's pending ops.
type classifier struct {
	ino     *Inode
	ops     maybeOps
	current bool
	files   bool // Options.NameFiles
	// noWords: the states say which ops persisted only by Kind, J and
	// Mask (contentStates without words).
	noWords bool
	// words are the last two ops opWord named, wordNext the one to
	// replace next.
	words    [2]opWordMemo
	wordNext int
}

// lineWord names the line of event r in a state's words: "line 17", or
// in an -ff set (Options.NameFiles) with the base name of its file, which
// the set's files differ by ("trace.4242:17").
func (c *classifier) lineWord(r Ref) string {
	if c.files && r.File != "" {
		return filepath.Base(r.File) + ":" + strconv.Itoa(r.Line)
	}
	return "line " + strconv.Itoa(r.Line)
}

// opWord is lineWord of the event of pending op j, and that event's line.
// contentStates names each op in up to four states in a row (a prefix
// that ends with it, then it omitted, torn and as its size alone): the
// last two ops named are kept, so that each op's event is decoded and
// its words built once, not four times, at each crash point of a file
// with many pending writes.
func (c *classifier) opWord(j int) (word string, line int) {
	for i := range c.words {
		if w := &c.words[i]; w.j == j+1 {
			return w.word, w.line
		}
	}
	r := c.ops.at(j).Event()
	w := &c.words[c.wordNext]
	c.wordNext ^= 1
	*w = opWordMemo{j: j + 1, word: c.lineWord(r), line: r.Line}
	return w.word, w.line
}

// opWordMemo is an op's words for opWord: j is 1 + the op's index, 0 for
// none.
type opWordMemo struct {
	j    int
	word string
	line int
}

// writeBesides reports whether some op other than ops[i] is a write; it
// stops at the first one, so it is O(1) on files with many writes.
func (c *classifier) writeBesides(i int) bool {
	for k := c.ops.len() - 1; k >= 0; k-- {
		if k != i && c.ops.at(k).Kind == DataWrite {
			return true
		}
	}
	return false
}

// inPlace reports whether pending op i rewrites bytes the file holds on
// disk without changing its size. Writeback writes such pages in file
// offset order, whenever it runs, not in the order the program wrote
// them: the ordered models let them persist in any subset (crashsim oracle
// --blocks, overwrite-scatter). A write whose sizes are unknown counts as
// one; a write past the durable size lands in new blocks, ordered with
// the size change that makes it visible.
func (c *classifier) inPlace(i int) bool {
	op := c.ops.at(i)
	if op.Kind != DataWrite || op.Off < 0 {
		return false
	}
	end := op.Off + op.Len
	return (op.SizeBefore < 0 || end <= op.SizeBefore) && (c.ino.DurableSize < 0 || end <= c.ino.DurableSize)
}

// inPlaceMask has bit i set for each pending op i that is a rewrite in
// place (at most ExhaustiveOps ops).
func (c *classifier) inPlaceMask() int {
	mask := 0
	for i := range c.ops.len() {
		if c.inPlace(i) {
			mask |= 1 << i
		}
	}
	return mask
}

// count is how many content states exist: under posix every subset of the
// pending ops (each write whole; tearing and sizes add more), under the
// ordered models every prefix of the ops that are not rewrites in place
// times every subset of those that are, and the last write of a prefix
// torn where that write spans a page boundary (counted when there are few
// enough ops to look).
func (c *classifier) count(ordered bool, minPrefix int) int64 {
	k := c.ops.len()
	if ordered {
		n := int64(k - minPrefix + 1)
		if k-minPrefix > 4*ExhaustiveOps {
			return n + int64(k-minPrefix) // at most one torn state per op
		}
		f := 0
		for i := range k {
			if c.inPlace(i) {
				f++
			}
		}
		if f > 0 {
			n = satMul(int64(k-f-minPrefix+1), int64(1)<<min(f, 62))
		}
		for j := minPrefix; j < k; j++ {
			if _, ok := c.tornAt(j); ok {
				n++
			}
		}
		return n
	}
	if k >= 62 {
		return 1 << 62
	}
	return 1 << k
}

// version classifies the file as the program saw it after h of its data
// ops (h == Versions(): the latest).
func (c *classifier) version(h int) (Outcome, *Ref) {
	ino := c.ino
	if h == ino.Versions() && c.current {
		return Latest, nil
	}
	if h == 0 {
		if ino.Initial {
			return Initial, nil
		}
		return Empty, nil
	}
	// The size after op h-1: its own when pending, the durable size when
	// it is the last durable op.
	op := c.opAtHist(h - 1)
	size := ino.DurableSize
	if op != nil {
		size = op.Size
	}
	if size == 0 {
		return Empty, nil
	}
	if op == nil || h == ino.Versions() {
		return Earlier, nil
	}
	r := op.Event()
	return Earlier, &r
}

// opAtHist finds a pending op by history number (nil when durable: its
// size is then the durable one).
func (c *classifier) opAtHist(h int) *DataOp {
	i := sort.Search(c.ops.len(), func(i int) bool { return c.ops.at(i).Hist >= h })
	if i < c.ops.len() && c.ops.at(i).Hist == h {
		return c.ops.at(i)
	}
	return nil
}

// isVersion reports whether persisting exactly the first j pending ops
// gives a version the program saw, and which: true when no durable op comes
// after the first pending op left out (ops are in history order, so the
// ones at or after history number h are exactly ops[j:]).
func (c *classifier) isVersion(j int) (int, bool) {
	h := c.ino.Versions()
	if j < c.ops.len() {
		h = c.ops.at(j).Hist
	}
	return h, c.ino.Versions()-h == c.ops.len()-j
}

func (c *classifier) lines(idx []int) []int {
	out := make([]int, len(idx))
	for i, k := range idx {
		out[i] = c.ops.at(k).Event().Line
	}
	return out
}

func (c *classifier) prefix(j int) PathState {
	s := PathState{Inode: c.ino.ID, Kind: StatePrefix, J: j}
	switch {
	case j == 0:
		s.Persisted = "none"
	case j == c.ops.len():
		s.Persisted = "all"
	case c.noWords:
	default:
		w, _ := c.opWord(j - 1)
		s.Persisted = "up to " + w
	}
	if h, ok := c.isVersion(j); ok {
		s.Outcome, s.Version = c.version(h)
		return s
	}
	s.Outcome = Torn
	return s
}

func (c *classifier) omit(i int) PathState {
	s := PathState{Inode: c.ino.ID, Kind: StateOmit, J: i}
	if !c.noWords {
		w, _ := c.opWord(i)
		s.Persisted = "all but " + w
	}
	last := c.ops.len() - 1
	if i == last {
		last--
	}
	s.Outcome = c.mixedOutcome(c.ops.at(last).Size, !c.writeBesides(i))
	return s
}

// mixedOutcome classifies a subset that is not a prefix: the written data
// has a hole where a write is missing. size is the size after the last op
// that persisted; sizesOnly says no write persisted, only size changes.
func (c *classifier) mixedOutcome(size int64, sizesOnly bool) Outcome {
	switch {
	case size == 0:
		return Empty
	case sizesOnly:
		return Zeros
	}
	return Torn
}

func (c *classifier) subset(mask int) PathState {
	k := c.ops.len()
	if !ownState(mask, k) {
		if mask&(mask+1) == 0 {
			return c.prefix(bits.OnesCount(uint(mask)))
		}
		// Every op but one, not the newest (that is a prefix): the state
		// omit names, so that the two are one state, not two.
		return c.omit(bits.TrailingZeros(uint(^mask)))
	}
	s := PathState{Inode: c.ino.ID, Kind: StateSubset, Mask: uint32(mask), Outcome: c.subsetOutcomes().of(mask)}
	if c.noWords {
		return s
	}
	var buf [ExhaustiveOps]int
	idx := buf[:0]
	for i := range k {
		if mask&(1<<i) != 0 {
			idx = append(idx, i)
		}
	}
	s.Applied, s.Persisted = c.lines(idx), "subset 0x"+strconv.FormatInt(int64(mask), 16)+" of "+strconv.Itoa(k)
	return s
}

// ownState reports whether the subset mask of a file's k pending ops is a
// state of its own kind: neither a prefix (prefix's) nor every op but one
// (omit's), which subset returns as those.
func ownState(mask, k int) bool {
	return mask&(mask+1) != 0 && bits.OnesCount(uint(mask)) != k-1
}

// tornAt persists ops before j whole and write j in part, cut at its first
// page boundary. posix allows any page of it; ext4 only a shorter file.
//
// A write within one page is whole or nothing, but for one that rewrites
// bytes below the file's end and goes on past it: its bytes below the old
// end can land without the new size, the page written back before the
// size change is logged. crashsim oracle --blocks saw that on ext4 and
// xfs, during the fsync after PostgreSQL rewrote its postmaster.pid from
// offset 0 with a longer text (fixtures/programs/probe.py
// overwrite-extend); such a write is cut at the old end. btrfs, which
// logs the data and the size together, showed no such state: the btrfs
// model admits it all the same, one torn state too many, not one too
// few.
func (c *classifier) tornAt(j int) (PathState, bool) {
	op := c.ops.at(j)
	if op.Kind != DataWrite || op.Off < 0 {
		return PathState{}, false
	}
	cut := (op.Off/pageSize+1)*pageSize - op.Off
	if cut >= op.Len {
		if op.SizeBefore <= op.Off || op.Off+op.Len <= op.SizeBefore {
			return PathState{}, false // within one page: whole or nothing
		}
		cut = op.SizeBefore - op.Off // below the old end, not the new size
	}
	s := PathState{Inode: c.ino.ID, Kind: StateTorn, J: j, TornBytes: cut, Outcome: Torn}
	if !c.noWords {
		w, line := c.opWord(j)
		s.Torn, s.Persisted = line, w+" torn after "+strconv.FormatInt(cut, 10)+" bytes"
	}
	return s, true
}

// sizeOnly persists ops before j whole and only the size change of write
// j, which extended the file: the new bytes read back as zeros.
func (c *classifier) sizeOnly(j int) (PathState, bool) {
	op := c.ops.at(j)
	if op.Kind != DataWrite {
		return PathState{}, false
	}
	o := Zeros
	switch {
	case op.SizeBefore < 0 && op.Off < 0:
		// An append at a size the trace never showed still grows the
		// file: its old bytes, then zeros (seen by crashsim oracle on
		// ext4 after an O_APPEND write to a log).
		o = Torn
	case op.SizeBefore < 0 || op.Size <= op.SizeBefore:
		return PathState{}, false
	case op.SizeBefore > 0:
		// Its old bytes, then zeros: torn, as crashsim oracle names
		// what it reads back (a multi-threaded Go program on ext4 left
		// one 1024-byte write's size without its data after the one
		// before it). Zeros is a file of zeros.
		o = Torn
	}
	s := PathState{Inode: c.ino.ID, Kind: StateSizeOnly, J: j, Outcome: o}
	if !c.noWords {
		w, line := c.opWord(j)
		s.SizeOnly, s.Persisted = line, "size of "+w+" without its data"
	}
	return s, true
}
