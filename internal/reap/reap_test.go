package reap

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func startSleep(t *testing.T, env []string) *exec.Cmd {
	t.Helper()
	c := exec.Command("sleep", "30")
	c.Env = env
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return c
}

func pids(ps []Proc) []int {
	var out []int
	for _, p := range ps {
		out = append(out, p.PID)
	}
	return out
}

// TestHolders: a process is found by its run's token or a Sub of it, and
// not by another run's token; Kill ends it.
func TestHolders(t *testing.T) {
	tok := NewToken()
	mine := startSleep(t, Env(nil, tok))
	sub := startSleep(t, Env(nil, Sub(tok, 7)))
	other := startSleep(t, Env(nil, NewToken()))
	prefix := startSleep(t, Env(nil, tok+"0")) // a longer token is not ours
	got := pids(Holders(tok))
	for _, c := range []*exec.Cmd{mine, sub} {
		if !slices.Contains(got, c.Process.Pid) {
			t.Errorf("Holders(%s) = %v, lacks %d", tok, got, c.Process.Pid)
		}
	}
	for _, c := range []*exec.Cmd{other, prefix} {
		if slices.Contains(got, c.Process.Pid) {
			t.Errorf("Holders(%s) = %v, holds %d of another run", tok, got, c.Process.Pid)
		}
	}
	if got := pids(Holders(Sub(tok, 7))); !slices.Equal(got, []int{sub.Process.Pid}) {
		t.Errorf("Holders(Sub) = %v, want only %d", got, sub.Process.Pid)
	}
	if env := Env([]string{"A=1", EnvVar + "=old"}, tok); strings.Join(env, " ") != "A=1 "+EnvVar+"="+tok {
		t.Errorf("Env = %v", env)
	}
	Kill(tok)
	if left := Holders(tok); len(left) > 0 {
		t.Errorf("after Kill: %v", left)
	}
}

// statStart reads field 22 whatever the command name holds.
func TestStatStart(t *testing.T) {
	rest := " S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 424242 19 20"
	for _, comm := range []string{"(sh)", "(a b) c)", "((x))", "( )"} {
		got, err := statStart([]byte("123 " + comm + rest))
		if err != nil || got != 424242 {
			t.Errorf("comm %q: got %d, %v; want 424242", comm, got, err)
		}
	}
	if _, err := statStart([]byte("123 (sh) S 1 2")); err == nil {
		t.Error("a short stat line gave no error")
	}
	// The running process: the same start time os.ReadFile and Fields give.
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip("no /proc")
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	want, _ := strconv.ParseUint(f[19], 10, 64)
	got, err := startTime(os.Getpid())
	if err != nil || got != want {
		t.Errorf("startTime(self) = %d, %v; want %d", got, err, want)
	}
}
