package model

import (
	"crypto/sha256"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Joint crash states, enumerated. jointCount and jointInc count the crash
// states of the whole tree at a crash point; a JointSpace yields them, so
// that explore can build each on disk: which inode every path names
// (decided by the pending entry operations that persisted), which content
// state each of those inodes holds, and which paths are gone with a
// directory above them. Enumerated exhaustively (All), it yields exactly
// the states counted, in a fixed order; past a bound its caller takes
// families of states instead (Prefix, Drop, Torn, With, Sample), each a
// state the persistence model admits.

// JointSpace is the joint crash states of the paths in scope at one
// crash point (Point.Joint).
type JointSpace struct {
	m       *Model
	current map[string]PathOutcomes
	paths   []string   // every path in scope, sorted
	ops     []*EntryOp // the pending entry ops that change a path in scope, in program order
	opIndex map[*EntryOp]int
	varying []string // the paths some configuration of ops changes, sorted
	vary    map[string]bool
	static  []jslot // inodes named whatever persisted, one slot each
	staticI map[int]bool
	// configs are the configurations of ops enumerated: every subset
	// (posix) or every prefix (ordered models), as bit sets over ops;
	// bounded as jointCount bounds them.
	configs [][]bool
	exact   bool // the per-path state lists and the configurations are complete
	pending []PendingOp
}

// jslot is an inode in a state, with the content states enumerated for it.
type jslot struct {
	path   string
	ino    *Inode
	states []PathState
}

// JointState is one crash state of the whole tree.
type JointState struct {
	sp      *JointSpace
	persist []bool            // per JointSpace.ops: whether it persisted
	names   map[string]*Inode // the varying paths' inodes
	content map[int]PathState // per inode named: its content state
}

// PendingOp is an operation that may or may not be on disk at a crash
// point: an entry operation, or data operation Index of an inode (an index
// into its MaybeOps, as PathState counts them).
type PendingOp struct {
	Entry *EntryOp
	Inode *Inode
	Index int
	Event Ref
}

// Joint returns the joint crash states at the point. Like All, it is only
// valid while the point is the timeline's latest.
func (pt Point) Joint() *JointSpace {
	if pt.tl == nil {
		return &JointSpace{exact: true, current: map[string]PathOutcomes{}, opIndex: map[*EntryOp]int{}, vary: map[string]bool{}, staticI: map[int]bool{}, configs: [][]bool{nil}}
	}
	return pt.tl.m.jointSpace(pt.All())
}

// jointSpace lays out the joint states over paths as jointCount counts
// them.
func (m *Model) jointSpace(paths map[string]PathOutcomes) *JointSpace {
	sp := &JointSpace{m: m, current: paths, exact: true, opIndex: map[*EntryOp]int{}, vary: map[string]bool{}, staticI: map[int]bool{}}
	for p, po := range paths {
		sp.paths = append(sp.paths, p)
		sp.exact = sp.exact && po.Exact
	}
	sort.Strings(sp.paths)
	touched := map[string]bool{}
	for _, op := range m.pending() {
		hit := false
		for _, c := range op.Changes {
			if _, ok := paths[c.Path]; ok {
				touched[c.Path] = true
				hit = true
			}
		}
		if hit {
			sp.opIndex[op] = len(sp.ops)
			sp.ops = append(sp.ops, op)
		}
	}
	for _, p := range sp.paths {
		if touched[p] || len(touched) > 0 && m.belowAny(p, func(q string) bool { return touched[q] }) {
			sp.varying = append(sp.varying, p)
			sp.vary[p] = true
			continue
		}
		ino := sp.durable(p)
		if ino == nil || sp.staticI[ino.ID] || !reachableWith(p, paths, nil, sp.durable) {
			continue
		}
		sp.staticI[ino.ID] = true
		sp.static = append(sp.static, jslot{p, ino, sp.statesOf(p, ino)})
	}
	k := len(sp.ops)
	switch ordered := m.opt.Persistence.Ordered(); {
	case !ordered && k <= jointSubsetOps:
		for mask := 0; mask < 1<<k; mask++ {
			cfg := make([]bool, k)
			for i := range cfg {
				cfg[i] = mask&(1<<i) != 0
			}
			sp.configs = append(sp.configs, cfg)
		}
	case ordered && k <= jointPrefixOps:
		for j := 0; j <= k; j++ {
			sp.configs = append(sp.configs, sp.prefixConfig(j))
		}
	default:
		sp.configs = [][]bool{sp.prefixConfig(0), sp.prefixConfig(k)}
		sp.exact = false
	}
	if k > 0 && m.opt.Persistence.Ordered() && m.sizedPaths(paths, sp.ops[0].seq()) > jointCutPaths {
		// As jointCount: "all persisted" alone.
		sp.configs = [][]bool{sp.prefixConfig(k)}
		sp.exact = false
	}
	return sp
}

func (sp *JointSpace) prefixConfig(j int) []bool {
	cfg := make([]bool, len(sp.ops))
	for i := range j {
		cfg[i] = true
	}
	return cfg
}

func (sp *JointSpace) durable(p string) *Inode {
	if n := sp.m.names[p]; n != nil {
		return n.Durable
	}
	return nil
}

// statesOf lists the content states of ino that p's outcomes hold.
func (sp *JointSpace) statesOf(p string, ino *Inode) []PathState {
	var out []PathState
	for _, s := range sp.current[p].States {
		if s.Inode == ino.ID {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		// Never seen at p (the outcomes were cut short): its content as
		// the program saw it.
		out = append(out, sp.m.contentAll(ino))
	}
	return out
}

// Paths lists every path in scope, sorted.
func (sp *JointSpace) Paths() []string { return sp.paths }

// Exact reports whether All yields every joint state the model admits
// (the count of them is exact).
func (sp *JointSpace) Exact() bool {
	// A saturated count is a bound, as the timeline's is.
	return sp.exact && sp.Count() < 1<<62
}

// names gives the varying paths the inodes a configuration leaves them.
func (sp *JointSpace) namesOf(cfg []bool) map[string]*Inode {
	names := make(map[string]*Inode, len(sp.varying))
	for _, p := range sp.varying {
		names[p] = sp.durable(p)
	}
	for i, op := range sp.ops {
		if !cfg[i] {
			continue
		}
		for _, c := range op.Changes {
			if sp.vary[c.Path] && opOn(sp.m.names[c.Path], op) {
				names[c.Path] = c.New
			}
		}
	}
	return names
}

// configKey identifies the tree of names a configuration gives, as
// jointCount tells configurations apart, and lists the inodes it adds to
// the static ones.
func (sp *JointSpace) configKey(names map[string]*Inode) (string, []jslot) {
	var b strings.Builder
	var slots []jslot
	seen := map[int]bool{}
	for _, p := range sp.varying {
		ino := names[p]
		if ino == nil || !reachableWith(p, sp.current, names, sp.durable) {
			continue
		}
		b.WriteString(p)
		b.WriteByte(0)
		b.WriteString(strconv.Itoa(ino.ID))
		b.WriteByte(0)
		if seen[ino.ID] || sp.staticI[ino.ID] {
			continue
		}
		seen[ino.ID] = true
		slots = append(slots, jslot{p, ino, sp.statesOf(p, ino)})
	}
	return b.String(), slots
}

// jgroupCfgs is the configurations that give one tree of names, in
// order, and the inodes of that tree with their content states.
type jgroupCfgs struct {
	cfgs  [][]bool
	names []map[string]*Inode
	cuts  []int
	slots []jslot
	seqs  [][]int // per slot and state: its sizeSeq
}

// trees groups the configurations by the tree of names they give, in the
// order each tree first comes. A slot keeps the content states the
// group's widest cut admits (every one, but under the ordered models),
// and at least the one with no pending data op on disk.
func (sp *JointSpace) trees() []jgroupCfgs {
	at := map[string]int{}
	var out []jgroupCfgs
	for _, cfg := range sp.configs {
		names := sp.namesOf(cfg)
		key, slots := sp.configKey(names)
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, jgroupCfgs{slots: append(append([]jslot(nil), sp.static...), slots...)})
		}
		g := &out[i]
		g.cfgs = append(g.cfgs, cfg)
		g.names = append(g.names, names)
		g.cuts = append(g.cuts, sp.cutSeq(cfg))
	}
	var buf []int
	for i := range out {
		g := &out[i]
		widest := slices.Max(g.cuts)
		g.seqs = make([][]int, len(g.slots))
		for k, sl := range g.slots {
			seqs := make([]int, len(sl.states))
			for n := range seqs {
				seqs[n] = -1
			}
			if widest == noCut {
				g.seqs[k] = seqs
				continue
			}
			// Each state's sizeSeq once (in O(ops + states)); those the
			// widest cut admits stay.
			sizeSeqs(sl.ino, sl.states, &buf, func(n, seq int) { seqs[n] = seq })
			var states []PathState
			var kept []int
			for n, st := range sl.states {
				if seqs[n] < widest {
					states, kept = append(states, st), append(kept, seqs[n])
				}
			}
			if len(states) == 0 {
				states, kept = []PathState{sp.m.contentPrefix(sl.ino, 0)}, []int{-1}
			}
			sl.states = states
			g.slots[k], g.seqs[k] = sl, kept
		}
	}
	return out
}

// admitted is the states of ino among states that a configuration cut at
// cut admits, or the state with none of its pending data ops on disk
// when none is.
func (sp *JointSpace) admitted(states []PathState, ino *Inode, cut int) []PathState {
	if cut == noCut {
		return states
	}
	var out []PathState
	for _, st := range states {
		if admits(ino, st, cut) {
			out = append(out, st)
		}
	}
	if len(out) == 0 {
		out = append(out, sp.m.contentPrefix(ino, 0))
	}
	return out
}

// All yields every joint state, in a fixed order: trees of names in the
// order their first configuration comes, and within one the content
// states of its inodes (the static ones first, in path order) as a
// mixed-radix count, each with the first configuration of the tree that
// admits it. When Exact, their number is the point's States.
func (sp *JointSpace) All(yield func(*JointState) bool) {
	for _, g := range sp.trees() {
		slots := g.slots
		digit := make([]int, len(slots))
		for {
			newest := -1
			for i := range slots {
				newest = max(newest, g.seqs[i][digit[i]])
			}
			c := 0
			for c < len(g.cfgs)-1 && g.cuts[c] <= newest {
				c++
			}
			s := &JointState{sp: sp, persist: g.cfgs[c], names: g.names[c], content: make(map[int]PathState, len(slots))}
			for i, sl := range slots {
				s.content[sl.ino.ID] = sl.states[digit[i]]
			}
			if !yield(s) {
				return
			}
			i := 0
			for ; i < len(slots); i++ {
				if digit[i]++; digit[i] < len(slots[i].states) {
					break
				}
				digit[i] = 0
			}
			if i == len(slots) {
				break
			}
		}
	}
}

// Count is how many states All yields.
func (sp *JointSpace) Count() int64 {
	var total int64
	for _, g := range sp.trees() {
		n := int64(1)
		for _, sl := range g.slots {
			n = satMul(n, int64(len(sl.states)))
		}
		total = satAdd(total, n)
	}
	return total
}

// Name returns the inode path p names in the state (nil: none), and
// whether p is there at all: false when a directory above it is missing
// (or is not a directory) in this state.
func (s *JointState) Name(p string) (*Inode, bool) {
	sp := s.sp
	ino, ok := s.names[p]
	if !ok {
		ino = sp.durable(p)
	}
	return ino, reachableWith(p, sp.current, s.names, sp.durable)
}

// Content returns the content state of inode id in the state: which of
// its pending data operations persisted (see PathState.Persists).
func (s *JointState) Content(id int) (PathState, bool) {
	c, ok := s.content[id]
	return c, ok
}

// Persisted reports whether a pending entry operation persisted in the
// state (true too for one already durable, or not among the space's).
func (s *JointState) Persisted(op *EntryOp) bool {
	i, ok := s.sp.opIndex[op]
	return !ok || s.persist[i]
}

// Path describes path p in the state as a crash state of p alone, for
// words: its outcome compared with what the program saw at the point.
func (s *JointState) Path(p string) PathState {
	sp := s.sp
	ino, there := s.Name(p)
	if !there {
		return PathState{Outcome: Missing, Persisted: "none", Gone: s.gone(p)}
	}
	if ino == nil {
		return PathState{Outcome: Missing, Persisted: "none", Name: s.via(p)}
	}
	cs, ok := s.content[ino.ID]
	if !ok {
		cs = sp.m.contentAll(ino)
	}
	n := sp.m.names[p]
	out := sp.m.classify(ino, n != nil && ino == n.Cache, cs)
	out.Name = s.via(p)
	return out
}

// AsSeen reports whether path p holds in the state what the program saw
// at the point: the inode it named with every pending data operation on
// disk, or nothing where the program saw nothing.
func (s *JointState) AsSeen(p string) bool {
	ino, there := s.Name(p)
	var cache *Inode
	if n := s.sp.m.names[p]; n != nil {
		cache = n.Cache
	}
	if !there || ino == nil {
		return cache == nil
	}
	return ino == cache && s.Path(p).Outcome == Latest
}

// via is the pending entry operation whose result p shows, or nil.
func (s *JointState) via(p string) *Ref {
	n := s.sp.m.names[p]
	if n == nil {
		return nil
	}
	var ref *Ref
	for _, op := range n.Ops {
		if i, ok := s.sp.opIndex[op]; ok && s.persist[i] {
			for _, c := range op.Changes {
				if c.Path == p {
					r := op.Event()
					ref = &r
				}
			}
		}
	}
	return ref
}

// gone is the nearest directory above p that is missing (or no
// directory) in the state.
func (s *JointState) gone(p string) string {
	var out string
	for q, c := parentDir(p), p; q != c && q != "." && q != "/"; q, c = parentDir(q), q {
		if _, ok := s.sp.current[q]; !ok {
			continue
		}
		ino, ok := s.names[q]
		if !ok {
			ino = s.sp.durable(q)
		}
		if ino == nil || !ino.mayBeDir() {
			out = q
		}
	}
	return out
}

// LostOp is a pending operation not wholly on disk in a state: Bytes of
// a write are (0: none), or only the size it gave the file (SizeOnly).
type LostOp struct {
	PendingOp
	Bytes    int64
	SizeOnly bool
}

// Lost lists the pending operations that are not (wholly) on disk in the
// state, in program order: entry operations that did not persist, and
// data operations, of the files the state's paths name, that persisted
// not at all or in part.
func (s *JointState) Lost() []LostOp {
	named := map[int]bool{}
	for _, p := range s.sp.paths {
		if ino, there := s.Name(p); there && ino != nil {
			named[ino.ID] = true
		}
	}
	var out []LostOp
	for _, po := range s.sp.Pending() {
		if po.Entry != nil {
			if !s.Persisted(po.Entry) {
				out = append(out, LostOp{PendingOp: po})
			}
			continue
		}
		cs, ok := s.content[po.Inode.ID]
		if !ok || !named[po.Inode.ID] {
			continue
		}
		op := po.Inode.maybeOps().at(po.Index)
		if b, sizeOnly := cs.Persists(po.Index, *op); b < wholeLen(op) {
			out = append(out, LostOp{PendingOp: po, Bytes: b, SizeOnly: sizeOnly})
		}
	}
	return out
}

func wholeLen(op *DataOp) int64 {
	if op.Kind != DataWrite && op.Kind != DataZero {
		return 1
	}
	return op.Len
}

// Key identifies the state: the same key, the same state.
func (s *JointState) Key() string {
	var b strings.Builder
	for _, p := range s.persist {
		if p {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	ids := make([]int, 0, len(s.content))
	for id := range s.content {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		b.WriteByte('|')
		appendContent(&b, id, s.content[id])
	}
	return b.String()
}

// TreeKey identifies what the state puts on disk: each path there, the
// inode it names and that inode's content state (a sha256 of them).
// States with the same TreeKey make the same tree; All yields each
// TreeKey once.
func (s *JointState) TreeKey() [32]byte {
	h := sha256.New()
	var b strings.Builder
	for _, p := range s.sp.paths {
		ino, there := s.Name(p)
		if !there || ino == nil {
			continue
		}
		b.Reset()
		b.WriteString(p)
		b.WriteByte('=')
		appendContent(&b, ino.ID, s.content[ino.ID])
		b.WriteByte(0)
		io.WriteString(h, b.String())
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

func appendContent(b *strings.Builder, id int, c PathState) {
	b.WriteString(strconv.Itoa(id) + ":" + strconv.Itoa(int(c.Kind)) + ":" + strconv.Itoa(c.J) + ":" +
		strconv.FormatUint(uint64(c.Mask), 16) + ":" + strconv.FormatInt(c.TornBytes, 10))
}

// contentAll is ino's content with every pending data operation on disk.
func (m *Model) contentAll(ino *Inode) PathState {
	if ino.Dir {
		return PathState{Outcome: Latest, Inode: ino.ID, Persisted: "all"}
	}
	cl := classifier{ino: ino, ops: ino.maybeOps(), current: true, files: m.opt.NameFiles}
	return cl.prefix(cl.ops.len())
}

// classify names content state cs of ino as seen at a path that names
// ino in the page cache (current) or not.
func (m *Model) classify(ino *Inode, current bool, cs PathState) PathState {
	if ino.Dir {
		var out PathState
		m.contentStates(ino, current, nil, 1, nil, true, func(s PathState) bool { out = s; return false })
		return out
	}
	cl := classifier{ino: ino, ops: ino.maybeOps(), current: current, files: m.opt.NameFiles}
	switch cs.Kind {
	case StateOmit:
		return cl.omit(cs.J)
	case StateSubset:
		return cl.subset(int(cs.Mask))
	case StateTorn:
		if s, ok := cl.tornAt(cs.J); ok {
			return s
		}
	case StateSizeOnly:
		if s, ok := cl.sizeOnly(cs.J); ok {
			return s
		}
	}
	return cl.prefix(cs.J)
}

// Pending lists the pending operations of the space in program order:
// its entry operations and the data operations of every file a path in
// scope can name.
func (sp *JointSpace) Pending() []PendingOp {
	if sp.pending != nil || sp.m == nil {
		return sp.pending
	}
	var inodes []*Inode
	seen := map[int]bool{}
	add := func(ino *Inode) {
		if ino != nil && !ino.Dir && !seen[ino.ID] {
			seen[ino.ID] = true
			inodes = append(inodes, ino)
		}
	}
	for _, p := range sp.paths {
		add(sp.durable(p))
		if n := sp.m.names[p]; n != nil {
			add(n.Cache)
		}
	}
	for _, op := range sp.ops {
		for _, c := range op.Changes {
			if _, ok := sp.current[c.Path]; ok {
				add(c.New)
			}
		}
	}
	out := []PendingOp{}
	for _, op := range sp.ops {
		out = append(out, PendingOp{Entry: op, Event: op.Event()})
	}
	for _, ino := range inodes {
		ops := ino.maybeOps()
		for i := range ops.len() {
			out = append(out, PendingOp{Inode: ino, Index: i, Event: ops.at(i).Event()})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Event.Seq != b.Event.Seq {
			return a.Event.Seq < b.Event.Seq
		}
		return a.Entry != nil && b.Entry == nil
	})
	sp.pending = out
	return out
}

// inodes lists every inode the state's paths name, reachable or not, with
// a path naming it (for content states drawn from that path's outcomes).
func (sp *JointSpace) inodesOf(names map[string]*Inode) []jslot {
	var out []jslot
	seen := map[int]bool{}
	for _, p := range sp.paths {
		ino, ok := names[p]
		if !ok {
			ino = sp.durable(p)
		}
		if ino == nil || seen[ino.ID] {
			continue
		}
		seen[ino.ID] = true
		out = append(out, jslot{path: p, ino: ino})
	}
	return out
}

// build makes the state of configuration cfg in which each inode holds
// the content content gives it.
func (sp *JointSpace) build(cfg []bool, content func(ino *Inode, p string) PathState) *JointState {
	names := sp.namesOf(cfg)
	s := &JointState{sp: sp, persist: cfg, names: names, content: map[int]PathState{}}
	for _, sl := range sp.inodesOf(names) {
		s.content[sl.ino.ID] = content(sl.ino, sl.path)
	}
	return s
}

// contentPrefix is ino's content with its first j pending data
// operations on disk.
func (m *Model) contentPrefix(ino *Inode, j int) PathState {
	if ino.Dir {
		return m.contentAll(ino)
	}
	cl := classifier{ino: ino, ops: ino.maybeOps(), current: true, files: m.opt.NameFiles}
	return cl.prefix(min(j, cl.ops.len()))
}

// Prefix is the state in which the first n pending operations (Pending)
// persisted and none after them: a crash that cut the program's work at
// one place. Every model admits it.
func (sp *JointSpace) Prefix(n int) *JointState {
	cut := map[int]int{} // inode → data ops on disk
	cfg := make([]bool, len(sp.ops))
	for _, po := range sp.Pending()[:min(n, len(sp.Pending()))] {
		if po.Entry != nil {
			cfg[sp.opIndex[po.Entry]] = true
		} else {
			cut[po.Inode.ID] = po.Index + 1
		}
	}
	return sp.build(cfg, func(ino *Inode, _ string) PathState { return sp.m.contentPrefix(ino, cut[ino.ID]) })
}

// Drop is the state in which pending operation k (an index into Pending)
// did not persist and every other did, as far as the model allows: under
// the ordered models a later entry operation cannot persist without an
// earlier one, nor a later write of a file without an earlier one, nor a
// size change made after a dropped entry operation (sizeorder.go), so
// those are lost with it.
func (sp *JointSpace) Drop(k int) *JointState {
	po := sp.Pending()[k]
	ordered := sp.m.opt.Persistence.Ordered()
	cfg := sp.prefixConfig(len(sp.ops))
	if po.Entry != nil {
		i := sp.opIndex[po.Entry]
		cfg[i] = false
		if ordered {
			for j := i; j < len(cfg); j++ {
				cfg[j] = false
			}
		}
	}
	cut := sp.cutSeq(cfg)
	return sp.build(cfg, func(ino *Inode, _ string) PathState {
		if po.Entry != nil || ino != po.Inode {
			return sp.m.contentBefore(ino, cut)
		}
		cl := classifier{ino: ino, ops: ino.maybeOps(), current: true, files: sp.m.opt.NameFiles}
		if ordered || po.Index == cl.ops.len()-1 {
			return cl.prefix(po.Index)
		}
		return cl.omit(po.Index)
	})
}

// Tearable reports whether pending operation k (an index into Pending)
// is a write that can persist in part (see Torn).
func (sp *JointSpace) Tearable(k int) bool {
	po := sp.Pending()[k]
	if po.Entry != nil {
		return false
	}
	cl := classifier{ino: po.Inode, ops: po.Inode.maybeOps(), current: true, files: sp.m.opt.NameFiles}
	_, ok := cl.tornAt(po.Index)
	return ok
}

// Torn is the state in which pending write k (an index into Pending)
// persisted in part, cut at its first page boundary, with the writes of
// its file before it on disk and those after it not, and every other
// operation on disk; false when k is no write that can tear.
func (sp *JointSpace) Torn(k int) (*JointState, bool) {
	po := sp.Pending()[k]
	if po.Entry != nil {
		return nil, false
	}
	cl := classifier{ino: po.Inode, ops: po.Inode.maybeOps(), current: true, files: sp.m.opt.NameFiles}
	torn, ok := cl.tornAt(po.Index)
	if !ok {
		return nil, false
	}
	return sp.allBut(po.Inode, torn), true
}

// allBut is the state in which every operation is on disk but the data
// of inode ino, which holds s.
func (sp *JointSpace) allBut(ino *Inode, s PathState) *JointState {
	return sp.build(sp.prefixConfig(len(sp.ops)), func(i *Inode, _ string) PathState {
		if i == ino {
			return s
		}
		return sp.m.contentAll(i)
	})
}

// Sizable reports whether pending operation k (an index into Pending) is
// a write whose size can reach the disk without its data (see SizeOnly).
func (sp *JointSpace) Sizable(k int) bool {
	_, ok := sp.sizeOnlyOf(k)
	return ok
}

// sizeOnlyOf is pending operation k's content with its size on disk and
// not its data, and whether there is one.
func (sp *JointSpace) sizeOnlyOf(k int) (PathState, bool) {
	po := sp.Pending()[k]
	if po.Entry != nil || !sp.m.sizeWithoutData(po.Inode) {
		return PathState{}, false
	}
	cl := classifier{ino: po.Inode, ops: po.Inode.maybeOps(), current: true, files: sp.m.opt.NameFiles}
	return cl.sizeOnly(po.Index)
}

// SizeOnly is the state in which pending write k (an index into Pending)
// gave its file the size it wrote without its bytes, with the writes of
// its file before it on disk and those after it not, and every other
// operation on disk; false when k is no write, or the model keeps this
// file's data and size together (Model.sizeWithoutData).
func (sp *JointSpace) SizeOnly(k int) (*JointState, bool) {
	size, ok := sp.sizeOnlyOf(k)
	if !ok {
		return nil, false
	}
	return sp.allBut(sp.Pending()[k].Inode, size), true
}

// With is a state in which path p holds target (one of its outcome
// states at the point): with every other operation on disk where the
// model allows it (most), or none (least). False when no configuration
// of the entry operations gives p target's inode and admits target.
func (sp *JointSpace) With(p string, target PathState, most bool) (*JointState, bool) {
	want := func(cfg []bool, names map[string]*Inode) bool {
		ino, ok := names[p]
		if !ok {
			ino = sp.durable(p)
		}
		there := reachableWith(p, sp.current, names, sp.durable)
		if target.Outcome == Missing {
			return !there || ino == nil
		}
		return there && ino != nil && ino.ID == target.Inode && admits(ino, target, sp.cutSeq(cfg))
	}
	if sp.m == nil {
		return nil, false
	}
	cfg, ok := sp.nearest(p, want, most)
	if !ok {
		return nil, false
	}
	cut := sp.cutSeq(cfg)
	return sp.build(cfg, func(ino *Inode, _ string) PathState {
		if ino.ID == target.Inode {
			return target
		}
		if most {
			return sp.m.contentBefore(ino, cut)
		}
		return sp.m.contentPrefix(ino, 0)
	}), true
}

// nearest finds a configuration of the entry operations the model admits
// in which want holds, as close as it can to all of them persisted
// (most) or none. want looks at path p: under posix only the operations
// that change p or a directory above it matter, and nearest flips the
// fewest of them (the newest 10 at most); under the ordered models it
// takes the longest (or shortest) prefix.
func (sp *JointSpace) nearest(p string, want func([]bool, map[string]*Inode) bool, most bool) ([]bool, bool) {
	k := len(sp.ops)
	if sp.m.opt.Persistence.Ordered() {
		for n := range k + 1 {
			j := n
			if most {
				j = k - n
			}
			cfg := sp.prefixConfig(j)
			if want(cfg, sp.namesOf(cfg)) {
				return cfg, true
			}
		}
		return nil, false
	}
	base := make([]bool, k)
	for i := range base {
		base[i] = most
	}
	var idx []int
	for i := k - 1; i >= 0 && len(idx) < jointSubsetOps; i-- {
		for _, c := range sp.ops[i].Changes {
			if c.Path == p || strings.HasPrefix(p, c.Path+"/") {
				idx = append(idx, i)
				break
			}
		}
	}
	masks := make([]int, 0, 1<<len(idx))
	for mask := 0; mask < 1<<len(idx); mask++ {
		masks = append(masks, mask)
	}
	sort.SliceStable(masks, func(a, b int) bool { return popcount(masks[a]) < popcount(masks[b]) })
	for _, mask := range masks {
		cfg := append([]bool(nil), base...)
		for b, i := range idx {
			if mask&(1<<b) != 0 {
				cfg[i] = !cfg[i]
			}
		}
		if want(cfg, sp.namesOf(cfg)) {
			return cfg, true
		}
	}
	return nil, false
}

func popcount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// Sample is a state drawn at random: each entry operation persisted or
// not (posix) or a random prefix of them (ordered), and each inode one of
// the content states its path's outcomes hold that the configuration
// admits.
func (sp *JointSpace) Sample(r *rand.Rand) *JointState {
	k := len(sp.ops)
	var cfg []bool
	if sp.m != nil && sp.m.opt.Persistence.Ordered() {
		cfg = sp.prefixConfig(r.IntN(k + 1))
	} else {
		cfg = make([]bool, k)
		for i := range cfg {
			cfg[i] = r.IntN(2) == 1
		}
	}
	cut := sp.cutSeq(cfg)
	return sp.build(cfg, func(ino *Inode, p string) PathState {
		st := sp.admitted(sp.statesOf(p, ino), ino, cut)
		return st[r.IntN(len(st))]
	})
}
