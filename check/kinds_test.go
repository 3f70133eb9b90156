package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/crashsim/crashsim/model"
)

// TestKindDispatchSameFindings: each observer is handed only the effect
// kinds its detector declares (detector.kinds), and finds exactly what it
// finds when handed every effect, under every persistence model, on every
// fixture trace (with its listing when it has one), the applications'
// traces, a many-files trace and a real-shaped one. A kind left out of a
// detector's set that its observer acts on shows here as a finding lost
// or changed.
func TestKindDispatchSameFindings(t *testing.T) {
	inputs := retireInputs(t)
	apps, err := filepath.Glob("../fixtures/apps/*/f-ttt-y-xx.strace")
	if err != nil || len(apps) < 10 {
		t.Fatalf("%d application traces (%v), want at least 10", len(apps), err)
	}
	for _, tr := range apps {
		b, err := os.ReadFile(tr)
		if err != nil {
			t.Fatal(err)
		}
		l := readListing(t, filepath.Join(filepath.Dir(tr), "initial.list"))
		inputs = append(inputs, retireInput{tr, b, Options{Existed: l.Existed, Cwd: l.Cwd, FDs: l.FDs}})
	}
	// Effects the recorded traces make too rarely to tell a kind left
	// out: a failed fsync the program ignores to its exit or to a
	// rename, sync() after overwrites and between a name's making and its
	// removal, a write into a file cut before, data moved by fallocate.
	const start = "100 execve(\"/usr/bin/p\", [\"p\"], 0x7ffc408087f8 /* 3 vars */) = 0\n"
	const end = "100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	for name, body := range map[string]string{
		"eio-then-exit": `100 openat(AT_FDCWD, "/w/d.txt", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3
100 write(3, "x", 1) = 1
100 fsync(3) = -1 EIO (Input/output error)
100 close(3) = 0
`,
		"eio-then-rename": `100 openat(AT_FDCWD, "/w/e.tmp", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3
100 write(3, "x", 1) = 1
100 fsync(3) = -1 EIO (Input/output error)
100 close(3) = 0
100 rename("/w/e.tmp", "/w/e.txt") = 0
`,
		"overwrite-around-sync": `100 openat(AT_FDCWD, "/w/a.db", O_RDWR) = 3
100 fstat(3, {st_mode=S_IFREG|0644, st_size=16384, ...}) = 0
100 pwrite64(3, "aaaa", 4, 0) = 4
100 pwrite64(3, "bbbb", 4, 8192) = 4
100 sync() = 0
100 close(3) = 0
`,
		"cut-then-partial-write": `100 openat(AT_FDCWD, "/w/b.db", O_RDWR) = 3
100 fstat(3, {st_mode=S_IFREG|0644, st_size=16384, ...}) = 0
100 ftruncate(3, 0) = 0
100 pwrite64(3, "aaaaaaaa"..., 8192, 0) = 8192
100 pwrite64(3, "x", 1, 100) = 1
100 fsync(3) = 0
100 close(3) = 0
`,
		"collapse-range": `100 openat(AT_FDCWD, "/w/c.db", O_RDWR) = 3
100 fstat(3, {st_mode=S_IFREG|0644, st_size=16384, ...}) = 0
100 fallocate(3, FALLOC_FL_COLLAPSE_RANGE, 0, 4096) = 0
100 fsync(3) = 0
100 close(3) = 0
`,
		"made-synced-removed": `100 openat(AT_FDCWD, "/w/t.tmp", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3
100 write(3, "x", 1) = 1
100 fsync(3) = 0
100 close(3) = 0
100 sync() = 0
100 openat(AT_FDCWD, "/w/u.tmp", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3
100 close(3) = 0
100 unlink("/w/t.tmp") = 0
100 unlink("/w/u.tmp") = 0
`,
	} {
		inputs = append(inputs, retireInput{name, []byte(start + body + end), Options{Roots: []string{"/w"}}})
	}
	defer func(all bool) { dispatchAll = all }(dispatchAll)
	findings := 0
	for _, in := range inputs {
		dispatchAll = true
		want := runAllModels(t, in)
		dispatchAll = false
		got := runAllModels(t, in)
		if want != nil {
			for range want.Findings() {
				findings++
			}
		}
		sameResults(t, in.name, "-every effect +its kinds", want, got)
	}
	// Every detector that reads effects must have met some: a test whose
	// traces found nothing would pass whatever the sets said.
	if findings < 100 {
		t.Errorf("%d findings in all, want at least 100", findings)
	}
}

// TestKindsDeclared: a detector that reads no effect kind must be one
// whose observer reads none (data-not-synced asks the model at the end).
func TestKindsDeclared(t *testing.T) {
	for _, d := range detectors {
		if d.kinds == 0 {
			if _, ok := d.observer().(*dataNotSynced); !ok {
				t.Errorf("detector of %T declares no effect kind", d.observer())
			}
		}
		if d.kinds.has(model.EffNone) {
			t.Errorf("detector of %T declares EffNone, which no observer is handed", d.observer())
		}
	}
}
