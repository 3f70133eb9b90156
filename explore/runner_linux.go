//go:build linux

package explore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
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
// as well. It runs in the host's pid namespace, in the run's cgroup where
// crashsim may make one (see package reap), and is a child subreaper:
// whatever a checker starts, setsid daemons and processes with a clean
// environment included, stays below it when its parent ends, and it kills
// and reaps all of its descendants before it answers. No process of a
// state's checker is left when the state ends. A jailed runner also has
// a mount namespace of its own (jail_linux.go), set up once; for each
// state it binds the state directory writable, runs the checker from its
// thread without privileges, sweeps, and unbinds the directory. (A
// confined checker, the jail's usual one, needs no runner: its jail is a
// thread of crashsim's, and its starter does what a runner does, see
// confined_linux.go.)
//
// When crashsim ends, killed or not, the runner sees its socket close,
// kills its descendants and ends (the watchdog, which kills the run's
// cgroup and what carries the run's token, backs it up). The checker
// itself also dies with the runner's thread that started it (a
// parent-death signal). A checker that runs past its timeout is ended by
// crashsim, which kills the runner's descendants (the runner then answers
// as usual and serves the next state), or the runner itself when it does
// not answer.
//
// A jail's mount namespace is a copy of the mount table at its start: it
// is renewed after maxRunnerAge, so that a filesystem unmounted outside
// is not kept busy for the rest of the exploration. A checker cannot
// change it: it has no capabilities.
const runnerEnv = "CRASHSIM_CHECKER_RUNNER" // "jail DIR", "jail-root DIR", "plain", or zygoteMode

// maxRunnerAge is how long a jail (a jailed runner, or a jail thread and
// its starter) serves states.
const maxRunnerAge = time.Second

func init() {
	switch v := os.Getenv(runnerEnv); v {
	case "":
	case zygoteMode:
		os.Exit(serveZygote())
	default:
		os.Exit(serveRunner(v))
	}
}

// Frames on the socket: a kind byte, a 4-byte length, the payload.
const (
	frameRun    = 'r' // crashsim → runner: dir, argv and env, with the output fd
	frameStart  = 's' // runner → crashsim: the checker is being started: a lost runner's state is not run again
	frameDone   = 'd' // runner → crashsim: its wait status, and whether the runner retires
	frameNotRun = 'n' // runner → crashsim: the checker could not start (why)
	frameReady  = 'y' // starter → crashsim: it can start checkers
)

// runner is crashsim's side of a runner process.
type runner struct {
	cmd    *exec.Cmd
	conn   *net.UnixConn // crashsim's end of the socket pair
	jailed bool
	why    string // why its checkers are not confined (Result.Unconfined)
	born   time.Time
	done   bool // killed, or told to retire: start a new one
	waited bool
}

// startRunner starts a runner in group (none when nil); work is the
// directory that holds the state directories (a jailed runner keeps the
// filesystem under it). A jailed runner's checkers are the host's root
// without capabilities, in network and IPC namespaces of their own unless
// hostRoot. (Confined checkers need no runner: confined_linux.go.)
func startRunner(jailed, hostRoot bool, work string, group *reap.Group) (*runner, error) {
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
	// The runner is not killed with crashsim: it sees its socket close,
	// and kills its descendants before it goes.
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if jailed {
		mode = "jail " + work
		if hostRoot {
			mode = "jail-root " + work
		}
		c.SysProcAttr.Cloneflags = syscall.CLONE_NEWNS
	}
	if group != nil {
		c.SysProcAttr.UseCgroupFD, c.SysProcAttr.CgroupFD = true, group.FD()
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

func (r *runner) unconfined() string { return r.why }

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

// kill ends a runner that no longer answers as it should (a broken
// answer, or none after its checker was killed). Its descendants go
// first, while they are still below it; what a race leaves is found by
// the token. Its socket stays open until stop, so that no reader of it
// can read a reused fd number.
func (r *runner) kill(token string) {
	reap.KillTree(r.cmd.Process.Pid)
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
	r.waited = true
	reap.Kill(token)
	r.done = true
}

// endChecker ends a checker that must stop now (timeout, interrupt): it
// kills every descendant of the runner until the runner answers that the
// checker has ended (and the runner serves on), or kills the runner when
// it does not answer within answerWait or answers wrong.
func (r *runner) endChecker(answer <-chan error, token string) {
	deadline := time.After(answerWait)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		reap.KillTree(r.cmd.Process.Pid)
		select {
		case err := <-answer:
			if err != nil {
				r.kill(token)
			}
			return
		case <-tick.C:
		case <-deadline:
			r.kill(token)
			<-answer
			return
		}
	}
}

// answerWait is how long a runner may take to answer once its checker's
// processes were killed.
const answerWait = 5 * time.Second

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
	copied, err := sendRun(r.conn, out, []string{dir}, argv, env)
	if errors.Is(err, errNotStarted) {
		r.kill(token)
		return outcome{}, fmt.Errorf("checker runner: %w", err)
	}
	if err != nil {
		return outcome{}, err
	}
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
	if err, done := awaitAnswer(ctx, answer, copied, func() { r.endChecker(answer, token) }, func() { r.kill(token) }); done != nil {
		return outcome{}, done
	} else if err != nil {
		if !started.Load() {
			err = fmt.Errorf("%w: %w", errNotStarted, err)
		}
		return outcome{}, fmt.Errorf("checker runner: %w", err)
	}
	return res, nil
}

// awaitAnswer waits for a checker's answer, which a goroutine reading the
// connection sends on answer, and then for its output to be copied
// (copied, from sendRun), as the runner and the confined jail both do.
// When ctx is done first it ends the checker (end) and returns ctx's
// error as done; when the answer is an error it kills the checker (kill)
// and returns that error as err, a connection that ended unanswered as
// errRunnerLost.
func awaitAnswer(ctx context.Context, answer <-chan error, copied <-chan struct{}, end, kill func()) (err, done error) {
	select {
	case err = <-answer:
	case <-ctx.Done():
		end()
		<-copied
		return nil, ctx.Err()
	}
	if err != nil {
		kill()
		<-copied
		if errors.Is(err, io.EOF) {
			err = errRunnerLost
		}
		return err, nil
	}
	<-copied // every writer is dead: the pipe has ended
	return nil, nil
}

// words says how a checker ended, as the exit of an exec.Cmd says it.
func (o outcome) words() string {
	ws := o.status
	var s string
	switch {
	case ws.Exited():
		s = "exit status " + strconv.Itoa(ws.ExitStatus())
	case ws.Signaled():
		s = "signal: " + ws.Signal().String()
	}
	if ws.CoreDump() {
		s += " (core dumped)"
	}
	return s
}

// sendRun asks the process at the other end of c to run a checker: a
// frameRun of fields, with the write end of a new pipe whose read end is
// copied into out until every writer is gone (then copied closes). A
// failure to send wraps errNotStarted: the checker never started.
func sendRun(c *net.UnixConn, out io.Writer, fields ...[]string) (copied <-chan struct{}, err error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	var req []byte
	for _, f := range fields {
		req = appendStrings(req, f)
	}
	err = sendFrame(c, frameRun, req, int(pw.Fd()))
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, fmt.Errorf("%w: %w", errNotStarted, err)
	}
	done := make(chan struct{})
	go func() {
		io.Copy(out, pr)
		pr.Close()
		close(done)
	}()
	return done, nil
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
	fd := rightsFD(oob[:oobn])
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

// rightsFD returns the first fd that the control message oob passes
// (-1 when none), and closes the others.
func rightsFD(oob []byte) int {
	fd := -1
	if len(oob) == 0 {
		return fd
	}
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return fd
	}
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
	return fd
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
	// Nor any fd crashsim did not mark close-on-exec.
	setupErr := closeOnExec(3)
	catchSignals()
	mode, work, _ := strings.Cut(arg, " ")
	jailed := mode == "jail" || mode == "jail-root"
	if setupErr == nil {
		setupErr = reap.SetSubreaper()
	}
	var j *jail
	if jailed && setupErr == nil {
		jm := jailOwnNet
		if mode == "jail-root" {
			jm = jailHostNet
		}
		j, setupErr = jailSetup(work, jm, nil)
	}
	var null int
	null, err = unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil && setupErr == nil {
		setupErr = err
	}
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
				reap.KillTree(os.Getpid())
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
		retire, err := runOne(sock, req.b, req.fd, null, jailed, j, setupErr, paths)
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

// catchSignals makes the runner deaf to the signals of a terminal and of
// a session ending (crashsim's end is its socket's). They are caught,
// not ignored: an ignored signal stays ignored across exec, and a
// checker must get them as usual.
func catchSignals() {
	ch := make(chan os.Signal, 8)
	signal.Notify(ch, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGPIPE)
	go func() {
		for range ch {
		}
	}()
}

// runOne serves one request; it reports whether the runner must retire
// (set in the answer), and an error when the socket failed. j is the
// jail when jailed (nil when its setup failed).
func runOne(sock *net.UnixConn, req []byte, out, null int, jailed bool, j *jail, setupErr error, paths map[string]string) (bool, error) {
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
		if err := j.enter(dir); err != nil {
			return fail("bind "+dir, err)
		}
	}
	leave := func() {
		if jailed {
			j.leave(dir)
		}
	}
	path, ok := paths[argv[0]]
	if !ok {
		p, err := exec.LookPath(argv[0])
		if err != nil {
			leave()
			if jailed {
				return fail("run", err)
			}
			return true, sendFrame(sock, frameNotRun, []byte(err.Error()), -1)
		}
		path = p
		paths[argv[0]] = p
	}
	if err := sendFrame(sock, frameStart, nil, -1); err != nil {
		leave()
		return true, err
	}
	attr := &syscall.ProcAttr{
		Dir: dir, Env: env, Files: []uintptr{uintptr(null), uintptr(out), uintptr(out)},
		Sys: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	}
	var pid int
	if jailed {
		pid, err = j.fork.forkExec(path, argv, attr)
	} else {
		pid, err = syscall.ForkExec(path, argv, attr)
	}
	if err != nil {
		err = &os.PathError{Op: "fork/exec", Path: path, Err: err}
		leave()
		if jailed {
			return fail("run", err)
		}
		return false, sendFrame(sock, frameNotRun, []byte(err.Error()), -1)
	}
	ws, err := waitChecker(pid)
	if err != nil {
		return true, err
	}
	sweepDescendants()
	leave()
	return false, answerDone(sock, ws, false)
}

// waitChecker reaps what comes (orphans come to a child subreaper) until
// the checker pid ends, and returns how it ended.
func waitChecker(pid int) (unix.WaitStatus, error) {
	for {
		var w unix.WaitStatus
		got, err := unix.Wait4(-1, &w, 0, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("wait: %w", err)
		}
		if got == pid {
			return w, nil
		}
	}
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

// sweepDescendants kills and reaps every descendant of this process, a
// child subreaper: the orphans among them are its children, and each one
// killed hands its own children to it, until it has none. With no child
// at all (the checker started nothing that outlived it) it costs one
// wait4.
func sweepDescendants() {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		switch {
		case err == unix.ECHILD:
			return
		case err == unix.EINTR || pid > 0:
			continue
		}
		// Children that have not exited: kill them and what is below
		// them, then wait for one to end.
		reap.KillTree(os.Getpid())
		_, _ = unix.Wait4(-1, &ws, 0, nil)
	}
}
