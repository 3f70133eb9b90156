package crashsim

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/reap"
	"github.com/crashsim/crashsim/tracer"
	"github.com/google/go-cmp/cmp"
)

// TestRecord: a recorded run keeps its listing beside the trace, and its
// Inputs check the trace as it was recorded: the file the command
// replaced is known to have existed.
func TestRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs strace")
	}
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed")
	}
	dir := realDir(t.TempDir())
	t.Chdir(dir)
	os.WriteFile("old.txt", []byte("old"), 0o644)
	out := filepath.Join(t.TempDir(), "t.strace")
	rec := Record{Tracer: tracer.Options{Out: out, NoData: true}}
	res, err := rec.Run(context.Background(), []string{"sh", "-c", "printf new > new.txt; printf x > old.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Start != dir || res.Temp || res.ExitCode != 0 || len(res.Warnings) > 0 {
		t.Errorf("recording: start %q, temp %v, exit %d, warnings %v", res.Start, res.Temp, res.ExitCode, res.Warnings)
	}
	if b, err := os.ReadFile(out + ".initial"); err != nil || !strings.Contains(string(b), "\nsize 3 "+dir+"/old.txt\n") {
		t.Errorf("listing: %v\n%s", err, b)
	}
	c := Check{Inputs: res.Inputs(), Scope: Scope{Roots: res.Roots}}
	found, err := c.Run()
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	for f, err := range found.Findings() {
		if err != nil {
			t.Fatal(err)
		}
		rules[filepath.Base(f.Path)] += f.Rule.ID + " "
	}
	// new.txt was created: its name is not durable either; old.txt was
	// only rewritten.
	if !strings.Contains(rules["new.txt"], check.NameNotSynced) || strings.Contains(rules["old.txt"], check.NameNotSynced) || !strings.Contains(rules["old.txt"], check.DataNotSynced) {
		t.Errorf("findings by file: %q", rules)
	}

	// A trace name that is a symlink is refused before anything runs.
	link := filepath.Join(t.TempDir(), "link.strace")
	os.Symlink(out, link)
	rec.Tracer.Out = link
	var ie *InputError
	if _, err := rec.Run(context.Background(), []string{"sh", "-c", "printf y > ran.txt"}); !errors.As(err, &ie) {
		t.Errorf("a symlinked --out: %v, want an input error", err)
	}
	if _, err := os.Stat("ran.txt"); err == nil {
		t.Error("the command ran although its trace could not be kept")
	}
}

// TestRecordingNotes: what a recorded run says beside its findings, in
// order, the verbose notes only when asked, and how the program failed.
func TestRecordingNotes(t *testing.T) {
	r := &Recording{
		Result:    &tracer.Result{Trace: "/tmp/t.strace", ExitCode: -1, Signal: "SIGSEGV", CoreDumped: true, Leftovers: []reap.Proc{{PID: 7, Comm: "d\x1b"}}},
		Temp:      true,
		Listing:   &Listing{Listed: []string{"/w"}},
		MountsErr: errors.New("no mountinfo"),
		Warnings:  []error{errors.New("cannot write the initial listing")},
		linger:    3 * time.Second,
	}
	want := []string{
		"trace kept in /tmp/t.strace",
		`warning: the command exited, but 1 processes it started still ran 3s later and were killed: 7 (d\x1b); what they would have written next is not in the trace (--linger to wait longer)`,
		"warning: cannot write the initial listing",
	}
	if diff := cmp.Diff(want, r.Notes(false)); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	verbose := append([]string{"cannot read the mounts (no mountinfo): /run and /dev/shm are taken as tmpfs", "listed what exists below /w"}, want...)
	if diff := cmp.Diff(verbose, r.Notes(true)); diff != "" {
		t.Errorf("verbose notes (-want +got):\n%s", diff)
	}
	// A temp trace whose listing was written keeps it beside it.
	r.listed = true
	if got := r.Notes(false)[0]; got != "trace kept in /tmp/t.strace, and what existed before the run in /tmp/t.strace.initial" {
		t.Errorf("notes with the listing written: first %q", got)
	}
	if err := r.ProgramError(); err == nil || err.Error() != "the traced program was killed by SIGSEGV (core dumped)" {
		t.Errorf("killed: %v", err)
	}
	r.Signal, r.ExitCode = "", 2
	if err := r.ProgramError(); err == nil || err.Error() != "the traced program exited with 2" {
		t.Errorf("exit 2: %v", err)
	}
	r.ExitCode = 0
	if err := r.ProgramError(); err != nil {
		t.Errorf("exit 0: %v", err)
	}
}

// TestSnapshotCopyFails: a copy of the start directory that fails is an
// error, and leaves no temp directory behind; explore must not run
// against half a snapshot.
func TestSnapshotCopyFails(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("a"), 0o644)
	failed := errors.New("disk full")
	defer func(f func(string, string) error) { copyTree = f }(copyTree)
	copyTree = func(string, string) error { return failed }
	snap, err := snapshot(src)
	var ie *InputError
	if !errors.As(err, &ie) || !errors.Is(err, failed) {
		t.Fatalf("snapshot = %q, %v; want an InputError wrapping %v", snap, err, failed)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}

// TestRecordingNotesEscaped: the temp trace's name, and the roots listed,
// print escaped (textesc) in the notes, as every name crashsim did not
// choose: TMPDIR can hold a newline or a terminal escape.
func TestRecordingNotesEscaped(t *testing.T) {
	r := &Recording{
		Result:  &tracer.Result{Trace: "/tmp/a\nb\x1b[31m/t.strace"},
		Temp:    true,
		Listing: &Listing{Listed: []string{"/w\x1b"}},
		listed:  true,
	}
	want := []string{
		`listed what exists below /w\x1b`,
		`trace kept in /tmp/a\nb\x1b[31m/t.strace, and what existed before the run in /tmp/a\nb\x1b[31m/t.strace.initial`,
	}
	if diff := cmp.Diff(want, r.Notes(true)); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}
