package model_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// BenchmarkUnsyncedWrites replays n 512-byte writes to one file and one
// fdatasync at the end: every write stays pending until the barrier, so
// this is what a program writing a large file in small pieces costs the
// model. The events are parsed once, outside the timer.
func BenchmarkUnsyncedWrites(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 16} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			evs := unsyncedWrites(b, n)
			b.ReportAllocs()
			for b.Loop() {
				m := model.New(model.Options{Persistence: model.Posix})
				for _, ev := range evs {
					m.Apply(ev)
				}
				if ino := m.Inodes()[len(m.Inodes())-1]; ino.DataPending() || ino.DurableSize != int64(n)*512 {
					b.Fatalf("after the fdatasync: pending %v, durable size %d", ino.DataPending(), ino.DurableSize)
				}
			}
		})
	}
}

// unsyncedWrites is a trace that creates a file, writes it n times and
// syncs it once, as crashsim trace records it (no bytes).
func unsyncedWrites(b *testing.B, n int) []*parser.Event {
	var t strings.Builder
	t.WriteString(`100 openat(AT_FDCWD, "/var/tmp/w.bin", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 5` + "\n")
	for range n {
		t.WriteString(`100 write(5, ""..., 512) = 512` + "\n")
	}
	t.WriteString("100 fdatasync(5) = 0\n")
	return parseTrace(b, t.String())
}

// parseTrace reads the events of a trace held in a string.
func parseTrace(tb testing.TB, trace string) []*parser.Event {
	r := parser.NewReader(strings.NewReader(trace), "test.strace", parser.Options{})
	var evs []*parser.Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return evs
		}
		if err != nil {
			tb.Fatal(err)
		}
		evs = append(evs, ev)
	}
}
