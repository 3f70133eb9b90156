package check

import (
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// TestPinnedInodeSameAfterRetire: a rule that keeps an inode across
// events (truncate-in-place, which cuts a file and asks at its next
// write whether it is the file it cut) still finds it after the file,
// open on no fd, settles, retires and comes back: Run's models keep no
// weak pointer for such a file (model.Options.PinsOnly) unless a rule
// pinned it.
func TestPinnedInodeSameAfterRetire(t *testing.T) {
	const trace = `1 truncate("/data/f", 0) = 0
1 sync() = 0
1 openat(AT_FDCWD, "/data/f", O_WRONLY) = 3
1 write(3, "new", 3) = 3
1 fsync(3) = 0
1 close(3) = 0
`
	defer func(on bool, batch int) { retireModels, retireBatch = on, batch }(retireModels, retireBatch)
	retireModels, retireBatch = true, 1
	existed := func(p string) (bool, bool) { return p == "/data/f", p == "/data/f" }
	res, err := Run(parser.NewReader(strings.NewReader(trace), "t", parser.Options{}), Options{Existed: existed, Models: model.Persistences})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.findings {
		got = append(got, f.Rule.ID+" "+f.Path)
	}
	if len(got) != 1 || got[0] != TruncateInPlace+" /data/f" {
		t.Errorf("findings %q, want only %s of /data/f", got, TruncateInPlace)
	}
}
