package explore

import (
	"testing"
	"time"
)

// TestDirectoryOpenedAsFile: a directory from before the trace that the
// program opens without O_DIRECTORY and fsyncs, with nothing below it
// opened (PostgreSQL does so with pg_commit_ts), is a directory in every
// state, as the snapshot holds it: the model cannot tell it from a file.
func TestDirectoryOpenedAsFile(t *testing.T) {
	root := t.TempDir()
	trace := writeTrace(t, root,
		`openat(AT_FDCWD, "/R/pg_commit_ts", O_RDONLY) = 3`,
		`fsync(3) = 0`,
		`close(3) = 0`,
		`openat(AT_FDCWD, "/R/data", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 4`,
		`write(4, "new", 3) = 3`,
		`close(4) = 0`,
	)
	initial := writeTree(t, map[string]string{"pg_commit_ts/keep": "x", "data": "old"})
	res := runTrace(t, trace, Options{
		Trace:   trace,
		Root:    root,
		Initial: initial,
		Checker: `test -d pg_commit_ts && test "$(cat pg_commit_ts/keep)" = x`,
		Timeout: 20 * time.Second,
		WorkDir: t.TempDir(),
	})
	if res.Checked == 0 || res.Failed != 0 {
		t.Errorf("checked %d states, %d rejected: want every state to hold pg_commit_ts as the snapshot's directory", res.Checked, res.Failed)
	}
}
