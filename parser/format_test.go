package parser

import (
	"strings"
	"testing"
)

func TestBrief(t *testing.T) {
	trace := `123 openat(AT_FDCWD, "/work/dir/config.json.tmp", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3
123 write(3, "secret bytes", 12) = 12
123 fsync(3) = -1 EIO (Input/output error)
`
	r := NewReader(strings.NewReader(trace), "t.strace", Options{})
	var evs []*Event
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		evs = append(evs, ev)
	}
	if len(evs) != 3 {
		t.Fatalf("%d events", len(evs))
	}
	work := func(args string) string { return strings.ReplaceAll(args, "/work/dir/", "") }
	for _, c := range []struct {
		ev    *Event
		width int
		edit  func(string) string
		want  string
	}{
		{evs[0], 120, nil, `openat(AT_FDCWD, "/work/dir/config.json.tmp", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`},
		{evs[0], 30, nil, `openat(AT_FDCWD, "/work/dir/config...) = 3`},
		{evs[0], 30, work, `openat(AT_FDCWD, "config.json.tmp"...) = 3`},
		{evs[1], 80, nil, `write(3, ..., 12) = 12`},
		{evs[2], 80, nil, `fsync(3) = -1 EIO`},
		{nil, 80, nil, ``},
	} {
		if got := c.ev.Brief(c.width, c.edit); got != c.want {
			t.Errorf("Brief(%d) = %q, want %q", c.width, got, c.want)
		}
	}
}
