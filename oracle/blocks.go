package oracle

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/crashsim/crashsim/blocklog"
	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report"
	"github.com/crashsim/crashsim/tracer"
)

// BlockOptions configure RunBlocks.
type BlockOptions struct {
	Options
	// Exhaustive: a point with at most this many writes in flight replays
	// every subset of them (0: 6, so at most 64 subsets).
	Exhaustive int
	// Samples: random subsets replayed at a point with more in flight
	// (0: 24), besides its prefixes, one-dropped and torn states.
	Samples int
	Seed    uint64 // of the samples (0: 1)
}

// RunBlocks is Run with Options.Blocks: it runs the program once on a
// filesystem whose device writes are logged (a loop device over an image
// served by blocklog), stopping it at every crash point to mark the log,
// and then replays at each point every state the log allows (see
// blocklog.Point.States), mounts each, and compares its work directory
// with the models.
func RunBlocks(ctx context.Context, opt BlockOptions) ([]*report.OracleResult, error) {
	opt.Options.Blocks = &report.OracleEnumeration{Exhaustive: opt.Exhaustive, Samples: opt.Samples, Seed: opt.Seed}
	return Run(ctx, opt.Options)
}

// blockEnumeration fills in the defaults of a block replay's bounds
// (exhaustive up to 6 writes in flight, 24 samples, seed 1) and checks
// them and /dev/fuse.
func blockEnumeration(e report.OracleEnumeration) (*report.OracleEnumeration, error) {
	if err := blocklog.Preflight(); err != nil {
		return nil, &EnvError{err.Error()}
	}
	if e.Exhaustive == 0 {
		e.Exhaustive = 6
	}
	if e.Samples == 0 {
		e.Samples = 24
	}
	if e.Seed == 0 {
		e.Seed = 1
	}
	if e.Exhaustive > 16 {
		return nil, fmt.Errorf("oracle: --blocks-exhaustive %d: at most 16 (2^16 mounts per point)", e.Exhaustive)
	}
	return &e, nil
}

// replayStats is what a block replay cost.
type replayStats struct {
	mounted int           // distinct images mounted
	took    time.Duration // building, mounting and reading states
}

// blockStates observes the crash points from one logged run
// (observeBlocks) and replays every state of its log (replayBlocks), in
// the order of targets.
func (r *runner) blockStates(ctx context.Context, targets []target, enum report.OracleEnumeration, trees map[string]Tree) ([]*pointObs, replayStats, error) {
	byIndex, err := r.observeBlocks(ctx, targets, &r.srv)
	if err != nil {
		return nil, replayStats{}, err
	}
	start := time.Now()
	mounted, err := r.replayBlocks(ctx, enum, byIndex, trees)
	if err != nil {
		return nil, replayStats{}, err
	}
	stats := replayStats{mounted: mounted, took: time.Since(start)}
	obs := make([]*pointObs, 0, len(targets))
	for _, t := range targets {
		o := byIndex[t.index]
		switch {
		case o.reached:
		case unstoppable(t.syscall):
			o.note = notAfterCopy
		default:
			o.note = "not reached in the logged run: when the program stopped after this call, the trace already held a later point (another thread ran on)"
		}
		obs = append(obs, o)
	}
	return obs, stats, nil
}

// observeBlocks runs the program once on the logged device, stopping it
// after every call of the crash points' syscalls; at each stop that is a
// new crash point it marks the log, records the live tree and keeps the
// trace so far.
func (r *runner) observeBlocks(ctx context.Context, targets []target, srvp **blocklog.Server) (map[int]*pointObs, error) {
	obs := map[int]*pointObs{}
	names := map[string]bool{}
	for _, t := range targets {
		obs[t.index] = &pointObs{target: t}
		if !unstoppable(t.syscall) {
			names[t.syscall] = true
		}
	}
	if _, err := r.sys.run(ctx, "cp", "--sparse=always", r.initImg, r.runImg); err != nil {
		return nil, err
	}
	srv, err := blocklog.Serve(filepath.Join(r.dir, "fuse"), r.runImg, filepath.Join(r.dir, "blocks.log"))
	if err != nil {
		return nil, &EnvError{err.Error()}
	}
	*srvp = srv
	r.sys.logf("serving %s through FUSE, logging to blocks.log", r.runImg)
	dev, err := r.sys.attach(ctx, srv.Image())
	if err != nil {
		return nil, err
	}
	if err := r.sys.mount(ctx, dev, r.live, r.spec.name, r.spec.liveOpts); err != nil {
		return nil, err
	}
	if err := srv.Mark(0); err != nil { // the mount's own writes are before every point
		return nil, err
	}
	out := filepath.Join(r.dir, "traces", "blocks.strace")
	var extra []string
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		extra = append(extra, "-e", "inject="+n+":signal=SIGSTOP:when=1+")
	}
	tr, err := r.startOutside(out, extra...)
	if err != nil {
		return nil, err
	}
	defer tr.kill()
	last, handled := 0, 0
	var trace []byte
	deadline := time.Now().Add(r.opt.Timeout)
	for {
		// Stops can come one after another without end; an interrupt
		// must still end the run (and the deferred kill its program).
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, _ := os.ReadFile(out)
		if end, pid, ok := parser.NthStop(b, handled); ok {
			handled++
			idx, err := r.pointIndex(b[:end])
			if err != nil {
				return nil, err
			}
			if o := obs[idx]; idx > last && o != nil {
				if err := srv.Mark(idx); err != nil {
					return nil, err
				}
				o.reached = true
				// Only the stopped thread is frozen: if others made calls
				// meanwhile, the mark is late. The point's trace is then
				// the trace as it was at the mark, as a snapshot's is: its
				// last crash point is the one the marked states are of.
				trace, o.stoppedAt = b[:end], idx
				if b2, err := os.ReadFile(out); err == nil && len(b2) > end {
					if i := bytes.LastIndexByte(b2, '\n'); i >= end {
						if grew := parser.FirstCall(b2[end : i+1]); grew != "" {
							o.note = "other threads ran while the log was marked: " + grew
							trace = b2[:i+1]
							if o.stoppedAt, err = r.pointIndex(trace); err != nil {
								return nil, err
							}
						}
					}
				}
				o.trace = filepath.Join(r.dir, "traces", fmt.Sprintf("point-%d.strace", idx))
				if err := os.WriteFile(o.trace, trace, 0o644); err != nil {
					return nil, err
				}
				if o.live, err = ReadTree(r.work); err != nil {
					return nil, err
				}
				last = idx
			}
			// Stops are progress: the time limit is for a run without them.
			deadline = time.Now().Add(r.opt.Timeout)
			_ = syscall.Kill(pid, syscall.SIGCONT)
			continue
		}
		select {
		case err := <-tr.done:
			tr.once.Do(func() { tr.err = err })
			if err != nil {
				return nil, fmt.Errorf("the program failed in its logged run (%v); run it with -v to see its output", err)
			}
			if err := r.stopLive(dev); err != nil {
				return nil, err
			}
			if err := r.noteRanOn(out, obs, last); err != nil {
				return nil, err
			}
			w, by, fl := srv.Stats()
			r.sys.logf("logged %d writes (%d bytes) and %d flushes", w, by, fl)
			return obs, srv.Close()
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the program ran longer than %v without reaching a crash point", r.opt.Timeout)
		}
	}
}

// noteRanOn looks at the logged run's whole trace: when it has crash
// points past the last one marked, the program did not run as in its
// first run (PostgreSQL's statistics file took more writes), and what the
// log holds after that mark comes from changes no mark and no prediction
// covers. Those states are then left out (ranOn), with a note on the
// point, rather than held against the last point's predictions.
func (r *runner) noteRanOn(out string, obs map[int]*pointObs, last int) error {
	o := obs[last]
	if o == nil {
		return nil
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return err
	}
	end, err := r.pointIndex(b)
	if err != nil {
		return err
	}
	if end <= last {
		return nil
	}
	r.ranOn = true
	note := fmt.Sprintf("the logged run went on to %d more crash points than the first run had (it did not run the same way twice): the states after this point are not compared", end-last)
	if o.note != "" {
		note = o.note + "; " + note
	}
	o.note = note
	return nil
}

// notAfterCopy is the note of a crash point after a copy in the kernel
// that no later stop observed: the logged run does not stop at the copy
// itself, so its state is seen only at the next stop of any call (an
// open, say) before the next crash point.
const notAfterCopy = "not reached in the logged run: " + copyUnstoppable + ", and each restart is stopped again), and no other stop came before the next crash point"

// copyUnstoppable says why no run stops right after a copy in the kernel
// (unstoppable); the notes of both kinds of run finish it.
const copyUnstoppable = "a copy in the kernel cannot be stopped right after it (the stop, sent as it starts, interrupts it before it copies anything"

// unstoppable reports whether a syscall is one the logged run does not
// stop after. strace sends the injected SIGSTOP as the call starts;
// copy_file_range, sendfile and splice see it pending, copy nothing and
// return to be restarted, and with every call stopped (when=1+) each
// restart is stopped again: the run never ended. The state after such a
// call is observed at the next stop (pointIndex names the last crash
// point the trace passed), which sees the same files when it comes
// before the next crash point.
func unstoppable(name string) bool {
	return syscalls.Lookup(name).Effect() == syscalls.CopyInto
}

// startOutside starts strace as start does, in the work directory, but
// without a chdir in the child. Go starts a child with vfork, and until
// the child execs the parent cannot stop the world for its garbage
// collector; a chdir into the logged filesystem needs a block read, which
// needs the FUSE server, which runs in this process: the child waits for
// the server, the server for the collector, the collector for the child.
// So this process moves into the work directory for the fork and the
// child inherits it. Nothing else in it may use relative paths meanwhile.
func (r *runner) startOutside(out string, extra ...string) (*traced, error) {
	chdirMu.Lock()
	defer chdirMu.Unlock()
	old, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if err := os.Chdir(r.work); err != nil {
		return nil, err
	}
	work := r.work
	r.work = "" // start's c.Dir: no chdir in the child
	tr, err := r.start(out, extra...)
	r.work = work
	if cerr := os.Chdir(old); cerr != nil && err == nil {
		tr.kill()
		return nil, cerr
	}
	return tr, err
}

// chdirMu serializes startOutside's moves of the process's directory.
var chdirMu sync.Mutex

// replayBlocks builds, mounts and reads every state of every window of
// the log. A window at a mark belongs to that crash point. A window before
// a flush (the writes in flight while it was sent) is a crash in the
// middle of whatever sent them: it belongs to the next crash point and
// can show that point's outcomes or the one's before; after the last
// point, it belongs to the last (the program's exit, the unmount's
// writeback).
func (r *runner) replayBlocks(ctx context.Context, e report.OracleEnumeration, obs map[int]*pointObs, trees map[string]Tree) (mounted int, err error) {
	enum := blocklog.Enumeration{Exhaustive: e.Exhaustive, Samples: e.Samples, Seed: e.Seed}
	idx := make([]int, 0, len(obs))
	for i := range obs {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	next := func(m int) int {
		for _, i := range idx {
			if i > m && obs[i].reached {
				return i
			}
		}
		return -1
	}
	byImage := map[string]replayed{}
	n := 0
	err = blocklog.Walk(ctx, filepath.Join(r.dir, "blocks.log"), r.initImg, r.dir, func(p *blocklog.Point) error {
		if p.ID < 0 {
			return nil // the mount's own writes, before the program
		}
		var o *pointObs
		var cands []int
		label := ""
		switch {
		case p.AtMark && p.ID == 0:
			return nil // the program has not started: the initial image
		case p.AtMark:
			o, cands = obs[p.ID], []int{p.ID}
		default:
			if k := next(p.ID); k > 0 {
				o, cands = obs[k], []int{p.ID, k}
				label = fmt.Sprintf("during the call (a flush after %d in flight): ", len(p.InFlight))
			} else if o = obs[p.ID]; o != nil {
				if r.ranOn {
					return nil // see noteRanOn
				}
				cands = []int{p.ID}
				label = fmt.Sprintf("after the last point (a flush after %d in flight): ", len(p.InFlight))
			}
		}
		if o == nil {
			return nil
		}
		states, total := p.States(enum)
		if o.device == nil {
			o.device = &report.OracleDevice{}
		}
		if p.AtMark {
			o.device.Flushes, o.device.InFlight, o.device.Subsets = p.Flushes, len(p.InFlight), total
		} else {
			o.device.Windows++
		}
		r.sys.logf("point %d: %s%d in flight after %d flushes, %d states", o.index, label, len(p.InFlight), p.Flushes, len(states))
		for _, st := range states {
			n++
			img := filepath.Join(r.dir, "states", fmt.Sprintf("state-%d.img", n))
			k, err := p.Build(ctx, st, img)
			if err != nil {
				return err
			}
			rp, ok := byImage[k]
			if ok {
				os.Remove(img)
			} else {
				if rp, err = r.mountState(ctx, img, trees); err != nil {
					return err
				}
				if r.opt.Keep {
					rp.image = img
				} else {
					os.Remove(img)
				}
				byImage[k] = rp
			}
			rp.desc, rp.during, rp.cands = label+st.Desc, !p.AtMark, cands
			o.states = append(o.states, rp)
		}
		return nil
	})
	return len(byImage), err
}

// mountState mounts one replayed image read-write (a journal may need
// replay), reads its work directory and undoes the mount.
func (r *runner) mountState(ctx context.Context, img string, trees map[string]Tree) (replayed, error) {
	if err := ctx.Err(); err != nil {
		return replayed{}, err
	}
	dev, err := r.sys.attach(ctx, img)
	if err != nil {
		return replayed{}, err
	}
	var rp replayed
	if merr := r.sys.mount(ctx, dev, r.crashMP, r.spec.name, r.spec.crashOpts); merr != nil {
		rp.err = merr.Error()
	} else {
		t, terr := ReadTree(filepath.Join(r.crashMP, "work"))
		if terr != nil {
			rp.err = "read the work directory: " + terr.Error()
		} else {
			k := treeKey(t)
			trees[k] = t
			rp.tree = k
		}
		if err := r.sys.unmount(r.crashMP); err != nil {
			return replayed{}, err
		}
	}
	if err := r.sys.detach(dev); err != nil {
		return replayed{}, err
	}
	waitDetached(dev)
	return rp, nil
}

// waitDetached waits (up to 2 s) until dev has no backing file. A device
// something else still has open (udev probing a new device) is only
// marked to clear when that closes it, and losetup -d reports success at
// once; thousands of states attached in a row should not pile up behind
// it.
func waitDetached(dev string) {
	f := "/sys/block/" + filepath.Base(dev) + "/loop/backing_file"
	for i := 0; i < 200; i++ {
		if _, err := os.Stat(f); err != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// findStrace finds strace and its version, as Run does.
func findStrace(ctx context.Context) (string, tracer.Version, error) {
	path, err := exec.LookPath("strace")
	if err != nil {
		return "", tracer.Version{}, &EnvError{"strace not found (apt-get install strace)"}
	}
	v, err := tracer.DetectVersion(ctx, path)
	if err != nil {
		return "", tracer.Version{}, &EnvError{fmt.Sprintf("strace: %v", err)}
	}
	return path, v, nil
}
