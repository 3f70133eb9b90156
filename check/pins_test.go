package check

import (
	"bytes"
	"maps"
	"slices"
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
// pinned it. The cut here was made durable by the sync before the
// rewrite, so truncate-in-place forgets it at the write and says
// nothing; what the pin guards is checked by TestRulesPinWhatTheyKeep's
// audit on the same trace.
func TestPinnedInodeSameAfterRetire(t *testing.T) {
	trace := truncateSyncTrace
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
	if len(got) != 0 {
		t.Errorf("findings %q, want none: the cut was durable before the rewrite", got)
	}
}

// truncateSyncTrace cuts a file that existed, syncs, and writes it: the
// file settles and retires at the sync while truncate-in-place keeps it,
// until the write shows the cut durable.
const truncateSyncTrace = `1 truncate("/data/f", 0) = 0
1 sync() = 0
1 openat(AT_FDCWD, "/data/f", O_WRONLY) = 3
1 write(3, "new", 3) = 3
1 fsync(3) = 0
1 close(3) = 0
`

// keptTraces make a rule keep an inode that then settles and retires
// while the rule holds it (truncate-in-place, rename-before-sync,
// cross-dir-rename, unaligned-write, overwrite-in-place: the audit fails
// on each with its Pin taken out); the files that existed before are
// /data/f and /old/h.
var keptTraces = map[string]string{
	"truncate-sync": truncateSyncTrace,
	// rename-before-sync keeps the file renamed with its data pending.
	"rename-pending": `1 openat(AT_FDCWD, "/d/f.tmp", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3
1 write(3, "x", 1) = 1
1 rename("/d/f.tmp", "/d/f") = 0
1 fsync(3) = 0
1 close(3) = 0
1 openat(AT_FDCWD, "/d", O_RDONLY|O_DIRECTORY) = 4
1 fsync(4) = 0
1 close(4) = 0
1 getpid() = 1
`,
	// unaligned-write keeps the file it saw written in part of a page
	// (a file that existed, of a size the trace does not show). The sync
	// comes after the close: a file retired while an fd holds it keeps
	// its weak pointer for the fd, which the audit does not question.
	"unaligned-sync": `1 openat(AT_FDCWD, "/data/f", O_WRONLY) = 3
1 pwrite64(3, "abcde", 5, 10) = 5
1 close(3) = 0
1 sync() = 0
1 getpid() = 1
`,
	// overwrite-in-place keeps the file whose durable bytes two writes
	// replaced, for the finding it makes at the end.
	"overwrite-sync": `1 openat(AT_FDCWD, "/d/g", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3
1 write(3, "hello", 5) = 5
1 fsync(3) = 0
1 close(3) = 0
1 openat(AT_FDCWD, "/d", O_RDONLY|O_DIRECTORY) = 4
1 fsync(4) = 0
1 close(4) = 0
1 openat(AT_FDCWD, "/d/g", O_WRONLY) = 3
1 pwrite64(3, "HE", 2, 0) = 2
1 pwrite64(3, "LL", 2, 2) = 2
1 close(3) = 0
1 sync() = 0
1 getpid() = 1
`,
	// cross-dir-rename keeps the file it moved.
	"cross-dir": `1 openat(AT_FDCWD, "/a/x", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3
1 write(3, "x", 1) = 1
1 fsync(3) = 0
1 close(3) = 0
1 rename("/a/x", "/b/x") = 0
1 sync() = 0
1 getpid() = 1
`,
}

// TestRulesPinWhatTheyKeep: no rule keeps an inode past an event without
// pinning it. With the models' audit on (model.Options.AuditPins), every
// retired inode nobody pinned keeps a weak pointer, and a model panics
// when one comes back while still held; files retire as soon as they can,
// under every persistence model, on every fixture trace, a many-files
// trace, a real-shaped one and keptTraces. Few of the fixtures make a
// rule keep an inode that then retires (they pass with most Pin calls
// taken out); keptTraces do.
func TestRulesPinWhatTheyKeep(t *testing.T) {
	defer func(on bool, batch int, audit bool) {
		retireModels, retireBatch, auditPins = on, batch, audit
	}(retireModels, retireBatch, auditPins)
	retireModels, retireBatch, auditPins = true, 1, true
	existed := func(p string) (bool, bool) {
		switch p {
		case "/", "/a", "/b", "/d", "/data", "/data/f", "/old", "/old/h":
			return true, true
		}
		return false, true
	}
	inputs := retireInputs(t)
	for _, name := range slices.Sorted(maps.Keys(keptTraces)) {
		inputs = append(inputs, retireInput{name, []byte(keptTraces[name]), Options{Existed: existed}})
	}
	for _, in := range inputs {
		opt := in.opt
		opt.Models = model.Persistences
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: %v", in.name, r)
				}
			}()
			if _, err := Run(parser.NewReader(bytes.NewReader(in.text), in.name, parser.Options{}), opt); err != nil && !strings.Contains(in.name, "bad") {
				t.Logf("%s: %v", in.name, err)
			}
		}()
	}
}
