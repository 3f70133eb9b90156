package check

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/google/go-cmp/cmp"
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
		// in read through memory, not by a read call (git's packs).
		mapIn       = `1 mmap(NULL, 6, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7f5a10000000`
		mapInShared = `1 mmap(NULL, 6, PROT_READ, MAP_SHARED, 3, 0) = 0x7f5a10000000`
		mapInNone   = `1 mmap(NULL, 6, PROT_NONE, MAP_PRIVATE, 3, 0) = 0x7f5a10000000`
		mapAnon     = `1 mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f5a10000000`
		openInRW    = `1 openat(AT_FDCWD, "/w/in", O_RDWR) = 3`
		mapInRW     = `1 mmap(NULL, 6, PROT_READ|PROT_WRITE, MAP_SHARED, 3, 0) = 0x7f5a10000000`
		openMk      = `1 openat(AT_FDCWD, "/w/in", O_RDONLY) = 6`
		mapMk       = `1 mmap(NULL, 6, PROT_READ, MAP_PRIVATE, 6, 0) = 0x7f5a10000000`
	)
	mapped := []string{openIn, mapIn, closeIn, openOut, writeOut, closeOut}
	copied := []string{openIn, readIn, openOut, writeOut, closeOut, closeIn}
	for _, tc := range []struct {
		name  string
		lines []string
		// want is where remove-before-sync is found: "all" models,
		// "none", "strong" ones (ext4 and xfs, not posix, where a file
		// fsync makes no name durable), or "posix" alone: a copy synced
		// whose name is not durable yet, which the removal can reach the
		// disk before under posix, and not under the ordered models.
		want string
	}{
		{"copy never synced, original removed", append(slices.Clone(copied), unlinkIn), "all"},
		{"copy synced after the removal", append(slices.Clone(copied), unlinkIn, openDir, syncOut, syncDir), "all"},
		{"another copy synced before the removal", []string{openIn, readIn, openOut, writeOut, makeIn2, writeIn2, syncIn2, unlinkIn}, "posix"},
		{"another copy synced with its directory before the removal", []string{openIn, readIn, openOut, writeOut, makeIn2, writeIn2, syncIn2, openDir, syncDir, unlinkIn}, "none"},
		{"another file synced before the read", []string{makeIn2, writeIn2, syncIn2, openIn, readIn, openOut, writeOut, unlinkIn}, "all"},
		{"copy synced before the removal, its directory after", []string{openIn, readIn, openOut, writeOut, syncOut, closeOut, closeIn, unlinkIn, openDir, syncDir}, "posix"},
		{"copy and its directory synced before the removal", []string{openIn, readIn, openOut, writeOut, syncOut, closeOut, closeIn, openDir, syncDir, unlinkIn}, "none"},
		{"nothing read from the original", []string{openIn, readNone, openOut, writeOut, closeOut, closeIn, unlinkIn}, "none"},
		{"copy written before the read", []string{openConf, readConf, openOut, writeOut, openIn, readIn, closeIn, unlinkIn}, "none"},
		{"copy never synced, original emptied (copytruncate)", append(slices.Clone(copied), truncIn), "all"},
		{"copy never synced, original emptied, then written by another process", append(slices.Clone(copied), truncIn, openIn3, appendIn3), "all"},
		{"original emptied and rewritten by the process that emptied it", append(slices.Clone(copied), truncIn, reopenIn, rewriteIn), "none"},
		{"original made by the run with its data unsynced, copied and emptied", append([]string{makeIn, writeIn, closeMk, openDir, syncDir}, append(slices.Clone(copied), truncIn)...), "none"},
		{"copy synced, original emptied", []string{openIn, readIn, openOut, writeOut, syncOut, truncIn}, "posix"},
		{"copy and its directory synced, original emptied", []string{openIn, readIn, openOut, writeOut, syncOut, openDir, syncDir, truncIn}, "none"},
		{"copy written before the read and after it", []string{openConf, readConf, openOut, writeOut, openIn, readIn, writeOut, closeIn, unlinkIn}, "all"},
		{"the original never read", []string{openConf, readConf, openOut, writeOut, closeOut, unlinkIn}, "none"},
		{"original made by the run, not synced", append([]string{makeIn, writeIn, closeMk}, append(slices.Clone(copied), unlinkIn)...), "none"},
		{"original made by the run, its directory not synced", append([]string{makeIn, writeIn, syncIn, closeMk}, append(slices.Clone(copied), unlinkIn)...), "strong"},
		{"original made by the run, synced with its directory", append([]string{makeIn, writeIn, syncIn, closeMk, openDir, syncDir}, append(slices.Clone(copied), unlinkIn)...), "all"},
		{"original keeps another name", append(slices.Clone(copied), linkIn, unlinkIn), "none"},
		{"read and written by another process, removed by the first (cp a b && rm a)", []string{openIn2, readIn2, openOut2, writeOut2, exit2, unlinkIn}, "all"},
		{"copied in the kernel by another process", []string{openIn2, openOut2, copyIn2, exit2, unlinkIn}, "all"},
		{"copied in the kernel and synced", []string{openIn2, openOut2, copyIn2, syncOut2, exit2, unlinkIn}, "posix"},
		{"read by one process, written by another", []string{openIn2, readIn2, exit2, openOut, writeOut, unlinkIn}, "none"},
		{"another process exited", []string{openIn, readIn, openOut, writeOut, exit2, unlinkIn}, "all"},
		{"read, written and removed by a process that exited, its pid used again", []string{openIn2, readIn2, openOut2, writeOut2, exit2, unlinkIn2}, "all"},
		{"mapped to be read, copy never synced, original removed", append(slices.Clone(mapped), unlinkIn), "all"},
		{"mapped shared to be read, copy never synced, original removed", []string{openIn, mapInShared, closeIn, openOut, writeOut, unlinkIn}, "all"},
		{"mapped to be read, copy synced after the removal", append(slices.Clone(mapped), unlinkIn, openDir, syncOut, syncDir), "all"},
		{"mapped to be read, copy never synced, original emptied", append(slices.Clone(mapped), truncIn), "all"},
		{"mapped to be read, copy and its directory synced before the removal", []string{openIn, mapIn, openOut, writeOut, syncOut, openDir, syncDir, unlinkIn}, "none"},
		{"mapped with no access, copy never synced, original removed", []string{openIn, mapInNone, closeIn, openOut, writeOut, unlinkIn}, "none"},
		{"anonymous memory mapped, copy never synced, original removed", []string{openIn, mapAnon, closeIn, openOut, writeOut, unlinkIn}, "none"},
		{"mapped after the copy was written", []string{openConf, readConf, openOut, writeOut, openIn, mapIn, closeIn, unlinkIn}, "none"},
		// Mapped shared and writable, the file is memory shared between
		// processes (SQLite's -shm, PostgreSQL's segments), not a
		// source copied: blind-shared-mmap says it cannot be followed.
		{"mapped shared and writable, another file never synced, original removed", []string{openInRW, mapInRW, closeIn, openOut, writeOut, unlinkIn}, "none"},
		{"original made by the run empty and synced, mapped", []string{makeIn, syncIn, closeMk, openDir, syncDir, openMk, mapMk, openOut, writeOut, unlinkIn}, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Join(tc.lines, "\n") + "\n"
			for _, m := range []model.Persistence{model.Posix, model.Ext4, model.Xfs} {
				found := removeFindings(t, text, Options{Models: []model.Persistence{m}, Existed: func(p string) (bool, bool) {
					return p == "/w" || p == "/w/conf" || p == "/w/in" && tc.lines[0] != makeIn, true
				}})
				got := len(found) > 0
				for _, f := range found {
					copy := base(f.Path)
					if f.Path != "/w/out" && f.Path != "/w/table" || !strings.Contains(f.Message, "in was removed while "+copy) && !strings.Contains(f.Message, "in was emptied by a truncation while "+copy) &&
						!strings.Contains(f.Message, "after "+copy+", written from it, was synced but before its name was durable") {
						t.Errorf("%s: %s: %s", m, f.Path, f.Message)
					}
					if f.State == nil {
						t.Errorf("%s: no crash state", m)
					}
				}
				if want := tc.want == "all" || tc.want == "strong" && m != model.Posix || tc.want == "posix" && m == model.Posix; got != want {
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

// applyText replays the trace text through model m, whose Observe hook
// feeds the observer a test looks into.
func applyText(t *testing.T, m *model.Model, text string) {
	t.Helper()
	rd := parser.NewReader(strings.NewReader(text), "t.strace", parser.Options{})
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		m.Apply(ev)
	}
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
	applyText(t, r.m, text.String())
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

// TestRemoveBeforeSyncCopyName: a copy whose bytes were synced is lost
// all the same when the original is emptied or removed before the copy's
// name is durable: under posix that can reach the disk first, and a crash
// leaves the original empty and the copy missing (copytruncate that
// syncs the directory only at the end). Synced before the truncation,
// or an existing name rewritten in place, the copy is kept; the ordered
// models commit the truncation after the name, so they never find it.
func TestRemoveBeforeSyncCopyName(t *testing.T) {
	const (
		openLog   = `7 openat(AT_FDCWD, "/q/spool/mail.log", O_RDWR) = 3`
		readLog   = `7 read(3, "from a\nfrom b\n", 4096) = 14`
		newCopy   = `7 openat(AT_FDCWD, "/q/spool/mail.log.0", O_WRONLY|O_CREAT|O_EXCL, 0640) = 4`
		oldCopy   = `7 openat(AT_FDCWD, "/q/spool/mail.log.0", O_WRONLY|O_TRUNC) = 4`
		tmpCopy   = `7 openat(AT_FDCWD, "/q/spool/mail.log.0~", O_WRONLY|O_CREAT|O_EXCL, 0640) = 4`
		putTmp    = `7 rename("/q/spool/mail.log.0~", "/q/spool/mail.log.0") = 0`
		mkArch    = `7 mkdir("/q/spool/arch", 0750) = 0`
		archCopy  = `7 openat(AT_FDCWD, "/q/spool/arch/mail.log.0", O_WRONLY|O_CREAT|O_EXCL, 0640) = 4`
		openArch  = `7 openat(AT_FDCWD, "/q/spool/arch", O_RDONLY|O_DIRECTORY) = 6`
		syncArch  = `7 fsync(6) = 0`
		writeCopy = `7 write(4, "from a\nfrom b\n", 14) = 14`
		syncCopy  = `7 fdatasync(4) = 0`
		closeCopy = `7 close(4) = 0`
		empty     = `7 ftruncate(3, 0) = 0`
		syncLog   = `7 fsync(3) = 0`
		closeLog  = `7 close(3) = 0`
		openSpool = `7 openat(AT_FDCWD, "/q/spool", O_RDONLY|O_DIRECTORY) = 5`
		syncSpool = `7 fsync(5) = 0`
		closeDir  = `7 close(5) = 0`
		exit      = `7 exit_group(0) = ?`
	)
	copyThen := func(open string, mid ...string) []string {
		return append(append([]string{openLog, open, readLog, writeCopy, syncCopy, closeCopy}, mid...), empty, syncLog, closeLog)
	}
	dirAtEnd := []string{openSpool, syncSpool, closeDir, exit}
	for _, tc := range []struct {
		name  string
		lines []string
		path  string // the copy found under posix, "" for none
		words string // what the message says the copy is left as
	}{
		{"directory synced at the end", append(copyThen(newCopy), dirAtEnd...), "/q/spool/mail.log.0", "mail.log.0 missing"},
		{"directory synced before the truncation", append(copyThen(newCopy, openSpool, syncSpool, closeDir), exit), "", ""},
		{"an existing name rewritten", append(copyThen(oldCopy), dirAtEnd...), "", ""},
		{"renamed over an existing name", append([]string{openLog, tmpCopy, readLog, writeCopy, syncCopy, closeCopy, putTmp, empty, syncLog, closeLog}, dirAtEnd...),
			"/q/spool/mail.log.0", "mail.log.0 as it was before the run"},
		{"in a new directory synced, its parent at the end", append(append([]string{mkArch}, copyThen(archCopy, openArch, syncArch)...), dirAtEnd...),
			"/q/spool/arch/mail.log.0", "missing with the new directory arch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Join(tc.lines, "\n") + "\n"
			emptyLine := slices.Index(tc.lines, empty) + 1
			for _, m := range []model.Persistence{model.Posix, model.Ext4, model.Xfs, model.Btrfs} {
				found := removeFindings(t, text, Options{Models: []model.Persistence{m}, Existed: func(p string) (bool, bool) {
					return p == "/q" || p == "/q/spool" || p == "/q/spool/mail.log" || p == "/q/spool/mail.log.0" && tc.lines[1] != newCopy, true
				}})
				want := tc.path
				if m != model.Posix {
					want = ""
				}
				var got string
				for _, f := range found {
					got = f.Path
					if !strings.Contains(f.Message, "mail.log was emptied by a truncation after mail.log.0, written from it, was synced but before its name was durable") ||
						!strings.Contains(f.Message, tc.words) || !strings.Contains(f.Message, "before truncating mail.log") {
						t.Errorf("%s: message %q, want it to say %q", m, f.Message, tc.words)
					}
					if f.Line != emptyLine || f.State == nil || f.State.Line != emptyLine {
						t.Errorf("%s: found at line %d with state %+v, want both at the truncation, line %d", m, f.Line, f.State, emptyLine)
					}
					var what []string
					for _, r := range f.Related {
						what = append(what, fmt.Sprintf("%d %s", r.Line, r.What))
					}
					if len(what) != 3 || !strings.HasSuffix(what[2], "ftruncate truncates mail.log") {
						t.Errorf("%s: related lines %q, want the read, the name and the truncation", m, what)
					}
				}
				if len(found) > 1 || got != want {
					t.Errorf("%s: %d findings, on %q; want one on %q", m, len(found), got, want)
				}
			}
		})
	}
}

// TestTruncateToTheSizeRead: a program reads a log to its end (26
// bytes, then nothing), copies it and cuts the log to 26 bytes, its own
// size, recorded with no stat. The cut changes nothing: it empties no
// file the copy came from, and leaves nothing to sync.
func TestTruncateToTheSizeRead(t *testing.T) {
	const text = `1 openat(AT_FDCWD, "/d/000004.log", O_RDONLY|O_CLOEXEC) = 3
1 read(3, "0123456789abcdefghijklmnop", 32768) = 26
1 read(3, "", 28672) = 0
1 close(3) = 0
1 openat(AT_FDCWD, "/d/000008.sst", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 3
1 write(3, "0123456789abcdefghijklmnop", 26) = 26
1 fdatasync(3) = 0
1 close(3) = 0
1 openat(AT_FDCWD, "/d/000004.log", O_WRONLY|O_CREAT|O_APPEND|O_CLOEXEC, 0644) = 3
1 ftruncate(3, 26) = 0
1 close(3) = 0
`
	existed := func(p string) (bool, bool) { return p == "/d/000004.log" || p == "/d", true }
	res := runText(t, text, Options{Existed: existed})
	var got []string
	for f, err := range res.Findings() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, f.Rule.ID+" "+f.Path)
	}
	if want := []string{NameNotSynced + " /d/000008.sst"}; !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
}

// TestRemoveBeforeRename: a file read, its new version written to a temp
// file, the file removed and the temp file then renamed to its name is a
// replace in two steps, whatever is synced; renamed over it, or a rename
// of a file that is no copy of it (a log rotation), or a file with
// nothing durable to lose, is not.
func TestRemoveBeforeRename(t *testing.T) {
	const (
		openOld  = `1 openat(AT_FDCWD, "/w/a.zip", O_RDONLY) = 3`
		readOld  = `1 read(3, "old", 4096) = 3`
		closeOld = `1 close(3) = 0`
		makeOld  = "1 openat(AT_FDCWD, \"/w/a.zip\", O_WRONLY|O_CREAT|O_EXCL, 0600) = 3\n1 write(3, \"old\", 3) = 3\n1 close(3) = 0\n1 openat(AT_FDCWD, \"/w/a.zip\", O_RDONLY) = 3"
		openTmp  = `1 openat(AT_FDCWD, "/w/zi0001", O_RDWR|O_CREAT|O_EXCL, 0600) = 4`
		writeTmp = `1 write(4, "old+new", 7) = 7`
		syncTmp  = "1 fsync(4) = 0\n1 close(4) = 0"
		unlink   = `1 unlink("/w/a.zip") = 0`
		rename   = `1 rename("/w/zi0001", "/w/a.zip") = 0`
		dirSync  = "1 openat(AT_FDCWD, \"/w\", O_RDONLY|O_DIRECTORY) = 5\n1 fsync(5) = 0"
		// another file, not read: a rotation's older log.
		other = "1 openat(AT_FDCWD, \"/w/a.1\", O_WRONLY|O_CREAT|O_EXCL, 0600) = 6\n1 write(6, \"log\", 3) = 3\n1 fsync(6) = 0\n1 close(6) = 0\n1 rename(\"/w/a.1\", \"/w/a.zip\") = 0"
	)
	existed := func(p string) (bool, bool) { return p == "/w" || p == "/w/a.zip", true }
	for _, tc := range []struct {
		name  string
		lines []string
		want  bool
	}{
		{"removed, then its copy renamed to its name", []string{openOld, readOld, closeOld, openTmp, writeTmp, syncTmp, dirSync, unlink, rename, dirSync}, true},
		{"the same with the copy never synced", []string{openOld, readOld, closeOld, openTmp, writeTmp, unlink, rename}, true},
		{"its copy renamed over it", []string{openOld, readOld, closeOld, openTmp, writeTmp, syncTmp, rename, dirSync}, false},
		{"removed, then another file renamed to its name", []string{openOld, readOld, closeOld, unlink, other, dirSync}, false},
		// A log rotation: it read a.1, appended to a.zip (the file it
		// logs to), then renamed each down the line and the oldest over
		// the one it removed; what it renames is no temp file.
		{"a rotation renames the file it appended to over one it removed", []string{
			`1 openat(AT_FDCWD, "/w/a.1", O_RDONLY) = 3`, `1 read(3, "l1", 10) = 2`, closeOld,
			`1 openat(AT_FDCWD, "/w/a.zip", O_WRONLY|O_APPEND) = 4`, `1 write(4, "l2", 2) = 2`, `1 close(4) = 0`,
			`1 rename("/w/a.1", "/w/a.2") = 0`, `1 rename("/w/a.zip", "/w/a.1") = 0`, `1 unlink("/w/a.2") = 0`, `1 rename("/w/a.1", "/w/a.2") = 0`}, false},
		{"removed, then its copy renamed elsewhere", []string{openOld, readOld, closeOld, openTmp, writeTmp, syncTmp, unlink, `1 rename("/w/zi0001", "/w/b.zip") = 0`, dirSync}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := findingsOf(t, strings.Join(tc.lines, "\n")+"\n", Options{Existed: existed}, RemoveBeforeRename)
			if (len(got) > 0) != tc.want {
				t.Fatalf("%d remove-before-rename findings, want any: %v", len(got), tc.want)
			}
			if !tc.want {
				return
			}
			f := got[0]
			if f.Path != "/w/a.zip" || f.State == nil || f.State.Outcome != string(model.Missing) {
				t.Errorf("finding on %s, state %+v; want /w/a.zip missing", f.Path, f.State)
			}
			for _, w := range []string{"a.zip was removed before its new version, zi0001", "rename zi0001 over a.zip"} {
				if !strings.Contains(f.Message, w) {
					t.Errorf("message %q does not say %q", f.Message, w)
				}
			}
			// remove-before-sync's words on the same removal (posix: the
			// unlink can reach the disk before the copy's name) name the
			// copy by its temp name, not by the name it took after.
			for _, g := range findingsOf(t, strings.Join(tc.lines, "\n")+"\n", Options{Existed: existed}, RemoveBeforeSync) {
				if strings.Contains(g.Message, "after a.zip, written") || strings.Contains(g.Message, "while a.zip,") || !strings.Contains(g.Message, "zi0001") {
					t.Errorf("remove-before-sync names the copy by the name it took after: %s", g.Message)
				}
			}
		})
	}
	// A file made in the run and never synced had nothing durable to
	// lose: no finding.
	madeHere := func(p string) (bool, bool) { return p == "/w", true }
	for _, f := range findingsOf(t, strings.Join([]string{makeOld, readOld, closeOld, openTmp, writeTmp, syncTmp, unlink, rename}, "\n")+"\n", Options{Existed: madeHere}, RemoveBeforeRename) {
		t.Errorf("a file never durable: %s", f.Message)
	}
}

// stOpen, stRead and stClose read /w/st, the file a save replaces.
const (
	stOpen  = `1 openat(AT_FDCWD, "/w/st", O_RDONLY) = 3`
	stRead  = `1 read(3, "old", 4096) = 3`
	stClose = `1 close(3) = 0`
)

// TestRemoveBeforeRenameAway: the same replace in two steps when the
// first step moves the file to a backup name instead of removing it
// (gpg's pubring.kbx~, sed -i.bak): a crash between the renames leaves
// the name missing, the old content only under the backup. A backup
// made with link() and the copy renamed over the name is the fix; a
// rename away that nothing fills and a file moved in that was not
// written from the one moved away (mv -b) are not reported. A new file
// created under the name (vim) is TestRemoveBeforeRenameNewFileInPlace's.
func TestRemoveBeforeRenameAway(t *testing.T) {
	const (
		openOld  = stOpen
		readOld  = stRead
		closeOld = stClose
		openTmp  = `1 openat(AT_FDCWD, "/w/st.tmp", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4`
		writeTmp = `1 write(4, "new", 3) = 3`
		syncTmp  = "1 fsync(4) = 0\n1 close(4) = 0"
		away     = `1 rename("/w/st", "/w/st.bak") = 0`
		in       = `1 rename("/w/st.tmp", "/w/st") = 0`
		dirSync  = "1 openat(AT_FDCWD, \"/w\", O_RDONLY|O_DIRECTORY) = 5\n1 fsync(5) = 0\n1 close(5) = 0"
	)
	existed := func(p string) (bool, bool) { return p == "/w" || p == "/w/st" || p == "/w/other", true }
	for _, tc := range []struct {
		name  string
		lines []string
		want  string // a word the message must hold; "" for no finding
	}{
		{"moved to a backup, then its copy renamed to its name", []string{openOld, readOld, closeOld, openTmp, writeTmp, syncTmp, away, in, dirSync},
			"st was renamed to st.bak before its new version, st.tmp, was renamed to its name at line 9: a crash in between can leave st missing, its old content only under st.bak and the new only under st.tmp; make the backup with link() or a copy first, then rename st.tmp over st"},
		{"the same with nothing synced (sed -i.bak)", []string{openOld, readOld, closeOld, openTmp, writeTmp, `1 close(4) = 0`, away, in}, "renamed to st.bak"},
		{"renameat2 and a backup in another directory", []string{openOld, readOld, closeOld, openTmp, writeTmp, syncTmp,
			`1 renameat2(AT_FDCWD, "/w/st", AT_FDCWD, "/w/old/st", 0) = 0`, `1 renameat2(AT_FDCWD, "/w/st.tmp", AT_FDCWD, "/w/st", 0) = 0`}, "its old content only under /w/old/st "},
		{"linked to a backup, unlinked, then its copy renamed to its name", []string{openOld, readOld, closeOld, openTmp, writeTmp, syncTmp,
			`1 link("/w/st", "/w/st.bak") = 0`, `1 unlink("/w/st") = 0`, in, dirSync}, "st was unlinked, its file kept only under st.bak"},
		{"linked to a backup, then its copy renamed over it (the fix)", []string{openOld, readOld, closeOld, openTmp, writeTmp, syncTmp,
			`1 link("/w/st", "/w/st.bak") = 0`, in, dirSync}, ""},
		{"renamed over it, no backup", []string{openOld, readOld, closeOld, openTmp, writeTmp, syncTmp, in, dirSync}, ""},
		{"moved to a backup, nothing renamed to its name", []string{openOld, readOld, closeOld, openTmp, writeTmp, syncTmp, away, dirSync}, ""},
		{"moved to a backup, then renamed back", []string{openOld, readOld, closeOld, openTmp, writeTmp, syncTmp, away, `1 rename("/w/st.bak", "/w/st") = 0`}, ""},
		// mv -b other st: st moved to st~, then a file not written from
		// it moved in.
		{"mv -b: a file not written from it moved in", []string{openOld, readOld, closeOld,
			`1 openat(AT_FDCWD, "/w/new", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4`, `1 write(4, "new", 3) = 3`, syncTmp,
			`1 rename("/w/st", "/w/st~") = 0`, `1 rename("/w/other", "/w/st") = 0`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Join(tc.lines, "\n") + "\n"
			got := findingsOf(t, text, Options{Existed: existed}, RemoveBeforeRename)
			if (len(got) > 0) != (tc.want != "") {
				for _, f := range got {
					t.Log(f.Message)
				}
				t.Fatalf("%d remove-before-rename findings, want any: %v", len(got), tc.want != "")
			}
			if tc.want == "" {
				return
			}
			f := got[0]
			if len(got) != 1 || f.Path != "/w/st" || f.State == nil || f.State.Outcome != string(model.Missing) {
				t.Errorf("%d findings, on %s, state %+v; want one on /w/st missing", len(got), f.Path, f.State)
			}
			if !strings.Contains(f.Message, tc.want) {
				t.Errorf("message %q does not say %q", f.Message, tc.want)
			}
			var what []string
			for _, r := range f.Related {
				what = append(what, r.What)
			}
			if len(what) != 3 || what[0] != "reads st" || !strings.HasSuffix(what[2], " puts st.tmp in its place") {
				t.Errorf("related lines %q", what)
			}
		})
	}
	// A file made in the run whose name was never durable had nothing
	// under its name to lose: no finding.
	madeHere := func(p string) (bool, bool) { return p == "/w", true }
	makeOld := "1 openat(AT_FDCWD, \"/w/st\", O_WRONLY|O_CREAT|O_EXCL, 0600) = 3\n1 write(3, \"old\", 3) = 3\n1 fsync(3) = 0\n1 close(3) = 0"
	for _, f := range findingsOf(t, strings.Join([]string{makeOld, openOld, readOld, closeOld, openTmp, writeTmp, syncTmp, away, in}, "\n")+"\n", Options{Existed: madeHere}, RemoveBeforeRename) {
		t.Errorf("a name never durable: %s", f.Message)
	}
}

// TestRemoveBeforeRenameNewFileInPlace: a save that moves its file to a
// backup and writes the new version in a new file created under the name
// (Vim's backupcopy=no, fixtures/apps/vim-save) leaves the name missing,
// then empty, until the new file's data is durable, under every model:
// under ext4 nothing else said so, and explore with a checker that wants
// the old or the new text rejected those states. Not reported: a file
// moved away by a process that never read it (a log rotated with
// logrotate's create), a new file never written, one written by another
// process.
func TestRemoveBeforeRenameNewFileInPlace(t *testing.T) {
	const (
		openOld  = stOpen
		readOld  = stRead
		closeOld = stClose
		away     = `1 rename("/w/st", "/w/st~") = 0`
		create   = `1 openat(AT_FDCWD, "/w/st", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4`
		write    = `1 write(4, "new", 3) = 3`
		sync     = "1 fsync(4) = 0\n1 close(4) = 0"
		unlink   = `1 unlink("/w/st~") = 0`
	)
	existed := func(p string) (bool, bool) { return p == "/w" || p == "/w/st", true }
	for _, tc := range []struct {
		name   string
		lines  []string
		models []model.Persistence
		want   bool
	}{
		{"posix", []string{openOld, readOld, closeOld, away, create, write, sync, unlink}, nil, true},
		{"ext4", []string{openOld, readOld, closeOld, away, create, write, sync, unlink}, []model.Persistence{model.Ext4}, true},
		{"never read (a log rotated)", []string{away, create, write, sync}, nil, false},
		{"created, never written", []string{openOld, readOld, closeOld, away, create, `1 close(4) = 0`}, nil, false},
		{"written by another process", []string{openOld, readOld, closeOld, away, create, `1 close(4) = 0`,
			`2 openat(AT_FDCWD, "/w/st", O_WRONLY) = 3`, `2 write(3, "new", 3) = 3`}, nil, false},
		{"the backup written, not the new file", []string{openOld, readOld, closeOld, away, create,
			`1 openat(AT_FDCWD, "/w/st~", O_WRONLY|O_APPEND) = 5`, `1 write(5, "x", 1) = 1`}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := findingsOf(t, strings.Join(tc.lines, "\n")+"\n", Options{Existed: existed, Models: tc.models}, RemoveBeforeRename)
			if (len(got) > 0) != tc.want {
				for _, f := range got {
					t.Log(f.Message)
				}
				t.Fatalf("%d remove-before-rename findings, want any: %v", len(got), tc.want)
			}
			if !tc.want {
				return
			}
			f := got[0]
			if len(got) != 1 || f.Path != "/w/st" || f.Line != 4 || f.State == nil || f.State.Outcome != string(model.Missing) {
				t.Errorf("%d findings, on %s:%d, state %+v; want one on /w/st:4 missing", len(got), f.Path, f.Line, f.State)
			}
			const words = "st was renamed to st~ before its new version was written in a new file under its name (line 6): until that file's data is durable, a crash can leave st missing or empty, its old content only under st~"
			if !strings.Contains(f.Message, words) {
				t.Errorf("message %q does not say %q", f.Message, words)
			}
			var what []string
			for _, r := range f.Related {
				what = append(what, fmt.Sprintf("%d %s", r.Line, r.What))
			}
			want := []string{"2 reads st", "4 rename moves st to st~", "5 openat makes a new st", "6 writes it, not yet durable"}
			if !slices.Equal(what, want) {
				t.Errorf("related lines %q, want %q", what, want)
			}
		})
	}
	// remove-before-sync on the unlink of st~ (posix: the new st's name
	// was never made durable) names the read by the name the file had
	// then, st, not by st~, which it had when it was removed.
	text := strings.Join([]string{openOld, readOld, closeOld, away, create, write, sync, unlink}, "\n") + "\n"
	got := findingsOf(t, text, Options{Existed: existed}, RemoveBeforeSync)
	if len(got) != 1 || len(got[0].Related) == 0 || got[0].Related[0].What != "reads st" {
		for _, f := range got {
			t.Logf("%s %+v", f.Message, f.Related)
		}
		t.Errorf("%d remove-before-sync findings; want one whose first related line says \"reads st\"", len(got))
	}
}

// TestRemoveBeforeSyncNewVersionNamed: when a copy of the file removed
// is renamed to its name, the program has named the file's new version,
// and the other files it wrote after reading the file are not taken for
// copies of it. Vim reads .viminfo, saves the file being edited (synced,
// its name not), writes .viminfo.tmp, unlinks .viminfo and renames the
// temp file to it: remove-before-sync said .viminfo's data could be "in
// neither", naming the edited file as its copy. (info.tmp's own name,
// never made durable, is still its finding.)
func TestRemoveBeforeSyncNewVersionNamed(t *testing.T) {
	lines := []string{
		`1 openat(AT_FDCWD, "/w/info", O_RDONLY) = 3`,
		`1 read(3, "hist", 4096) = 4`,
		`1 close(3) = 0`,
		`1 openat(AT_FDCWD, "/w/edited", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3`,
		`1 write(3, "text", 4) = 4`,
		`1 fsync(3) = 0`,
		`1 close(3) = 0`,
		`1 openat(AT_FDCWD, "/w/info.tmp", O_WRONLY|O_CREAT|O_EXCL, 0600) = 3`,
		`1 write(3, "hist2", 5) = 5`,
		`1 fsync(3) = 0`,
		`1 close(3) = 0`,
		`1 unlink("/w/info") = 0`,
		`1 rename("/w/info.tmp", "/w/info") = 0`,
	}
	existed := func(p string) (bool, bool) { return p == "/w" || p == "/w/info", true }
	text := strings.Join(lines, "\n") + "\n"
	for _, f := range findingsOf(t, text, Options{Existed: existed}, RemoveBeforeSync) {
		if f.Path == "/w/edited" {
			t.Errorf("remove-before-sync on %s: %s", f.Path, f.Message)
		}
	}
	if got := findingsOf(t, text, Options{Existed: existed}, RemoveBeforeRename); len(got) != 1 || got[0].Path != "/w/info" {
		t.Errorf("%d remove-before-rename findings, want one on /w/info", len(got))
	}
	// Without the rename, edited is taken for a copy, as before: the
	// trace does not say which file held the data.
	text = strings.Join(lines[:len(lines)-1], "\n") + "\n"
	on := 0
	for _, f := range findingsOf(t, text, Options{Existed: existed}, RemoveBeforeSync) {
		if f.Path == "/w/edited" {
			on++
		}
	}
	if on != 1 {
		t.Errorf("%d remove-before-sync findings on /w/edited without the rename, want 1", on)
	}
}

// TestRemoveBeforeRenamePendingAppend: the file moved away to its backup
// had an append still pending (Python's dbm.dumb adds a line to its index,
// renames it to .bak and writes the new index). The name's gap is there
// all the same: a sync of the file moved away would not close it, and it
// was skipped as data-not-synced's.
func TestRemoveBeforeRenamePendingAppend(t *testing.T) {
	lines := []string{stOpen, stRead, stClose,
		`1 openat(AT_FDCWD, "/w/st", O_WRONLY|O_APPEND) = 3`, `1 write(3, "more", 4) = 4`, `1 close(3) = 0`,
		`1 rename("/w/st", "/w/st.bak") = 0`,
		`1 openat(AT_FDCWD, "/w/st", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4`, `1 write(4, "new", 3) = 3`, "1 fsync(4) = 0\n1 close(4) = 0"}
	existed := func(p string) (bool, bool) { return p == "/w" || p == "/w/st", true }
	for _, m := range []model.Persistence{model.Posix, model.Ext4} {
		got := findingsOf(t, strings.Join(lines, "\n")+"\n", Options{Existed: existed, Models: []model.Persistence{m}}, RemoveBeforeRename)
		if len(got) != 1 || got[0].Path != "/w/st" || got[0].Line != 7 || got[0].State == nil || got[0].State.Outcome != string(model.Missing) {
			t.Errorf("%s: %d findings %v, want one on /w/st:7, the name missing", m, len(got), got)
		}
	}
}

// TestRemoveBeforeRenameBackupRotated: Python's dbm.dumb saves twice: it
// removes data.bak, renames data.dir to data.bak, and writes a new
// data.dir. The second unlink of data.bak and rename of data.dir over it
// are no replace in two steps: the file removed was read as data.dir,
// the name its new version comes from, which is where the program reads.
// The move of data.dir before its new version is written still is.
func TestRemoveBeforeRenameBackupRotated(t *testing.T) {
	save := "1 unlink(\"/w/data.bak\") = 0\n1 rename(\"/w/data.dir\", \"/w/data.bak\") = 0\n" +
		"1 openat(AT_FDCWD, \"/w/data.dir\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 4\n1 write(4, \"k0k1\", 4) = 4\n1 close(4) = 0\n"
	text := "1 openat(AT_FDCWD, \"/w/data.dir\", O_RDONLY) = 3\n1 read(3, \"k0\", 8192) = 2\n1 close(3) = 0\n" + save + save
	existed := func(p string) (bool, bool) { return p == "/w" || p == "/w/data.dir" || p == "/w/data.bak", true }
	got := findingsOf(t, text, Options{Existed: existed}, RemoveBeforeRename)
	var paths []string
	for _, f := range got {
		paths = append(paths, f.Path)
	}
	if diff := cmp.Diff([]string{"/w/data.dir"}, paths); diff != "" {
		t.Errorf("remove-before-rename findings by path (-want +got):\n%s", diff)
	}
}

// TestRemoveBeforeRenameByLink: a link fills the name a removal left as
// a rename does. plocate's updatedb writes its new database into an
// O_TMPFILE, fsyncs it, unlinks the old one and links the new file to
// its name: a crash in between leaves the database missing and the new
// data under no name. It was checked clean. A named temp file linked to
// the name is the same gap.
func TestRemoveBeforeRenameByLink(t *testing.T) {
	const head = "1 openat(AT_FDCWD, \"/w/db\", O_RDONLY) = 4\n1 read(4, \"old db\\n\", 4096) = 7\n1 close(4) = 0\n"
	const tail = "1 openat(AT_FDCWD, \"/w\", O_RDONLY|O_DIRECTORY) = 6\n1 fsync(6) = 0\n"
	existed := func(p string) (bool, bool) { return p == "/w" || p == "/w/db", true }
	for _, c := range []struct {
		name, body string
		words      []string
	}{
		{"an O_TMPFILE linked", "1 openat(AT_FDCWD, \"/w/\", O_WRONLY|O_TMPFILE, 0640) = 5\n1 write(5, \"new db\\n\", 7) = 7\n1 fsync(5) = 0\n" +
			"1 unlink(\"/w/db\") = 0\n1 linkat(AT_FDCWD, \"/proc/self/fd/5\", AT_FDCWD, \"/w/db\", AT_SYMLINK_FOLLOW) = 0\n",
			[]string{"a file with no name yet (O_TMPFILE), was linked to its name at line 8", "link the new file to a temp name, then rename that over db"}},
		{"a temp file linked", "1 openat(AT_FDCWD, \"/w/db.tmp\", O_WRONLY|O_CREAT|O_EXCL, 0640) = 5\n1 write(5, \"new db\\n\", 7) = 7\n1 fsync(5) = 0\n" +
			"1 unlink(\"/w/db\") = 0\n1 link(\"/w/db.tmp\", \"/w/db\") = 0\n1 unlink(\"/w/db.tmp\") = 0\n",
			[]string{"its new version, db.tmp, was linked to its name at line 8", "rename db.tmp over db"}},
	} {
		got := findingsOf(t, head+c.body+tail, Options{Existed: existed}, RemoveBeforeRename)
		if len(got) != 1 || got[0].Path != "/w/db" {
			t.Errorf("%s: %d remove-before-rename findings, want one on /w/db", c.name, len(got))
			continue
		}
		for _, w := range c.words {
			if !strings.Contains(got[0].Message, w) {
				t.Errorf("%s: %q does not say %q", c.name, got[0].Message, w)
			}
		}
	}
}
