package check

import (
	"strings"
	"testing"
)

// TestUnder holds under to its definition, p is dir or starts with dir
// and a '/', over paths and directories that end, or not, in '/'.
func TestUnder(t *testing.T) {
	paths := []string{"", "/", "//", "/dev", "/dev/", "/dev/null", "/devx", "/dev/shm", "/dev/shm/a", "/de", "dev/null", "/dev//x", "a", "a/b"}
	dirs := []string{"/", "/dev", "/dev/", "/dev/shm", "/proc", "a", ""}
	for _, p := range paths {
		for _, d := range dirs {
			want := p == d || d == "/" && strings.HasPrefix(p, "/") || strings.HasPrefix(p, d+"/")
			if got := under(p, d); got != want {
				t.Errorf("under(%q, %q) = %v, want %v", p, d, got, want)
			}
		}
	}
}
