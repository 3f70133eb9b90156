package reap

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// EnvVar names the token variable set in the environment of what crashsim
// runs.
const EnvVar = "CRASHSIM_RUN"

const (
	watchdogEnv   = "CRASHSIM_WATCHDOG"         // "PGID TOKEN": run as the watchdog
	unmountEnv    = "CRASHSIM_WATCHDOG_UNMOUNT" // mount points to detach, one a line
	loopsEnv      = "CRASHSIM_WATCHDOG_LOOPS"   // detach loop devices backed by files below this
	removeDirEnv  = "CRASHSIM_WATCHDOG_REMOVE"  // a directory to remove once they are
	groupsEnv     = "CRASHSIM_WATCHDOG_GROUPS"  // cgroups to kill and remove, one a line
	watchdogDelim = "\n"
)

func init() {
	if v := os.Getenv(watchdogEnv); v != "" {
		watchdog(v)
	}
}

// NewToken returns a fresh token for one run: when the calling process
// started, then random bytes.
func NewToken() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	t, _ := startTime(os.Getpid())
	return strconv.FormatUint(t, 10) + "-" + hex.EncodeToString(b[:])
}

// Env returns env (nil: crashsim's own) with the token variable set.
func Env(env []string, token string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, EnvVar+"=") {
			out = append(out, kv)
		}
	}
	return append(out, EnvVar+"="+token)
}

// Proc is a process found by its token.
type Proc struct {
	PID  int
	Comm string
}

func (p Proc) String() string { return fmt.Sprintf("%d (%s)", p.PID, p.Comm) }

// Holders lists the processes started with token in their environment,
// or a token made from it by Sub, but not the pids in except, in pid
// order. Zombies are left out: they have ended, and their environ reads
// empty.
func Holders(token string, except ...int) []Proc {
	want := []byte("\x00" + EnvVar + "=" + token)
	dirs, _ := os.ReadDir("/proc")
	// A holder started after the process that made the token: one older
	// than that cannot have been given it, whatever its environ reads.
	since, _ := strconv.ParseUint(strings.SplitN(token, "-", 2)[0], 10, 64)
	var out []Proc
	// environ, with a NUL in front for holds; a longer environment is
	// read again in full.
	envBuf := make([]byte, 1+32<<10)
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || slices.Contains(except, pid) || pid == os.Getpid() {
			continue
		}
		if t, err := startTime(pid); err != nil || t < since {
			continue
		}
		env, err := readProc(pid, "environ", envBuf[1:])
		if err == nil && len(env) == len(envBuf)-1 {
			// A long environment: read all of it, the token may be last.
			var all []byte
			all, err = os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
			env = append([]byte{0}, all...)
		} else {
			env = envBuf[:1+len(env)]
		}
		if err != nil || !holds(env, want) {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "comm"))
		out = append(out, Proc{PID: pid, Comm: strings.TrimSpace(string(comm))})
	}
	return out
}

// startTime is field 22 of /proc/PID/stat: when the process started, in
// clock ticks since boot.
func startTime(pid int) (uint64, error) {
	var buf [1024]byte
	b, err := readProc(pid, "stat", buf[:])
	if err != nil {
		return 0, err
	}
	return statStart(b)
}

// statStart reads the start time out of the text of /proc/PID/stat,
// counting fields after the command name (which may hold spaces and
// parentheses, hence the last ')').
func statStart(b []byte) (uint64, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("short stat")
	}
	// After ") " come state (field 3) ... starttime (field 22).
	field := 2
	for k := i + 1; k < len(b); k++ {
		if b[k] != ' ' {
			continue
		}
		field++
		if field == 22 {
			end := k + 1
			for end < len(b) && b[end] >= '0' && b[end] <= '9' {
				end++
			}
			return strconv.ParseUint(string(b[k+1:end]), 10, 64)
		}
	}
	return 0, errors.New("short stat")
}

// readProc reads /proc/PID/NAME into buf with one open, reads until the end
// and one close (os.ReadFile adds an fstat, and allocates): Holders reads
// two files of every process on the machine after every checker run. A
// file longer than buf is returned cut at len(buf) bytes; callers give
// room for what they need, or read again when it comes back full.
func readProc(pid int, name string, buf []byte) ([]byte, error) {
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/"+name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	n := 0
	for n < len(buf) {
		k, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if k == 0 {
			break
		}
		n += k
	}
	return buf[:n], nil
}

// holds reports whether environ (NUL separated, with a NUL in front)
// holds want followed by the variable's end or by Sub's separator.
func holds(environ, want []byte) bool {
	for {
		i := bytes.Index(environ, want)
		if i < 0 {
			return false
		}
		rest := environ[i+len(want):]
		if len(rest) == 0 || rest[0] == 0 || rest[0] == '.' {
			return true
		}
		environ = rest
	}
}

// Sub derives a token from token for a part of the run (one checker):
// Holders(token) finds it too.
func Sub(token string, n int) string { return token + "." + strconv.Itoa(n) }

// Kill sends SIGKILL to every holder of token but except, until none is
// left or a second has passed, and returns those it found the first time.
func Kill(token string, except ...int) []Proc {
	first := Holders(token, except...)
	left := first
	for deadline := time.Now().Add(time.Second); len(left) > 0 && time.Now().Before(deadline); {
		for _, p := range left {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
		left = Holders(token, except...)
	}
	return first
}

// Watchdog is a running watchdog process. It must stay referenced until
// Stop: the garbage collector closes the pipe of one that is not, which
// the watchdog takes for crashsim's end.
type Watchdog struct {
	cmd *exec.Cmd
	w   *os.File
}

// StartWatchdog starts a watchdog that, once crashsim has ended without
// calling Stop, kills process group pgid (none when 0), every holder of
// token and every member of groups (which it then removes).
func StartWatchdog(pgid int, token string, groups ...*Group) (*Watchdog, error) {
	return startWatchdog(pgid, token, nil, groups)
}

// StartMountWatchdog is StartWatchdog for the oracle: after the kills it
// also detaches whatever is mounted on the dirs in unmount (lazily), then
// every loop device whose backing file is below loopsUnder (one still in
// use detaches when its last user goes) and, when the unmounts worked,
// removes the directory remove.
func StartMountWatchdog(token string, unmount []string, loopsUnder, remove string, groups ...*Group) (*Watchdog, error) {
	env := []string{unmountEnv + "=" + strings.Join(unmount, watchdogDelim), loopsEnv + "=" + loopsUnder}
	if remove != "" {
		env = append(env, removeDirEnv+"="+remove)
	}
	return startWatchdog(0, token, env, groups)
}

func startWatchdog(pgid int, token string, extra []string, groups []*Group) (*Watchdog, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, g := range groups {
		if g != nil {
			dirs = append(dirs, g.Dir)
		}
	}
	if len(dirs) > 0 {
		extra = append(extra, groupsEnv+"="+strings.Join(dirs, watchdogDelim))
	}
	c := exec.Command(exe)
	c.Env = append(append(os.Environ(), fmt.Sprintf("%s=%d %s", watchdogEnv, pgid, token)), extra...)
	// The pipe is its fd 3; it holds none of the caller's fds, which
	// would keep a pipe of the caller's open while it lives on.
	_, release, err := placeFiles(c, false, r)
	if err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	defer release()
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := c.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	r.Close()
	return &Watchdog{cmd: c, w: w}, nil
}

// Stop ends the watchdog without it killing anything. It must be called
// while pgid's leader is not yet reaped, so that the group id cannot have
// been reused by then.
func (wd *Watchdog) Stop() {
	if wd == nil {
		return
	}
	_ = wd.cmd.Process.Kill()
	_ = wd.cmd.Wait()
	wd.w.Close()
}

// watchdog is the watchdog process: it waits for the pipe on fd 3 to end,
// then kills. It never returns.
func watchdog(arg string) {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	var pgid int
	var token string
	if _, err := fmt.Sscanf(arg, "%d %s", &pgid, &token); err != nil || pgid == 1 || pgid < 0 {
		os.Exit(2)
	}
	fuse := fuseMounts()
	waitEnd(os.NewFile(3, "crashsim"), os.Getppid(), fuse != nil)
	var groups []string
	if v := os.Getenv(groupsEnv); v != "" {
		groups = strings.Split(v, watchdogDelim)
	}
	for _, g := range groups {
		killGroup(g)
	}
	if pgid > 1 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	Kill(token)
	for _, g := range groups {
		_ = removeGroup(g)
	}
	if pgid > 1 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	unmounted := true
	if fuse != nil {
		unmounted = undoFUSE(fuse, strings.Split(os.Getenv(unmountEnv), watchdogDelim), os.Getenv(loopsEnv))
	} else {
		if v := os.Getenv(unmountEnv); v != "" {
			for _, dir := range strings.Split(v, watchdogDelim) {
				unmounted = unmountAll(dir) && unmounted
			}
		}
		if dir := os.Getenv(loopsEnv); dir != "" {
			detachLoops(dir)
		}
	}
	if dir := os.Getenv(removeDirEnv); dir != "" && unmounted {
		_ = os.RemoveAll(dir)
	}
	os.Exit(0)
}

// ErrNoProc is returned by TracedCommand when strace has not started the
// command (yet).
var ErrNoProc = errors.New("no child process")

// Alive reports whether pid is a process that has not exited (a zombie
// has).
func Alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// "PID (COMM) STATE ...": COMM may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}
