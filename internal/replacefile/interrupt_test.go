package replacefile

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/crashsim/crashsim/internal/smallfs"
	"golang.org/x/sys/unix"
)

// modes are the two ways Create makes a file: unnamed (O_TMPFILE), and
// under a random name where the filesystem has no O_TMPFILE.
var modes = []struct {
	name      string
	noTmpfile bool
}{{"unnamed", false}, {"named", true}}

func withMode(t *testing.T, no bool) {
	old := noTmpfile
	noTmpfile = no
	t.Cleanup(func() { noTmpfile = old })
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestWriteModes: in both modes a new name and a replaced one hold the
// content whole, with nothing else left in the directory; while an
// unnamed file is written, the directory shows nothing of it.
func TestWriteModes(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			withMode(t, m.noTmpfile)
			dir := t.TempDir()
			name := filepath.Join(dir, "report.json")
			for _, content := range []string{"first", "second"} {
				before := names(t, dir)
				err := Write(name, func(f *os.File) error {
					if seen := names(t, dir); !m.noTmpfile && !slices.Equal(seen, before) {
						t.Errorf("while an unnamed file is written, the directory holds %q, not %q", seen, before)
					}
					_, err := f.WriteString(content)
					return err
				}, Options{Durable: true})
				if err != nil {
					t.Fatal(err)
				}
				if b, _ := os.ReadFile(name); string(b) != content {
					t.Errorf("holds %q, want %q", b, content)
				}
				if got := names(t, dir); !slices.Equal(got, []string{"report.json"}) {
					t.Errorf("directory holds %q", got)
				}
			}
		})
	}
}

// TestAdversarialFullDisk: a write that fills the filesystem fails with
// one error that names the file once, and leaves the name as it was and
// the filesystem as free as before, in both modes.
func TestAdversarialFullDisk(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			withMode(t, m.noTmpfile)
			smallfs.Run(t, "crashsim-replacefile-test", func(dir string) error {
				name := filepath.Join(dir, "report.json")
				if err := os.WriteFile(name, []byte("old"), 0o644); err != nil {
					return err
				}
				free0 := freeBlocks(dir)
				err := Write(name, func(f *os.File) error {
					_, err := f.Write(make([]byte, 2<<20))
					return err
				}, Options{Durable: true})
				want := "write " + name + ": no space left on device"
				if err == nil || err.Error() != want {
					return fmt.Errorf("error %v, want %q", err, want)
				}
				if b, _ := os.ReadFile(name); string(b) != "old" {
					return fmt.Errorf("the name holds %q", b)
				}
				if got := names(t, dir); !slices.Equal(got, []string{"report.json"}) {
					return fmt.Errorf("left %q", got)
				}
				if free := freeBlocks(dir); free != free0 {
					return fmt.Errorf("%d blocks free, %d before", free, free0)
				}
				return nil
			})
		})
	}
}

func freeBlocks(dir string) uint64 {
	var st unix.Statfs_t
	unix.Statfs(dir, &st)
	return st.Bfree
}

// TestAdversarialInterrupt: SIGINT or SIGTERM while a file is written
// ends the process by that signal and leaves the name as it was and no
// temp file, in both modes. An interrupted crashsim check -o used to
// leave .FILE.tmp-* (37 MB in issue 28's test).
func TestAdversarialInterrupt(t *testing.T) {
	for _, m := range modes {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(m.name+"/"+sig.String(), func(t *testing.T) {
				dir := t.TempDir()
				name := filepath.Join(dir, "report.json")
				os.WriteFile(name, []byte("old"), 0o644)
				cmd := exec.Command(os.Args[0], "-test.run=^TestInterruptHelper$")
				cmd.Env = append(os.Environ(), "REPLACEFILE_HELPER="+name, fmt.Sprintf("REPLACEFILE_NO_TMPFILE=%v", m.noTmpfile))
				out, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				stdin, err := cmd.StdinPipe() // never written: the helper blocks on it
				if err != nil {
					t.Fatal(err)
				}
				defer stdin.Close()
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				line, err := bufio.NewReader(out).ReadString('\n')
				if line != "writing\n" {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("helper said %q, %v", line, err)
				}
				cmd.Process.Signal(sig)
				err = cmd.Wait()
				var ee *exec.ExitError
				if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != sig {
					t.Errorf("helper ended with %v, want killed by %v", err, sig)
				}
				if b, _ := os.ReadFile(name); string(b) != "old" {
					t.Errorf("the name holds %q", b)
				}
				if got := names(t, dir); !slices.Equal(got, []string{"report.json"}) {
					t.Errorf("left %q", got)
				}
			})
		}
	}
}

// TestAdversarialInterruptIgnored: a crashsim started with SIGINT ignored
// (nohup, a background job of a script) goes on writing when one comes,
// though it watches signals while it has a temp name: catching it would
// end a run that was meant to ignore it.
func TestAdversarialInterruptIgnored(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to start the helper with SIGINT ignored")
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "report.json")
	cmd := exec.Command(sh, "-c", `trap "" INT; exec "$0" -test.run='^TestInterruptHelper$'`, os.Args[0])
	cmd.Env = append(os.Environ(), "REPLACEFILE_HELPER="+name, "REPLACEFILE_NO_TMPFILE=true")
	out, _ := cmd.StdoutPipe()
	stdin, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "writing\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper said %q, %v", line, err)
	}
	cmd.Process.Signal(syscall.SIGINT)
	stdin.Close() // the helper finishes its write
	if err := cmd.Wait(); err != nil {
		t.Errorf("helper ended with %v, want exit 0", err)
	}
	if fi, err := os.Stat(name); err != nil || fi.Size() != 1<<20 {
		t.Errorf("report.json: %v, want the whole new file", err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"report.json"}) {
		t.Errorf("left %q", got)
	}
}

// TestInterruptHelper is the process TestAdversarialInterrupt signals:
// it writes a file and, in the middle, says so and waits on stdin.
func TestInterruptHelper(t *testing.T) {
	name := os.Getenv("REPLACEFILE_HELPER")
	if name == "" {
		t.Skip("run by TestAdversarialInterrupt")
	}
	noTmpfile = os.Getenv("REPLACEFILE_NO_TMPFILE") == "true"
	err := Write(name, func(f *os.File) error {
		f.Write(make([]byte, 1<<20))
		os.Stdout.WriteString("writing\n")
		var b [1]byte
		os.Stdin.Read(b[:])
		return nil
	}, Options{Durable: true})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(0)
}
