package oracle

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/report"
	"github.com/crashsim/crashsim/tracer"
)

// needsLoop skips a test that needs root, loop devices, strace, mkfs.ext4
// and python3, saying which is missing.
func needsLoop(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the oracle mounts filesystems on loop devices")
	}
	if err := Preflight("ext4"); err != nil {
		t.Skip("needs root and loop devices: ", err)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3: ", err)
	}
}

// ours gives the test a TMPDIR of its own, where every oracle run it
// starts makes its directory, and lists the mounts and loop devices below
// it. Oracle runs of other packages' tests (which go test runs at the same
// time) are elsewhere and do not count.
func ours(t *testing.T) []string {
	t.Helper()
	if os.Getenv("CRASHSIM_ORACLE_TEST_TMP") == "" {
		dir := t.TempDir()
		t.Setenv("TMPDIR", dir)
		t.Setenv("CRASHSIM_ORACLE_TEST_TMP", dir)
	}
	return mountsBelow(t, os.Getenv("CRASHSIM_ORACLE_TEST_TMP"))
}

func mountsBelow(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, dir+"/crashsim-oracle-") {
			out = append(out, "mount: "+l)
		}
	}
	lo, err := exec.Command("losetup", "-a").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(lo), "\n") {
		if strings.Contains(l, dir+"/crashsim-oracle-") {
			out = append(out, "loop: "+l)
		}
	}
	return out
}

// checkClean fails the test if a run left a mount or loop device behind.
func checkClean(t *testing.T, before []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, l := range before {
		seen[l] = true
	}
	for _, l := range ours(t) {
		if !seen[l] {
			t.Errorf("left behind: %s", l)
		}
	}
}

func python() string {
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3" // not a pyenv shim: one process, no shell
	}
	p, _ := exec.LookPath("python3")
	return p
}

const safeSave = `
import os
with open("config.txt.tmp", "wb") as f:
    f.write(b"version=2\n")
    f.flush()
    os.fsync(f.fileno())
os.rename("config.txt.tmp", "config.txt")
d = os.open(".", os.O_RDONLY)
os.fsync(d)
os.close(d)
`

// soundOnExt4 runs a Python save of config.txt (which holds version=1
// before) on ext4 under both models, requires every crash point reached,
// observed and sound, and returns the results.
func soundOnExt4(t *testing.T, script string) []*report.OracleResult {
	t.Helper()
	needsLoop(t)
	before := ours(t)
	res, err := Run(context.Background(), Options{
		FS: "ext4", Models: []model.Persistence{model.Posix, model.Ext4},
		Setup: "printf 'version=1\\n' > config.txt",
		Cmd:   []string{python(), "-c", script},
	})
	checkClean(t, before)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Summary.Points < 5 || r.Summary.Reached != r.Summary.Points || r.Source != report.OracleSnapshot || r.Summary.States != r.Summary.Reached {
			t.Errorf("%s: %+v: want at least 5 points, every one observed", r.Model, r.Summary)
		}
		for _, p := range r.Points {
			if !p.Sound || !p.Reached {
				t.Errorf("%s: point %d (%s): sound=%v reached=%v mismatches %+v note %q", r.Model, p.Index, p.Call, p.Sound, p.Reached, p.Mismatches, p.Note)
			}
		}
	}
	return res
}

func TestSafeSaveIsSound(t *testing.T) {
	for _, r := range soundOnExt4(t, safeSave) {
		last := &r.Points[len(r.Points)-1]
		if got := observed(last, "config.txt") + " " + observed(last, "config.txt.tmp"); got != "latest missing" {
			t.Errorf("%s: after the directory fsync: config.txt and its temp file %s, want latest missing", r.Model, got)
		}
	}
}

// A naive save: data.txt is written and never synced, then another file
// is fsynced. On ext4 that fsync commits the journal, data.txt's name with
// it, but delayed allocation has not written its data: the name survives a
// crash, the bytes do not (the zero-length file of ext4 lore).
const naiveSave = `
import os
with open("data.txt", "wb") as f:
    f.write(b"important\n")
with open("other.txt", "wb") as f:
    f.write(b"x")
    f.flush()
    os.fsync(f.fileno())
`

func TestNaiveSaveLosesData(t *testing.T) {
	needsLoop(t)
	before := ours(t)
	res, err := Run(context.Background(), Options{
		FS: "ext4", Models: []model.Persistence{model.Posix},
		Cmd: []string{python(), "-c", naiveSave},
	})
	checkClean(t, before)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	var out strings.Builder
	report.OracleText(&out, r)
	t.Log(out.String())
	seen := map[string]bool{}
	for _, p := range r.Points {
		if !p.Sound {
			t.Errorf("point %d (%s): mismatches %+v", p.Index, p.Call, p.Mismatches)
		}
		seen[observed(&p, "data.txt")] = true
	}
	// Before the fsync nothing of data.txt is on disk; after it, the
	// name without the bytes.
	for _, want := range []string{"missing", "empty"} {
		if !seen[want] {
			t.Errorf("data.txt never observed %s (saw %v)", want, seen)
		}
	}
	// data.txt may also come back latest: nothing forbids the kernel to
	// write dirty pages back early (it did, once, while the whole test
	// suite ran beside this test), and the model predicts latest as
	// possible. What matters is that no point contradicts the model.
}

// observed is the outcome of path at a point of a snapshot run, which
// shows one state per point ("" when the path is not listed).
func observed(p *report.OraclePoint, path string) string {
	if op := p.Paths[path]; op != nil {
		return strings.Join(op.Observed, " ")
	}
	return ""
}

// cancelOn cancels a context when a log line holds a word.
type cancelOn struct {
	word   string
	cancel context.CancelFunc
}

func (c cancelOn) Write(b []byte) (int, error) {
	if strings.Contains(string(b), c.word) {
		c.cancel()
	}
	return len(b), nil
}

// A run cancelled while a filesystem is mounted (Ctrl-C) cleans up too,
// at every stage.
func TestCancelledRunLeavesNothing(t *testing.T) {
	needsLoop(t)
	for _, word := range []string{"attached", "mounted", "crash points", "crash-2.img"} {
		before := ours(t)
		ctx, cancel := context.WithCancel(context.Background())
		_, err := Run(ctx, Options{FS: "ext4", Cmd: []string{python(), "-c", safeSave}, Log: cancelOn{word, cancel}})
		cancel()
		checkClean(t, before)
		if err == nil {
			t.Errorf("cancelled at %q: the run succeeded", word)
		}
	}
}

func TestClassify(t *testing.T) {
	f := func(s string) Entry { return Entry{Kind: "file", Size: int64(len(s)), Sum: s} }
	h := history{
		initial: Tree{"a": f("old"), "d": {Kind: "dir"}},
		latest:  Tree{"a": f("new"), "d": {Kind: "dir"}, "e": f("")},
		earlier: map[string]bool{key(f("mid")): true},
		// a.old is a link the trace made to a, which held "old" before
		// the run: that content there is a's initial one (dpkg's
		// status-old); a.bak's link is to a path that held other bytes.
		linked: map[string][]string{"a.old": {"a"}, "a.bak": {"e"}},
	}
	obs := Tree{"a": f("mid"), "d": {Kind: "dir"}, "e": f(""), "z": {Kind: "file", Size: 4, Sum: "0000", Zeros: true}, "t": f("xx"),
		"a.old": f("old"), "a.bak": f("old"), "a.new": f("old"), "s.sock": {Kind: "other"}}
	for _, c := range []struct {
		path string
		want string
	}{
		{"a", "earlier"}, {"d", "initial latest"}, {"e", "latest empty"}, {"z", "zeros"}, {"t", "torn"}, {"gone", "missing"},
		{"a.old", "initial"}, {"a.bak", "torn"}, {"a.new", "torn"}, {"s.sock", "empty"},
	} {
		got := strings.Join(strs(classify(c.path, obs, h)), " ")
		if got != c.want {
			t.Errorf("classify(%s) = %s, want %s", c.path, got, c.want)
		}
	}
	if o, ok := pick([]model.Outcome{model.Earlier, model.Empty}, []model.Outcome{model.Missing, model.Earlier, model.Empty}); o != model.Empty || !ok {
		t.Errorf("pick = %s %v, want empty true", o, ok)
	}
	if o, ok := pick([]model.Outcome{model.Torn}, []model.Outcome{model.Latest}); o != model.Torn || ok {
		t.Errorf("pick = %s %v, want torn false", o, ok)
	}
}

func TestUnescapeMount(t *testing.T) {
	if got := tracer.UnescapeMount(`/tmp/a\040b`); got != "/tmp/a b" {
		t.Errorf("got %q", got)
	}
}

// noFlushSave is the Python flush bug: the fsync comes before the bytes
// reach the kernel, then the temp file is renamed over the old file and
// the directory is fsynced.
const noFlushSave = `
import os
with open("config.txt.tmp", "w") as f:
    f.write("version=2 replicas=3\n")
    os.fsync(f.fileno())
os.rename("config.txt.tmp", "config.txt")
d = os.open(".", os.O_RDONLY)
os.fsync(d)
os.close(d)
`

// TestNoFlushRenameOverIsSound pins the case the oracle found: on a real
// ext4, after the directory fsync, config.txt can come back with its new
// size but zeros (auto_da_alloc started writeback of the renamed file and
// did not wait). Both models must allow what the filesystem shows.
func TestNoFlushRenameOverIsSound(t *testing.T) {
	soundOnExt4(t, noFlushSave)
}

// A server's Unix socket in small: bind makes a name, a directory fsync
// makes it durable, and the unlink at the end is not. Before bind was
// modelled the socket's path was predicted missing or as before the run,
// and a real ext4 showed the socket there: three mismatches.
const socketSave = `
import os, socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("s.sock")
with open("config.txt", "wb") as f:
    f.write(b"version=2\n")
    f.flush()
    os.fsync(f.fileno())
d = os.open(".", os.O_RDONLY)
os.fsync(d)
os.close(d)
s.close()
os.unlink("s.sock")
`

func TestUnixSocketIsSound(t *testing.T) {
	for _, r := range soundOnExt4(t, socketSave) {
		last := &r.Points[len(r.Points)-1]
		if got := observed(last, "s.sock"); got != "empty" {
			t.Errorf("%s: after the unlink: s.sock %s, want empty (the socket bind made)", r.Model, got)
		}
	}
}

// A copy in the kernel cannot be stopped right after it (the stop, sent
// as the call starts, interrupts it and the call is made again, past the
// count strace stops at): the point is not observed, and its note says
// so rather than that the program ended before it.
func TestSnapshotCopyInTheKernel(t *testing.T) {
	needsLoop(t)
	before := ours(t)
	res, err := Run(context.Background(), kernelCopy())
	checkClean(t, before)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		needsKernelCopy(t, r)
		for _, p := range r.Points {
			if p.Syscall == "copy_file_range" && (p.Reached || !strings.Contains(p.Note, "a copy in the kernel cannot be stopped")) {
				t.Errorf("%s: point %d: reached %v, note %q", r.Model, p.Index, p.Reached, p.Note)
			}
		}
		if !r.Summary.Sound {
			t.Errorf("%s: not sound: %+v", r.Model, r.Summary)
		}
	}
}

// TestBlindOutcomes: a path the model cannot follow fits any content, and
// keeps what the model predicted (missing among it).
func TestBlindOutcomes(t *testing.T) {
	got := strings.Join(strs(blindOutcomes([]model.Outcome{model.Missing, model.Latest})), " ")
	if want := "missing latest initial earlier empty zeros torn"; got != want {
		t.Errorf("blindOutcomes = %s, want %s", got, want)
	}
}
