//go:build linux

package reap

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// fdsEnv makes the test binary stand in for a crashsim whose caller gave
// it fds 3 and 5 (fdsHelper).
const fdsEnv = "REAP_TEST_FDS"

// fdsHelper prints the fds it inherited, runs a shell under a keeper, with
// a watchdog beside it, and prints what each of them holds:
//
//	inherited 3 5 ...
//	command 0 1 2 3 5 ...     the shell's fds
//	watchdog /path ...        where the watchdog's fds lead
func fdsHelper() int {
	fmt.Println("inherited", strings.Trim(fmt.Sprint(Inherited()), "[]"))
	wd, err := StartWatchdog(0, NewToken())
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	var links []string
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", wd.cmd.Process.Pid))
	for _, e := range ents {
		l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", wd.cmd.Process.Pid, e.Name()))
		links = append(links, l)
	}
	fmt.Println("watchdog", strings.Join(links, " "))
	os.Stdout.Sync()
	// ls lists the shell's fds, not its own; the shell holds no fd of its
	// own while it waits for a simple command (no pipeline, no redirect).
	k := Keep("/bin/sh", []string{"sh", "-c", `ls /proc/$$/fd; echo three >&3 && echo five >&5`}, Attr{Setpgid: true})
	var ls bytes.Buffer
	k.Cmd.Stdout, k.Cmd.Stderr = &ls, os.Stderr
	if err := k.Start(); err != nil {
		fmt.Println("error:", err)
		return 1
	}
	ws, _, err := k.Wait()
	wd.Stop()
	fmt.Println("command", strings.Join(strings.Fields(ls.String()), " "))
	if err != nil || ws.ExitStatus() != 0 {
		fmt.Println("error: the command failed:", err, ws.ExitStatus())
		return 1
	}
	return 0
}

// What crashsim's caller gave it at fds 3 and 5 reaches the command at
// 3 and 5, fd 3 too, where the keeper's socket used to go; the socket and
// crashsim's other fds do not, and the watchdog holds none of the caller's.
func TestKeeperPassesInheritedFDs(t *testing.T) {
	dir := t.TempDir()
	open := func(name string) *os.File {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), fdsEnv+"=1")
	c.ExtraFiles = []*os.File{open("three"), nil, open("five")} // fds 3 and 5; 4 closed
	out, err := c.Output()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	said := map[string][]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 {
			said[f[0]] = f[1:]
		}
	}
	inh := said["inherited"]
	if !slices.Contains(inh, "3") || !slices.Contains(inh, "5") || slices.Contains(inh, "4") {
		t.Fatalf("the helper's inherited fds are %v, want 3 and 5 among them, not 4\n%s", inh, out)
	}
	want := append([]string{"0", "1", "2"}, inh...)
	got := said["command"]
	slices.SortFunc(want, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
	slices.SortFunc(got, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
	if !slices.Equal(got, want) {
		t.Errorf("the command has fds %v, want 0, 1, 2 and the inherited ones, no more: %v\n%s", got, want, out)
	}
	for _, name := range []string{"three", "five"} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		if string(b) != name+"\n" {
			t.Errorf("%s holds %q, want %q", name, b, name+"\n")
		}
		for _, l := range said["watchdog"] {
			if strings.HasSuffix(l, "/"+name) {
				t.Errorf("the watchdog holds the caller's fd on %s: %v", name, said["watchdog"])
			}
		}
	}
}

// withAtStart makes fds the ones open at the process's start for the
// length of the test.
func withAtStart(t *testing.T, fds ...int) {
	old := atStart
	atStart = append(slices.Clone(old), fds...)
	slices.Sort(atStart)
	t.Cleanup(func() { atStart = old })
}

// inheritable clears f's close-on-exec flag, as an exec leaves every fd
// it passes on.
func inheritable(t *testing.T, f *os.File) int {
	fd := int(f.Fd())
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil {
		t.Fatal(err)
	}
	return fd
}

// An fd open at the start is the caller's while it stays open and not
// close-on-exec: one crashsim closed, or marked close-on-exec itself, is
// no longer passed on.
func TestInherited(t *testing.T) {
	a, b, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	c, d, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fa, fb, fc := inheritable(t, a), int(b.Fd()), inheritable(t, d)
	d.Close()
	withAtStart(t, fa, fb, fc)
	got := Inherited()
	if !slices.Contains(got, fa) || slices.Contains(got, fb) || slices.Contains(got, fc) {
		t.Errorf("Inherited = %v, want %d (open, inheritable) and not %d (close-on-exec) nor %d (closed)", got, fa, fb, fc)
	}
	b.Close()
}

// An inherited fd in non-blocking mode (the end of a pipe a Node.js
// parent gave) reaches the child as it is: passing it on does not make
// it blocking, for the caller neither; and the dups made to pass it are
// closed again.
func TestPlaceFilesKeepsNonblocking(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fd := inheritable(t, w)
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	withAtStart(t, fd)
	before, _ := os.ReadDir("/proc/self/fd")
	top := slices.Max(Inherited()) + 1
	c := exec.Command("/bin/sh", "-c", fmt.Sprintf(`echo x >&%d && [ ! -e /proc/$$/fd/%d ]`, fd, top))
	at, release, err := placeFiles(c, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{top}; !slices.Equal(at, want) {
		t.Errorf("own file at %v, want %v: just above the inherited fds", at, want)
	}
	err = c.Run()
	release()
	if err != nil {
		t.Fatalf("the child: %v", err)
	}
	if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err != nil || flags&unix.O_NONBLOCK == 0 {
		t.Errorf("the inherited fd's flags are %#o (%v): no longer non-blocking", flags, err)
	}
	buf := make([]byte, 8)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "x\n" {
		t.Errorf("read %q, %v from the pipe; want the child's x", buf[:n], err)
	}
	if after, _ := os.ReadDir("/proc/self/fd"); len(after) != len(before) {
		t.Errorf("%d fds open after, %d before: a dup was left open", len(after), len(before))
	}
}
