package inputfile

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
)

// TestDescribe: an error of Open reads as crashsim's, naming the input
// and the file, escaped, and still unwraps to what Open returned.
func TestDescribe(t *testing.T) {
	dir := t.TempDir()
	_, missing := Open(filepath.Join(dir, "a\nb"), Named)
	_, notFile := Open(dir, Named)
	for _, tc := range []struct {
		err  error
		want string
		is   error
	}{
		{missing, "cannot read --baseline " + dir + "/a\\nb: no such file", fs.ErrNotExist},
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.EACCES}, "cannot read --baseline x: permission denied", fs.ErrPermission},
		{&fs.PathError{Op: "open", Path: "x", Err: syscall.EIO}, "cannot read --baseline x: input/output error", syscall.EIO},
		{notFile, "cannot read --baseline: " + dir + " is a directory, not a regular file", ErrNotFile},
	} {
		got := Describe("--baseline", tc.err)
		if got.Error() != tc.want {
			t.Errorf("Describe(%v) = %q, want %q", tc.err, got, tc.want)
		}
		if !errors.Is(got, tc.is) {
			t.Errorf("Describe(%v) does not unwrap to %v", tc.err, tc.is)
		}
	}
}
