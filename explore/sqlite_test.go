package explore

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// SQLite's rollback journal, as the sqlite3 shell commits by default
// (synchronous=FULL): the database pages are written and fdatasynced, then
// the journal is unlinked with no directory fsync after it. A crash after
// the unlink can bring the journal back, and the next open rolls the
// committed row back. A checker that requires the committed rows once
// the unlink has returned must see that state at a crash line after the
// unlink, although the same files are left before it too (where rolling
// back is right).
func TestSQLiteCommitLostAfterUnlink(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs sqlite3 on every crash state")
	}
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("sqlite3 is not installed")
	}
	f := fixture{"sqlite3-delete", nil}
	unlink := unlinkLine(t, f.trace(), "test.db-journal")
	initial := t.TempDir()
	if out, err := exec.Command("sqlite3", initial+"/test.db", "CREATE TABLE t(x); INSERT INTO t VALUES(1);").CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v: %s", err, out)
	}
	checker := `n=$(sqlite3 test.db 'SELECT count(*) FROM t' 2>&1) || { echo "$n"; exit 1; }
if [ "$CRASHSIM_CRASH_LINE" -ge ` + strconv.Itoa(unlink) + ` ] && [ "$n" != 2 ]; then echo "committed row lost: $n rows"; exit 1; fi`
	res := exploreFixture(t, f, checker, func(o *Options) { o.Initial = initial })
	if len(res.Findings) == 0 {
		t.Fatalf("no state loses the commit after the journal's unlink at line %d (%d states checked)", unlink, res.Checked)
	}
	for _, fd := range res.Findings {
		if fd.Line < unlink || !strings.Contains(fd.Message, "committed row lost") || !strings.Contains(fd.Message, "test.db-journal as the program wrote it, before it was removed") {
			t.Errorf("unexpected finding at line %d: %s", fd.Line, fd.Message)
		}
	}
	t.Logf("%d states checked:%s", res.Checked, describe(res))
}

// unlinkLine is the line of the trace that unlinks a name ending in base.
func unlinkLine(t *testing.T, trace, base string) int {
	t.Helper()
	line := 0
	if !eachEvent(t, trace, func(ev *parser.Event) bool {
		line = ev.Pos.Line
		return ev.Name == "unlink" && strings.HasSuffix(ev.Arg(0).Str, "/"+base)
	}) {
		t.Fatalf("%s: no unlink of %s", trace, base)
	}
	return line
}
