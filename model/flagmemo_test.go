package model

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/parser"
)

// fdFlags lists the flags of every fd of every process of m.
func fdFlags(m *Model) string {
	var out []string
	for _, pid := range slices.Sorted(maps.Keys(m.procs.procs)) {
		fds := maps.Collect(m.procs.procs[pid].files.all)
		for _, fd := range slices.Sorted(maps.Keys(fds)) {
			out = append(out, fmt.Sprintf("%d:%d=%#x", pid, fd, fds[fd].h.Flags))
		}
	}
	return strings.Join(out, " ")
}

// TestSharedFlagsSameAsOwn: models applying each event one after the
// other with a Shared decode an event's flags once for all of them; the
// fd flags they end with, and the effects, must be what a model decoding
// its own finds.
func TestSharedFlagsSameAsOwn(t *testing.T) {
	trace := `10 openat(AT_FDCWD, "/d/a", O_WRONLY|O_CREAT|O_APPEND, 0644) = 3
10 fcntl(3, F_GETFL) = 0x401 (flags O_WRONLY|O_APPEND)
10 fcntl(3, F_SETFL, O_WRONLY|O_DIRECT) = 0
10 openat(AT_FDCWD, "/d/b", O_RDWR|O_CREAT|O_DSYNC, 0644) = 4
10 pwritev2(4, [{iov_base="x", iov_len=1}], 1, 0, RWF_SYNC) = 1
10 fcntl(4, F_SETFD, FD_CLOEXEC) = 0
10 dup3(3, 7, O_CLOEXEC) = 7
10 fcntl(4, F_SETFL, O_APPEND) = 0
10 mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_SHARED, 4, 0) = 0x7f0000000000
10 renameat2(AT_FDCWD, "/d/a", AT_FDCWD, "/d/c", RENAME_NOREPLACE) = 0
10 openat(AT_FDCWD, "/d/c", O_RDONLY) = 5
`
	// replay returns the fd flags of each of n models after each event.
	replay := func(shared *Shared, n int) [][]string {
		var ms []*Model
		for i := 0; i < n; i++ {
			ms = append(ms, New(Options{Persistence: Persistences[i], Shared: shared}))
		}
		got := make([][]string, n)
		r := parser.NewReader(strings.NewReader(trace), "t", parser.Options{})
		for {
			ev, err := r.Next()
			if err != nil {
				return got
			}
			for i, m := range ms {
				m.Apply(ev)
				got[i] = append(got[i], fdFlags(m))
			}
		}
	}
	own := replay(nil, 1)[0]
	if !strings.Contains(strings.Join(own, "\n"), fmt.Sprintf("=%#x", syscalls.O_WRONLY|syscalls.O_CREAT|syscalls.O_DIRECT)) {
		t.Fatalf("the replay did not see F_SETFL's flags:\n%s", strings.Join(own, "\n"))
	}
	for i, got := range replay(new(Shared), 2) {
		if !slices.Equal(got, own) {
			t.Errorf("model %d sharing flags:\n%s\nwant\n%s", i, strings.Join(got, "\n"), strings.Join(own, "\n"))
		}
	}
}

// TestFlagMemoNextEvent: the memo serves an event's flags only to the
// same event: the same Event reused for the next (as the parser does) or
// another Event with the same Seq decodes its own.
func TestFlagMemoNextEvent(t *testing.T) {
	p := NewProcs()
	s := new(Shared)
	p.flags = &s.flags
	read := func(line string, seq int, ev *parser.Event) (uint64, uint64) {
		r := parser.NewReader(strings.NewReader(line+"\n"), "t", parser.Options{})
		got, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		*ev = *got
		ev.Seq = seq
		f, _ := p.bits(ev, 2, syscalls.OpenFlags)
		return f, p.openFlags(ev)
	}
	var a, b parser.Event
	if f, _ := read(`1 fcntl(3, F_SETFL, O_APPEND) = 0`, 0, &a); f != syscalls.O_APPEND {
		t.Fatalf("F_SETFL O_APPEND read %#x", f)
	}
	if f, _ := read(`1 fcntl(3, F_SETFL, O_DIRECT) = 0`, 1, &a); f != syscalls.O_DIRECT {
		t.Errorf("the same Event at the next Seq: %#x, want O_DIRECT", f)
	}
	if f, _ := read(`1 fcntl(3, F_SETFL, O_NONBLOCK) = 0`, 1, &b); f != syscalls.O_NONBLOCK {
		t.Errorf("another Event at the same Seq: %#x, want O_NONBLOCK", f)
	}
	if _, o := read(`1 openat(AT_FDCWD, "/x", O_WRONLY|O_CREAT) = 3`, 2, &a); o != syscalls.O_WRONLY|syscalls.O_CREAT {
		t.Errorf("open flags %#x", o)
	}
	if _, o := read(`1 openat(AT_FDCWD, "/x", O_RDONLY) = 3`, 3, &a); o != syscalls.O_RDONLY {
		t.Errorf("open flags of the next event %#x, want O_RDONLY", o)
	}
}

// TestSharedMemoLetGoAfterLastModel: the models sharing a memo let it go
// once each has applied the event, so that an Event made by hand and
// applied again with the same pointer and Seq, its text changed, is read
// afresh: its flags and its paths.
func TestSharedMemoLetGoAfterLastModel(t *testing.T) {
	s := new(Shared)
	models := []*Model{New(Options{Persistence: Posix, Shared: s}), New(Options{Persistence: Ext4, Shared: s})}
	var ev parser.Event
	apply := func(line string) {
		r := parser.NewReader(strings.NewReader(line+"\n"), "t", parser.Options{})
		got, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		ev = *got
		ev.Seq = 7 // the same pointer and Seq every time
		for _, m := range models {
			m.Apply(&ev)
		}
	}
	apply(`1 openat(AT_FDCWD, "/d/a", O_WRONLY|O_CREAT|O_APPEND, 0644) = 3`)
	apply(`1 openat(AT_FDCWD, "/d/b", O_WRONLY|O_CREAT|O_DIRECT, 0644) = 4`)
	for i, m := range models {
		got := fdFlags(m)
		want := fmt.Sprintf("1:3=%#x 1:4=%#x", syscalls.O_WRONLY|syscalls.O_CREAT|syscalls.O_APPEND, syscalls.O_WRONLY|syscalls.O_CREAT|syscalls.O_DIRECT)
		if got != want {
			t.Errorf("model %d: fd flags %s, want %s", i, got, want)
		}
		if n := m.nameOf("/d/b"); n == nil || n.Cache == nil {
			t.Errorf("model %d: no /d/b: the second open took the first one's paths", i)
		}
	}
}
