//go:build linux

package reap

import (
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// goneOwner is an owner record for a process that has exited: a sleep
// this test started, killed and reaped.
func goneOwner(t *testing.T) owner {
	t.Helper()
	c := exec.Command("sleep", "30")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	o, err := me()
	if err != nil {
		t.Fatal(err)
	}
	o.pid = c.Process.Pid
	if o.start, err = startTime(o.pid); err != nil {
		t.Fatal(err)
	}
	c.Process.Kill()
	c.Wait()
	if !o.gone() {
		t.Fatalf("pid %d, killed and reaped, is not gone", o.pid)
	}
	return o
}

func writeRecord(t *testing.T, dir string, o owner) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), o.record(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// SweepDirs removes the directories whose record names a process that
// is gone (exited, its pid reused, an earlier boot), and leaves alone
// one whose owner runs, one in another pid namespace, one without a
// record, a link to a directory, a record that is a link, and one that
// does not start with the prefix; it follows no link inside what it
// removes, and only undoes the record of one a run was asked to keep.
func TestSweepDirs(t *testing.T) {
	parent := t.TempDir()
	outside := t.TempDir()
	precious := filepath.Join(outside, "precious")
	if err := os.WriteFile(precious, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := func(name string) string { return filepath.Join(parent, name) }
	dead := goneOwner(t)

	writeRecord(t, p("crashsim-x-dead"), dead)
	if err := os.MkdirAll(p("crashsim-x-dead/a/b"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p("crashsim-x-dead/a/b/f"), []byte("x"), 0o600)
	os.Symlink(outside, p("crashsim-x-dead/a/link-to-dir"))
	os.Symlink(precious, p("crashsim-x-dead/link-to-file"))

	reused, _ := me()
	reused.start++ // this pid, but another process's start time
	writeRecord(t, p("crashsim-x-reused"), reused)
	earlier := dead
	earlier.boot = "00000000-0000-0000-0000-000000000000"
	earlier.pid = os.Getpid() // a pid that runs now, in another boot
	writeRecord(t, p("crashsim-x-earlier-boot"), earlier)
	kept := dead
	kept.keep = true
	writeRecord(t, p("crashsim-x-kept"), kept)
	os.WriteFile(p("crashsim-x-kept/state"), []byte("x"), 0o600)

	if err := os.Mkdir(p("crashsim-x-live"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := OwnDir(p("crashsim-x-live"), false); err != nil {
		t.Fatal(err)
	}
	otherNS := dead
	otherNS.pidns++
	writeRecord(t, p("crashsim-x-other-ns"), otherNS)
	os.Mkdir(p("crashsim-x-no-record"), 0o700)
	writeRecord(t, filepath.Join(outside, "target"), dead)
	os.Symlink(filepath.Join(outside, "target"), p("crashsim-x-link"))
	os.Mkdir(p("crashsim-x-record-link"), 0o700)
	os.Symlink(filepath.Join(outside, "target", ownerFile), p("crashsim-x-record-link/"+ownerFile))
	writeRecord(t, p("other-dead"), dead)
	bad := dead.record()
	writeRecord(t, p("crashsim-x-extra"), dead)
	os.WriteFile(p("crashsim-x-extra/"+ownerFile), append(bad, "more\n"...), 0o600)

	var said []string
	SweepDirs(parent, "crashsim-x-", func(s string) { said = append(said, s) })

	for _, gone := range []string{"crashsim-x-dead", "crashsim-x-reused", "crashsim-x-earlier-boot"} {
		if _, err := os.Lstat(p(gone)); !os.IsNotExist(err) {
			t.Errorf("%s: not removed (%v)", gone, err)
		}
	}
	for _, stays := range []string{"crashsim-x-live/" + ownerFile, "crashsim-x-other-ns/" + ownerFile, "crashsim-x-no-record",
		"crashsim-x-link", "crashsim-x-record-link/" + ownerFile, "other-dead/" + ownerFile, "crashsim-x-kept/state", "crashsim-x-extra/" + ownerFile} {
		if _, err := os.Lstat(p(stays)); err != nil {
			t.Errorf("%s: %v", stays, err)
		}
	}
	if _, err := os.Lstat(p("crashsim-x-kept/" + ownerFile)); !os.IsNotExist(err) {
		t.Errorf("the record of a kept directory is still there (%v)", err)
	}
	for _, f := range []string{precious, filepath.Join(outside, "target", ownerFile)} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("outside the swept directories: %v", err)
		}
	}
	text := strings.Join(said, "\n")
	for _, w := range []string{"removed " + p("crashsim-x-dead"), fmt.Sprintf("(pid %d)", dead.pid), "kept " + p("crashsim-x-kept")} {
		if !strings.Contains(text, w) {
			t.Errorf("no %q in what the sweep said:\n%s", w, text)
		}
	}
	if len(said) != 4 {
		t.Errorf("said %d things, want 4 (three removed, one kept):\n%s", len(said), text)
	}
	if got := FindDirs(parent, "crashsim-x-"); len(got) != 0 {
		t.Errorf("FindDirs after the sweep: %v", got)
	}
}

// A directory of another user is not swept, whatever its record says.
func TestSweepDirsOtherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a directory to another user")
	}
	parent := t.TempDir()
	dir := filepath.Join(parent, "crashsim-x-theirs")
	writeRecord(t, dir, goneOwner(t))
	if got := FindDirs(parent, "crashsim-x-"); len(got) != 1 {
		t.Fatalf("FindDirs = %v, want the directory", got)
	}
	if err := os.Chown(filepath.Join(dir, ownerFile), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	SweepDirs(parent, "crashsim-x-", func(s string) { t.Errorf("said %q", s) })
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}

// The record reads back as written, and nothing else reads as one.
func TestOwnerRecord(t *testing.T) {
	o, err := me()
	if err != nil {
		t.Fatal(err)
	}
	o.keep = true
	if got, ok := parseOwner(o.record()); !ok || got != o {
		t.Fatalf("parseOwner(record) = %+v %v, want %+v", got, ok, o)
	}
	for _, b := range []string{"", "crashsim run directory\n", strings.Replace(string(o.record()), "keep 1", "keep 2", 1),
		strings.Replace(string(o.record()), fmt.Sprintf("pid %d", o.pid), "pid -1", 1), string(o.record()) + "\n"} {
		if _, ok := parseOwner([]byte(b)); ok {
			t.Errorf("parseOwner(%q) accepted", b)
		}
	}
	name := groupName("0123456789abcdef")
	g, ok := groupOwner(name)
	if !ok || g.pid != os.Getpid() || g.start != o.start || g.pidns != o.pidns || g.gone() {
		t.Errorf("groupOwner(%q) = %+v %v", name, g, ok)
	}
	for _, n := range []string{"crashsim-0123456789abcdef", "crashsim-1-2-3-abc", "other-1-2-3-0123456789abcdef"} {
		if _, ok := groupOwner(n); ok {
			t.Errorf("groupOwner(%q) accepted", n)
		}
	}
}

// SweepGroups kills what is left in a cgroup whose name says a process
// that is gone made it, and removes it; a group of this process, and one
// named the old way, stay.
func TestSweepGroups(t *testing.T) {
	live, err := NewGroup()
	if err != nil {
		t.Skip("cannot make a cgroup here: ", err)
	}
	defer live.Close()
	parent := filepath.Dir(live.Dir)
	dead := goneOwner(t)
	mk := func(name string) string {
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { killGroup(dir); removeGroup(dir) })
		return dir
	}
	var b [8]byte
	for i := range b {
		b[i] = byte(i + 1)
	}
	deadDir := mk(fmt.Sprintf("crashsim-%d-%d-%d-%s", dead.pid, dead.start, dead.pidns, hex.EncodeToString(b[:])))
	oldDir := mk("crashsim-" + hex.EncodeToString(b[:]))
	// A process left in the dead run's group.
	fd, err := syscall.Open(deadDir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command("sleep", "30")
	c.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	err = c.Start()
	syscall.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	found := FindGroups()
	if !slices.ContainsFunc(found, func(l Leftover) bool { return l.Path == deadDir }) ||
		slices.ContainsFunc(found, func(l Leftover) bool { return l.Path == live.Dir || l.Path == oldDir }) {
		t.Errorf("FindGroups = %v, want %s and neither %s nor %s", found, deadDir, live.Dir, oldDir)
	}
	var said []string
	SweepGroups(func(s string) { said = append(said, s) })
	c.Wait()
	if _, err := os.Stat(deadDir); !os.IsNotExist(err) {
		t.Errorf("%s: not removed (%v)", deadDir, err)
	}
	for _, d := range []string{live.Dir, oldDir} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
	text := strings.Join(said, "\n")
	if !strings.Contains(text, "removed its cgroup "+deadDir) || !strings.Contains(text, fmt.Sprintf("%d (sleep)", c.Process.Pid)) {
		t.Errorf("the sweep said:\n%s", text)
	}
}
