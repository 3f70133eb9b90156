package oracle

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/crashsim/crashsim/blocklog"
	"github.com/crashsim/crashsim/internal/reap"
	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report"
	"github.com/crashsim/crashsim/tracer"
)

// Options configure Run.
type Options struct {
	FS     string              // ext4, xfs or btrfs
	SizeMB int                 // image size; 0 is the filesystem's default
	Models []model.Persistence // the models to compare with; nil is posix
	Cmd    []string            // the program and its arguments, run in the work directory
	// Setup is a shell command (sh -c) run untraced in the work directory
	// before the initial image is kept: the files CMD expects.
	Setup string
	// User, when set, runs Cmd as that user (strace -u): for a program
	// that refuses to run as root, such as PostgreSQL's server. The work
	// directory is the user's; Setup still runs as root and must give the
	// user the files it makes that Cmd writes.
	User string
	Env  []string // environment of Setup and Cmd; nil is crashsim's
	// Timeout bounds each run of the program (0: 30 s). Keep runs well
	// under 30 s anyway: older dirty pages are written back by the kernel.
	Timeout   time.Duration
	MaxStates int       // per path and point, as in model.Timeline (0: 65536)
	Keep      bool      // keep the temporary directory (images, traces)
	Log       io.Writer // progress notes; nil is silent
	Output    io.Writer // the program's stdout and stderr; nil discards
	// Notes hears, a line each, what Run swept of earlier oracle runs
	// that were killed with their watchdog (see Sweep); nil is silent.
	Notes io.Writer
	// Blocks, when set, observes every crash state a log of the device's
	// writes allows (see RunBlocks) instead of one copy per point.
	Blocks *report.OracleEnumeration
}

// target is a crash point of the first run, as strace can stop at it.
type target struct {
	index   int
	line    int
	syscall string
	n       int // the tracee's n-th call of syscall
	call    string
}

// observation is what one stopped run showed.
type observation struct {
	target
	reached bool
	note    string
	trace   string // the rerun's trace as it was when the image was copied
	live    Tree
	crash   Tree
	// stoppedAt is the crash point (under the first model) the rerun
	// stopped at.
	stoppedAt int
}

type runner struct {
	opt     Options
	spec    fsSpec
	sys     *system
	dir     string // temporary directory
	live    string // mount point of the filesystem the program runs on
	crashMP string // mount point of a crash copy
	work    string // live/work: where the program runs
	initImg string
	runImg  string
	strace  string
	version tracer.Version
	uid     int // Options.User's, when set
	gid     int
	// ranOn: the logged run had crash points past its last mark (see
	// noteRanOn).
	ranOn   bool
	listing *model.Listing
	initial Tree
	// initialBytes holds the small files of the initial tree, to rebuild
	// the versions a run writes (see ownVersions).
	initialBytes map[string][]byte
	srv          *blocklog.Server // the block log's server, once started
}

// newRunner checks opt, fills in its defaults and finds strace: what
// Run and RunBlocks both start with. Nothing is made on disk yet.
func newRunner(ctx context.Context, opt Options) (*runner, error) {
	if len(opt.Cmd) == 0 {
		return nil, errors.New("oracle: no command")
	}
	if err := Preflight(opt.FS); err != nil {
		return nil, err
	}
	if len(opt.Models) == 0 {
		opt.Models = []model.Persistence{model.Posix}
	}
	if opt.Timeout == 0 {
		opt.Timeout = 30 * time.Second
	}
	if opt.MaxStates == 0 {
		opt.MaxStates = 1 << 16
	}
	r := &runner{opt: opt, spec: filesystems[opt.FS], sys: &system{log: opt.Log}}
	if opt.User != "" {
		var err error
		if r.uid, r.gid, err = UserIDs(opt.User); err != nil {
			return nil, fmt.Errorf("oracle: %w", err)
		}
	}
	if err := CheckSize(opt.FS, opt.SizeMB); err != nil {
		return nil, fmt.Errorf("oracle: %w", err)
	}
	if r.opt.SizeMB == 0 {
		r.opt.SizeMB = r.spec.sizeMB
	}
	var err error
	if r.strace, r.version, err = findStrace(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// UserIDs returns the uid and gid of user name, for Options.User: an
// error names the user the system does not know ("--user x: no such
// user on this machine", not Go's "user: unknown user x").
func UserIDs(name string) (uid, gid int, err error) {
	u, err := user.Lookup(name)
	var unknown user.UnknownUserError
	if errors.As(err, &unknown) {
		return 0, 0, fmt.Errorf("--user %s: no such user on this machine", textesc.Escape(name))
	}
	if err != nil {
		return 0, 0, fmt.Errorf("--user %s: %w", textesc.Escape(name), err)
	}
	if uid, err = strconv.Atoi(u.Uid); err != nil {
		return 0, 0, fmt.Errorf("--user %s: uid %q", textesc.Escape(name), u.Uid)
	}
	if gid, err = strconv.Atoi(u.Gid); err != nil {
		return 0, 0, fmt.Errorf("--user %s: gid %q", textesc.Escape(name), u.Gid)
	}
	return uid, gid, nil
}

// dirPrefix begins the name of every oracle run's temporary directory.
const dirPrefix = "crashsim-oracle-"

// Sweep undoes what earlier oracle runs left when they were killed with
// their watchdog (kill -9 of every crashsim process, the OOM killer),
// and only what such a run provably made: its directory in $TMPDIR, which
// names the process that made it (reap.OwnDir), once that process is
// gone; what is mounted in it and the loop devices over its images; and
// the cgroups beside crashsim's own named after a process that is gone.
// A run still going, another user's directory, a link, a directory
// without the record: all are left alone. Each thing undone is said
// through say, in words.
func Sweep(say func(string)) {
	reap.SweepDirs(os.TempDir(), dirPrefix, say)
	reap.SweepGroups(say)
}

// LeftoverDirs lists the directories Sweep would undo and remove, and
// changes nothing (crashsim doctor).
func LeftoverDirs() []reap.Leftover { return reap.FindDirs(os.TempDir(), dirPrefix) }

// crashMountPoint is where a crash copy is mounted in the temporary
// directory dir: below crash/, which is root's alone, since the copy's
// root directory, once mounted, lets anyone in.
func crashMountPoint(dir string) string { return filepath.Join(dir, "crash", "mnt") }

// Run runs the oracle: it makes the initial image, learns the crash
// points from a first run of the program, observes the crash states at
// each (one snapshot per point, or with opt.Blocks every state the block
// log allows), and compares them with each model. On every way out,
// whatever it mounted is unmounted, whatever loop device it attached is
// detached, and the block log's server is stopped.
func Run(ctx context.Context, opt Options) (res []*report.OracleResult, err error) {
	if opt.Blocks != nil {
		e, err := blockEnumeration(*opt.Blocks)
		if err != nil {
			return nil, err
		}
		opt.Blocks = e
	}
	r, err := newRunner(ctx, opt)
	if err != nil {
		return nil, err
	}
	opt = r.opt
	Sweep(func(msg string) {
		if opt.Notes != nil {
			fmt.Fprintln(opt.Notes, msg)
		}
	})
	r.dir, err = os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, err
	}
	// Before anything is mounted in it: a run killed with its watchdog
	// leaves the directory, its mounts and loop devices to the next run's
	// Sweep, which must know whose they are.
	if err := reap.OwnDir(r.dir, opt.Keep); err != nil {
		os.Remove(r.dir)
		return nil, err
	}
	if opt.User != "" {
		// The user must reach the work directory (live/work) through it,
		// by its absolute path too (PostgreSQL's server makes its data
		// directory's path absolute): it may pass, not list. Everything
		// else in it is root's alone: the images and lists 0600, the
		// other directories 0700, a crash copy mounted one level below
		// one (crashMountPoint).
		if err := os.Chmod(r.dir, 0o711); err != nil {
			return nil, err
		}
	}
	// Stopped last, once everything is undone (see system.guard).
	dirs := []string{"live", "crash", filepath.Join("crash", "mnt"), "traces"}
	if opt.Blocks != nil {
		r.sys.guardBlocks(r.dir, opt.Keep)
		dirs = append(dirs, "fuse", "states")
	} else {
		r.sys.guard(r.dir, opt.Keep, filepath.Join(r.dir, "live"), crashMountPoint(r.dir))
	}
	defer r.sys.unguard()
	if !opt.Keep {
		defer os.RemoveAll(r.dir)
	}
	// Registered after RemoveAll, so it runs first: never remove a
	// directory with a filesystem still mounted in it. Runs on panics too.
	// The block log's server goes after the loop devices over its image.
	defer func() {
		cerr := r.sys.cleanup()
		if cerr != nil {
			err = errors.Join(err, fmt.Errorf("cleanup: %w", cerr))
		} else if opt.Keep {
			// Kept, and nothing mounted in it: the user's now, no
			// leftover for a later run to sweep.
			if derr := reap.Disown(r.dir); derr != nil {
				err = errors.Join(err, fmt.Errorf("cleanup: %w", derr))
			}
		}
		if r.srv != nil {
			if cerr := r.srv.Close(); cerr != nil {
				err = errors.Join(err, fmt.Errorf("cleanup: %w", cerr))
			}
		}
	}()
	r.live = filepath.Join(r.dir, "live")
	r.crashMP = crashMountPoint(r.dir)
	r.work = filepath.Join(r.live, "work")
	r.initImg = filepath.Join(r.dir, "initial.img")
	r.runImg = filepath.Join(r.dir, "run.img")
	for _, d := range dirs {
		mode := os.FileMode(0o700)
		if d == "live" {
			mode = 0o711 // the mount point of the work directory's filesystem
		}
		if err := os.Mkdir(filepath.Join(r.dir, d), mode); err != nil {
			return nil, err
		}
	}
	if err := r.prepare(ctx); err != nil {
		return nil, err
	}
	targets, err := r.learn(ctx)
	if err != nil {
		return nil, err
	}
	trees := map[string]Tree{}
	var obs []*pointObs
	source := report.OracleSnapshot
	var replay replayStats
	if opt.Blocks == nil {
		obs, err = r.snapshots(ctx, targets, trees)
	} else {
		source = report.OracleBlocks
		obs, replay, err = r.blockStates(ctx, targets, *opt.Blocks, trees)
	}
	if err != nil {
		return nil, err
	}
	for _, p := range opt.Models {
		rs, err := r.compare(p, source, obs, trees)
		if err != nil {
			return nil, err
		}
		rs.Summary.Points = len(targets)
		rs.Summary.Mounted = replay.mounted
		if opt.Blocks != nil {
			rs.Enumeration = opt.Blocks
			rs.Summary.ReplaySeconds = replay.took.Seconds()
			if replay.took > 0 {
				rs.Summary.StatesPerSecond = float64(rs.Summary.States) / replay.took.Seconds()
			}
		} else {
			rs.Summary.Mounted = rs.Summary.Reached
		}
		if opt.Keep {
			rs.Dir = r.dir
		}
		res = append(res, rs)
	}
	return res, nil
}

// snapshots observes each crash point with a rerun of the program stopped
// there and one copy of its device (observe): one state per point.
func (r *runner) snapshots(ctx context.Context, targets []target, trees map[string]Tree) ([]*pointObs, error) {
	var obs []*pointObs
	for _, t := range targets {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		o, err := r.observe(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("crash point %d (line %d, %s): %w", t.index, t.line, t.syscall, err)
		}
		po := &pointObs{target: o.target, reached: o.reached, note: o.note, trace: o.trace, live: o.live, stoppedAt: o.stoppedAt}
		if o.reached {
			k := treeKey(o.crash)
			trees[k] = o.crash
			po.states = []replayed{{cands: []int{t.index}, tree: k}}
		}
		obs = append(obs, po)
	}
	return obs, nil
}

// prepare makes the initial image: mkfs, the work directory, Setup.
func (r *runner) prepare(ctx context.Context) error {
	f, err := os.OpenFile(r.initImg, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	err = f.Truncate(int64(r.opt.SizeMB) << 20)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	args := append(append([]string{}, r.spec.mkfs[1:]...), r.initImg)
	if _, err := r.sys.run(ctx, r.spec.mkfs[0], args...); err != nil {
		return err
	}
	dev, err := r.sys.attach(ctx, r.initImg)
	if err != nil {
		return err
	}
	if err := r.sys.mount(ctx, dev, r.live, r.spec.name, r.spec.liveOpts); err != nil {
		return err
	}
	if err := os.Mkdir(r.work, 0o755); err != nil {
		return err
	}
	if r.opt.User != "" {
		if err := os.Chown(r.work, r.uid, r.gid); err != nil {
			return err
		}
	}
	if err := r.runSetup(ctx); err != nil {
		return err
	}
	var lst bytes.Buffer
	if err := model.WriteInitial(&lst, r.work); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.dir, "initial.list"), lst.Bytes(), 0o600); err != nil {
		return err
	}
	if r.listing, err = model.ReadInitial(bytes.NewReader(lst.Bytes()), "initial.list"); err != nil {
		return err
	}
	if r.initial, err = ReadTree(r.work); err != nil {
		return err
	}
	r.initialBytes = readInitialBytes(r.work, r.initial)
	if err := r.sys.unmount(r.live); err != nil {
		return err
	}
	return r.sys.detach(dev)
}

// startLive mounts a fresh copy of the initial image at r.live.
func (r *runner) startLive(ctx context.Context) (string, error) {
	if _, err := r.sys.run(ctx, "cp", "--sparse=always", r.initImg, r.runImg); err != nil {
		return "", err
	}
	dev, err := r.sys.attach(ctx, r.runImg)
	if err != nil {
		return "", err
	}
	if err := r.sys.mount(ctx, dev, r.live, r.spec.name, r.spec.liveOpts); err != nil {
		return "", err
	}
	return dev, nil
}

func (r *runner) stopLive(dev string) error {
	if err := r.sys.unmount(r.live); err != nil {
		return err
	}
	return r.sys.detach(dev)
}

// learn runs the program once to the end and returns its crash points.
func (r *runner) learn(ctx context.Context) ([]target, error) {
	dev, err := r.startLive(ctx)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(r.dir, "traces", "full.strace")
	t, err := r.start(out)
	if err != nil {
		return nil, err
	}
	runErr, err := r.waitProgram(ctx, t)
	if err != nil {
		return nil, err
	}
	if err := r.stopLive(dev); err != nil {
		return nil, err
	}
	if runErr != nil {
		return nil, &ProgramError{Err: runErr}
	}
	var targets []target
	counts := map[string]int{}
	err = r.replay(out, r.opt.Models[0], func(ev *parser.Event, pt *model.Point) {
		if ev.Kind != parser.KindSyscall {
			return
		}
		k := strconv.Itoa(ev.PID) + " " + ev.Name
		counts[k]++
		if pt != nil {
			targets = append(targets, target{index: pt.Index, line: ev.Pos.Line, syscall: ev.Name, n: counts[k], call: r.shortCall(ev)})
		}
	})
	if err != nil {
		return nil, err
	}
	r.sys.logf("%d crash points", len(targets))
	return targets, nil
}

// replay reads a trace through a Timeline of p, calling f with every event
// and the crash point after it (nil when it changed nothing in scope).
func (r *runner) replay(trace string, p model.Persistence, f func(*parser.Event, *model.Point)) error {
	return r.replayWith(trace, p, false, f)
}

// replayWith is replay; with pointsOnly the points are found and nothing
// of them worked out (model.Timeline.PointsOnly).
func (r *runner) replayWith(trace string, p model.Persistence, pointsOnly bool, f func(*parser.Event, *model.Point)) error {
	st, err := parser.Open(trace, parser.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	prefix := r.work + "/"
	tl := model.NewTimeline(model.Options{Persistence: p, Existed: r.listing.Existed}, func(s string) bool { return strings.HasPrefix(s, prefix) }, r.opt.MaxStates)
	if pointsOnly {
		tl.PointsOnly()
	}
	for {
		ev, err := st.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if pt, ok := tl.Step(ev); ok {
			f(ev, &pt)
		} else {
			f(ev, nil)
		}
	}
}

// observe reruns the program, stops it at t and records both trees.
func (r *runner) observe(ctx context.Context, t target) (*observation, error) {
	o := &observation{target: t}
	dev, err := r.startLive(ctx)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(r.dir, "traces", fmt.Sprintf("run-%d.strace", t.index))
	inject := fmt.Sprintf("inject=%s:signal=SIGSTOP:when=%d", t.syscall, t.n)
	tr, err := r.start(out, "-e", inject)
	if err != nil {
		return nil, err
	}
	defer tr.kill()
	deadline := time.After(r.opt.Timeout)
	var atStop, handled int
wait:
	for {
		b, _ := os.ReadFile(out)
		if end, pid, ok := parser.NthStop(b, handled); ok {
			// strace counts calls per tracee: another process (a shell
			// of a wrapper script) may reach its N-th call of the
			// syscall first. Let it go on and wait for the next stop.
			idx, err := r.pointIndex(b[:end])
			if err != nil {
				return nil, err
			}
			if idx >= t.index {
				atStop = end
				o.reached = true
				o.stoppedAt = idx
				break
			}
			r.sys.logf("tracee %d stopped at crash point %d, not %d: continuing it", pid, idx, t.index)
			_ = syscall.Kill(pid, syscall.SIGCONT)
			handled++
			continue
		}
		select {
		case err := <-tr.done:
			tr.once.Do(func() { tr.err = err })
			o.note = fmt.Sprintf("not reached: the program ended before the %s call %d of its tracee", t.syscall, t.n)
			if unstoppable(t.syscall) {
				o.note = "not reached: " + copyUnstoppable + ", and the call is made again)"
			}
			break wait
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline:
			return nil, fmt.Errorf("the program did not stop at %s call %d within %v", t.syscall, t.n, r.opt.Timeout)
		case <-time.After(2 * time.Millisecond):
		}
	}
	if !o.reached {
		return o, r.stopLive(dev)
	}
	crashImg := filepath.Join(r.dir, fmt.Sprintf("crash-%d.img", t.index))
	if _, err := r.sys.run(ctx, "cp", "--sparse=always", r.runImg, crashImg); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[:i+1]
	}
	if grew := parser.FirstCall(b[min(atStop, len(b)):]); grew != "" {
		o.note = "other tracees ran while the image was copied: " + grew
	}
	o.trace = filepath.Join(r.dir, "traces", fmt.Sprintf("point-%d.strace", t.index))
	if err := os.WriteFile(o.trace, b, 0o644); err != nil {
		return nil, err
	}
	if full, err := os.ReadFile(filepath.Join(r.dir, "traces", "full.strace")); err == nil {
		if d := firstDiff(parser.WriteCalls(full), parser.WriteCalls(b)); d != "" && o.note == "" {
			o.note = "the program wrote other bytes in this run than in the first (" + d + "): earlier versions come from other runs, so a version of this run may show as torn"
		}
	}
	if o.live, err = ReadTree(r.work); err != nil {
		return nil, err
	}
	tr.kill()
	if err := r.stopLive(dev); err != nil {
		return nil, err
	}
	cdev, err := r.sys.attach(ctx, crashImg)
	if err != nil {
		return nil, err
	}
	if err := r.sys.mount(ctx, cdev, r.crashMP, r.spec.name, r.spec.crashOpts); err != nil {
		return nil, fmt.Errorf("mount the crash copy: %w", err)
	}
	o.crash, err = ReadTree(filepath.Join(r.crashMP, "work"))
	if uerr := r.sys.unmount(r.crashMP); err == nil {
		err = uerr
	}
	if derr := r.sys.detach(cdev); err == nil {
		err = derr
	}
	if !r.opt.Keep {
		os.Remove(crashImg)
	}
	return o, err
}

// pointIndex returns the index of the last crash point in trace b under
// the first model (0: none yet).
func (r *runner) pointIndex(b []byte) (int, error) {
	probe := filepath.Join(r.dir, "traces", "probe.strace")
	if err := os.WriteFile(probe, b, 0o644); err != nil {
		return 0, err
	}
	idx := 0
	// Only where the points are: this runs at every stop, over the whole
	// trace so far.
	err := r.replayWith(probe, r.opt.Models[0], true, func(_ *parser.Event, pt *model.Point) {
		if pt != nil {
			idx = pt.Index
		}
	})
	return idx, err
}

// firstDiff describes where the shorter of two write lists departs from
// the other, or "".
func firstDiff(a, b []string) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return fmt.Sprintf("write call %d differs", i+1)
		}
	}
	return ""
}

// shortCall renders an event briefly, its paths relative to the work
// directory.
func (r *runner) shortCall(ev *parser.Event) string {
	return ev.Brief(90, func(args string) string {
		args = strings.ReplaceAll(args, r.work+"/", "")
		return strings.ReplaceAll(args, r.work, ".")
	})
}

func treeKey(t Tree) string {
	h := sha256.New()
	for _, p := range t.Paths() {
		e := t[p]
		fmt.Fprintf(h, "%q %s %d %s\n", p, e.Kind, e.Size, e.Sum)
	}
	return hex.EncodeToString(h.Sum(nil))
}
