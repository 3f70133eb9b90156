package crashsim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"golang.org/x/sys/unix"
)

// TestTakeListing: a listing says where the program started and the files
// it had open, then what existed below each directory; past the limit of
// entries a directory is not listed, and the listing still says where the
// program started.
func TestTakeListing(t *testing.T) {
	dir := realDir(t.TempDir())
	if n, ok := CountEntries(dir, 10); !ok || n != 1 {
		t.Fatalf("CountEntries(empty dir) = %d, %v", n, ok)
	}
	for i := range 5 {
		os.WriteFile(filepath.Join(dir, strings.Repeat("f", i+1)), nil, 0o644)
	}
	if _, ok := CountEntries(dir, 5); ok {
		t.Error("CountEntries: 6 entries fit a limit of 5")
	}
	fd := model.InitialFD{FD: 1, Path: "/out/report.json", Flags: 0o100001}
	l := TakeListing([]string{dir}, dir, []model.InitialFD{fd}, 6)
	if !slices.Equal(l.Listed, []string{dir}) || len(l.TooLarge) != 0 {
		t.Errorf("listed %q, too large %q", l.Listed, l.TooLarge)
	}
	listing, err := model.ReadInitial(strings.NewReader(string(l.Text)), "listing")
	if err != nil {
		t.Fatalf("%v\n%s", err, l.Text)
	}
	if existed, known := listing.Existed(filepath.Join(dir, "fffff")); !existed || !known {
		t.Errorf("fffff is not listed:\n%s", l.Text)
	}
	if listing.Cwd != dir || len(listing.FDs) != 1 || listing.FDs[0] != fd {
		t.Errorf("cwd %q, fds %+v:\n%s", listing.Cwd, listing.FDs, l.Text)
	}

	l = TakeListing([]string{dir}, dir, nil, 5)
	if len(l.Listed) != 0 || !slices.Equal(l.TooLarge, []string{dir}) {
		t.Errorf("past the limit: listed %q, too large %q", l.Listed, l.TooLarge)
	}
	want := "cwd " + dir + "\n"
	if a, err := parser.ParseArch(runtime.GOARCH); err == nil {
		want += "arch " + a.String() + "\n"
	}
	want += "scope " + dir + "\n"
	if string(l.Text) != want {
		t.Errorf("past the limit the listing holds %q, want only the cwd, arch and scope lines", l.Text)
	}
	listing, err = model.ReadInitial(strings.NewReader(string(l.Text)), "listing")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(listing.Scope, []string{dir}) {
		t.Errorf("the scope read back: %q, want %q", listing.Scope, dir)
	}
	// The limit is shared by the directories: the second gets what the
	// first left.
	other := realDir(t.TempDir())
	l = TakeListing([]string{dir, other}, "", nil, 6)
	if !slices.Equal(l.Listed, []string{dir}) || !slices.Equal(l.TooLarge, []string{other}) {
		t.Errorf("a shared limit: listed %q, too large %q", l.Listed, l.TooLarge)
	}

	name := filepath.Join(t.TempDir(), "t.strace.initial")
	os.WriteFile(name, []byte("root /stale\n"), 0o644)
	if err := TakeListing([]string{dir}, "", nil, 0).Write(name, 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(name); strings.Contains(string(b), "/stale") || !strings.Contains(string(b), dir+"/fffff\n") {
		t.Errorf("written listing:\n%s", b)
	}
	if fi, _ := os.Stat(name); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}

// TestInheritedFiles: a standard file that is a regular file is listed
// with its offset and flags; a pipe is not.
func TestInheritedFiles(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("12345")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	fds := InheritedFiles(nil, f, w)
	if len(fds) != 1 || fds[0].FD != 1 || fds[0].Path != realDir(f.Name()) || fds[0].Offset != 5 || fds[0].Flags&0o3 != 0o2 {
		t.Errorf("InheritedFiles = %+v", fds)
	}
}

// TestAdversarialListingInput: the listing beside a trace is read only
// when it is a regular file (a fifo there blocked the run forever); one
// named with Inputs.Listing may also be a pipe from the shell. A missing
// one is no listing.
func TestAdversarialListingInput(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.strace")
	if _, err := (&Inputs{}).listing(trace); err != nil {
		t.Errorf("no listing: %v", err)
	}
	if err := unix.Mkfifo(trace+".initial", 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := (&Inputs{}).listing(trace)
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "t.strace.initial is a named pipe") {
		t.Errorf("a fifo listing: %v, want an input error", err)
	}
	os.Remove(trace + ".initial")

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.WriteString("cwd /w\n")
		w.Close()
	}()
	pipe := fmt.Sprintf("/proc/self/fd/%d", r.Fd())
	os.Symlink(pipe, trace+".initial")
	if _, err := (&Inputs{}).listing(trace); !errors.As(err, &ie) || !strings.Contains(err.Error(), "only when it is named") {
		t.Errorf("a pipe beside the trace: %v, want an input error", err)
	}
	l, err := (&Inputs{Listing: pipe}).listing(trace)
	if err != nil || l.Cwd != "/w" {
		t.Errorf("a listing named on a pipe: %+v, %v", l, err)
	}
}
