package crashsim

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRootThroughSymlink: --root names a symlink to the directory the
// program saved into. strace -y names the file by the path the kernel
// reached, which the model follows, so the check must take the root
// where the link leads too: it checked clean with the file out of scope.
func TestRootThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(real) // the temp dir may itself lie below a link
	if err != nil {
		t.Fatal(err)
	}
	if got := absRoots([]string{link}); !slices.Contains(got, real) || !slices.Contains(got, link) {
		t.Errorf("absRoots(%s) = %q, want it to hold %s and %s", link, got, link, real)
	}
	below := filepath.Join(link, "sub")
	if got := absRoots([]string{below}); slices.Contains(got, filepath.Join(real, "sub")) {
		t.Errorf("absRoots(%s) = %q: a root that does not exist resolves to nothing", below, got)
	}
	trace := filepath.Join(dir, "t.strace")
	text := strings.NewReplacer("LINK", link, "REAL", real).Replace(`100 openat(AT_FDCWD, "LINK/b", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3<REAL/b>
100 write(3<REAL/b>, "hi\n", 3) = 3
100 close(3<REAL/b>) = 0
100 exit_group(0) = ?
100 +++ exited with 0 +++
`)
	if err := os.WriteFile(trace, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := Check{Inputs: Inputs{Traces: []string{trace}}, Scope: Scope{Roots: []string{link}}}
	res, err := c.Run()
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for f, err := range res.Findings() {
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, f.Rule.ID+" "+f.Path)
	}
	if !slices.Contains(rules, "data-not-synced "+filepath.Join(real, "b")) {
		t.Errorf("--root %s: findings %q, want data-not-synced of %s/b", link, rules, real)
	}
}
