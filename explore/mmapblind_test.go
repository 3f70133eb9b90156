package explore_test

// Writes a trace cannot rebuild (stores into a shared writable mapping,
// operations submitted through an io_uring or with io_submit) are a blind
// spot of an exploration, never a pass and never a checker failure: the
// states explore would build lack them, and a checker that rejects one
// rejects the trace's gap, not the program. crashsim.Explore stops before
// building a state, as it does for blind-no-data, unless the blind spot is
// accepted (--accept-blind), when it explores what the trace shows and its
// warning says so.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/explore"
)

// blindTrace writes a trace of a program that opens root/data (which
// existed before, "OLD...") and does body with it on fd 3 (DATA in body
// stands for its path, ROOT for root's), then the files
// as they were before (initial) and as the program left them (root:
// "NEW...", stored through the mapping).
func blindTrace(t *testing.T, body string) (trace, root, initial string) {
	t.Helper()
	return dataTrace(t, body, "OLD-CONTENT-padding\n", "NEW-CONTENT-padding\n")
}

// dataTrace is blindTrace with the contents of data before (old) and
// after (new) the run given.
func dataTrace(t *testing.T, body, old, new string) (trace, root, initial string) {
	t.Helper()
	dir := t.TempDir()
	root, initial = filepath.Join(dir, "root"), filepath.Join(dir, "initial")
	for d, content := range map[string]string{root: new, initial: old} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "data"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := root + "/data"
	lines := fmt.Sprintf("400 1796660000.000001 openat(AT_FDCWD<%s>, \"data\", O_RDWR) = 3<%s>\n", root, data) +
		strings.NewReplacer("DATA", data, "ROOT", root).Replace(body) +
		fmt.Sprintf("400 1796660000.000008 close(3<%s>) = 0\n", data) +
		"400 1796660000.000009 exit_group(0) = ?\n" +
		"400 1796660000.000010 +++ exited with 0 +++\n"
	trace = filepath.Join(dir, "t.strace")
	if err := os.WriteFile(trace, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	return trace, root, initial
}

const (
	// mmapBody maps data shared and writable, stores into it (no line
	// shows that) and flushes it.
	mmapBody = "400 1796660000.000002 fstat(3<DATA>, {st_mode=S_IFREG|0644, st_size=20, ...}) = 0\n" +
		"400 1796660000.000003 mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_SHARED, 3<DATA>, 0) = 0x7f0000000000\n" +
		"400 1796660000.000004 msync(0x7f0000000000, 4096, MS_SYNC) = 0\n" +
		"400 1796660000.000005 fsync(3<DATA>) = 0\n" +
		"400 1796660000.000006 munmap(0x7f0000000000, 4096) = 0\n"
	// uringBody writes data through an io_uring.
	uringBody = "400 1796660000.000002 io_uring_setup(8, {flags=0, sq_thread_cpu=0, sq_thread_idle=0, sq_entries=8, cq_entries=16}) = 4<anon_inode:[io_uring]>\n" +
		"400 1796660000.000003 io_uring_enter(4<anon_inode:[io_uring]>, 2, 2, IORING_ENTER_GETEVENTS, NULL, 8) = 2\n" +
		"400 1796660000.000004 close(4<anon_inode:[io_uring]>) = 0\n"
	// aioBody writes data with io_submit (Linux AIO).
	aioBody = "400 1796660000.000002 io_setup(8, [0x7f2200001000]) = 0\n" +
		"400 1796660000.000003 io_submit(0x7f2200001000, 1, [{aio_data=0x10, aio_lio_opcode=IOCB_CMD_PWRITE, aio_fildes=3, aio_buf=\"NEW\", aio_nbytes=3, aio_offset=0}]) = 1\n" +
		"400 1796660000.000004 io_getevents(0x7f2200001000, 1, 1, [{data=0x10, obj=0x7f2200002000, res=3, res2=0}], NULL) = 1\n" +
		"400 1796660000.000005 fsync(3<DATA>) = 0\n"
)

// exploreBlind explores trace with a checker that wants the program's new
// data, accepting the blind spots accept.
func exploreBlind(t *testing.T, trace, root, initial string, accept ...string) (*crashsim.Result, *explore.Result) {
	t.Helper()
	e := crashsim.Explore{Inputs: crashsim.Inputs{Traces: []string{trace}}, AcceptBlind: accept, Options: explore.Options{
		Root: root, Initial: initial, Checker: "grep -q NEW data", Timeout: 20 * time.Second, WorkDir: t.TempDir()}}
	out, res, err := e.Run(context.Background())
	if err != nil {
		t.Fatalf("explore: %v", err)
	}
	t.Cleanup(func() { out.Close() })
	return out, res
}

// warning returns the blind spot id of out, failing the test without it.
func warning(t *testing.T, out *crashsim.Result, id string) check.BlindWarning {
	t.Helper()
	for _, w := range out.Warnings {
		if w.ID == id {
			return w
		}
	}
	t.Fatalf("no blind spot %s among %+v", id, out.Warnings)
	return check.BlindWarning{}
}

// TestExploreBlindUnbuiltStops: a file written through a shared mapping,
// an io_uring or io_submit stops the exploration before the checker runs
// (which would reject the snapshot's bytes, "every file as the program
// saw it", though the program stored the new ones): the run is blind
// (exit 6), with no finding, and says why.
func TestExploreBlindUnbuiltStops(t *testing.T) {
	for _, c := range []struct {
		name, body, id, why string
	}{
		{"Mmap", mmapBody, check.BlindSharedMmap, "shared mapping"},
		{"Uring", uringBody, check.BlindIOUring, "io_uring"},
		{"AIO", aioBody, check.BlindLinuxAIO, "io_submit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			trace, root, initial := blindTrace(t, c.body)
			out, res := exploreBlind(t, trace, root, initial)
			if res != nil {
				t.Fatalf("explored %d states (the checker ran on %d, rejected %d): want nothing explored", res.Distinct, res.Checked, res.Failed)
			}
			if w := warning(t, out, c.id); w.Accepted {
				t.Errorf("%s is accepted, none was given", c.id)
			}
			if !crashsim.Blind(out.Warnings) {
				t.Error("the run is not blind: it would exit 0")
			}
			if n := out.Len(); n != 0 {
				t.Errorf("%d findings: want none", n)
			}
			if msg := crashsim.NothingExplored(out); !strings.Contains(msg, c.why) {
				t.Errorf("NothingExplored = %q: want it to name %s", msg, c.why)
			}
		})
	}
}

// TestExploreBlindMmapAccepted: with blind-shared-mmap accepted, explore
// goes on and runs the checker on the states the trace shows (which here
// lack the stores, so the checker rejects them), and the accepted warning
// says that a rejected state can be one no crash leaves.
func TestExploreBlindMmapAccepted(t *testing.T) {
	trace, root, initial := blindTrace(t, mmapBody)
	out, res := exploreBlind(t, trace, root, initial, check.BlindSharedMmap)
	if res == nil {
		t.Fatal("nothing explored: want blind-shared-mmap accepted and the states checked")
	}
	if res.Checked == 0 {
		t.Errorf("the checker ran on no state: %+v", res)
	}
	w := warning(t, out, check.BlindSharedMmap)
	if !w.Accepted {
		t.Error("blind-shared-mmap is not accepted")
	}
	if !strings.Contains(w.Message, "without the stores through the mapping") {
		t.Errorf("the accepted warning does not say the states lack the stores: %s", w.Message)
	}
	if crashsim.Blind(out.Warnings) {
		t.Errorf("blind with the only blind spot accepted: %+v", out.Warnings)
	}
}

// TestExploreBlindNoDataStillStops: blind-no-data stops as before, and
// says it is the bytes that are missing.
func TestExploreBlindNoDataStillStops(t *testing.T) {
	trace, root, initial := blindTrace(t, "400 1796660000.000002 write(3<DATA>, \"NEW\"..., 3) = 3\n")
	out, res := exploreBlind(t, trace, root, initial)
	if res != nil {
		t.Fatalf("explored %d states: want nothing explored", res.Distinct)
	}
	warning(t, out, check.BlindNoData)
	if msg := crashsim.NothingExplored(out); !strings.Contains(msg, "bytes") {
		t.Errorf("NothingExplored = %q: want it to say the bytes are missing", msg)
	}
}

// TestExploreBlindReflink: a reflink (FICLONE) changes a file's data in
// the kernel, which check reports as unmodeled-write and explore as
// blind-no-data: no state with the file's new data can be built, so
// nothing is explored unless blind-no-data is accepted, and then the
// warning says the states lack the change.
func TestExploreBlindReflink(t *testing.T) {
	body := "400 1796660000.000002 openat(AT_FDCWD<ROOT>, \"src\", O_RDONLY) = 4<ROOT/src>\n" +
		"400 1796660000.000003 ioctl(3<DATA>, BTRFS_IOC_CLONE or FICLONE, 4<ROOT/src>) = 0\n" +
		"400 1796660000.000004 fsync(3<DATA>) = 0\n" +
		"400 1796660000.000005 close(4<ROOT/src>) = 0\n"
	trace, root, initial := blindTrace(t, body)
	out, res := exploreBlind(t, trace, root, initial)
	if res != nil {
		t.Fatalf("explored %d states (the checker rejected %d): want nothing explored", res.Distinct, res.Failed)
	}
	if w := warning(t, out, check.BlindNoData); !strings.Contains(w.Message, "FICLONE") {
		t.Errorf("the blind spot does not name the reflink: %s", w.Message)
	}
	out, res = exploreBlind(t, trace, root, initial, check.BlindNoData)
	if res == nil || res.Checked == 0 {
		t.Fatalf("blind-no-data accepted, and the checker ran on no state: %+v", res)
	}
	if w := warning(t, out, check.BlindNoData); !w.Accepted || !strings.Contains(w.Message, "without that change") {
		t.Errorf("the accepted warning does not say the states lack the change: %+v", w)
	}
}

// TestExploreTornInCall: an O_DSYNC write over two pages of data on disk
// can be torn while the call runs (check's overwrite-in-place), and no
// crash point between calls shows that: explore builds no such state.
// A run whose checker accepts every state it built is blind there (exit
// 6), not clean.
func TestExploreTornInCall(t *testing.T) {
	old := "NEW" + strings.Repeat("o", 8189)
	patch := strings.Repeat("N", 200)
	new := old[:4000] + patch + old[4200:]
	body := "400 1796660000.000002 openat(AT_FDCWD<ROOT>, \"data\", O_RDWR|O_DSYNC) = 4<DATA>\n" +
		"400 1796660000.000003 fstat(4<DATA>, {st_mode=S_IFREG|0644, st_size=8192, ...}) = 0\n" +
		"400 1796660000.000004 pwrite64(4<DATA>, \"" + patch + "\", 200, 4000) = 200\n" +
		"400 1796660000.000005 close(4<DATA>) = 0\n"
	trace, root, initial := dataTrace(t, body, old, new)
	out, res := exploreBlind(t, trace, root, initial)
	if res == nil || res.Failed != 0 {
		t.Fatalf("explore result %+v: want the states built, none rejected", res)
	}
	w := warning(t, out, check.BlindStatesUnchecked)
	if w.Line != 4 || !strings.Contains(w.Message, "a crash while the call runs can leave it torn") {
		t.Errorf("line %d: %q", w.Line, w.Message)
	}
	if !crashsim.Blind(out.Warnings) {
		t.Error("not blind: a run that never judged the torn write exits 0")
	}
	out2, _ := exploreBlind(t, trace, root, initial, check.BlindStatesUnchecked)
	if crashsim.Blind(out2.Warnings) {
		t.Error("blind with blind-states-unchecked accepted")
	}
}
