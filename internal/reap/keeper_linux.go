package reap

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// keeperEnv holds the number of a keeper's socket to crashsim, over which
// crashsim sends it, as JSON, what it is to run. Not the spec itself:
// one environment string can hold only 128 KiB (MAX_ARG_STRLEN), and a
// command with more bytes of arguments than that, far from the limit of
// them all, failed to start with "argument list too long".
const keeperEnv = "CRASHSIM_KEEPER"

// Attr says how a keeper starts its command.
type Attr struct {
	// Setpgid puts the command in a process group of its own, which
	// signals can then be sent to as a whole.
	Setpgid bool
	// Foreground also makes that group the foreground group of the
	// terminal on the command's standard input (the keeper stays in the
	// caller's session for that; otherwise it has a session of its own).
	Foreground bool
}

// keeperSpec is what crashsim asks of a keeper.
type keeperSpec struct {
	Path string
	Args []string
	Attr Attr
}

// keeperWire is a keeperSpec as it travels to the keeper. JSON turns
// each byte of a string that is not UTF-8 into U+FFFD, and neither a
// path nor an argument need be UTF-8: as bytes (base64 in JSON), they
// arrive as they were.
type keeperWire struct {
	Path []byte
	Args [][]byte
	Attr Attr
}

func (s keeperSpec) wire() keeperWire {
	w := keeperWire{Path: []byte(s.Path), Args: make([][]byte, len(s.Args)), Attr: s.Attr}
	for i, a := range s.Args {
		w.Args[i] = []byte(a)
	}
	return w
}

func (w keeperWire) spec() keeperSpec {
	s := keeperSpec{Path: string(w.Path), Args: make([]string, len(w.Args)), Attr: w.Attr}
	for i, a := range w.Args {
		s.Args[i] = string(a)
	}
	return s
}

// keeperMsg is what a keeper says: the command's pid once it runs, its
// wait status and what the keeper killed after it once it has exited,
// or why it could not start it.
type keeperMsg struct {
	PID    int                `json:",omitempty"`
	Exited bool               `json:",omitempty"`
	Status syscall.WaitStatus `json:",omitempty"`
	Left   []Proc             `json:",omitempty"`
	Err    string             `json:",omitempty"`
}

// Kept is a command run by a keeper: crashsim's own binary started again
// (the hook is this package's init), a child subreaper that starts the
// command as its child, so that every process the command starts stays
// in the keeper's tree, a setsid daemon with a clean environment too.
//
//   - When the command exits, the keeper kills what is left of its tree
//     (the leftovers are in Wait's answer) and ends.
//   - When crashsim ends, by SIGKILL too, the keeper sees its socket close,
//     kills its whole tree and ends.
//   - Kill and Running reach the tree meanwhile.
//
// The command gets the keeper's standard input, output and error, its
// working directory and its environment: set them on Cmd, as for the
// command itself. It also gets every fd crashsim's caller gave crashsim
// (Inherited), at the same numbers, and no fd of crashsim's own.
type Kept struct {
	Cmd *exec.Cmd // the keeper process
	// Group, when set before Start, is the cgroup the keeper starts in:
	// what it leaves if it is killed itself is still found there.
	Group *Group

	spec   keeperSpec
	conn   *os.File
	pid    int
	exited chan struct{}
	last   keeperMsg // the exit message, once exited is closed
	lost   error     // why there is no exit message
	once   sync.Once
	err    error
}

// Keep returns a Kept that runs path (absolute, or relative to Cmd.Dir)
// with args (args[0] is the command's name) when started.
func Keep(path string, args []string, attr Attr) *Kept {
	return &Kept{Cmd: &exec.Cmd{}, spec: keeperSpec{Path: path, Args: args, Attr: attr}, exited: make(chan struct{})}
}

// Start starts the keeper and, through it, the command.
func (k *Kept) Start() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return &os.SyscallError{Syscall: "socketpair", Err: err}
	}
	theirs := os.NewFile(uintptr(fds[1]), "keeper")
	defer theirs.Close()
	k.conn = os.NewFile(uintptr(fds[0]), "keeper")
	c := k.Cmd
	c.Path, c.Args = exe, []string{exe}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	// The command gets every fd crashsim's caller gave it, at the same
	// numbers; the socket goes above them, and the keeper learns where.
	at, release, err := placeFiles(c, true, theirs)
	if err != nil {
		k.conn.Close()
		return err
	}
	defer release()
	spec, err := json.Marshal(k.spec.wire())
	if err != nil {
		k.conn.Close()
		return err
	}
	// at[0] is the keeper's end of the socket: above every fd the
	// command inherits (see placeFiles).
	c.Env = append(withoutVar(env, keeperEnv), keeperEnv+"="+strconv.Itoa(at[0]))
	if c.SysProcAttr == nil {
		c.SysProcAttr = &syscall.SysProcAttr{}
	}
	if k.spec.Attr.Foreground {
		// In crashsim's session, for the terminal, but out of its
		// process group: a signal to that group does not reach it.
		c.SysProcAttr.Setpgid = true
	} else {
		c.SysProcAttr.Setsid = true
	}
	if k.Group != nil {
		c.SysProcAttr.UseCgroupFD, c.SysProcAttr.CgroupFD = true, k.Group.FD()
	}
	if err := c.Start(); err != nil {
		k.conn.Close()
		return err
	}
	// The keeper reads the whole spec before it writes: a spec larger
	// than the socket's buffer cannot deadlock. A keeper gone before it
	// read it shows below, as the end of its socket.
	_, _ = k.conn.Write(spec)
	dec := json.NewDecoder(k.conn)
	var m keeperMsg
	if err := dec.Decode(&m); err != nil || m.PID == 0 {
		_ = c.Process.Kill()
		_ = c.Wait()
		k.conn.Close()
		if m.Err != "" {
			return errors.New(m.Err)
		}
		return fmt.Errorf("the keeper ended before it started %s: %v", k.spec.Path, err)
	}
	k.pid = m.PID
	go func() {
		defer close(k.exited)
		if err := dec.Decode(&k.last); err != nil || !k.last.Exited {
			k.lost = fmt.Errorf("the keeper of %s ended without its exit status", k.spec.Path)
		}
	}()
	return nil
}

// Pid is the command's process id.
func (k *Kept) Pid() int { return k.pid }

// Keeper is the keeper's process id.
func (k *Kept) Keeper() int { return k.Cmd.Process.Pid }

// Exited is closed once the command has exited and the keeper has killed
// what was left (or once the keeper is gone).
func (k *Kept) Exited() <-chan struct{} { return k.exited }

// Running lists the live processes of the command's tree (and of the
// group), the command included, but not the pids in except.
func (k *Kept) Running(except ...int) []Proc {
	var out []Proc
	seen := map[int]bool{k.Keeper(): true}
	for _, p := range Descendants(k.Keeper()) {
		seen[p.PID] = true
		if !containsPID(except, p.PID) {
			out = append(out, p)
		}
	}
	if k.Group != nil {
		for _, p := range k.Group.Procs() {
			if !seen[p.PID] && !containsPID(except, p.PID) {
				out = append(out, p)
			}
		}
	}
	return out
}

// Kill kills the command's tree (and the group but the keeper) but the
// pids in except (not their descendants), and returns what it found.
func (k *Kept) Kill(except ...int) []Proc {
	out := KillTree(k.Keeper(), except...)
	if k.Group != nil {
		out = append(out, k.Group.Kill(append(except, k.Keeper())...)...)
	}
	return out
}

// Wait waits for the command and the keeper to end, and returns the
// command's wait status and the processes the keeper killed after it.
func (k *Kept) Wait() (syscall.WaitStatus, []Proc, error) {
	<-k.exited
	k.once.Do(func() {
		k.err = k.Cmd.Wait()
		k.conn.Close()
		if k.lost != nil {
			// The keeper itself was killed: its tree went to init, but
			// not out of the group.
			if k.Group != nil {
				k.last.Left = k.Group.Kill()
			}
			k.err = errors.Join(k.lost, k.err)
		} else {
			k.err = nil
		}
	})
	return k.last.Status, k.last.Left, k.err
}

func containsPID(pids []int, pid int) bool {
	for _, p := range pids {
		if p == pid {
			return true
		}
	}
	return false
}

func withoutVar(env []string, name string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// keeper is the keeper process, its socket to crashsim on fd arg. It
// never returns.
func keeper(arg string) {
	ignoreSignals()
	fd, err := strconv.Atoi(arg)
	if err != nil || fd < 3 {
		os.Exit(1) // no socket to say why on: crashsim sees it close
	}
	// The socket is the keeper's alone: the command must not hold it open.
	// Every other fd the keeper got is the caller's, for the command.
	syscall.CloseOnExec(fd)
	conn := os.NewFile(uintptr(fd), "crashsim")
	enc := json.NewEncoder(conn)
	fail := func(err error) {
		_ = enc.Encode(keeperMsg{Err: err.Error()})
		os.Exit(1)
	}
	// crashsim writes the spec and then nothing: what the decoder may
	// read past it is the end of the socket, which the copy below waits
	// for again.
	var w keeperWire
	if err := json.NewDecoder(conn).Decode(&w); err != nil {
		os.Exit(1) // crashsim is gone, or wrote no spec
	}
	spec := w.spec()
	if len(spec.Args) == 0 {
		fail(fmt.Errorf("keeper: no command to run for %s", spec.Path))
	}
	if err := SetSubreaper(); err != nil {
		fail(err)
	}
	// This is the main thread, locked to init's goroutine: the command's
	// parent-death signal is tied to it, and it lives as long as the
	// keeper does.
	pid, err := syscall.ForkExec(spec.Path, spec.Args, &syscall.ProcAttr{
		Env: withoutVar(os.Environ(), keeperEnv),
		// 0, 1 and 2; the caller's other fds, which are not
		// close-on-exec, go with them at their numbers.
		Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Setpgid: spec.Attr.Setpgid || spec.Attr.Foreground,
			Foreground: spec.Attr.Foreground, Ctty: 0, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		fail(&os.PathError{Op: "fork/exec", Path: spec.Path, Err: err})
	}
	if err := enc.Encode(keeperMsg{PID: pid}); err != nil {
		KillTree(os.Getpid())
		os.Exit(1)
	}
	go func() {
		// crashsim writes nothing: the read ends when it is gone.
		_, _ = io.Copy(io.Discard, conn)
		KillTree(os.Getpid())
		os.Exit(0)
	}()
	for {
		got, err := waitExited()
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			os.Exit(1) // no child at all: the command was reaped elsewhere
		}
		if got != pid {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(got, &ws, 0, nil)
			continue
		}
		// The command is a zombie until reaped here: its process group
		// id cannot be reused while the rest is killed.
		left := KillTree(os.Getpid(), pid)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
		for {
			var w syscall.WaitStatus
			if p, _ := syscall.Wait4(-1, &w, syscall.WNOHANG, nil); p <= 0 {
				break
			}
		}
		_ = enc.Encode(keeperMsg{Exited: true, Status: ws, Left: left})
		os.Exit(0)
	}
}

// ignoreSignals makes the keeper deaf to the signals of a terminal and
// of a session ending (crashsim's end is its socket's). They are caught,
// not ignored: an ignored signal stays ignored across exec, and the
// command must get them as usual.
func ignoreSignals() {
	ch := make(chan os.Signal, 8)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE, syscall.SIGTTOU, syscall.SIGTTIN, syscall.SIGQUIT)
	go func() {
		for range ch {
		}
	}()
}

// waitExited waits until a child has exited and returns its pid, without
// reaping it.
func waitExited() (int, error) {
	var info [128]byte // siginfo_t
	_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, unix.P_ALL, 0, uintptr(unsafe.Pointer(&info)), syscall.WEXITED|unix.WNOWAIT, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	// si_pid follows si_signo, si_errno, si_code and, where pointers
	// are 8 bytes, 4 bytes of padding.
	off := 12
	if unsafe.Sizeof(uintptr(0)) == 8 {
		off = 16
	}
	return int(*(*int32)(unsafe.Pointer(&info[off]))), nil
}

func init() {
	if v := os.Getenv(keeperEnv); v != "" {
		keeper(v)
	}
}
