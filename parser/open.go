package parser

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/internal/syscalls"
)

// Open opens a trace for reading: a file, or the PREFIX of an strace -ff
// set whose files are PREFIX.PID, merged into one order by timestamp.
func Open(path string, opt Options) (Stream, error) {
	fi, err := os.Stat(path)
	if err == nil {
		if fi.IsDir() {
			return nil, fmt.Errorf("%s is a directory: give an strace log, or the PREFIX of an strace -ff set (PREFIX.PID files)", path)
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
		return nil, fmt.Errorf("cannot read trace %s: no such file (nor strace -ff files %s.PID)", path, path)
	}
	return openSet(path, members, opt)
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

// ffSet merges the members of an -ff set by timestamp. Each member is one
// process, so its own order is exact; across processes only the timestamps
// order events, and without them there is no order: Open refuses.
type ffSet struct {
	prefix string
	rs     []*Reader
	h      evHeap
	seq    int
	primed bool
}

func openSet(prefix string, members []ffMember, opt Options) (Stream, error) {
	s := &ffSet{prefix: prefix}
	// The members are processes of one machine: what one shows of its
	// architecture holds for all.
	evidence := new(syscalls.Evidence)
	for _, m := range members {
		r, err := OpenFile(m.path, opt)
		if err != nil {
			s.Close()
			return nil, err
		}
		r.pid = m.pid
		r.evidence = evidence
		s.rs = append(s.rs, r)
	}
	return s, nil
}

type heapItem struct {
	ev *Event
	r  int
}

type evHeap []heapItem

func (h evHeap) Len() int { return len(h) }
func (h evHeap) Less(i, j int) bool {
	a, b := h[i].ev, h[j].ev
	if a.Time != b.Time {
		return a.Time < b.Time
	}
	return h[i].r < h[j].r
}
func (h evHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *evHeap) Push(x any)   { *h = append(*h, x.(heapItem)) }
func (h *evHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (s *ffSet) pull(i int) error {
	ev, err := s.rs[i].Next()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		var pe *Error
		if errors.As(err, &pe) && strings.HasPrefix(pe.Msg, "the trace is empty") && len(s.rs) > 1 {
			return nil // an -ff member of a process that made no call
		}
		return err
	}
	if !ev.HasTime && len(s.rs) > 1 {
		return &Error{Pos: ev.Pos, Msg: fmt.Sprintf("the -ff set %s.* has no timestamps, so the order of calls across its %d processes is unknown: record with -ttt (strace -ff -ttt -o %s CMD)", s.prefix, len(s.rs), filepath.Base(s.prefix))}
	}
	if s.rs[i].tf == timeRelative && len(s.rs) > 1 {
		return &Error{Pos: ev.Pos, Msg: fmt.Sprintf("the -ff set %s.* has relative timestamps (-r), which cannot order calls across processes: record with -ttt", s.prefix)}
	}
	heap.Push(&s.h, heapItem{ev, i})
	return nil
}

func (s *ffSet) Next() (*Event, error) {
	if !s.primed {
		s.primed = true
		for i := range s.rs {
			if err := s.pull(i); err != nil {
				return nil, err
			}
		}
	}
	if s.h.Len() == 0 {
		return nil, io.EOF
	}
	it := heap.Pop(&s.h).(heapItem)
	if err := s.pull(it.r); err != nil {
		return nil, err
	}
	it.ev.Seq = s.seq
	s.seq++
	return it.ev, nil
}

func (s *ffSet) Close() error {
	var first error
	for _, r := range s.rs {
		if err := r.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
