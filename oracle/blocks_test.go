package oracle

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/crashsim/crashsim/blocklog"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/report"
)

func needsBlocks(t *testing.T) {
	t.Helper()
	needsLoop(t)
	if err := blocklog.Preflight(); err != nil {
		t.Skip("needs /dev/fuse: ", err)
	}
}

// The safe save replayed from the block log: every point is reached and
// sound under both models, the state at each point includes the single
// snapshot's, and the fsyncs show states of a crash in their middle that
// one copy cannot: the temp file missing while it is being synced.
func TestBlocksSafeSave(t *testing.T) {
	needsBlocks(t)
	before := ours(t)
	res, err := RunBlocks(context.Background(), BlockOptions{Options: Options{
		FS: "ext4", Models: []model.Persistence{model.Posix, model.Ext4},
		Setup: "printf 'version=1\\n' > config.txt",
		Cmd:   []string{python(), "-c", safeSave},
	}})
	checkClean(t, before)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		var out strings.Builder
		report.OracleText(&out, r)
		if r.Summary.Reached != r.Summary.Points || r.Summary.Points < 5 || !r.Summary.Sound || r.Source != report.OracleBlocks {
			t.Errorf("%s: %+v: want at least 5 points, all reached and sound\n%s", r.Model, r.Summary, out.String())
		}
		during := 0
		for _, p := range r.Points {
			if p.DistinctAt < 1 {
				t.Errorf("%s: point %d: no state at the point itself", r.Model, p.Index)
			}
			during += p.DistinctDuring
			if p.Syscall == "fsync" && p.Paths["config.txt.tmp"] != nil && strings.Contains(p.Call, "config.txt.tmp") {
				if d := strings.Join(p.Paths["config.txt.tmp"].During, " "); !strings.Contains(d, "missing") {
					t.Errorf("%s: point %d (%s): during the fsync config.txt.tmp was %q, want missing among them", r.Model, p.Index, p.Call, d)
				}
			}
		}
		if during == 0 {
			t.Errorf("%s: no state during any call\n%s", r.Model, out.String())
		}
		if r.Summary.Precision <= 0 || r.Summary.Precision > 1 || r.Summary.StatesPerSecond <= 0 {
			t.Errorf("%s: precision %v, %v states/s", r.Model, r.Summary.Precision, r.Summary.StatesPerSecond)
		}
	}
}

// Cancelled at any stage (Ctrl-C), a --blocks run leaves no mount, loop
// device or FUSE server behind.
func TestBlocksCancelledLeavesNothing(t *testing.T) {
	needsBlocks(t)
	for _, word := range []string{"serving", "crash points", "point 3:", "state-"} {
		before := ours(t)
		ctx, cancel := context.WithCancel(context.Background())
		_, err := RunBlocks(ctx, BlockOptions{Options: Options{FS: "ext4", Cmd: []string{python(), "-c", safeSave}, Log: cancelOn{word, cancel}}})
		cancel()
		checkClean(t, before)
		if err == nil {
			t.Errorf("cancelled at %q: the run succeeded", word)
		}
	}
}

// A copy in the kernel under --blocks: strace's SIGSTOP, sent as the call
// starts, made copy_file_range return to be restarted, and each restart
// was stopped again, so the run of cp never ended (and, stops coming
// without end, an interrupt was never looked at). The run now ends, every
// point is reached (the copy's at the next stop, rm's first open) and
// sound. The deadline turns a return of the old loop into a failure
// rather than a hang of the test binary.
func TestBlocksCopyInTheKernel(t *testing.T) {
	needsBlocks(t)
	before := ours(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := RunBlocks(ctx, BlockOptions{Options: kernelCopy()})
	checkClean(t, before)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		var out strings.Builder
		report.OracleText(&out, r)
		needsKernelCopy(t, r)
		if r.Summary.Reached != r.Summary.Points || !r.Summary.Sound {
			t.Errorf("%s: %+v: want every point reached and sound\n%s", r.Model, r.Summary, out.String())
		}
	}
}

// kernelCopy is a run of cp, which copies in the kernel (copy_file_range)
// where the filesystem lets it, and an rm of the original.
func kernelCopy() Options {
	return Options{
		FS: "ext4", Models: []model.Persistence{model.Posix},
		Setup: "seq 1 20000 > data.txt",
		Cmd:   []string{"sh", "-c", "cp data.txt data.old && rm data.txt"},
	}
}

// needsKernelCopy skips a test of copies in the kernel when r, a run of
// cp, has no copy_file_range point.
func needsKernelCopy(t *testing.T, r *report.OracleResult) {
	t.Helper()
	for _, p := range r.Points {
		if p.Syscall == "copy_file_range" {
			return
		}
	}
	t.Skip("cp on this machine copies with read and write, not copy_file_range")
}
