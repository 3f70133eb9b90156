package parser

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/internal/inputfile"
	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/internal/textesc"
)

// Open opens a trace for reading: a file, or the PREFIX of an strace -ff
// set whose files are PREFIX.PID, merged into one order by timestamp.
// "PREFIX.*" (no file of that name) names the set too, also where a file
// PREFIX exists; a file PREFIX beside a set is refused, as two recordings
// under one name.
func Open(path string, opt Options) (Stream, error) {
	if prefix, ok := starredSet(path); ok {
		members, err := ffMembers(prefix)
		if err != nil {
			return nil, err
		}
		if len(members) == 0 {
			return nil, fmt.Errorf("cannot read trace %s: no strace -ff files %s.PID", textesc.Escape(path), textesc.Escape(prefix))
		}
		return openSet(prefix, members, opt)
	}
	fi, err := os.Stat(path)
	if err == nil {
		if fi.IsDir() {
			return nil, fmt.Errorf("%s is a directory: give an strace log, or the PREFIX of an strace -ff set (PREFIX.PID files)", textesc.Escape(path))
		}
		if fi.Mode().IsRegular() {
			// strace -o t and, another time, strace -ff -o t: which
			// one the user means cannot be told, and reading the other
			// quietly checks a recording they did not mean.
			if ms, err := ffMembers(path); err == nil && len(ms) > 0 {
				esc := textesc.Escape(path)
				return nil, fmt.Errorf("%s is a trace, and also the PREFIX of an strace -ff set beside it (%s): two recordings under one name; give '%s.*' in quotes to read the set, or move the set's files aside to read %s", esc, setFilesShown(ms), esc, esc)
			}
		}
		return OpenFile(path, opt)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	members, gerr := ffMembers(path)
	if gerr != nil {
		return nil, gerr
	}
	if len(members) == 0 {
		return nil, fmt.Errorf("cannot read trace %s: no such file (nor strace -ff files %s.PID)", textesc.Escape(path), textesc.Escape(path))
	}
	return openSet(path, members, opt)
}

// IsSet reports whether Open reads path as the PREFIX of an strace -ff
// set: no file of that name, and PREFIX.PID files.
func IsSet(path string) bool {
	if prefix, ok := starredSet(path); ok {
		ms, err := ffMembers(prefix)
		return err == nil && len(ms) > 0
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	ms, err := ffMembers(path)
	return err == nil && len(ms) > 0
}

// SetOf says whether path is one file of an strace -ff set: its name is
// PREFIX.PID and other PREFIX.PID files lie beside it. It returns the
// prefix and the others' names, in pid order; "" and nil otherwise.
// Given one such file, a check sees one process of the recording: what
// the others did is not in it.
func SetOf(path string) (prefix string, others []string) {
	dot := strings.LastIndexByte(path, '.')
	if dot <= 0 || strings.ContainsRune(path[dot:], filepath.Separator) {
		return "", nil
	}
	if pid, err := strconv.Atoi(path[dot+1:]); err != nil || pid <= 0 || path[dot+1] == '+' {
		return "", nil
	}
	prefix = path[:dot]
	ms, err := ffMembers(prefix)
	if err != nil {
		return "", nil
	}
	for _, m := range ms {
		if filepath.Clean(m.path) != filepath.Clean(path) {
			others = append(others, m.path)
		}
	}
	if len(others) == 0 {
		return "", nil
	}
	return prefix, others
}

// starredSet says whether path names an -ff set as "PREFIX.*", as a
// user quotes it (no file has that name), and returns the prefix.
func starredSet(path string) (string, bool) {
	prefix, ok := strings.CutSuffix(path, ".*")
	if !ok || prefix == "" || strings.HasSuffix(prefix, string(filepath.Separator)) {
		return "", false
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	return prefix, true
}

// setFilesShown names an -ff set's files: the first, escaped, and how
// many more.
func setFilesShown(ms []ffMember) string {
	first := textesc.Escape(ms[0].path)
	switch len(ms) {
	case 1:
		return first
	case 2:
		return first + " and 1 other file"
	}
	return fmt.Sprintf("%s and %d other files", first, len(ms)-1)
}

// SetName is how a trace names the -ff set of prefix: the prefix, or
// "PREFIX.*" where a file named prefix exists (Open).
func SetName(prefix string) string {
	if _, err := os.Stat(prefix); err == nil {
		return prefix + ".*"
	}
	return prefix
}

type ffMember struct {
	path string
	pid  int
}

// ffMembers lists PREFIX.PID files, in pid order.
func ffMembers(prefix string) ([]ffMember, error) {
	matches, err := filepath.Glob(globEscape(prefix) + ".*")
	if err != nil {
		return nil, err
	}
	var ms []ffMember
	for _, m := range matches {
		suffix := m[strings.LastIndexByte(m, '.')+1:]
		pid, err := strconv.Atoi(suffix)
		if err != nil || pid <= 0 || filepath.Clean(m[:len(m)-len(suffix)-1]) != filepath.Clean(prefix) {
			continue
		}
		ms = append(ms, ffMember{m, pid})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].pid < ms[j].pid })
	return ms, nil
}

func globEscape(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(s)
}

// maxOpenMembers is how many files of an -ff set are open at once. A set
// can have tens of thousands (one per process or thread): opened together
// they ran out of file descriptors, and each member's buffers and slabs
// took its share of a gigabyte. The others are parked (see Reader.park)
// and opened again at their offset when their turn comes.
var maxOpenMembers = 64

// ffSet merges the members of an -ff set by timestamp. Each member is one
// process, so its own order is exact; across processes only the timestamps
// order events, and without them there is no order: Open refuses.
//
// Only each member's next event is held, in a heap ordered by time and
// then by member (pid order), as when every member was open. A member is
// opened when its first event is wanted, and parked, least recently read
// first, when maxOpenMembers are open; it is closed for good at its end.
type ffSet struct {
	prefix string
	opt    Options
	ms     []*ffState
	h      memberHeap
	open   []int // members whose file is open
	clock  int64
	cache  *internCache // the intern front cache every member shares
	// evidence is what the members showed of their machine's
	// architecture, which every member's events are read with.
	evidence *syscalls.Evidence
	seq      int
	primed   bool
	// handoff holds a thread's execve started in the thread's file, by
	// the pid it took, for the leader's file to end (Reader.handoff).
	handoff map[int]*Event
}

// ffState is one member of a set as the merge reads it.
type ffState struct {
	ffMember
	r    *Reader     // nil before the member is first read and after its end
	id   fs.FileInfo // the file first opened, to open the same one again
	head *Event      // the member's next event, in the heap
	used int64       // when it was last read (ffSet.clock)
	// base is what its times add to come onto the set's clock: the days
	// before its first line's, for times of day (placeDays).
	base int64
}

func openSet(prefix string, members []ffMember, opt Options) (Stream, error) {
	// The members are processes of one machine: what one shows of its
	// architecture holds for all (Reader.evidence).
	s := &ffSet{prefix: prefix, opt: opt, cache: new(internCache), evidence: new(syscalls.Evidence)}
	for _, m := range members {
		s.ms = append(s.ms, &ffState{ffMember: m})
	}
	return s, nil
}

// memberHeap orders members by their next event: by time, then by member.
type memberHeap struct {
	ix []int
	ms []*ffState
}

func (h *memberHeap) Len() int { return len(h.ix) }
func (h *memberHeap) Less(i, j int) bool {
	a, b := h.ms[h.ix[i]].head, h.ms[h.ix[j]].head
	if a.Time != b.Time {
		return a.Time < b.Time
	}
	return h.ix[i] < h.ix[j]
}
func (h *memberHeap) Swap(i, j int) { h.ix[i], h.ix[j] = h.ix[j], h.ix[i] }
func (h *memberHeap) Push(x any)    { h.ix = append(h.ix, x.(int)) }
func (h *memberHeap) Pop() any {
	x := h.ix[len(h.ix)-1]
	h.ix = h.ix[:len(h.ix)-1]
	return x
}

// reader returns member i's Reader with its file open, parking another
// member when the set has no room for one more open file.
func (s *ffSet) reader(i int) (*Reader, error) {
	m := s.ms[i]
	s.clock++
	m.used = s.clock
	if m.r != nil && !m.r.parked() {
		return m.r, nil
	}
	if len(s.open) >= maxOpenMembers {
		if err := s.parkOne(); err != nil {
			return nil, err
		}
	}
	if m.r == nil {
		r, err := openFile(m.path, s.opt, inputfile.Found)
		if err != nil {
			return nil, err
		}
		if f, ok := r.c.(*os.File); ok {
			m.id, _ = f.Stat()
		}
		r.pid = m.pid
		r.dayOff, r.lastTime = m.base, m.base
		r.lp.cache = s.cache
		r.evidence = s.evidence
		if len(s.ms) > 1 {
			if s.handoff == nil {
				s.handoff = map[int]*Event{}
			}
			r.handoff = s.handoff
		}
		m.r = r
	} else {
		f, err := inputfile.Open(m.path, inputfile.Found)
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		if err == nil && m.id != nil && !os.SameFile(fi, m.id) {
			err = fmt.Errorf("%s was replaced while the -ff set was read", textesc.Escape(m.path))
		}
		if err == nil {
			err = m.r.resume(f, memberBuffer(fi.Size()))
		}
		if err != nil {
			f.Close()
			return nil, err
		}
	}
	s.open = append(s.open, i)
	return m.r, nil
}

// memberBuffer sizes a member's buffer as OpenFile does: a small file
// needs no full-size one.
func memberBuffer(size int64) int {
	return int(min(max(size+1, 2*sniffSize), readBlock))
}

// parkOne parks the open member read least recently, with its next
// event copied out of the slabs that event would keep alive.
func (s *ffSet) parkOne() error {
	k := 0
	for j := range s.open {
		if s.ms[s.open[j]].used < s.ms[s.open[k]].used {
			k = j
		}
	}
	m := s.ms[s.open[k]]
	s.open = append(s.open[:k], s.open[k+1:]...)
	if m.head != nil {
		c := detach(m.head)
		s.opt.pool.put(m.head) // nothing points at it any more
		m.head = c
	}
	return m.r.park()
}

// finish closes member i at its end.
func (s *ffSet) finish(i int) error {
	m := s.ms[i]
	for j, o := range s.open {
		if o == i {
			s.open = append(s.open[:j], s.open[j+1:]...)
			break
		}
	}
	err := m.r.Close()
	m.r = nil
	return err
}

// pull reads member i's next event into the heap.
func (s *ffSet) pull(i int) error {
	r, err := s.reader(i)
	if err != nil {
		return err
	}
	m := s.ms[i]
	m.head = nil
	ev, err := r.Next()
	if err == io.EOF {
		return s.finish(i)
	}
	if err != nil {
		var pe *Error
		if errors.As(err, &pe) && strings.HasPrefix(pe.Msg, "the trace is empty") && len(s.ms) > 1 {
			return s.finish(i) // an -ff member of a process that made no call
		}
		return err
	}
	if !ev.HasTime && len(s.ms) > 1 {
		return &Error{Pos: ev.Pos, Msg: fmt.Sprintf("the -ff set %s.* has no timestamps, so the order of calls across its %d processes is unknown: record with -ttt (strace -ff -ttt -o %s CMD)", textesc.Escape(s.prefix), len(s.ms), textesc.Escape(filepath.Base(s.prefix)))}
	}
	if r.tf == timeRelative && len(s.ms) > 1 {
		return &Error{Pos: ev.Pos, Msg: fmt.Sprintf("the -ff set %s.* has only relative timestamps (-r), which cannot order calls across processes: record with -ttt, alone or with -r (strace -ff -ttt -o %s CMD)", textesc.Escape(s.prefix), textesc.Escape(filepath.Base(s.prefix)))}
	}
	if r.lp.wholeSeconds && len(s.ms) > 1 {
		return &Error{Pos: ev.Pos, Msg: fmt.Sprintf("the -ff set %s.* has timestamps in whole seconds (-t), which cannot order the calls its processes make within a second: record with -ttt (strace -ff -ttt -o %s CMD)", textesc.Escape(s.prefix), textesc.Escape(filepath.Base(s.prefix)))}
	}
	m.head = ev
	heap.Push(&s.h, i)
	return nil
}

func (s *ffSet) Next() (*Event, error) {
	if !s.primed {
		if len(s.ms) > 1 && !s.opt.anyDay {
			if err := s.placeDays(); err != nil {
				return nil, err
			}
		}
		s.primed = true
		s.h.ms = s.ms
		for i := range s.ms {
			if err := s.pull(i); err != nil {
				return nil, err
			}
		}
	}
	if s.h.Len() == 0 {
		return nil, io.EOF
	}
	i := heap.Pop(&s.h).(int)
	ev := s.ms[i].head
	if err := s.pull(i); err != nil {
		return nil, err
	}
	if len(s.ms) > 1 {
		// The call ended before its thread's next one began; the lines of
		// its own file cannot order it against another file's (see Began).
		ev.Done = math.MaxInt64
		if next := s.ms[i].head; next != nil {
			ev.Done = next.Time
		}
		if ev.Dur >= 0 && ev.Time+int64(ev.Dur) < ev.Done {
			ev.Done = ev.Time + int64(ev.Dur)
		}
		ev.Done = max(ev.Done, ev.Time, 1)
	}
	ev.Seq = s.seq
	s.seq++
	ev.Overlap = 0 // counted in its own file, whose neighbours the merge moved
	return ev, nil
}

func (s *ffSet) Close() error {
	var first error
	for _, m := range s.ms {
		if m.r == nil {
			continue
		}
		if err := m.r.Close(); err != nil && first == nil {
			first = err
		}
		m.r = nil
	}
	s.open = nil
	return first
}
