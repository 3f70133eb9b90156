package model

import (
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestThreadSharesFDs: without -y, a thread made by clone3 with
// CLONE_FILES writes through fds its process opens after the clone (a Go
// goroutine moving between threads does that).
func TestThreadSharesFDs(t *testing.T) {
	trace := `10 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD, exit_signal=0} => {parent_tid=[11]}, 88) = 11
10 openat(AT_FDCWD, "bench.bin", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 5
11 write(5, ""..., 65536) = 65536
12 write(5, ""..., 1) = 1
`
	r := parser.NewReader(strings.NewReader(trace), "t", parser.Options{})
	p := NewProcsIn("/work")
	var got []string
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		paths := p.Paths(ev)
		p.Apply(ev, paths)
		if ev.Name == "write" {
			got = append(got, strings.Join(paths, ","))
		}
	}
	// Thread 11 shares the table; 12 came from nowhere the trace shows.
	if len(got) != 2 || got[0] != "/work/bench.bin" || got[1] != "" {
		t.Errorf("write paths %q, want [/work/bench.bin \"\"]", got)
	}
}
