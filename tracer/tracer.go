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
	"slices"
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
	// FDPaths keeps -y in a recording without data: every fd gets its
	// path, so that one another process sent over a Unix socket (no open
	// in the trace) is named. It costs a readlink of every fd strace
	// prints (see args.go).
	FDPaths bool
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
	// command's first process had exited, or after strace, and were
	// killed (daemons, and children that outlived their parent).
	Leftovers []reap.Proc
}

// Run traces cmd (program and arguments) under strace and waits for the
// whole process tree to end. SIGINT, SIGTERM and SIGHUP that crashsim
// receives meanwhile are passed on to the traced processes; cancelling ctx
// sends them SIGTERM and, GracePeriod later, SIGKILL. Nothing that strace
// started is left running when Run returns, daemons included: strace runs
// under a keeper (see package reap), which ends what is left of the run.
func Run(ctx context.Context, cmd []string, opt Options) (*Result, error) {
	r, err := planRun(ctx, cmd, opt)
	if err != nil {
		return nil, err
	}
	// The signals are crashsim's to pass on from before strace starts:
	// registered only once it ran, a Ctrl-C in between killed crashsim
	// (Go's default for SIGINT) with the program running on.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := r.start(); err != nil {
		return nil, err
	}
	r.supervise(ctx, sigs)
	return r.collect()
}

// session is one traced run, from its plan to its result.
type session struct {
	opt    Options
	cmd    []string
	strace string // the strace binary
	out    string // the trace file
	tf     *os.File
	sk     *sink // nil when strace writes tf itself
	res    *Result

	token   string // in the environment of every process of the run
	group   *reap.Group
	kept    *reap.Kept // the keeper and strace, its command
	wd      *reap.Watchdog
	restore func() // gives the terminal back

	cancelled error // ctx's error, when it ended the run
}

// planRun finds strace and the command, makes the trace file and builds
// the strace command line. Nothing runs yet.
func planRun(ctx context.Context, cmd []string, opt Options) (*session, error) {
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
		sk = nil
	} else {
		traceArg = sk.path
	}
	args, notes := plan(v, traceArg, cmd, opt.Syscalls, opt.NoData, opt.FDPaths)
	if opt.Stack {
		args = withStack(args)
	}
	r := &session{opt: opt, cmd: cmd, strace: strace, out: out, tf: tf, sk: sk,
		res: &Result{Trace: out, Argv: append([]string{strace}, args...), Version: v}}
	logf(opt.Log, "strace %s at %s", v, strace)
	for _, n := range notes {
		logf(opt.Log, "%s", n)
	}
	if sk != nil {
		logf(opt.Log, "strace writes into a pipe (%s) that crashsim empties into %s", sk.path, out)
	}
	logf(opt.Log, "running: %s", shellQuote(r.res.Argv))
	return r, nil
}

// start starts strace under a keeper, in a cgroup of the run's own where
// crashsim may make one, and the watchdog beside them.
func (r *session) start() error {
	// Every process of the run also carries a token in its environment:
	// should the keeper be killed too, the watchdog finds them by it.
	r.token = reap.NewToken()
	var err error
	if r.group, err = reap.NewGroup(); err != nil {
		logf(r.opt.Log, "no cgroup for the run (%v): the keeper alone holds its processes", err)
		r.group = nil
	}
	attr, restore := procAttr(r.opt.Stdin)
	r.restore = restore
	k := reap.Keep(r.strace, r.res.Argv, attr)
	k.Group = r.group
	c := k.Cmd
	c.Dir, c.Env = r.opt.Dir, reap.Env(r.opt.Env, r.token)
	c.Stdin, c.Stdout, c.Stderr = r.opt.Stdin, r.opt.Stdout, r.opt.Stderr
	c.WaitDelay = GracePeriod // a process holding our stdout pipe must not hang Wait
	if err := k.Start(); err != nil {
		restore()
		if r.sk != nil {
			r.sk.finish()
		}
		r.tf.Close()
		os.Remove(r.out)
		r.group.Close()
		return fmt.Errorf("start %s: %w", r.strace, err)
	}
	r.kept = k
	if r.wd, err = reap.StartWatchdog(0, r.token, r.group); err != nil {
		logf(r.opt.Log, "no watchdog (%v): if crashsim and the keeper are both killed, the traced processes run on", err)
	}
	return nil
}

// supervise passes signals on to strace's process group, stops the run
// when ctx ends, kills what the command left once Options.Linger has
// passed since its first process exited, and returns when strace has
// exited and the keeper has ended what was left.
func (r *session) supervise(ctx context.Context, sigs <-chan os.Signal) {
	strace := r.kept.Pid() // leads strace's process group
	var (
		ctxDone    = ctx.Done()
		kill       <-chan time.Time
		interrupts <-chan struct{}
		lastInt    time.Time
		nInt       int
		lw         = newLingerWatch(strace, r.opt.linger())
		poll       = time.NewTicker(50 * time.Millisecond)
	)
	defer poll.Stop()
	if r.sk != nil {
		interrupts = r.sk.interrupts
	}
	// interrupted counts Ctrl-Cs; the second one kills everything.
	interrupted := func() {
		if nInt > 0 && time.Since(lastInt) < 300*time.Millisecond {
			return // the same Ctrl-C, seen once per process of the group
		}
		nInt++
		lastInt = time.Now()
		if nInt == 2 {
			fmt.Fprintf(stderrOf(r.opt), "crashsim: second interrupt: killing the traced processes (SIGKILL)\n")
			r.killAll()
		}
	}
	for {
		select {
		case <-r.kept.Exited():
			return
		case s := <-sigs:
			logf(r.opt.Log, "passing %v on to the traced processes", s)
			killGroup(strace, s.(syscall.Signal))
			interrupted()
		case <-interrupts:
			interrupted()
		case <-ctxDone:
			ctxDone = nil
			r.cancelled = ctx.Err()
			killGroup(strace, syscall.SIGTERM)
			t := time.NewTimer(GracePeriod)
			defer t.Stop()
			kill = t.C
		case <-kill:
			r.killAll()
		case <-poll.C:
			if !lw.due() {
				continue
			}
			left := r.leftovers()
			if len(left) == 0 {
				continue // strace is writing its last lines
			}
			logf(r.opt.Log, "the command's first process has exited; %d processes still ran %v later: killing them", len(left), lw.linger)
			r.res.Leftovers = append(r.res.Leftovers, left...)
			r.killAll()
		}
	}
}

// leftovers lists the processes of the run but strace: the keeper's
// tree (while the keeper lives, nothing of the run is outside it).
func (r *session) leftovers() []reap.Proc { return r.kept.Running(r.kept.Pid()) }

// killAll kills every traced process: strace sees them end, writes how,
// and exits; should it not, it is killed a second later.
func (r *session) killAll() {
	r.kept.Kill(r.kept.Pid())
	go func() {
		select {
		case <-r.kept.Exited():
		case <-time.After(time.Second):
			r.kept.Kill()
		}
	}()
}

// collect empties the sink into the trace, ends the keeper, the group
// and the watchdog, and reads the command's exit status.
func (r *session) collect() (*Result, error) {
	r.restore()
	ws, left, waitErr := r.kept.Wait()
	// What the keeper ended after strace: processes strace did not
	// follow, or let go of.
	for _, p := range left {
		if !slices.ContainsFunc(r.res.Leftovers, func(q reap.Proc) bool { return q.PID == p.PID }) {
			r.res.Leftovers = append(r.res.Leftovers, p)
		}
	}
	reap.Kill(r.token)
	r.wd.Stop()
	if err := r.group.Close(); err != nil {
		logf(r.opt.Log, "remove the run's cgroup: %v", err)
	}
	res := r.res
	if r.sk != nil {
		// strace is gone: what it wrote is in the pipe or the file.
		err := r.sk.finish()
		if cerr := r.tf.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write the trace %s: %w", r.out, cerr)
		}
		if err != nil {
			return res, err
		}
	} else {
		r.tf.Close()
	}
	st, err := traceStatus(r.out)
	if err != nil {
		return res, fmt.Errorf("read exit status: %w", err)
	}
	if !st.found {
		st, err = straceStatus(ws, waitErr)
		if err != nil && r.cancelled == nil {
			return res, err
		}
	}
	res.ExitCode, res.Signal, res.CoreDumped = st.code, st.signal, st.coreDumped
	if r.cancelled != nil {
		return res, fmt.Errorf("trace stopped early: %w", r.cancelled)
	}
	return res, nil
}

// straceStatus takes the command's status from strace's own, for a trace
// without a "+++" line for the command: strace exits with the command's
// status and kills itself with the signal that killed the command. A trace
// with no line for the command at all means strace failed before it began
// (its message went to Options.Stderr).
func straceStatus(ws syscall.WaitStatus, waitErr error) (exitStatus, error) {
	if waitErr != nil {
		return exitStatus{}, fmt.Errorf("strace: %w", waitErr)
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
