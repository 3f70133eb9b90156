//go:build linux

package explore

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/crashsim/crashsim/tracer"
	"golang.org/x/sys/unix"
)

// A checker runs jailed when crashsim has CAP_SYS_ADMIN: crashsim's own
// binary is started again (the hook is jailInit) as process 1 of a new pid
// namespace, in a new mount namespace, and there
//
//   - makes every mount read-only except the state directory, so a checker
//     that writes an absolute path (the program's real data directory, say)
//     gets EROFS instead of changing the real files;
//   - mounts a /proc of its own pid namespace;
//   - starts sh -c CHECKER in a session of its own and waits for it,
//     reaping whatever is reparented to it.
//
// When process 1 of a pid namespace ends, the kernel kills every other
// process in it: nothing a checker starts, setsid daemons included,
// outlives the checker or the timeout's SIGKILL.
const jailEnv = "CRASHSIM_CHECKER_JAIL" // the state directory

func init() {
	if dir := os.Getenv(jailEnv); dir != "" {
		os.Exit(jail(dir, os.Args[1:]))
	}
}

// jailCommand returns the command that runs argv jailed with dir the only
// writable place, or nil when crashsim cannot make namespaces. Its Env
// must end with jailEnv=dir (see jailEnvOf).
func jailCommand(dir string, argv []string) *exec.Cmd {
	if !canJail() {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	c := exec.Command(exe, argv...)
	c.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS,
		Setsid:     true,
		Pdeathsig:  syscall.SIGKILL,
	}
	return c
}

// canJail reports whether crashsim holds CAP_SYS_ADMIN (CapEff bit 21),
// which new pid and mount namespaces need.
func canJail() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			var mask uint64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%x", &mask); err != nil {
				return false
			}
			return mask&(1<<21) != 0
		}
	}
	return false
}

// dropLoopMounts detaches, in the jail's copy of the mount table, the
// filesystems on loop devices that hold none of the writable dirs: the
// oracle's (another crashsim's, a user's image). The copy holds each
// filesystem it has, so that one unmounted outside would stay busy, and
// its loop device attached, until the checker ended.
func dropLoopMounts(writable []string) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- { // deepest first
		f := strings.Fields(lines[i])
		sep := slices.Index(f, "-")
		if len(f) < 5 || sep < 0 || sep+2 >= len(f) || !strings.HasPrefix(f[sep+2], "/dev/loop") {
			continue
		}
		mp := tracer.UnescapeMount(f[4])
		needed := false
		for _, w := range writable {
			if w == mp || strings.HasPrefix(w, strings.TrimSuffix(mp, "/")+"/") {
				needed = true
			}
		}
		if !needed {
			_ = unix.Unmount(mp, unix.MNT_DETACH)
		}
	}
}

func jail(dir string, argv []string) int {
	fail := func(what string, err error) int {
		fmt.Fprintf(os.Stderr, "crashsim: checker jail: %s: %v\n", what, err)
		return 126
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fail("make mounts private", err)
	}
	writable := []string{dir}
	for _, d := range filepath.SplitList(os.Getenv(WritableEnv)) {
		if d != "" {
			writable = append(writable, d)
		}
	}
	dropLoopMounts(writable)
	for _, d := range writable {
		if err := unix.Mount(d, d, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fail("bind "+d, err)
		}
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fail("mount /proc", err)
	}
	ro := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, ro); err != nil {
		return fail("make / read-only", err)
	}
	rw := &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
	for _, d := range writable {
		if err := unix.MountSetattr(unix.AT_FDCWD, d, unix.AT_RECURSIVE, rw); err != nil {
			return fail("make "+d+" writable", err)
		}
	}
	// The working directory was looked up before the bind: on the mount
	// below it, now read-only.
	if err := os.Chdir(dir); err != nil {
		return fail("chdir", err)
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, jailEnv+"=") {
			env = append(env, kv)
		}
	}
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	if len(argv) == 0 {
		return fail("run", fmt.Errorf("no command"))
	}
	c := exec.Command(argv[0], argv[1:]...)
	c.Env, c.Stdin, c.Stdout, c.Stderr = env, nil, os.Stdout, os.Stderr
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := c.Start(); err != nil {
		return fail("run", err)
	}
	// Reap everything (orphans come to process 1) until the checker ends.
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fail("wait", err)
		}
		if pid != c.Process.Pid {
			continue
		}
		if ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ws.ExitStatus()
	}
}
