package explore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// writeTree makes a directory holding files (relative name → content).
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fixture is one of fixtures/traces: its trace, root and the files that
// existed before it ran (as its RECORD's setup made them).
type fixture struct {
	name    string
	initial map[string]string
}

func (f fixture) trace() string {
	return filepath.Join("..", "fixtures", "traces", f.name, "f-ttt-y-xx.strace")
}
func (f fixture) root() string { return "/tmp/crashsim-fixtures/" + f.name }

var (
	jsonNoSync = fixture{"python-json-nosync", nil}
	goAtomic   = fixture{"go-atomic", map[string]string{"config.json": "{\"version\": 1}\n"}}
	pyNoFlush  = fixture{"python-noflush", map[string]string{"config.txt": "version=1\nreplicas=1\n"}}
	pyFlush    = fixture{"python-flush", map[string]string{"config.txt": "version=1\nreplicas=1\n"}}
)

// explore runs an exploration of a fixture, checking that nothing was
// written below the fixture's recorded root.
func exploreFixture(t testing.TB, f fixture, checker string, tweak func(*Options)) *Result {
	t.Helper()
	before := lstatString(f.root())
	opt := Options{
		Trace:   f.trace(),
		Root:    f.root(),
		Initial: writeTree(t, f.initial),
		Checker: checker,
		Timeout: 20 * time.Second,
		WorkDir: t.TempDir(),
		Predict: predict(t, f.trace(), f.root()),
	}
	if tweak != nil {
		tweak(&opt)
	}
	res := runTrace(t, f.trace(), opt)
	if after := lstatString(f.root()); after != before {
		t.Errorf("%s changed during the exploration: %s, then %s", f.root(), before, after)
	}
	return res
}

// eachEvent reads trace's events in order and calls f on each until f
// returns true; it returns whether f did.
func eachEvent(t testing.TB, trace string, f func(ev *parser.Event) (stop bool)) bool {
	t.Helper()
	s, err := parser.Open(trace, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return false
		}
		if err != nil {
			t.Fatal(err)
		}
		if f(ev) {
			return true
		}
	}
}

func runTrace(t testing.TB, trace string, opt Options) *Result {
	t.Helper()
	s, err := parser.Open(trace, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := Run(context.Background(), s, opt)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func predict(t testing.TB, trace, root string) []*check.Finding {
	t.Helper()
	return predictWith(t, trace, filepath.Join(filepath.Dir(trace), "initial.list"), root)
}

// predictWith is predict with the listing of what existed before at list.
func predictWith(t testing.TB, trace, list, root string) []*check.Finding {
	t.Helper()
	s, err := parser.Open(trace, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in, err := os.Open(list)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	l, err := model.ReadInitial(in, "initial.list")
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Run(s, check.Options{Roots: []string{root}, Existed: l.Existed})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := res.List()
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func lstatString(p string) string {
	fi, err := os.Lstat(p)
	if err != nil {
		return "absent"
	}
	return fi.Mode().String() + " " + fi.ModTime().String()
}

func describe(res *Result) string {
	var b strings.Builder
	for _, f := range res.Findings {
		b.WriteString("\n  ")
		b.WriteString(f.Path + ":" + strconv.Itoa(f.Line) + ": " + f.Message)
	}
	return b.String()
}

const jsonChecker = `python3 -c "import json,os; os.path.exists('config.json') and json.load(open('config.json'))"`

func needPython(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs a python3 checker on every crash state")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
}

func TestJSONSaveWithoutSyncFails(t *testing.T) {
	needPython(t)
	res := exploreFixture(t, jsonNoSync, jsonChecker, nil)
	if len(res.Findings) == 0 {
		t.Fatalf("no failing state for a json.dump save without fsync (%d states checked)", res.Checked)
	}
	for _, f := range res.Findings {
		if f.Rule.ID != check.CheckerFailed || f.Path != jsonNoSync.root()+"/config.json" {
			t.Errorf("unexpected finding %s %s", f.Rule.ID, f.Path)
		}
		if !strings.Contains(f.Message, "predicted by") {
			t.Errorf("finding does not name the rule that predicts it: %s", f.Message)
		}
	}
	t.Logf("%d candidates, %d distinct, %d failed:%s", res.Candidates, res.Distinct, res.Failed, describe(res))
}

func TestAtomicSavePasses(t *testing.T) {
	needPython(t)
	checker := `python3 -c "import json; json.load(open('config.json'))"`
	res := exploreFixture(t, goAtomic, checker, nil)
	if len(res.Findings) != 0 {
		t.Errorf("the temp+fsync+rename+dir fsync save has failing states:%s", describe(res))
	}
	if res.Checked < 3 {
		t.Errorf("only %d states checked", res.Checked)
	}
}

const configChecker = `grep -q '^version=' config.txt`

func TestPythonNoFlushFailsAfterDirSync(t *testing.T) {
	res := exploreFixture(t, pyNoFlush, configChecker, nil)
	found := false
	for _, f := range res.Findings {
		if f.Path != pyNoFlush.root()+"/config.txt" || f.State == nil || f.State.Outcome != "empty" {
			continue
		}
		// States are checked once: the same files at a later crash
		// point are named in Related.
		found = found || f.Line >= 402
		for _, r := range f.Related {
			found = found || r.Line >= 402 && strings.Contains(r.What, "same files")
		}
	}
	if !found {
		t.Errorf("no failing state with config.txt empty at or after the directory fsync (line 402):%s", describe(res))
	}
}

func TestPythonFlushPasses(t *testing.T) {
	res := exploreFixture(t, pyFlush, configChecker, nil)
	if len(res.Findings) != 0 {
		t.Errorf("the flush save has failing states:%s", describe(res))
	}
}

func TestHangingCheckerIsKilled(t *testing.T) {
	start := time.Now()
	res := exploreFixture(t, pyFlush, "sleep 60", func(o *Options) {
		o.Timeout = 200 * time.Millisecond
		o.MaxStates = 2
		o.Jobs = 2
	})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v: the checker was not killed at the timeout", d)
	}
	if len(res.Findings) != 2 {
		t.Fatalf("got %d findings, want 2:%s", len(res.Findings), describe(res))
	}
	for _, f := range res.Findings {
		if !strings.Contains(f.Message, "timed out after 200ms") {
			t.Errorf("message does not say the checker timed out: %s", f.Message)
		}
	}
	if res.Skipped == 0 {
		t.Errorf("MaxStates 2 skipped nothing")
	}
}

func TestFindingsInStateOrder(t *testing.T) {
	needPython(t)
	one := exploreFixture(t, jsonNoSync, jsonChecker, func(o *Options) { o.Jobs = 1 })
	many := exploreFixture(t, jsonNoSync, jsonChecker, func(o *Options) { o.Jobs = 8 })
	if describe(one) != describe(many) {
		t.Errorf("findings differ with 1 and 8 workers:\n1:%s\n8:%s", describe(one), describe(many))
	}
}

// writeTrace writes a trace, replacing R with root in every line.
func writeTrace(t testing.TB, root string, lines ...string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "trace.strace")
	text := strings.ReplaceAll(strings.Join(lines, "\n")+"\n", "/R", root)
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestPathsStayInside(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "root") // never created: only mapped
	outside := filepath.Join(top, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(top, "absolute.txt")
	trace := writeTrace(t, root,
		`openat(AT_FDCWD, "/R/../escape.txt", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
		`write(3, "escaped", 7) = 7`,
		`close(3) = 0`,
		`openat(AT_FDCWD, "/R/sub/../../escape2.txt", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
		`write(3, "escaped", 7) = 7`,
		`close(3) = 0`,
		`openat(AT_FDCWD, "`+abs+`", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
		`write(3, "outside", 7) = 7`,
		`close(3) = 0`,
		`mkdir("/R/sub", 0755) = 0`,
		`openat(AT_FDCWD, "/R/sub/../ok.txt", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
		`write(3, "fine", 4) = 4`,
		`close(3) = 0`,
	)
	initial := writeTree(t, map[string]string{"keep.txt": "old"})
	if err := os.Symlink(outside, filepath.Join(initial, "link")); err != nil {
		t.Fatal(err)
	}
	res := runTrace(t, trace, Options{Trace: trace, Root: root, Initial: initial, Checker: "true", Keep: true, WorkDir: t.TempDir()})
	for _, p := range []string{filepath.Join(top, "escape.txt"), filepath.Join(top, "escape2.txt"), abs, root} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("something was written below the snapshot's symlink target: %v", ents)
	}
	// The kept states hold ok.txt (once with its data), the symlink as a
	// symlink, and nothing that escaped.
	states, _ := filepath.Glob(filepath.Join(res.WorkDir, "states", "*"))
	if len(states) != res.Distinct || res.Distinct < 3 {
		t.Fatalf("%d state directories, %d distinct states", len(states), res.Distinct)
	}
	withData := false
	for _, d := range states {
		if b, err := os.ReadFile(filepath.Join(d, "ok.txt")); err == nil && string(b) == "fine" {
			withData = true
		}
		if fi, err := os.Lstat(filepath.Join(d, "link")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: link is not a symlink (%v)", d, err)
		}
		filepath.WalkDir(d, func(p string, _ os.DirEntry, _ error) error {
			if strings.Contains(filepath.Base(p), "escape") || filepath.Base(p) == "absolute.txt" {
				t.Errorf("%s holds %s", d, p)
			}
			return nil
		})
	}
	if !withData {
		t.Errorf("no state holds ok.txt with its data")
	}
}

func TestNoWriteThroughSymlink(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "root")
	outside := filepath.Join(top, "outside")
	os.Mkdir(outside, 0o755)
	trace := writeTrace(t, root,
		`openat(AT_FDCWD, "/R/link/through.txt", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
		`write(3, "through", 7) = 7`,
	)
	initial := writeTree(t, nil)
	os.Symlink(outside, filepath.Join(initial, "link"))
	s, err := parser.Open(trace, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = Run(context.Background(), s, Options{Trace: trace, Root: root, Initial: initial, Checker: "true", WorkDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("got error %v, want a refusal to write through a symlink", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("written through the symlink: %v", ents)
	}
}

func TestTruncatedWriteIsRefused(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	trace := writeTrace(t, root,
		`openat(AT_FDCWD, "/R/data", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
		`write(3, "0123"..., 4096) = 4096`,
	)
	s, err := parser.Open(trace, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = Run(context.Background(), s, Options{Trace: trace, Root: root, Checker: "true", WorkDir: t.TempDir()})
	want := "line 2: the trace holds only part of this write (strace -s)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got error %v, want %q", err, want)
	}
}

func TestStatesEnvironment(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	trace := writeTrace(t, root,
		`openat(AT_FDCWD, "/R/f", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3`,
		`write(3, "x", 1) = 1`,
	)
	logDir := t.TempDir()
	t.Setenv(WritableEnv, logDir) // as root, the checker may write only there and in its state
	log := filepath.Join(logDir, "log")
	checker := `echo "$CRASHSIM_CRASH_LINE $CRASHSIM_FIRST_LINE $CRASHSIM_MODEL $(test "$PWD" = "$CRASHSIM_STATE_DIR" && echo same)" >>` + log
	res := runTrace(t, trace, Options{Trace: trace, Root: root, Checker: checker, Jobs: 1, Persistence: model.Ext4, WorkDir: t.TempDir()})
	b, _ := os.ReadFile(log)
	got := string(b)
	// Each tree is checked at the last crash line that can leave it, with
	// the first in CRASHSIM_FIRST_LINE: the snapshot (no f) only before the
	// first event; f empty from line 1 on, and still at line 2 (the write
	// can be lost); after the write, ext4 can leave f latest or zeros (the
	// size committed before the data).
	if want := "0 0 ext4 same\n2 1 ext4 same\n2 2 ext4 same\n2 2 ext4 same\n"; got != want {
		t.Errorf("checker saw:\n%s\nwant:\n%s", got, want)
	}
	if res.Checked != 4 {
		t.Errorf("checked %d states, want 4", res.Checked)
	}
}

func TestInterruptStopsCleanly(t *testing.T) {
	s, err := parser.Open(pyFlush.trace(), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	work := t.TempDir()
	// The first checker to run accepts its state; every other one hangs
	// until the interrupt kills it.
	once := t.TempDir()
	t.Setenv(WritableEnv, once)
	var seen []Progress
	opt := Options{Trace: pyFlush.trace(), Root: pyFlush.root(), Initial: writeTree(t, pyFlush.initial),
		Checker: `mkdir ` + once + `/first 2>/dev/null && exit 0; sleep 60`, Jobs: 2, WorkDir: work,
		Progress: func(p Progress) {
			if p.Phase == "check" {
				seen = append(seen, p)
				cancel()
			}
		}}
	start := time.Now()
	res, err := Run(ctx, s, opt)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v after the interrupt", d)
	}
	if !res.Interrupted || res.Checked != 1 || len(res.Findings) != 0 {
		t.Errorf("interrupted=%v checked=%d findings=%d, want true 1 0", res.Interrupted, res.Checked, len(res.Findings))
	}
	if len(seen) != 1 || seen[0].Done != 1 {
		t.Errorf("progress calls: %+v", seen)
	}
	if ents, _ := os.ReadDir(work); len(ents) != 0 {
		t.Errorf("left in the work directory: %v", ents)
	}
}

// TestFFSetNamesItsFiles: explore of an -ff set (one file per process)
// says what explore of the same program recorded with -f says. Its line
// numbers restart in every file, so each event is named in its own file,
// crash points are ordered by when their calls completed, not by line,
// and a state keeps the rules that predict it. (Explore named every event
// after the set's prefix, a file that does not exist, compared lines of
// different files, and so left out "the same files at N crash points"
// and "predicted by" for crash points in a child's file.)
func TestFFSetNamesItsFiles(t *testing.T) {
	f := fixture{"shell-mv", nil}
	logDir := t.TempDir()
	t.Setenv(WritableEnv, logDir) // as root, the checker may write only there and in its state
	log := filepath.Join(logDir, "log")
	// The checker also notes where the crash and first lines are.
	checker := `echo "$CRASHSIM_CRASH_TRACE $CRASHSIM_CRASH_LINE $CRASHSIM_FIRST_TRACE $CRASHSIM_FIRST_LINE" >>` + log + `; test -s final.txt`
	// Both recorded without -y: f.strace with -f, the set with -ff -ttt.
	list := filepath.Join("..", "fixtures", "traces", f.name, "initial.list")
	run := func(trace string) *Result {
		return runTrace(t, trace, Options{
			Trace: trace, Root: f.root(), Initial: writeTree(t, nil), Checker: checker,
			Timeout: 20 * time.Second, WorkDir: t.TempDir(), Predict: predictWith(t, trace, list, f.root()),
		})
	}
	one := run(filepath.Join("..", "fixtures", "traces", f.name, "f.strace"))
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	res := run(filepath.Join("..", "fixtures", "traces", f.name, "ff-ttt", "trace"))
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var crashTrace, firstTrace string
		var crashLine, firstLine int
		if _, err := fmt.Sscan(l, &crashTrace, &crashLine, &firstTrace, &firstLine); err != nil {
			t.Fatalf("checker log line %q: %v", l, err)
		}
		for _, at := range []struct {
			trace string
			line  int
		}{{crashTrace, crashLine}, {firstTrace, firstLine}} {
			if at.line == 0 {
				continue // before the first event: no file of its own
			}
			files[at.trace] = true
			if _, err := os.Stat(at.trace); err != nil {
				t.Errorf("the checker was told line %d of %q: %v", at.line, at.trace, err)
			}
		}
	}
	if len(files) == 0 {
		t.Error("the checker was told no line of the set")
	}
	if len(one.Findings) == 0 || len(res.Findings) != len(one.Findings) {
		t.Fatalf("%d findings of the -ff set, %d of the -f trace; want the same, and some", len(res.Findings), len(one.Findings))
	}
	shape := func(msg string) string {
		// Line numbers differ between the recordings; files are named
		// only in the set.
		return regexp.MustCompile(`(\S*trace\.[0-9]+:)?[0-9]+`).ReplaceAllString(msg, "N")
	}
	for i, g := range res.Findings {
		w := one.Findings[i]
		if shape(g.Message) != shape(w.Message) {
			t.Errorf("finding %d:\n -ff: %s\n  -f: %s", i, g.Message, w.Message)
		}
		names := []string{g.Trace}
		for _, r := range g.Related {
			names = append(names, r.Trace)
		}
		if g.State != nil {
			names = append(names, g.State.Trace)
		}
		for _, n := range names {
			if _, err := os.Stat(n); err != nil {
				t.Errorf("finding %d names trace %q: %v", i, n, err)
			}
		}
	}
}

// TestCrashLineAfterSplitCalls: under -f strace splits a call that another
// thread's lines interrupt, and events complete in an order their first
// lines do not follow. The bbolt-put recording (a Go program, several
// threads) has such calls right after pwrites that change the database.
// The crash line a checker is told must be where the last event before
// the crash completes: at or after every line that completed before it,
// so never before the first crash line of its tree. (It was the last
// event's first line, and a nanosleep that began at line 297 and ended at
// 300 put the state after the pwrite of line 298 "right after line 297".)
func TestCrashLineAfterSplitCalls(t *testing.T) {
	const root = "/tmp/crashsim-fixtures/bbolt-put"
	trace := filepath.Join("..", "fixtures", "apps", "bbolt-put", "f-ttt-y-xx.strace")
	list := filepath.Join("..", "fixtures", "apps", "bbolt-put", "initial.list")
	logDir := t.TempDir()
	t.Setenv(WritableEnv, logDir)
	log := filepath.Join(logDir, "log")
	res := runTrace(t, trace, Options{
		Trace: trace, Root: root, Initial: writeTree(t, nil), EveryLine: true,
		Checker: `echo "$CRASHSIM_FIRST_LINE $CRASHSIM_CRASH_LINE" >>` + log,
		Timeout: 20 * time.Second, WorkDir: t.TempDir(), Predict: predictWith(t, trace, list, root),
	})
	// The lines that complete an event: a whole call's, or the resumed
	// half of a split one.
	ends := map[int]bool{}
	split := 0
	eachEvent(t, trace, func(ev *parser.Event) bool {
		ends[ev.EndLine] = true
		if ev.EndLine != ev.Pos.Line {
			split++
		}
		return false
	})
	if split == 0 {
		t.Fatal("the recording has no split call: it no longer tests this")
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var first, crash int
		if _, err := fmt.Sscan(l, &first, &crash); err != nil {
			t.Fatalf("checker log line %q: %v", l, err)
		}
		n++
		if crash < first {
			t.Errorf("told to check a state a crash right after line %d leaves, first left right after line %d", crash, first)
		}
		for _, at := range []int{first, crash} {
			if at != 0 && !ends[at] {
				t.Errorf("crash line %d completes no event", at)
			}
		}
	}
	if n == 0 || n != res.Checked {
		t.Fatalf("%d checker runs logged, %d states checked", n, res.Checked)
	}
}
