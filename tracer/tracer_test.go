package tracer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	straceOnce sync.Once
	straceWhy  string // why strace cannot run here; "" when it can
)

// needStrace skips the test unless strace is installed and may trace.
func needStrace(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: runs strace")
	}
	straceOnce.Do(func() {
		if _, err := exec.LookPath("strace"); err != nil {
			straceWhy = "strace not installed: the tracer runs it (apt-get install strace)"
			return
		}
		out, err := exec.Command("strace", "-o", os.DevNull, "true").CombinedOutput()
		if err != nil {
			straceWhy = fmt.Sprintf("strace cannot trace here (no ptrace?): %v: %s", err, bytes.TrimSpace(out))
		}
	})
	if straceWhy != "" {
		t.Skip(straceWhy)
	}
}

// run traces cmd in dir and returns the result and the trace text.
func run(t *testing.T, dir string, cmd ...string) (*Result, string) {
	t.Helper()
	res, err := Run(context.Background(), cmd, Options{Dir: dir, Out: filepath.Join(dir, "trace.strace")})
	if err != nil {
		t.Fatalf("Run(%q): %v", cmd, err)
	}
	b, err := os.ReadFile(res.Trace)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// hexPath renders s the way strace -xx prints a path or a string.
func hexPath(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, `\x%02x`, s[i])
	}
	return b.String()
}

// realTempDir is t.TempDir with symlinks resolved, as -y prints paths.
func realTempDir(t *testing.T) string {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRunWriteHasPath(t *testing.T) {
	needStrace(t)
	dir := realTempDir(t)
	res, trace := run(t, dir, "sh", "-c", "echo hi > out.txt")

	write := `write(1<` + hexPath(filepath.Join(dir, "out.txt")) + `>, "` + hexPath("hi\n") + `", 3) = 3`
	if !strings.Contains(trace, write) {
		t.Errorf("trace lacks %s\n%s", write, trace)
	}
	if !regexp.MustCompile(`(?m)^\d+ +\d+\.\d+ \+\+\+ exited with 0 \+\+\+$`).MatchString(trace) {
		t.Errorf("trace lacks its +++ exited with 0 +++ line:\n%s", trace)
	}
	if res.ExitCode != 0 || res.Signal != "" || res.CoreDumped {
		t.Errorf("status = %d %q %v, want 0", res.ExitCode, res.Signal, res.CoreDumped)
	}
	if res.Argv[0] == "" || res.Argv[len(res.Argv)-1] != "echo hi > out.txt" || res.Version.IsZero() {
		t.Errorf("Result = %+v", res)
	}
	// execve's environment stays out of the trace.
	if !regexp.MustCompile(`execve\(.*, 0x[0-9a-f]+ /\* \d+ vars? \*/\) = 0`).MatchString(trace) {
		t.Errorf("execve with its environment in full:\n%s", trace)
	}
}

func TestRunExitCode(t *testing.T) {
	needStrace(t)
	res, _ := run(t, t.TempDir(), "sh", "-c", "exit 3")
	if res.ExitCode != 3 || res.Signal != "" {
		t.Errorf("status = %d %q, want 3", res.ExitCode, res.Signal)
	}
}

func TestRunKilled(t *testing.T) {
	needStrace(t)
	res, trace := run(t, t.TempDir(), "sh", "-c", "kill -9 $$")
	if res.ExitCode != -1 || res.Signal != "SIGKILL" || res.CoreDumped {
		t.Errorf("status = %d %q %v, want -1 SIGKILL\n%s", res.ExitCode, res.Signal, res.CoreDumped, trace)
	}
}

// Reads move the offset and are traced, but their data is not copied.
func TestRunReadIsRaw(t *testing.T) {
	needStrace(t)
	dir := realTempDir(t)
	if err := os.WriteFile(filepath.Join(dir, "in.txt"), []byte("secret data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, trace := run(t, dir, "grep", "-q", "no such line", "in.txt") // reads, writes nothing
	raw := regexp.MustCompile(`(?m) read\(0x3, 0x[0-9a-f]+, 0x[0-9a-f]+\) += 0xc$`)
	if !raw.MatchString(trace) {
		t.Errorf("no raw read(0x3, 0xADDR, 0xN) = 0xc in\n%s", trace)
	}
	if strings.Contains(trace, hexPath("secret data")) {
		t.Errorf("the data read is in the trace:\n%s", trace)
	}
	for _, l := range strings.Split(trace, "\n") {
		if strings.Contains(l, " read(") && strings.Contains(l, `"`) {
			t.Errorf("read printed with a string: %s", l)
		}
	}
}

func TestRunCommandNotFound(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notexec"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, msg string }{
		{"crashsim-no-such-command", "command not found: crashsim-no-such-command"},
		{"./missing.sh", "command not found: ./missing.sh"},
		{"./notexec", "command not found: ./notexec: permission denied"},
		{"./sub", "command not found: ./sub: is a directory"},
	} {
		// A fake strace: the check happens before strace is asked anything.
		_, err := Run(context.Background(), []string{tc.name}, Options{Dir: dir, Strace: "/bin/true"})
		var cnf *CommandNotFoundError
		if !errors.As(err, &cnf) || err.Error() != tc.msg {
			t.Errorf("Run(%q) = %v, want %q", tc.name, err, tc.msg)
		}
	}
}

func TestRunStraceNotFound(t *testing.T) {
	_, err := Run(context.Background(), []string{"true"}, Options{Strace: filepath.Join(t.TempDir(), "strace")})
	if !errors.Is(err, ErrStraceNotFound) || !strings.Contains(err.Error(), "strace not found: install it (apt-get install strace)") {
		t.Errorf("Run = %v, want ErrStraceNotFound", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := Run(context.Background(), []string{"/bin/true"}, Options{}); !errors.Is(err, ErrStraceNotFound) {
		t.Errorf("Run with strace not in $PATH = %v, want ErrStraceNotFound", err)
	}
}

// leftover lists the processes whose command line is argv.
func leftover(argv ...string) []string {
	want := strings.Join(argv, "\x00") + "\x00"
	var pids []string
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range dirs {
		if b, err := os.ReadFile(f); err == nil && string(b) == want {
			pids = append(pids, filepath.Base(filepath.Dir(f)))
		}
	}
	return pids
}

// waitTrace waits until the trace at path mentions s.
func waitTrace(t *testing.T, path, s string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(s)) {
			return
		}
	}
	t.Fatalf("trace %s never showed %s", path, s)
}

// A cancelled context ends the whole tree, not only the command, and the
// trace keeps what was written.
func TestRunCancel(t *testing.T) {
	needStrace(t)
	dir := realTempDir(t)
	out := filepath.Join(dir, "trace.strace")
	// sh forks sleep and waits: a tree of two, where strace alone would
	// signal only sh.
	sleep := []string{"sleep", "30.125"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		waitTrace(t, out, hexPath("30.125"))
		cancel()
	}()
	start := time.Now()
	res, err := Run(ctx, []string{"sh", "-c", strings.Join(sleep, " ") + "; echo after"}, Options{Dir: dir, Out: out})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	if res == nil {
		t.Fatal("no Result")
	}
	if d := time.Since(start); d > GracePeriod {
		t.Errorf("Run took %v: SIGTERM did not end it", d)
	}
	if res.Signal != "SIGTERM" {
		t.Errorf("Signal = %q, want SIGTERM", res.Signal)
	}
	if pids := leftover(sleep...); len(pids) > 0 {
		t.Errorf("still running: %v", pids)
	}
	b, _ := os.ReadFile(out)
	if !bytes.Contains(b, []byte("+++ killed by SIGTERM +++")) {
		t.Errorf("trace lacks the end of the command:\n%s", b)
	}
}

// SIGINT sent to crashsim reaches the traced programs; crashsim survives.
func TestRunForwardsSIGINT(t *testing.T) {
	needStrace(t)
	dir := realTempDir(t)
	out := filepath.Join(dir, "trace.strace")
	sleep := []string{"sleep", "30.25"}
	go func() {
		waitTrace(t, out, hexPath("30.25")) // Run is in its wait loop by then
		syscall.Kill(os.Getpid(), syscall.SIGINT)
	}()
	res, err := Run(context.Background(), []string{"sh", "-c", strings.Join(sleep, " ") + "; echo after"}, Options{Dir: dir, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Signal != "SIGINT" {
		t.Errorf("Signal = %q, want SIGINT", res.Signal)
	}
	if pids := leftover(sleep...); len(pids) > 0 {
		t.Errorf("still running: %v", pids)
	}
}

// TestVersionCache: the version is read from the cache while the binary is
// unchanged, and asked again once it changes.
func TestVersionCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	fake := filepath.Join(dir, "strace")
	script := func(v string) {
		t.Helper()
		// A new file each time: a new inode, whatever the clock says.
		os.Remove(fake)
		sh := "#!/bin/sh\necho run >>" + filepath.Join(dir, "runs") + "\necho 'strace -- version " + v + "'\n"
		if err := os.WriteFile(fake, []byte(sh), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script("5.10")
	ctx := context.Background()
	for range 2 {
		if v, err := cachedVersion(ctx, fake); err != nil || v != (Version{5, 10}) {
			t.Fatalf("cachedVersion = %v, %v; want 5.10", v, err)
		}
	}
	runs := func() int {
		b, _ := os.ReadFile(filepath.Join(dir, "runs"))
		return strings.Count(string(b), "run")
	}
	if n := runs(); n != 1 {
		t.Fatalf("strace -V ran %d times for two lookups, want 1", n)
	}
	// A different size, so the key changes even if the inode is reused.
	script("10.11")
	if v, err := cachedVersion(ctx, fake); err != nil || v != (Version{10, 11}) {
		t.Fatalf("after the binary changed: cachedVersion = %v, %v; want 10.11", v, err)
	}
	// A cache that cannot be written costs nothing but the exec.
	t.Setenv("XDG_CACHE_HOME", "/proc/nonexistent")
	if v, err := cachedVersion(ctx, fake); err != nil || v != (Version{10, 11}) {
		t.Fatalf("unwritable cache: cachedVersion = %v, %v", v, err)
	}
}

// TestSinkKeepsEverything: strace writes into a pipe that Run empties into
// the trace file every few milliseconds; every line reaches the file, the
// last one included, and the traced program holds the same fds as the same
// program run untraced (the pipe is not passed down).
func TestSinkKeepsEverything(t *testing.T) {
	needStrace(t)
	dir := t.TempDir()
	const n = 1500
	loop := fmt.Sprintf(`i=0; while [ $i -lt %d ]; do echo x > out.txt; i=$((i+1)); done`, n)
	fds := `for f in /proc/$$/fd/*; do echo ${f##*/}; done > "$0"`
	res, trace := run(t, dir, "sh", "-c", loop+"; "+fds, filepath.Join(dir, "traced.fds"))
	if res.ExitCode != 0 {
		t.Fatalf("exit %d", res.ExitCode)
	}
	if got := strings.Count(trace, `"`+hexPath("out.txt")+`"`); got != n {
		t.Errorf("the trace opens out.txt %d times, want %d", got, n)
	}
	lines := strings.Split(strings.TrimSuffix(trace, "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, "+++ exited with 0 +++") {
		t.Errorf("last line %q, want the exit", last)
	}
	c := exec.Command("sh", "-c", fds, filepath.Join(dir, "plain.fds"))
	c.Dir = dir
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	traced, _ := os.ReadFile(filepath.Join(dir, "traced.fds"))
	plain, _ := os.ReadFile(filepath.Join(dir, "plain.fds"))
	if string(traced) != string(plain) {
		t.Errorf("fds of the traced shell:\n%s\nuntraced:\n%s", traced, plain)
	}
}
