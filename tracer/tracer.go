package tracer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/crashsim/crashsim/internal/reap"
	"github.com/crashsim/crashsim/internal/replacefile"
)

// ErrStraceNotFound is returned by Run when there is no strace to run.
var ErrStraceNotFound = errors.New("strace not found: install it (apt-get install strace)")

// CommandNotFoundError is returned by Run when the command to trace does not
// exist or cannot be executed. It is detected before strace starts, so that
// the user reads this and not strace's "Can't stat".
type CommandNotFoundError struct {
	Name string
	Err  error // why: fs.ErrNotExist, fs.ErrPermission, or "is a directory"
}

func (e *CommandNotFoundError) Error() string {
	if e.Err == nil || errors.Is(e.Err, os.ErrNotExist) {
		return "command not found: " + e.Name
	}
	return fmt.Sprintf("command not found: %s: %v", e.Name, e.Err)
}

func (e *CommandNotFoundError) Unwrap() error { return e.Err }

// TraceMode is the mode of every trace file: a trace holds the bytes the
// program wrote and the names it touched, for its owner only.
const TraceMode = 0o600

// GracePeriod is how long Run waits after a cancelled context's SIGTERM
// before it kills what is left.
const GracePeriod = 5 * time.Second

// Options says how to run strace and the command.
type Options struct {
	Strace   string    // strace to run; "" looks up "strace" in $PATH
	Out      string    // trace file; "" creates crashsim-*.strace in os.TempDir()
	Dir      string    // working directory of the command; "" is the current one
	Env      []string  // environment of the command; nil is crashsim's
	Stdin    io.Reader // the command's standard input; nil is /dev/null
	Stdout   io.Writer // nil discards
	Stderr   io.Writer // the command's and strace's own messages; nil discards
	Log      io.Writer // verbose notes: the strace argv, features dropped; nil is silent
	Syscalls []string  // the -e trace= list instead of the default set (with no -e raw=)
	// NoData records what a check needs and no more: no written bytes
	// (-s 0; lengths come from return values), no timestamps (one file is
	// already in order), no -y (the fd model resolves paths, given the
	// directory the command starts in) and no --seccomp-bpf (see args.go).
	// It costs about what plain strace costs. Without it every written
	// byte is in the trace, for explore.
	NoData bool
	// Stack adds strace -k: each call's stack, so findings can name the
	// program's own source line (see package source).
	Stack bool
	// Linger is how long the other processes of the run may go on once
	// the command's first process has exited: then they are killed and
	// listed in Result.Leftovers. 0 is DefaultLinger; negative waits for
	// them however long they run.
	Linger time.Duration
}

// DefaultLinger is Options.Linger's default: time for children to finish
// writing after their parent exits, short enough that a daemon does not
// hold up a CI job.
const DefaultLinger = 3 * time.Second

func (o Options) linger() time.Duration {
	if o.Linger == 0 {
		return DefaultLinger
	}
	return o.Linger
}

func stderrOf(o Options) io.Writer {
	if o.Stderr == nil {
		return io.Discard
	}
	return o.Stderr
}

// Result is what one run produced. Run returns a Result whenever strace ran,
// even with an error (a cancelled context): the trace written so far is
// still usable.
type Result struct {
	Trace      string   // path of the trace file
	Argv       []string // the strace command line, strace first
	ExitCode   int      // the traced command's exit status; -1 when killed by a signal
	Signal     string   // "SIGKILL" when the command was killed by a signal, else ""
	CoreDumped bool
	Version    Version // of the strace that ran
	// Leftovers are the processes that still ran Options.Linger after the
	// command's first process had exited, and were killed (daemons, and
	// children that outlived their parent).
	Leftovers []reap.Proc
}

// Run traces cmd (program and arguments) under strace and waits for the
// whole process tree to end. SIGINT, SIGTERM and SIGHUP that crashsim
// receives meanwhile are passed on to the traced processes; cancelling ctx
// sends them SIGTERM and, GracePeriod later, SIGKILL. Nothing that strace
// started is left running when Run returns, unless it moved itself out of
// the process group (a daemon).
func Run(ctx context.Context, cmd []string, opt Options) (*Result, error) {
	if len(cmd) == 0 {
		return nil, errors.New("tracer: no command to run")
	}
	strace, err := findStrace(opt.Strace)
	if err != nil {
		return nil, err
	}
	if err := checkCommand(cmd[0], opt.Dir, opt.Env); err != nil {
		return nil, err
	}
	v, err := cachedVersion(ctx, strace)
	if err != nil {
		return nil, err
	}
	out := opt.Out
	if out == "" {
		f, err := os.CreateTemp("", "crashsim-*.strace")
		if err != nil {
			return nil, fmt.Errorf("trace file: %w", err)
		}
		out = f.Name()
		f.Close()
	}
	// The trace file is made new (O_CREAT|O_EXCL|O_NOFOLLOW, after
	// removing a regular file there): a link or a device planted at out is
	// refused, never written through. It is not a temp file renamed at the
	// end, because it is written as a stream: it can be watched as it
	// grows, and a crashsim killed midway leaves what was traced until
	// then at its name. strace writes into a pipe that crashsim empties
	// into the file (see sink); where that cannot be set up, into the file
	// crashsim just made.
	tf, err := replacefile.CreateNew(out, TraceMode)
	if err != nil {
		if opt.Out == "" {
			os.Remove(out)
		}
		return nil, fmt.Errorf("trace file: %w", err)
	}
	traceArg := out
	sk, err := newSink(tf)
	if err != nil {
		logf(opt.Log, "strace writes %s itself: %v", out, err)
	} else {
		traceArg = sk.path
	}
	args, notes := plan(v, traceArg, cmd, opt.Syscalls, opt.NoData)
	if opt.Stack {
		args = withStack(args)
	}
	res := &Result{Trace: out, Argv: append([]string{strace}, args...), Version: v}
	logf(opt.Log, "strace %s at %s", v, strace)
	for _, n := range notes {
		logf(opt.Log, "%s", n)
	}
	if sk != nil {
		logf(opt.Log, "strace writes into a pipe (%s) that crashsim empties into %s", sk.path, out)
	}
	logf(opt.Log, "running: %s", shellQuote(res.Argv))

	// Every process of the run carries a token in its environment, by
	// which the leftovers are found: a daemon leaves strace's process
	// group, not its environment (see package reap).
	token := reap.NewToken()
	c := exec.Command(strace, args...)
	c.Dir, c.Env = opt.Dir, reap.Env(opt.Env, token)
	c.Stdin, c.Stdout, c.Stderr = opt.Stdin, opt.Stdout, opt.Stderr
	c.WaitDelay = GracePeriod // a daemon holding our stdout pipe must not hang Wait
	attr, restoreTTY := procAttr(opt.Stdin)
	// strace dies with crashsim, even by SIGKILL; the watchdog then kills
	// the tracees, which strace 6.1 leaves running.
	attr.Pdeathsig = syscall.SIGKILL
	c.SysProcAttr = attr

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	// Pdeathsig is sent when the thread that started strace ends, not the
	// process: this goroutine's thread stays locked, and so alive, until
	// the run is over.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := c.Start(); err != nil {
		restoreTTY()
		if sk != nil {
			sk.finish()
		}
		tf.Close()
		os.Remove(out)
		return nil, fmt.Errorf("start %s: %w", strace, err)
	}
	pgid := c.Process.Pid // strace leads a process group of its own
	wd, err := reap.StartWatchdog(pgid, token)
	if err != nil {
		logf(opt.Log, "no watchdog (%v): if crashsim is killed, the traced processes run on", err)
	}
	killAll := func() {
		killGroup(pgid, syscall.SIGKILL)
		reap.Kill(token, pgid)
	}
	done := make(chan error, 1)
	go func() {
		waitExited(pgid)
		// strace is a zombie: its pid, the group id, cannot be reused yet.
		// Whatever is left (strace was killed, or detached from tracees)
		// goes now, and then the watchdog, which kills by that group id.
		killAll()
		wd.Stop()
		done <- c.Wait()
	}()

	var (
		waitErr    error
		cancelled  error
		ctxDone    = ctx.Done()
		kill       <-chan time.Time
		interrupts <-chan struct{}
		lastInt    time.Time
		nInt       int
		lw         = newLingerWatch(pgid, opt.linger())
		poll       = time.NewTicker(50 * time.Millisecond)
	)
	defer poll.Stop()
	if sk != nil {
		interrupts = sk.interrupts
	}
	// interrupted counts Ctrl-Cs; the second one kills everything.
	interrupted := func() {
		if nInt > 0 && time.Since(lastInt) < 300*time.Millisecond {
			return // the same Ctrl-C, seen once per process of the group
		}
		nInt++
		lastInt = time.Now()
		if nInt == 2 {
			fmt.Fprintf(stderrOf(opt), "crashsim: second interrupt: killing the traced processes (SIGKILL)\n")
			killAll()
		}
	}
wait:
	for {
		select {
		case waitErr = <-done:
			break wait
		case s := <-sigs:
			logf(opt.Log, "passing %v on to the traced processes", s)
			killGroup(pgid, s.(syscall.Signal))
			interrupted()
		case <-interrupts:
			interrupted()
		case <-ctxDone:
			ctxDone = nil
			cancelled = ctx.Err()
			killGroup(pgid, syscall.SIGTERM)
			t := time.NewTimer(GracePeriod)
			defer t.Stop()
			kill = t.C
		case <-kill:
			killAll()
		case <-poll.C:
			if left := lw.check(token); len(left) > 0 {
				res.Leftovers = append(res.Leftovers, left...)
				logf(opt.Log, "the command's first process has exited; %d processes still ran %v later: killing them", len(left), lw.linger)
				killAll()
			}
		}
	}
	restoreTTY()
	if sk != nil {
		// strace is gone: what it wrote is in the pipe or the file.
		err := sk.finish()
		if cerr := tf.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write the trace %s: %w", out, cerr)
		}
		if err != nil {
			return res, err
		}
	} else {
		tf.Close()
	}

	st, err := traceStatus(out)
	if err != nil {
		return res, fmt.Errorf("read exit status: %w", err)
	}
	if !st.found {
		st, err = straceStatus(c.ProcessState, waitErr)
		if err != nil && cancelled == nil {
			return res, err
		}
	}
	res.ExitCode, res.Signal, res.CoreDumped = st.code, st.signal, st.coreDumped
	if cancelled != nil {
		return res, fmt.Errorf("trace stopped early: %w", cancelled)
	}
	return res, nil
}

// straceStatus takes the command's status from strace's own, for a trace
// without a "+++" line for the command: strace exits with the command's
// status and kills itself with the signal that killed the command. A trace
// with no line for the command at all means strace failed before it began
// (its message went to Options.Stderr).
func straceStatus(ps *os.ProcessState, waitErr error) (exitStatus, error) {
	if ps == nil {
		return exitStatus{}, fmt.Errorf("strace: %w", waitErr)
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		return exitStatus{}, fmt.Errorf("strace: %v", ps)
	}
	if ws.Signaled() {
		return exitStatus{found: true, code: -1, signal: signalName(ws.Signal()), coreDumped: ws.CoreDump()}, nil
	}
	return exitStatus{}, fmt.Errorf("strace exited with %d and traced nothing", ws.ExitStatus())
}

func findStrace(path string) (string, error) {
	if path == "" {
		p, err := exec.LookPath("strace")
		if err != nil {
			return "", ErrStraceNotFound
		}
		return p, nil
	}
	if err := executable(path); err != nil {
		return "", fmt.Errorf("%s: %w", path, ErrStraceNotFound)
	}
	return path, nil
}

// checkCommand finds name the way strace will: a name with a slash relative
// to dir, any other in $PATH (of env if it sets one).
func checkCommand(name, dir string, env []string) error {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		if err := executable(p); err != nil {
			return &CommandNotFoundError{Name: name, Err: err}
		}
		return nil
	}
	path := os.Getenv("PATH")
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) && dir != "" {
			d = filepath.Join(dir, d)
		}
		if executable(filepath.Join(d, name)) == nil {
			return nil
		}
	}
	return &CommandNotFoundError{Name: name, Err: os.ErrNotExist}
}

func executable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case fi.IsDir():
		return errors.New("is a directory")
	case fi.Mode()&0o111 == 0:
		return os.ErrPermission
	}
	return nil
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// shellQuote renders argv so that it can be pasted into a shell.
func shellQuote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+,./:@%") == "" {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
