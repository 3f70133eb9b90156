package parser

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// oneLongLine is a trace of one write whose data is n bytes, then a close:
// made as it is read, so that no test holds it or writes it to disk.
func oneLongLine(n int) io.Reader {
	return io.MultiReader(
		strings.NewReader(`write(3, "`),
		io.LimitReader(&endless{pattern: 'a'}, int64(n)),
		strings.NewReader(fmt.Sprintf("\", %d) = %d\nclose(3) = 0\n", n, n)),
	)
}

// procStatus reads one "Name: N kB" field of /proc/self/status, in bytes.
func procStatus(t *testing.T, name string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skipf("no %s in /proc/self/status", name)
	return 0
}

// TestAdversarialLongLineOneCopy: a line under the limit is held once
// while it is read. Gathering it into a slice grown by doubling held the
// last copy and the new one at once (and every earlier one until a
// collection): with --max-line 4G a 2.2 GB line took over 6 GB. The peak
// resident memory the read adds must stay under one and a half times the
// line.
func TestAdversarialLongLineOneCopy(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a 65 MiB line")
	}
	// Resetting the peak needs Linux 4.0; without it there is no figure.
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak resident memory: %v", err)
	}
	const n = 64<<20 + 1<<20 // just past a power of two: a doubling slice had 128 MiB then
	before := procStatus(t, "VmRSS")
	r := NewReader(oneLongLine(n), "long.strace", Options{MaxLine: 256 << 20})
	ev, err := r.Next()
	if err != nil || ev.Name != "write" || ev.Args[1].Data.Len != n {
		t.Fatalf("got %v, %v: want the write of %d bytes", ev, err, n)
	}
	peak := procStatus(t, "VmHWM")
	if ev, err := r.Next(); err != nil || ev.Name != "close" {
		t.Fatalf("after the long line: %v, %v", ev, err)
	}
	r.Close()
	if grew := peak - before; grew > n*3/2 {
		t.Errorf("reading a %d MiB line took %d MiB more memory at the peak, want under %d MiB", n>>20, grew>>20, n*3/2>>20)
	}
}

// TestAdversarialLongLineNoMemory: a line longer than the memory the
// process can get is an error at file:line:col, not a crash. The test
// runs itself again with its address space capped (RLIMIT_AS), on a line
// of 1 GiB under a limit of 4 GiB.
func TestAdversarialLongLineNoMemory(t *testing.T) {
	if os.Getenv("CRASHSIM_TEST_CAPPED") == "1" {
		vm := procStatus(t, "VmSize")
		lim := uint64(vm + 256<<20)
		if err := unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: lim, Max: lim}); err != nil {
			t.Fatal(err)
		}
		r := NewReader(oneLongLine(1<<30), "huge.strace", Options{MaxLine: 4 << 30})
		_, err := r.Next()
		fmt.Printf("RESULT %v\n", err)
		return
	}
	if testing.Short() {
		t.Skip("reads up to 256 MiB of a line")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAdversarialLongLineNoMemory$", "-test.v")
	cmd.Env = append(os.Environ(), "CRASHSIM_TEST_CAPPED=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the capped run failed: %v\n%s", err, out)
	}
	want := "RESULT huge.strace:1:1: line longer than the memory there is to hold it"
	if !bytes.Contains(out, []byte(want)) {
		t.Errorf("the capped run said:\n%s\nwant %q", out, want)
	}
}
