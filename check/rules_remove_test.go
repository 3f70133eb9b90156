package check

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// TestRemoveBeforeSync: a file read, then removed (by the process that
// read it or another) while the file that process wrote after the read
// still has its bytes in the page cache, is remove-before-sync on the
// written file, under every model; the same steps with the copy synced
// before the removal, or with nothing durable to lose, or with the
// reading and the writing done by different processes, are not.
func TestRemoveBeforeSync(t *testing.T) {
	const (
		openIn   = `1 openat(AT_FDCWD, "/w/in", O_RDONLY) = 3`
		readIn   = `1 read(3, "abcdef", 65536) = 6`
		readNone = `1 read(3, "", 65536) = 0`
		closeIn  = `1 close(3) = 0`
		openOut  = `1 openat(AT_FDCWD, "/w/out", O_WRONLY|O_CREAT|O_EXCL, 0600) = 4`
		writeOut = `1 write(4, "ABCDEF", 6) = 6`
		syncOut  = `1 fsync(4) = 0`
		closeOut = `1 close(4) = 0`
		unlinkIn = `1 unlink("/w/in") = 0`
		openDir  = `1 openat(AT_FDCWD, "/w", O_RDONLY|O_DIRECTORY) = 5`
		syncDir  = `1 fsync(5) = 0`
		// in made by the run itself: created, written, synced or not.
		makeIn  = `1 openat(AT_FDCWD, "/w/in", O_WRONLY|O_CREAT|O_EXCL, 0600) = 6`
		writeIn = `1 write(6, "abcdef", 6) = 6`
		syncIn  = `1 fsync(6) = 0`
		closeMk = `1 close(6) = 0`
		linkIn  = `1 link("/w/in", "/w/in.keep") = 0`
		// a second copy the process syncs.
		makeIn2  = `1 openat(AT_FDCWD, "/w/table", O_WRONLY|O_CREAT|O_EXCL, 0600) = 8`
		writeIn2 = `1 write(8, "abcdef", 6) = 6`
		syncIn2  = `1 fdatasync(8) = 0`
		// another process reads and writes; the first one removes.
		openIn2   = `2 openat(AT_FDCWD, "/w/in", O_RDONLY) = 3`
		readIn2   = `2 read(3, "abcdef", 65536) = 6`
		openOut2  = `2 openat(AT_FDCWD, "/w/out", O_WRONLY|O_CREAT|O_EXCL, 0600) = 4`
		writeOut2 = `2 write(4, "ABCDEF", 6) = 6`
		exit2     = `2 +++ exited with 0 +++`
		copyIn2   = `2 copy_file_range(3, NULL, 4, NULL, 9223372035781033984, 0) = 6`
		syncOut2  = `2 fsync(4) = 0`
		unlinkIn2 = `2 unlink("/w/in") = 0`
		// the original emptied by a truncation, and written again.
		truncIn   = `1 truncate("/w/in", 0) = 0`
		reopenIn  = `1 openat(AT_FDCWD, "/w/in", O_WRONLY|O_APPEND) = 9`
		rewriteIn = `1 write(9, "new", 3) = 3`
		openIn3   = `3 openat(AT_FDCWD, "/w/in", O_WRONLY|O_APPEND) = 5`
		appendIn3 = `3 write(5, "new", 3) = 3`
		// another file, read first.
		openConf = `1 openat(AT_FDCWD, "/w/conf", O_RDONLY) = 7`
		readConf = `1 read(7, "x", 10) = 1`
	)
	copied := []string{openIn, readIn, openOut, writeOut, closeOut, closeIn}
	for _, tc := range []struct {
		name  string
		lines []string
		// want is where remove-before-sync is found: "all" models,
		// "none", or "strong" ones (ext4 and xfs, not posix, where a file
		// fsync makes no name durable).
		want string
	}{
		{"copy never synced, original removed", append(slices.Clone(copied), unlinkIn), "all"},
		{"copy synced after the removal", append(slices.Clone(copied), unlinkIn, openDir, syncOut, syncDir), "all"},
		{"another copy synced before the removal", []string{openIn, readIn, openOut, writeOut, makeIn2, writeIn2, syncIn2, unlinkIn}, "none"},
		{"another file synced before the read", []string{makeIn2, writeIn2, syncIn2, openIn, readIn, openOut, writeOut, unlinkIn}, "all"},
		{"copy synced before the removal", []string{openIn, readIn, openOut, writeOut, syncOut, closeOut, closeIn, unlinkIn, openDir, syncDir}, "none"},
		{"nothing read from the original", []string{openIn, readNone, openOut, writeOut, closeOut, closeIn, unlinkIn}, "none"},
		{"copy written before the read", []string{openConf, readConf, openOut, writeOut, openIn, readIn, closeIn, unlinkIn}, "none"},
		{"copy never synced, original emptied (copytruncate)", append(slices.Clone(copied), truncIn), "all"},
		{"copy never synced, original emptied, then written by another process", append(slices.Clone(copied), truncIn, openIn3, appendIn3), "all"},
		{"original emptied and rewritten by the process that emptied it", append(slices.Clone(copied), truncIn, reopenIn, rewriteIn), "none"},
		{"original made by the run with its data unsynced, copied and emptied", append([]string{makeIn, writeIn, closeMk, openDir, syncDir}, append(slices.Clone(copied), truncIn)...), "none"},
		{"copy synced, original emptied", []string{openIn, readIn, openOut, writeOut, syncOut, truncIn}, "none"},
		{"copy written before the read and after it", []string{openConf, readConf, openOut, writeOut, openIn, readIn, writeOut, closeIn, unlinkIn}, "all"},
		{"the original never read", []string{openConf, readConf, openOut, writeOut, closeOut, unlinkIn}, "none"},
		{"original made by the run, not synced", append([]string{makeIn, writeIn, closeMk}, append(slices.Clone(copied), unlinkIn)...), "none"},
		{"original made by the run, its directory not synced", append([]string{makeIn, writeIn, syncIn, closeMk}, append(slices.Clone(copied), unlinkIn)...), "strong"},
		{"original made by the run, synced with its directory", append([]string{makeIn, writeIn, syncIn, closeMk, openDir, syncDir}, append(slices.Clone(copied), unlinkIn)...), "all"},
		{"original keeps another name", append(slices.Clone(copied), linkIn, unlinkIn), "none"},
		{"read and written by another process, removed by the first (cp a b && rm a)", []string{openIn2, readIn2, openOut2, writeOut2, exit2, unlinkIn}, "all"},
		{"copied in the kernel by another process", []string{openIn2, openOut2, copyIn2, exit2, unlinkIn}, "all"},
		{"copied in the kernel and synced", []string{openIn2, openOut2, copyIn2, syncOut2, exit2, unlinkIn}, "none"},
		{"read by one process, written by another", []string{openIn2, readIn2, exit2, openOut, writeOut, unlinkIn}, "none"},
		{"another process exited", []string{openIn, readIn, openOut, writeOut, exit2, unlinkIn}, "all"},
		{"read, written and removed by a process that exited, its pid used again", []string{openIn2, readIn2, openOut2, writeOut2, exit2, unlinkIn2}, "all"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Join(tc.lines, "\n") + "\n"
			for _, m := range []model.Persistence{model.Posix, model.Ext4, model.Xfs} {
				found := removeFindings(t, text, Options{Models: []model.Persistence{m}, Existed: func(p string) (bool, bool) {
					return p == "/w" || p == "/w/conf" || p == "/w/in" && tc.lines[0] != makeIn, true
				}})
				got := len(found) > 0
				for _, f := range found {
					if f.Path != "/w/out" || !strings.Contains(f.Message, "in was removed while out") && !strings.Contains(f.Message, "in was emptied by a truncation while out") {
						t.Errorf("%s: %s: %s", m, f.Path, f.Message)
					}
					if f.State == nil {
						t.Errorf("%s: no crash state", m)
					}
				}
				if want := tc.want == "all" || tc.want == "strong" && m != model.Posix; got != want {
					t.Errorf("%s: remove-before-sync %v, want %v", m, got, want)
				}
			}
		})
	}
}

// removeFindings checks the trace text with opt and returns its
// remove-before-sync findings.
func removeFindings(t *testing.T, text string, opt Options) []*Finding {
	t.Helper()
	return findingsOf(t, text, opt, RemoveBeforeSync)
}

// findingsOf checks the trace text with opt and returns its findings of
// rule id.
func findingsOf(t *testing.T, text string, opt Options, id string) []*Finding {
	t.Helper()
	res := runText(t, text, opt)
	var out []*Finding
	for f, err := range res.Findings() {
		if err != nil {
			t.Fatal(err)
		}
		if f.Rule.ID == id {
			out = append(out, f)
		}
	}
	return out
}

// TestRemoveBeforeSyncVolatile: mv from /dev/shm (tmpfs) to a disk copies
// and unlinks; the original could not survive a crash anyway, so its
// removal loses nothing the copy's unsynced bytes did not.
func TestRemoveBeforeSyncVolatile(t *testing.T) {
	text := strings.Join([]string{
		`1 openat(AT_FDCWD, "/dev/shm/in", O_RDONLY) = 3`,
		`1 read(3, "abcdef", 65536) = 6`,
		`1 openat(AT_FDCWD, "/w/out", O_WRONLY|O_CREAT|O_EXCL, 0600) = 4`,
		`1 write(4, "abcdef", 6) = 6`,
		`1 close(4) = 0`,
		`1 close(3) = 0`,
		`1 unlink("/dev/shm/in") = 0`,
	}, "\n") + "\n"
	for _, tc := range []struct {
		volatile []string
		want     bool
	}{{LikelyVolatile, false}, {nil, true}} {
		found := removeFindings(t, text, Options{LikelyVolatile: tc.volatile, Existed: func(p string) (bool, bool) { return p != "/w/out", true }})
		if got := len(found) > 0; got != tc.want {
			t.Errorf("volatile directories %v: remove-before-sync %v, want %v", tc.volatile, len(found) > 0, tc.want)
		}
	}
}

// TestRemoveBeforeSyncForgetsProcesses: the reads of a process that
// exited are let go, so that a build's thousands of short processes do
// not each leave their reads behind, and of the files read with a file
// written after them only the latest maxSources are kept.
func TestRemoveBeforeSyncForgetsProcesses(t *testing.T) {
	rs := &removeBeforeSync{}
	r := &run{}
	r.m = model.New(model.Options{Reads: true, Observe: func(m *model.Model, e *model.Effect) { rs.Observe(r, e) }})
	var text strings.Builder
	const n = 3000
	removed := 0
	for pid := 2; pid < n+2; pid++ {
		fmt.Fprintf(&text, "%d openat(AT_FDCWD, \"/w/in%d\", O_RDONLY) = 3\n%d read(3, \"x\", 1) = 1\n", pid, pid, pid)
		fmt.Fprintf(&text, "%d openat(AT_FDCWD, \"/w/out%d\", O_WRONLY|O_CREAT, 0644) = 4\n%d write(4, \"x\", 1) = 1\n", pid, pid, pid)
		if pid%3 != 0 {
			removed++
			fmt.Fprintf(&text, "%d unlink(\"/w/in%d\") = 0\n", pid, pid)
		}
		fmt.Fprintf(&text, "%d +++ exited with 0 +++\n", pid)
	}
	rd := parser.NewReader(strings.NewReader(text.String()), "t.strace", parser.Options{})
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		r.m.Apply(ev)
	}
	if len(rs.owners) == 0 || len(rs.owners) > 200 {
		t.Errorf("%d processes read and exited, %d kept", n, len(rs.owners))
	}
	if len(rs.sources) == 0 || len(rs.sources) > maxSources || len(rs.order) > 2*maxSources {
		t.Errorf("%d files read and copied: %d kept, %d in order", n, len(rs.sources), len(rs.order))
	}
	if len(rs.hits) != removed {
		t.Errorf("%d originals removed, %d found", removed, len(rs.hits))
	}
}

// TestRemoveBeforeSyncNamesWritesAfterTheRead: the copy is what was
// written after the read; a pending write of the same file before it
// holds none of the file read, and the finding names the first write
// after the read as the first pending one (RocksDB's info log, written
// before it read back its OPTIONS file, was named as written from it).
func TestRemoveBeforeSyncNamesWritesAfterTheRead(t *testing.T) {
	lines := strings.Join([]string{
		`1 openat(AT_FDCWD, "/w/out", O_WRONLY|O_CREAT|O_EXCL, 0600) = 4`,
		`1 write(4, "early", 5) = 5`,
		`1 openat(AT_FDCWD, "/w/in", O_RDONLY) = 3`,
		`1 read(3, "abcdef", 65536) = 6`,
		`1 write(4, "ABCDEF", 6) = 6`,
		`1 unlink("/w/in") = 0`,
		`1 exit_group(0) = ?`,
	}, "\n") + "\n"
	existed := func(p string) (bool, bool) { return p == "/w/in" || p == "/w", true }
	res := runText(t, lines, Options{Existed: existed})
	var got []string
	for _, f := range res.findings {
		if f.Rule.ID != RemoveBeforeSync {
			continue
		}
		for _, r := range f.Related {
			if r.What == "written, not yet durable" {
				got = append(got, fmt.Sprint(r.Line))
			}
		}
	}
	if !slices.Equal(got, []string{"5"}) {
		t.Errorf("pending writes named at lines %q, want [5] (the write after the read)", got)
	}
}
