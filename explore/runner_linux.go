//go:build linux

package explore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/crashsim/crashsim/internal/reap"
	"golang.org/x/sys/unix"
)

// A runner is a process of crashsim's own binary (the hook is this
// file's init) that runs one worker's checkers, one after another, so
// that a state costs the checker's own fork and exec, not a fresh jail
// as well. A jailed runner is process 1 of its own pid and mount
// namespaces (jail_linux.go), set up once; for each state it binds the
// state directory writable, runs the checker, then kills whatever is
// left in its pid namespace (kill(-1) from process 1 reaches every other
// process there, and nothing leaves a pid namespace) and unbinds the
// directory. An unjailed runner is a child subreaper: whatever the
// checker starts, setsid daemons and processes with a clean environment
// included, is reparented to it when its parent ends, and it kills and
// reaps all of its descendants before it answers. Either way no process
// of a state's checker is left when the state ends.
//
// When crashsim ends, killed or not, the runner sees its socket close
// and ends too: a jailed one takes its namespace with it; an unjailed
// one first kills its descendants (the watchdog, which kills what carries
// the run's token, backs it up). The checker itself also dies with its
// runner's thread (a parent-death signal), as it did with crashsim's. A checker that runs past its timeout is
// ended by killing its runner; the worker starts a new one.
//
// A jailed runner's mount namespace is a copy of the mount table at its
// start: it is renewed after maxRunnerAge, so that a filesystem
// unmounted outside is not kept busy for the rest of the exploration,
// and after any state whose checker left the mount table changed (a
// checker that mounts on its own must not change what the next one
// sees).
const runnerEnv = "CRASHSIM_CHECKER_RUNNER" // "jail DIR" or "plain"

// maxRunnerAge is how long a jailed runner serves states.
const maxRunnerAge = time.Second

func init() {
	if v := os.Getenv(runnerEnv); v != "" {
		os.Exit(serveRunner(v))
	}
}

// Frames on the socket: a kind byte, a 4-byte length, the payload.
const (
	frameRun    = 'r' // crashsim → runner: dir, argv and env, with the output fd
	frameStart  = 's' // runner → crashsim: the checker is being started: a lost runner's state is not run again
	framePID    = 'p' // runner → crashsim: the checker started (its pid)
	frameDone   = 'd' // runner → crashsim: its wait status, and whether the runner retires
	frameNotRun = 'n' // runner → crashsim: the checker could not start (why)
)

// runner is crashsim's side of a runner process.
type runner struct {
	cmd    *exec.Cmd
	conn   *net.UnixConn // crashsim's end of the socket pair
	jailed bool
	born   time.Time
	done   bool // killed, or told to retire: start a new one
	waited bool
}

// startRunner starts a runner; work is the directory that holds the
// state directories (a jailed runner keeps the filesystem under it).
func startRunner(jailed bool, work string) (*runner, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket pair: %w", err)
	}
	theirs := os.NewFile(uintptr(fds[1]), "runner")
	defer theirs.Close()
	c := exec.Command(exe)
	mode := "plain"
	// Unjailed, the runner is not killed with crashsim: it sees its
	// socket close, and kills its descendants before it goes.
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if jailed {
		mode = "jail " + work
		c.SysProcAttr.Cloneflags = syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
		c.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	c.Env = append(os.Environ(), runnerEnv+"="+mode)
	c.ExtraFiles = []*os.File{theirs} // fd 3
	conn, err := unixConn(fds[0], "runner")
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		conn.Close()
		return nil, err
	}
	return &runner{cmd: c, conn: conn, jailed: jailed, born: time.Now()}, nil
}

// stale reports whether the runner should not take another state.
func (r *runner) stale() bool {
	return r.done || r.jailed && time.Since(r.born) > maxRunnerAge
}

// stop ends the runner: it sees its socket close and exits.
func (r *runner) stop() {
	r.conn.Close()
	if r.waited {
		return
	}
	done := make(chan struct{})
	go func() { _ = r.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = r.cmd.Process.Kill()
		<-done
	}
}

// kill ends a runner whose checker must stop now (timeout, interrupt,
// a broken answer). Its socket stays open until stop, so that no reader
// of it can read a reused fd number.
func (r *runner) kill(pid int, token string) {
	if !r.jailed && pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL) // the checker's session
	}
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
	r.waited = true
	if !r.jailed {
		// Its descendants went to the system's init: find them by token.
		reap.Kill(token)
	}
	r.done = true
}

// outcome is how a checker run ended.
type outcome struct {
	status unix.WaitStatus
	notRun string // why the checker could not start ("" when it ran)
}

// errRunnerLost says the runner ended without answering.
var errRunnerLost = errors.New("the checker runner ended without an answer")

// errNotStarted says the runner failed before it started the checker
// (one idle past its age ends unasked): the state, untouched, can be run
// again on a new runner.
var errNotStarted = errors.New("the checker was not started")

// run runs argv in dir with env through the runner, its output into out,
// until it ends or ctx is done (then the runner is killed, and the error
// is ctx's).
func (r *runner) run(ctx context.Context, dir string, argv, env []string, token string, out io.Writer) (outcome, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return outcome{}, err
	}
	var req []byte
	req = appendStrings(req, []string{dir})
	req = appendStrings(req, argv)
	req = appendStrings(req, env)
	err = sendFrame(r.conn, frameRun, req, int(pw.Fd()))
	pw.Close()
	if err != nil {
		pr.Close()
		r.kill(0, token)
		return outcome{}, fmt.Errorf("checker runner: %w: %w", errNotStarted, err)
	}
	copied := make(chan struct{})
	go func() {
		io.Copy(out, pr)
		pr.Close()
		close(copied)
	}()
	var pid atomic.Int64
	var started atomic.Bool
	answer := make(chan error, 1)
	var res outcome
	go func() {
		for {
			kind, b, err := readFrame(r.conn)
			switch {
			case err != nil:
				answer <- err
				return
			case kind == frameStart:
				started.Store(true)
			case kind == framePID && len(b) == 8:
				pid.Store(int64(binary.LittleEndian.Uint64(b)))
			case kind == frameDone && len(b) == 5:
				res.status = unix.WaitStatus(binary.LittleEndian.Uint32(b))
				r.done = b[4] != 0
				answer <- nil
				return
			case kind == frameNotRun:
				res.notRun = string(b)
				r.done = true // it retires
				answer <- nil
				return
			default:
				answer <- fmt.Errorf("frame %q of %d bytes", kind, len(b))
				return
			}
		}
	}()
	select {
	case err = <-answer:
	case <-ctx.Done():
		r.kill(int(pid.Load()), token)
		<-answer
		<-copied
		return outcome{}, ctx.Err()
	}
	if err != nil {
		r.kill(int(pid.Load()), token)
		<-copied
		if errors.Is(err, io.EOF) {
			err = errRunnerLost
		}
		if !started.Load() {
			err = fmt.Errorf("%w: %w", errNotStarted, err)
		}
		return outcome{}, fmt.Errorf("checker runner: %w", err)
	}
	<-copied // every writer is dead: the pipe has ended
	return res, nil
}

// words says how a checker ended, as the exit of an exec.Cmd says it;
// jailed, a signal is reported as the exit status 128+N the jail's
// process 1 gave for it.
func (o outcome) words(jailed bool) string {
	ws := o.status
	var s string
	switch {
	case ws.Exited():
		s = "exit status " + strconv.Itoa(ws.ExitStatus())
	case ws.Signaled() && jailed:
		return "exit status " + strconv.Itoa(128+int(ws.Signal()))
	case ws.Signaled():
		s = "signal: " + ws.Signal().String()
	}
	if ws.CoreDump() {
		s += " (core dumped)"
	}
	return s
}

// appendStrings appends a count and each string with its length.
func appendStrings(b []byte, ss []string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ss)))
	for _, s := range ss {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b
}

// takeStrings reads what appendStrings wrote.
func takeStrings(b []byte) ([]string, []byte, error) {
	short := errors.New("short request")
	if len(b) < 4 {
		return nil, nil, short
	}
	n := binary.LittleEndian.Uint32(b)
	b = b[4:]
	if uint64(n) > uint64(len(b))/4 {
		return nil, nil, short
	}
	out := make([]string, 0, n)
	for range n {
		if len(b) < 4 {
			return nil, nil, short
		}
		k := binary.LittleEndian.Uint32(b)
		b = b[4:]
		if uint64(k) > uint64(len(b)) {
			return nil, nil, short
		}
		out = append(out, string(b[:k]))
		b = b[k:]
	}
	return out, b, nil
}

// sendFrame writes one frame, with fd passed along when it is >= 0.
func sendFrame(c *net.UnixConn, kind byte, payload []byte, fd int) error {
	b := make([]byte, 5, 5+len(payload))
	b[0] = kind
	binary.LittleEndian.PutUint32(b[1:], uint32(len(payload)))
	b = append(b, payload...)
	var oob []byte
	if fd >= 0 {
		oob = unix.UnixRights(fd)
	}
	_, _, err := c.WriteMsgUnix(b, oob, nil)
	return err
}

// readFrame reads one frame.
func readFrame(c *net.UnixConn) (byte, []byte, error) {
	kind, b, fd, err := recvFrame(c)
	closeFD(fd)
	return kind, b, err
}

// recvFrame reads one frame and the fd sent with it (-1 when none).
func recvFrame(c *net.UnixConn) (byte, []byte, int, error) {
	var h [5]byte
	oob := make([]byte, unix.CmsgSpace(4*4))
	n, oobn, _, _, err := c.ReadMsgUnix(h[:], oob)
	if err != nil {
		return 0, nil, -1, err
	}
	if n == 0 {
		return 0, nil, -1, io.EOF
	}
	fd := -1
	if oobn > 0 {
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err == nil {
			for _, m := range msgs {
				fds, err := unix.ParseUnixRights(&m)
				if err != nil {
					continue
				}
				for _, f := range fds {
					if fd < 0 {
						fd = f
					} else {
						unix.Close(f)
					}
				}
			}
		}
	}
	if _, err := io.ReadFull(c, h[n:]); err != nil {
		closeFD(fd)
		return 0, nil, -1, err
	}
	b := make([]byte, binary.LittleEndian.Uint32(h[1:]))
	if _, err := io.ReadFull(c, b); err != nil {
		closeFD(fd)
		return 0, nil, -1, err
	}
	return h[0], b, fd, nil
}

func closeFD(fd int) {
	if fd >= 0 {
		unix.Close(fd)
	}
}

// unixConn makes a connected unix socket's fd a net.UnixConn, whose
// reads park the goroutine instead of holding a thread in a read (the
// runtime hands a held processor on only after a while, and each state
// waits on several such reads).
func unixConn(fd int, name string) (*net.UnixConn, error) {
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		return nil, err
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("%s: not a unix socket", name)
	}
	return uc, nil
}

// serveRunner is the runner process. It returns when crashsim closes the
// socket.
func serveRunner(arg string) int {
	// The socket, as a copy that checkers do not inherit.
	sock, err := unixConn(3, "crashsim")
	if err != nil {
		return 2
	}
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	mode, work, _ := strings.Cut(arg, " ")
	jailed := mode == "jail"
	var setupErr error
	var mounts string
	if jailed {
		setupErr = jailSetup(work)
		mounts = mountTable()
	} else if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		setupErr = fmt.Errorf("child subreaper: %w", err)
	}
	var null int
	null, err = unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil && setupErr == nil {
		setupErr = err
	}
	var current atomic.Int64 // the running checker's pid
	type request struct {
		b  []byte
		fd int
	}
	reqs := make(chan request)
	go func() {
		for {
			kind, b, fd, err := recvFrame(sock)
			if err != nil || kind != frameRun {
				// crashsim has gone (or speaks nonsense): nothing it
				// started may stay.
				if !jailed {
					if pid := current.Load(); pid > 0 {
						_ = syscall.Kill(-int(pid), syscall.SIGKILL)
					}
					sweepDescendants()
				}
				os.Exit(0)
			}
			reqs <- request{b, fd}
		}
	}()
	paths := map[string]string{}
	// A jailed runner past its age ends even when no state comes (its
	// mount table must not outlive it); a request already on its way
	// finds it gone, and crashsim sends it to a new one.
	var expire <-chan time.Time
	if jailed {
		expire = time.After(maxRunnerAge)
	}
	for {
		var req request
		select {
		case req = <-reqs:
		case <-expire:
			return 0
		}
		retire, err := runOne(sock, req.b, req.fd, null, jailed, setupErr, mounts, paths, &current)
		closeFD(req.fd)
		if err != nil {
			return 1 // crashsim reads the end of the socket
		}
		if retire {
			// Said in the answer already; crashsim starts another.
			return 0
		}
	}
}

// runOne serves one request; it reports whether the runner must retire
// (set in the answer), and an error when the socket failed.
func runOne(sock *net.UnixConn, req []byte, out, null int, jailed bool, setupErr error, mounts string, paths map[string]string, current *atomic.Int64) (bool, error) {
	dirs, rest, err := takeStrings(req)
	if err != nil || len(dirs) != 1 || out < 0 {
		return true, fmt.Errorf("bad request")
	}
	argv, rest, err := takeStrings(rest)
	if err != nil || len(argv) == 0 {
		return true, fmt.Errorf("bad request")
	}
	env, _, err := takeStrings(rest)
	if err != nil {
		return true, fmt.Errorf("bad request")
	}
	dir := dirs[0]
	// A failure of the jail is the checker's failure, said in its output
	// with exit status 126, as a shell says it cannot run a command.
	fail := func(what string, err error) (bool, error) {
		unix.Write(out, []byte(fmt.Sprintf("crashsim: checker jail: %s: %v\n", what, err)))
		return true, answerDone(sock, unix.WaitStatus(126<<8), true)
	}
	if setupErr != nil {
		if jailed {
			return fail("setup", setupErr)
		}
		return true, sendFrame(sock, frameNotRun, []byte(setupErr.Error()), -1)
	}
	if jailed {
		if err := bindWritable(dir); err != nil {
			return fail("bind "+dir, err)
		}
	}
	unbind := func() {
		if jailed {
			_ = unix.Unmount(dir, unix.MNT_DETACH)
		}
	}
	path, ok := paths[argv[0]]
	if !ok {
		p, err := exec.LookPath(argv[0])
		if err != nil {
			unbind()
			if jailed {
				return fail("run", err)
			}
			return true, sendFrame(sock, frameNotRun, []byte(err.Error()), -1)
		}
		path = p
		paths[argv[0]] = p
	}
	if err := sendFrame(sock, frameStart, nil, -1); err != nil {
		unbind()
		return true, err
	}
	var pdeath syscall.Signal // the pid namespace goes with the runner
	if !jailed {
		pdeath = syscall.SIGKILL
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Dir: dir, Env: env, Files: []uintptr{uintptr(null), uintptr(out), uintptr(out)},
		Sys: &syscall.SysProcAttr{Setsid: true, Pdeathsig: pdeath},
	})
	if err != nil {
		err = &os.PathError{Op: "fork/exec", Path: path, Err: err}
		unbind()
		if jailed {
			return fail("run", err)
		}
		return false, sendFrame(sock, frameNotRun, []byte(err.Error()), -1)
	}
	current.Store(int64(pid))
	if err := sendFrame(sock, framePID, binary.LittleEndian.AppendUint64(nil, uint64(pid)), -1); err != nil {
		return true, err
	}
	// Reap what comes (orphans come to this process) until the checker
	// ends, then what is left of it.
	var ws unix.WaitStatus
	for {
		var w unix.WaitStatus
		got, err := unix.Wait4(-1, &w, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return true, fmt.Errorf("wait: %w", err)
		}
		if got == pid {
			ws = w
			break
		}
	}
	if jailed {
		sweepNamespace()
	} else {
		sweepDescendants()
	}
	current.Store(0)
	unbind()
	retire := jailed && mountTable() != mounts
	return retire, answerDone(sock, ws, retire)
}

func answerDone(sock *net.UnixConn, ws unix.WaitStatus, retire bool) error {
	b := binary.LittleEndian.AppendUint32(nil, uint32(ws))
	if retire {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return sendFrame(sock, frameDone, b, -1)
}

// sweepNamespace kills and reaps every process of the pid namespace but
// this one, its process 1.
func sweepNamespace() {
	for {
		_ = unix.Kill(-1, unix.SIGKILL)
		var ws unix.WaitStatus
		if _, err := unix.Wait4(-1, &ws, 0, nil); err == unix.ECHILD {
			return
		}
	}
}

// sweepDescendants kills and reaps every descendant of this process, a
// child subreaper: the orphans among them are its children, and each one
// killed hands its own children to it, until it has none.
func sweepDescendants() {
	for {
		for {
			var ws unix.WaitStatus
			if pid, _ := unix.Wait4(-1, &ws, unix.WNOHANG, nil); pid <= 0 {
				break
			}
		}
		kids := children()
		if len(kids) == 0 {
			var ws unix.WaitStatus
			if _, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil); err == unix.ECHILD {
				return
			}
			time.Sleep(time.Millisecond) // one being handed over
			continue
		}
		for _, pid := range kids {
			// A child, dead or not, keeps its pid until reaped here.
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		var ws unix.WaitStatus
		_, _ = unix.Wait4(-1, &ws, 0, nil)
	}
}

// children lists this process's children, from the children file of each
// of its threads, or, on a kernel without those files, from the parent
// of every process.
func children() []int {
	tasks, err := os.ReadDir("/proc/self/task")
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join("/proc/self/task", t.Name(), "children"))
		if errors.Is(err, fs.ErrNotExist) {
			return childrenByParent()
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
	}
	if err != nil {
		return childrenByParent()
	}
	return out
}

// childrenByParent lists the processes whose parent is this one.
func childrenByParent() []int {
	dirs, _ := os.ReadDir("/proc")
	me := os.Getpid()
	var out []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// "PID (COMM) STATE PPID ...": COMM may hold spaces and ')'.
		i := strings.LastIndexByte(string(b), ')')
		if f := strings.Fields(string(b[i+1:])); i >= 0 && len(f) > 1 && f[1] == strconv.Itoa(me) {
			out = append(out, pid)
		}
	}
	return out
}

// mountTable is this process's mount table.
func mountTable() string {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	return string(b)
}
