package parser

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestFFSetDone: an event of an -ff set of several files is ordered
// against other files' by time (Began, Ended): it ended by its thread's
// next call, or by Time+Dur when -T says sooner; a file's last call
// without -T has no bound. One trace file orders by lines, as does a set
// of one file.
func TestFFSetDone(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("t.100", "10:00:00.000100 getpid() = 100 <0.000010>\n10:00:00.000500 getpid() = 100 <0.000900>\n10:00:00.000600 exit_group(0) = ?\n10:00:00.000700 +++ exited with 0 +++\n")
	write("t.101", "10:00:00.000200 getpid() = 101\n10:00:00.000300 getpid() = 101\n")
	s, err := Open(filepath.Join(dir, "t"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const us = 1000
	base := int64(10 * 3600 * 1e9)
	want := []struct{ pid, began, ended int64 }{
		{100, base + 100*us, base + 110*us}, // -T: sooner than the next call
		{101, base + 200*us, base + 300*us}, // the next call of its thread
		{101, base + 300*us, math.MaxInt64}, // its file's last call
		{100, base + 500*us, base + 600*us}, // the next call comes before Time+Dur
	}
	for i := 0; ; i++ {
		ev, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind != KindSyscall || ev.Name != "getpid" {
			continue
		}
		if i >= len(want) {
			t.Fatalf("more getpid calls than %d", len(want))
		}
		w := want[i]
		if int64(ev.PID) != w.pid || ev.Began() != w.began || ev.Ended() != w.ended {
			t.Errorf("call %d: pid %d began %d ended %d, want pid %d began %d ended %d", i, ev.PID, ev.Began(), ev.Ended(), w.pid, w.began, w.ended)
		}
	}
	one := filepath.Join(dir, "one")
	if err := os.WriteFile(one+".7", []byte("10:00:00.000100 getpid() = 7\n10:00:00.000200 getpid() = 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s1, err := Open(one, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s1.Close()
	for line := int64(1); ; line++ {
		ev, err := s1.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Began() != line || ev.Ended() != line {
			t.Errorf("set of one file, line %d: began %d ended %d, want the line", line, ev.Began(), ev.Ended())
		}
	}
}
