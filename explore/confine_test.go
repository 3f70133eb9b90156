//go:build linux

package explore

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/reap"
	"golang.org/x/sys/unix"
)

// Tests of the checker's confinement (zygote_linux.go): as root, a
// jailed checker is an unprivileged user of the host. Each runs a
// hostile checker that must fail at every step, and most also run it
// where it succeeds (unjailed, or with HostRootEnv), so that a checker
// that could not have done it anyway does not pass them.

// skipUnconfined skips a test whose run found that checkers cannot be
// confined on this kernel (explore said why).
func skipUnconfined(t *testing.T, res *Result) {
	t.Helper()
	if res.Unconfined != "" {
		t.Skipf("checkers cannot be confined here: %s", res.Unconfined)
	}
}

// threeStates is a trace with a few crash states.
func threeStates(t *testing.T) (trace, root string) {
	root = filepath.Join(t.TempDir(), "root")
	return writeTrace(t, root,
		`openat(AT_FDCWD, "/R/f", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
		`write(3, "x", 1) = 1`,
		`write(3, "y", 1) = 1`,
	), root
}

// startOutside starts a process of root's (sleep) that no checker
// started, and returns it; it is killed when the test ends.
func startOutside(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	c := exec.Command(args[0], args[1:]...)
	c.Env = env
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Process.Kill()
		c.Wait()
	})
	return c
}

// A checker that kills every process it may (kill -9 -1), or a process
// of root's by its pid, kills nothing outside its own tree: not a
// process of the host's, not crashsim, not the runner or the starter,
// not another worker's checker (each runner's checkers have a uid of
// their own). crashsim goes on and every state passes.
func TestJailKillAll(t *testing.T) {
	needJail(t)
	outside := startOutside(t, nil, "sleep", mark())
	trace, root := threeStates(t)
	// The checker kills everything only once it knows it is not the
	// host's root: on a kernel where it would be, it says so instead.
	checker := fmt.Sprintf(`if kill -9 %d 2>/dev/null; then echo "killed a process of the host"; exit 1; fi
read -r inside host n < /proc/self/uid_map
if [ "$host" = 0 ]; then echo "not confined: the checker is the host's root"; exit 3; fi
kill -9 -1
sleep 0.1
exit 0`, outside.Process.Pid)
	res := runTrace(t, trace, Options{Trace: trace, Root: root, Jobs: 2, WorkDir: t.TempDir(), Checker: checker})
	skipUnconfined(t, res)
	if res.Checked < 3 {
		t.Fatalf("checked %d states, want at least 3", res.Checked)
	}
	for _, f := range res.Findings {
		t.Errorf("finding: %s", f.Message)
	}
	if !reap.Alive(outside.Process.Pid) {
		t.Error("the process outside the checker was killed")
	}
}

// A checker cannot connect to root's unix sockets (mode 0600 and 0660, in
// a directory anyone may enter), to an abstract unix socket or to a TCP
// port on 127.0.0.1 that the host listens on. Unjailed, or jailed with
// HostRootEnv, the same checker reaches all four.
func TestJailRootSockets(t *testing.T) {
	needJail(t)
	py := "/usr/bin/python3" // not a version manager's shim below /root
	if _, err := os.Stat(py); err != nil {
		t.Skip("needs /usr/bin/python3 to connect")
	}
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	listen := func(network, addr string) net.Listener {
		l, err := net.Listen(network, addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		return l
	}
	private, group := filepath.Join(dir, "private.sock"), filepath.Join(dir, "group.sock")
	listen("unix", private)
	listen("unix", group)
	if err := os.Chmod(private, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(group, 0o660); err != nil {
		t.Fatal(err)
	}
	abstract := "crashsim-test-" + mark()
	listen("unix", "@"+abstract)
	port := listen("tcp", "127.0.0.1:0").Addr().(*net.TCPAddr).Port
	checker := py + ` -c '
import socket, sys
reached = []
for name, family, addr in [("private", socket.AF_UNIX, "` + private + `"), ("group", socket.AF_UNIX, "` + group + `"),
		("abstract", socket.AF_UNIX, "\0` + abstract + `"), ("tcp", socket.AF_INET, ("127.0.0.1", ` + strconv.Itoa(port) + `))]:
	s = socket.socket(family, socket.SOCK_STREAM)
	s.settimeout(10)
	try:
		s.connect(addr)
		reached.append(name)
	except OSError:
		pass
	s.close()
if reached:
	print("reached", " ".join(reached))
	sys.exit(1)
'`
	trace, root := oneWrite(t)
	run := func() *Result {
		return runTrace(t, trace, Options{Trace: trace, Root: root, Jobs: 1, MaxStates: 1, WorkDir: t.TempDir(), Checker: checker})
	}
	res := run()
	skipUnconfined(t, res)
	if res.Checked != 1 {
		t.Fatalf("checked %d states, want 1", res.Checked)
	}
	for _, f := range res.Findings {
		t.Errorf("jailed: %s", f.Message)
	}
	all := "reached private group abstract tcp"
	t.Run("unjailed", func(t *testing.T) {
		noJail = true
		defer func() { noJail = false }()
		requireFinding(t, run(), all)
	})
	t.Run("host-root", func(t *testing.T) {
		t.Setenv(HostRootEnv, "1")
		requireFinding(t, run(), all)
	})
}

// requireFinding fails unless the run's one state failed with want in
// its message.
func requireFinding(t *testing.T, res *Result, want string) {
	t.Helper()
	if len(res.Findings) != 1 || !strings.Contains(res.Findings[0].Message, want) {
		var msgs []string
		for _, f := range res.Findings {
			msgs = append(msgs, f.Message)
		}
		t.Errorf("want one finding with %q, got %q", want, msgs)
	}
}

// A checker sees root's processes (same pid namespace) but cannot read
// their environment or list their fds, crashsim's or those of a root
// process without capabilities, nor signal them. Unjailed, it can.
func TestJailRootProcesses(t *testing.T) {
	needJail(t)
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("needs setpriv to start a root process without capabilities")
	}
	secret := "CRASHSIM_TEST_SECRET=" + mark()
	// A root service that dropped its capabilities: a checker that is
	// root without capabilities may read its environment.
	weak := startOutside(t, []string{secret}, "setpriv", "--bounding-set=-all", "--inh-caps=-all", "--", "sleep", mark())
	me := strconv.Itoa(os.Getpid())
	checker := fmt.Sprintf(`[ -d /proc/%[1]s ] && [ -d /proc/%[2]d ] || { echo "cannot see the processes"; exit 9; }
r=""
if cat /proc/%[1]s/environ >/dev/null 2>&1; then r="$r crashsim-environ"; fi
if ls /proc/%[1]s/fd >/dev/null 2>&1; then r="$r crashsim-fd"; fi
if kill -0 %[1]s 2>/dev/null; then r="$r crashsim-signal"; fi
if tr '\0' '\n' < /proc/%[2]d/environ 2>/dev/null | grep -q CRASHSIM_TEST_SECRET; then r="$r root-environ"; fi
if ls /proc/%[2]d/fd >/dev/null 2>&1; then r="$r root-fd"; fi
if kill -0 %[2]d 2>/dev/null; then r="$r root-signal"; fi
[ -z "$r" ] || { echo "reached$r"; exit 1; }`, me, weak.Process.Pid)
	trace, root := oneWrite(t)
	run := func() *Result {
		return runTrace(t, trace, Options{Trace: trace, Root: root, Jobs: 1, MaxStates: 1, WorkDir: t.TempDir(), Checker: checker})
	}
	res := run()
	skipUnconfined(t, res)
	if res.Checked != 1 {
		t.Fatalf("checked %d states, want 1", res.Checked)
	}
	for _, f := range res.Findings {
		t.Errorf("jailed: %s", f.Message)
	}
	t.Run("unjailed", func(t *testing.T) {
		noJail = true
		defer func() { noJail = false }()
		requireFinding(t, run(), "reached crashsim-environ crashsim-fd crashsim-signal root-environ root-fd root-signal")
	})
}

// A confined checker is uid 0 of its namespace and owns its state's files
// (git takes a repository of the snapshot as its own); what it creates in
// a writable directory is root's on the host; on the host it is a uid of
// crashsim's range, not root.
func TestJailCheckerUser(t *testing.T) {
	needJail(t)
	logDir := t.TempDir()
	t.Setenv(WritableEnv, logDir)
	log := filepath.Join(logDir, "log")
	initial := writeTree(t, map[string]string{"data": "x"})
	checker := `[ "$(id -u)" = 0 ] && [ "$(stat -c %u:%g data)" = 0:0 ] && [ -w data ] && echo y > new || { echo "does not own its files: $(id) $(ls -ln)"; exit 1; }
read -r inside host n < /proc/self/uid_map
echo "$host" >> ` + log
	if _, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command("git", "-C", initial, "init", "-q").CombinedOutput(); err != nil {
			t.Fatalf("git init: %v: %s", err, out)
		}
		checker = `git status --short >/dev/null || exit 2` + "\n" + checker
	}
	trace, root := oneWrite(t)
	res := runTrace(t, trace, Options{Trace: trace, Root: root, Initial: initial, Jobs: 1, WorkDir: t.TempDir(), Checker: checker})
	skipUnconfined(t, res)
	if res.Checked == 0 {
		t.Fatal("no state checked")
	}
	for _, f := range res.Findings {
		t.Errorf("finding: %s", f.Message)
	}
	var st unix.Stat_t
	if err := unix.Stat(log, &st); err != nil {
		t.Fatal(err)
	}
	if st.Uid != 0 || st.Gid != 0 {
		t.Errorf("the checker's file is %d:%d on the host, want root's", st.Uid, st.Gid)
	}
	b, _ := os.ReadFile(log)
	for _, l := range strings.Fields(string(b)) {
		if uid, _ := strconv.Atoi(l); uid < uidBase || uid >= uidEnd {
			t.Errorf("the checker is uid %s on the host, want one of %d to %d", l, uidBase, uidEnd-1)
		}
	}
}

// Two runners alive at once give their checkers different host uids, so
// that a checker cannot signal another worker's.
func TestJailRunnersHaveOwnUsers(t *testing.T) {
	needJail(t)
	work := t.TempDir()
	dir := filepath.Join(work, "state")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var uids []string
	for range 2 {
		r, err := newRunner(work)
		if err != nil {
			t.Fatal(err)
		}
		defer r.stop()
		if why := r.unconfined(); why != "" {
			t.Skipf("checkers cannot be confined here: %s", why)
		}
		var out bytes.Buffer
		o, err := r.run(context.Background(), dir, []string{"sh", "-c", "cat /proc/self/uid_map"}, os.Environ(), checkerToken(), &out)
		if err != nil || o.notRun != "" || o.status.ExitStatus() != 0 {
			t.Fatalf("run: %v %q %s", err, o.notRun, out.String())
		}
		f := strings.Fields(out.String())
		if len(f) != 3 || f[0] != "0" {
			t.Fatalf("uid_map %q", out.String())
		}
		uids = append(uids, f[1])
	}
	if uids[0] == uids[1] {
		t.Errorf("two runners' checkers are both uid %s", uids[0])
	}
}

// Where the work directory's filesystem has no idmapped mounts (ramfs), a
// jailed checker runs as the host's root, as before, still in network
// and IPC namespaces of its own, and Result.Unconfined says so; with
// HostRootEnv it also shares the host's network namespace.
func TestJailUnconfinedFallback(t *testing.T) {
	needJail(t)
	work := filepath.Join(t.TempDir(), "ramfs")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("ramfs", work, "ramfs", 0, ""); err != nil {
		t.Skipf("cannot mount a ramfs: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(work, unix.MNT_DETACH) })
	logDir := t.TempDir()
	t.Setenv(WritableEnv, logDir)
	log := filepath.Join(logDir, "log")
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/net", &st); err != nil {
		t.Fatal(err)
	}
	hostNet := strconv.FormatUint(st.Ino, 10)
	checker := `read -r inside host n < /proc/self/uid_map; echo "$host $(stat -L -c %i /proc/self/ns/net)" > ` + log
	trace, root := oneWrite(t)
	run := func() *Result {
		return runTrace(t, trace, Options{Trace: trace, Root: root, Jobs: 1, MaxStates: 1, WorkDir: work, Checker: checker})
	}
	res := run()
	if !strings.Contains(res.Unconfined, "idmapped") {
		t.Errorf("Unconfined = %q, want why (idmapped mounts)", res.Unconfined)
	}
	b, _ := os.ReadFile(log)
	if f := strings.Fields(string(b)); len(f) != 2 || f[0] != "0" || f[1] == hostNet {
		t.Errorf("the checker saw %q: want the host's uid 0 and a network namespace other than %s", b, hostNet)
	}
	t.Setenv(HostRootEnv, "1")
	res = run()
	if res.Unconfined != "" {
		t.Errorf("with %s, Unconfined = %q: the user asked for the host's root", HostRootEnv, res.Unconfined)
	}
	b, _ = os.ReadFile(log)
	if f := strings.Fields(string(b)); len(f) != 2 || f[0] != "0" || f[1] != hostNet {
		t.Errorf("with %s the checker saw %q: want the host's uid 0 and network namespace %s", HostRootEnv, b, hostNet)
	}
}

// A confined checker cannot read a directory closed to others (a checker
// script below /root, say) unless ReadableEnv names it; then it reads it,
// and cannot write it.
func TestJailReadable(t *testing.T) {
	needJail(t)
	dir := t.TempDir() // 0700, in a directory of the same mode
	script := filepath.Join(dir, "check.sh")
	if err := os.WriteFile(script, []byte("touch "+filepath.Join(dir, "written")+" 2>/dev/null && exit 1\nexit 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	trace, root := oneWrite(t)
	run := func() *Result {
		return runTrace(t, trace, Options{Trace: trace, Root: root, Jobs: 1, MaxStates: 1, WorkDir: t.TempDir(), Checker: "sh " + script})
	}
	res := run()
	skipUnconfined(t, res)
	if res.Failed != 1 {
		t.Errorf("the checker read a script closed to others: %d states failed, want 1", res.Failed)
	}
	t.Setenv(ReadableEnv, dir)
	res = run()
	for _, f := range res.Findings {
		t.Errorf("with %s: %s", ReadableEnv, f.Message)
	}
	if _, err := os.Stat(filepath.Join(dir, "written")); err == nil {
		t.Error("the checker wrote a readable directory")
	}
}

// A confined checker holds no fd but its stdin, stdout and stderr: not
// the starter's socket to crashsim, and not a file crashsim holds open
// without close-on-exec (one it inherited, or the uid map Go writes for
// another worker's starter while this one is forked), here one of root's
// it could not open.
func TestJailCheckerInheritsNoFD(t *testing.T) {
	needJail(t)
	logDir := t.TempDir()
	t.Setenv(WritableEnv, logDir)
	log := filepath.Join(logDir, "fds")
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(secret, unix.O_RDWR, 0) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	trace, root := oneWrite(t)
	run := func(t *testing.T) []byte {
		os.Remove(log)
		res := runTrace(t, trace, Options{Trace: trace, Root: root, Jobs: 1, MaxStates: 1, WorkDir: t.TempDir(),
			// The checker's shell's fds, listed by a child that makes the
			// redirection (the shell would keep copies of fds it redirects).
			Checker: `sh -c 'ls -l /proc/$PPID/fd > ` + log + `'; exit 0`})
		if res.Checked != 1 {
			t.Fatalf("checked %d states, want 1", res.Checked)
		}
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// A runner's checkers (the host's root in a jail, or not jailed)
	// inherit none either.
	t.Run("runner", func(t *testing.T) {
		t.Setenv(HostRootEnv, "1")
		onlyStandardFDs(t, run(t))
	})
	t.Run("unjailed", func(t *testing.T) {
		noJail = true
		defer func() { noJail = false }()
		onlyStandardFDs(t, run(t))
	})
	onlyStandardFDs(t, run(t))
}

// onlyStandardFDs fails the test when ls -l of /proc/PID/fd lists an fd
// that is not stdin, stdout or stderr.
func onlyStandardFDs(t *testing.T, b []byte) {
	t.Helper()
	fds := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(l); len(f) > 3 && f[len(f)-2] == "->" { // not "total 0"
			fds[f[len(f)-3]] = f[len(f)-1]
		}
	}
	std := []string{fds["0"], fds["1"], fds["2"]}
	if slices.Contains(std, "") {
		t.Fatalf("no stdin, stdout or stderr in:\n%s", b)
	}
	for n, to := range fds {
		// The shell's own copy of a standard stream (dash keeps one of
		// stdin as fd 10) is not one inherited.
		if !slices.Contains(std, to) {
			t.Errorf("the checker holds fd %s -> %s", n, to)
		}
	}
}

// Many workers setting up their jails at once: Go writes a starter's uid
// map through its jail's /proc with an fd that another worker's fork, at
// the same moment, can copy into its starter. A jail whose mounts were
// then made read-only failed (EBUSY), and every state of its worker with
// it; they are read-only before the starter now.
func TestJailManyWorkersAtOnce(t *testing.T) {
	needJail(t)
	root := filepath.Join(t.TempDir(), "root")
	trace := saveTrace(t, root, 5)
	for range 3 {
		res := runTrace(t, trace, Options{Trace: trace, Root: root, Jobs: 32, WorkDir: t.TempDir(), Checker: "true"})
		if res.Checked == 0 {
			t.Fatal("no state checked")
		}
		for _, f := range res.Findings {
			t.Fatalf("finding: %s", f.Message)
		}
	}
}
