//go:build linux

package explore

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// needJail skips a test of the jail when crashsim cannot make one here.
func needJail(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("a jail test needs root: not with -short")
	}
	if !canJail() {
		t.Skip("needs CAP_SYS_ADMIN (root): checkers are jailed only then")
	}
}

// hostMount mounts a tmpfs of the test's own at a new directory and
// returns it; it is unmounted when the test ends.
func hostMount(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a tmpfs for the test: %v", err)
	}
	t.Cleanup(func() {
		_ = unix.Mount("", dir, "", unix.MS_REMOUNT, "size=1m") // read-write again, should a checker have got through
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// escape runs checker, jailed, on the one state of a one-write trace (the
// checker must exit 0 when every escape it tries fails), and fails the
// test on any finding.
func escape(t *testing.T, checker string) {
	t.Helper()
	trace, root := oneWrite(t)
	res := runTrace(t, trace, Options{Trace: trace, Root: root, Jobs: 1, WorkDir: t.TempDir(), MaxStates: 1, Checker: checker})
	if res.Checked != 1 {
		t.Fatalf("checked %d states, want 1", res.Checked)
	}
	for _, f := range res.Findings {
		t.Errorf("escape: %s", f.Message)
	}
}

// A checker that remounts the filesystem of a real file read-write (in
// the jail's mount namespace, or in a user namespace of its own) cannot,
// and the file stays as it was (issue 23).
func TestJailRemountReadWrite(t *testing.T) {
	needJail(t)
	m := hostMount(t)
	real := filepath.Join(m, "real")
	if err := os.WriteFile(real, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	try := "mount -o remount,bind,rw " + m + " && echo pwned > " + real
	checker := "if " + try + "; then exit 1; fi"
	if _, err := exec.LookPath("unshare"); err == nil {
		checker += "; if unshare -Urm sh -c '" + try + "'; then exit 2; fi"
	}
	escape(t, checker+"; exit 0")
	if b, _ := os.ReadFile(real); string(b) != "precious" {
		t.Errorf("the checker wrote the real file: %q", b)
	}
}

// A checker cannot write a block device, neither through /dev nor through
// a device node of the host's elsewhere: the jail's /dev has none, and
// every other mount is nodev (issue 23).
func TestJailBlockDevice(t *testing.T) {
	needJail(t)
	if _, err := exec.LookPath("losetup"); err != nil {
		t.Skip("needs losetup")
	}
	dir := t.TempDir()
	img := filepath.Join(dir, "disk.img")
	if err := os.WriteFile(img, bytes.Repeat([]byte("A"), 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("losetup", "-f", "--show", img).Output()
	if err != nil {
		t.Skipf("cannot attach a loop device: %v", err)
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() {
		if out, err := exec.Command("losetup", "-d", dev).CombinedOutput(); err != nil {
			t.Errorf("losetup -d %s: %v: %s", dev, err, out)
		}
	})
	var st unix.Stat_t
	if err := unix.Stat(dev, &st); err != nil {
		t.Fatal(err)
	}
	node := filepath.Join(t.TempDir(), "node")
	if err := unix.Mknod(node, unix.S_IFBLK|0o600, int(st.Rdev)); err != nil {
		t.Fatal(err)
	}
	var checks []string
	for _, d := range []string{dev, node} {
		checks = append(checks, "if dd if=/dev/zero of="+d+" bs=4096 count=1 conv=notrunc,fsync; then exit 1; fi")
	}
	escape(t, strings.Join(checks, "; ")+"; exit 0")
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b[:4096], bytes.Repeat([]byte("A"), 4096)) {
		t.Error("the checker overwrote the loop device's first block")
	}
}

// A checker cannot remount a host mount read-only for the whole machine
// (issue 23).
func TestJailHostRemountReadOnly(t *testing.T) {
	needJail(t)
	m := hostMount(t)
	escape(t, "if mount -o remount,ro "+m+"; then exit 1; fi; exit 0")
	if err := os.WriteFile(filepath.Join(m, "x"), []byte("x"), 0o644); err != nil {
		t.Errorf("the host mount is no longer writable: %v", err)
	}
}

// A checker has no capabilities, no_new_privs, a minimal /dev, and a
// read-only /proc: it cannot mount, make a device node, write to
// /proc/sysrq-trigger ('h' only prints the help to the kernel log, should
// it get through) or even to its own /proc/self/comm.
func TestJailPrivileges(t *testing.T) {
	needJail(t)
	logDir := t.TempDir()
	t.Setenv(WritableEnv, logDir)
	log := filepath.Join(logDir, "log")
	escape(t, `grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status > `+log+`; ls -A /dev >> `+log+`
if mount -t tmpfs none /tmp; then exit 1; fi
if mknod null2 c 1 3; then exit 2; fi
if echo h > /proc/sysrq-trigger; then exit 3; fi
if printf x > /proc/self/comm; then exit 5; fi
if echo x > /dev/shm/x && test -f /dev/shm/x; then :; else exit 4; fi
exit 0`)
	b, _ := os.ReadFile(log)
	want := "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\nNoNewPrivs:\t1\n" +
		"fd\nfull\nnull\nptmx\npts\nrandom\nshm\nstderr\nstdin\nstdout\ntty\nurandom\nzero\n"
	if got := string(b); got != want {
		t.Errorf("the checker saw:\n%s\nwant:\n%s", got, want)
	}
}

// Each state gets an empty /dev/shm: what a checker left there is gone for
// the next, as after a reboot.
func TestJailFreshShm(t *testing.T) {
	needJail(t)
	trace, root := oneWrite(t)
	name := "/dev/shm/crashsim-" + mark()
	res := runTrace(t, trace, Options{Trace: trace, Root: root, Jobs: 1, WorkDir: t.TempDir(),
		Checker: "if [ -e " + name + " ]; then echo left by the last checker; exit 1; fi; touch " + name})
	if res.Checked < 2 {
		t.Fatalf("checked %d states, want at least 2", res.Checked)
	}
	for _, f := range res.Findings {
		t.Errorf("finding: %s", f.Message)
	}
	if _, err := os.Stat(name); err == nil {
		os.Remove(name)
		t.Error("the checker's file reached the host's /dev/shm")
	}
}

// A lock file that names the crashed program's pid and pid namespace
// (the way Mercurial writes its locks) reads as stale from the checker:
// the checker is in the same pid namespace, and the pid no longer runs.
func TestStaleLockOfCrashedProgram(t *testing.T) {
	jailModes(t, func(t *testing.T) {
		var st syscall.Stat_t
		if err := syscall.Stat("/proc/self/ns/pid", &st); err != nil {
			t.Skipf("no pid namespace to name: %v", err)
		}
		// The crashed program: a process that has ended.
		c := exec.Command("true")
		if err := c.Run(); err != nil {
			t.Fatal(err)
		}
		lock := fmt.Sprintf("%d %d\n", st.Ino, c.Process.Pid)
		root := filepath.Join(t.TempDir(), "root")
		trace := writeTrace(t, root,
			`openat(AT_FDCWD, "/R/lock", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3`,
			fmt.Sprintf(`write(3, "%s", %d) = %d`, hexString(lock), len(lock), len(lock)),
			`close(3) = 0`,
			`openat(AT_FDCWD, "/R/data", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4`,
			`write(4, "x", 1) = 1`,
		)
		// A lock that is missing, empty or torn (zeros) names no process.
		checker := `grep -qE '^[0-9]+ [0-9]+$' lock 2>/dev/null || exit 0
read ns pid < lock
[ "$ns" = "$(stat -L -c %i /proc/self/ns/pid)" ] || { echo "lock of another pid namespace: $ns"; exit 1; }
if kill -0 "$pid" 2>/dev/null; then echo "the lock's process $pid runs"; exit 1; fi`
		res := runTrace(t, trace, Options{Trace: trace, Root: root, Jobs: 1, WorkDir: t.TempDir(), Checker: checker})
		if res.Checked < 3 {
			t.Fatalf("checked %d states, want at least 3", res.Checked)
		}
		for _, f := range res.Findings {
			t.Errorf("finding: %s", f.Message)
		}
	})
}

// explore's default work directory is in /dev/shm, which the jail's own
// /dev covers: each state directory is still at its own path, writable,
// and so is a writable directory below /dev/shm.
func TestJailWorkDirInDevShm(t *testing.T) {
	needJail(t)
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm")
	}
	logDir, err := os.MkdirTemp("/dev/shm", "crashsim-test-")
	if err != nil {
		t.Skipf("cannot write /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(logDir) })
	t.Setenv(WritableEnv, logDir)
	trace, root := oneWrite(t)
	res := runTrace(t, trace, Options{Trace: trace, Root: root, Jobs: 1,
		Checker: `test "$PWD" = "$CRASHSIM_STATE_DIR" && echo ok > checked && echo "$CRASHSIM_CRASH_LINE" >> ` + logDir + `/log`})
	if res.Checked < 2 {
		t.Fatalf("checked %d states, want at least 2", res.Checked)
	}
	for _, f := range res.Findings {
		t.Errorf("finding: %s", f.Message)
	}
	if b, _ := os.ReadFile(filepath.Join(logDir, "log")); strings.Count(string(b), "\n") != res.Checked {
		t.Errorf("the writable directory in /dev/shm got %q from %d states", b, res.Checked)
	}
}

// TestOpenToExecAboveChildFiles starts a program through the fd
// openToExec gives, with more child files than the lowest free fd (each
// a socket, which a lower fd would name in the child: EACCES from
// execve) and the fd just above them taken, as another goroutine's open
// file can take it, so that the next free one is where the child moves
// its error pipe before it executes (the starter's failure in CI).
func TestOpenToExecAboveChildFiles(t *testing.T) {
	exe, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1) here")
	}
	low, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(low)
	socks, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(socks[0])
	defer unix.Close(socks[1])
	files := make([]uintptr, max(low, socks[1])+8)
	for i := range files {
		files[i] = uintptr(socks[1])
	}
	taken, err := unix.FcntlInt(uintptr(socks[0]), unix.F_DUPFD_CLOEXEC, len(files))
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(taken)
	fd, err := openToExec(exe, files)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if fd <= taken {
		t.Errorf("fd %d, want above %d", fd, taken)
	}
	pid, err := syscall.ForkExec("/proc/self/fd/"+fmt.Sprint(fd), []string{exe}, &syscall.ProcAttr{Files: files})
	if err != nil {
		t.Fatalf("execute through fd %d: %v", fd, err)
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil || ws.ExitStatus() != 0 {
		t.Errorf("true ended %v (%v)", ws, err)
	}
}
