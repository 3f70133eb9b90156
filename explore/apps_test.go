package explore

// Acceptance tests of issue 23 on the real-application fixtures
// (fixtures/apps): explore runs each recorded save with the application's
// own checker (checker.sh beside the trace) and must give the verdict the
// application's documentation implies.
//
// They take a few minutes in all (PostgreSQL's recovery is the longest),
// so go test -short skips them; .ci/run installs the applications.
//
//	go test ./explore -run TestApps -v
//
// Each checker says in its comments what the application promises and
// what it requires. A test is skipped when the application is not
// installed.
//
// They run in parallel with each other (t.Parallel), but for those that
// set the checkers' environment (t.Setenv), which run alone: a checker
// waits on its application (a JVM or a server starting, a build) about as
// much as it computes, and explore's first replay of a trace runs no
// checker at all, so two explorations at once fill each other's gaps.
// Nothing is shared: each test has its own snapshot and work directory
// (memTempDir), and the servers its checkers start listen on sockets in
// their state directories, or on a port they find free, in a network
// namespace of their own when jailed.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// app is one case of fixtures/apps.
type app struct {
	name  string
	needs []string // programs its checker runs
}

func (a app) dir() string {
	d, err := filepath.Abs(filepath.Join("..", "fixtures", "apps", a.name))
	if err != nil {
		panic(err)
	}
	return d
}
func (a app) trace() string   { return filepath.Join(a.dir(), "f-ttt-y-xx.strace") }
func (a app) root() string    { return "/tmp/crashsim-fixtures/" + a.name }
func (a app) checker() string { return "sh " + filepath.Join(a.dir(), "checker.sh") }

// skipUnless skips the test when a program the case needs is missing.
func (a app) skipUnless(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: explore of a real application's save takes up to minutes")
	}
	for _, p := range append([]string{"tar", "xz"}, a.needs...) {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed (%s needs it)", p, a.name)
		}
	}
}

// skipWithout skips the test when file, which Debian's package pkg
// installs (a library the case's programs load), is missing.
func (a app) skipWithout(t *testing.T, file, pkg string) {
	t.Helper()
	if _, err := os.Stat(file); err != nil {
		t.Skipf("%s is not installed (%s needs Debian's %s): %v", file, a.name, pkg, err)
	}
}

// snapshot extracts the case's initial.tar.xz into a new directory.
func (a app) snapshot(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("tar", "-C", dir, "-xJf", filepath.Join(a.dir(), "initial.tar.xz")).CombinedOutput(); err != nil {
		t.Fatalf("extracting %s's snapshot: %v: %s", a.name, err, out)
	}
	return dir
}

// explore runs explore in this process on the case under persistence p.
func (a app) explore(t *testing.T, p model.Persistence) *Result {
	t.Helper()
	return a.exploreWith(t, p, nil)
}

// exploreWith is explore with the options changed by edit first.
func (a app) exploreWith(t *testing.T, p model.Persistence, edit func(*Options)) *Result {
	t.Helper()
	listing := readListing(t, filepath.Join(a.dir(), "initial.list"))
	opt := Options{
		Trace:       a.trace(),
		Root:        a.root(),
		Initial:     a.snapshot(t),
		Persistence: p,
		Existed:     listing.Existed,
		Checker:     a.checker(),
		Timeout:     60 * time.Second,
		WorkDir:     memTempDir(t),
		Predict:     predictApp(t, a, listing),
	}
	if edit != nil {
		edit(&opt)
	}
	res := runTrace(t, a.trace(), opt)
	// As root the checker is an unprivileged user of the host (git's
	// ownership check included), unless the kernel lacks what that needs.
	if canJail() && res.Unconfined != "" && !strings.Contains(res.Unconfined, "no idmapped mounts") {
		t.Errorf("the checker was not confined: %s", res.Unconfined)
	}
	return res
}

func readListing(t *testing.T, name string) *model.Listing {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := model.ReadInitial(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func predictApp(t *testing.T, a app, l *model.Listing) []*check.Finding {
	t.Helper()
	s, err := parser.Open(a.trace(), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := check.Run(s, check.Options{Roots: []string{a.root()}, Existed: l.Existed})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := res.List()
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// lineOf returns the line of the first successful call named syscall whose
// path argument ends in suffix: its first argument, or its second when the
// first is a directory fd (openat).
func lineOf(t *testing.T, trace, syscall, suffix string) int {
	t.Helper()
	return firstLine(t, trace, syscall, "of ..."+suffix, func(ev *parser.Event) bool {
		return strings.HasSuffix(ev.Arg(0).Str, suffix) || strings.HasSuffix(ev.Arg(1).Str, suffix)
	})
}

// lineOfFD returns the line of the first successful call named syscall
// whose first argument is an fd whose -y path ends in suffix.
func lineOfFD(t *testing.T, trace, syscall, suffix string) int {
	t.Helper()
	return firstLine(t, trace, syscall, "on an fd of ..."+suffix, func(ev *parser.Event) bool {
		return ev.Arg(0).HasAnno && strings.HasSuffix(ev.Arg(0).Anno, suffix)
	})
}

// firstLine returns the line of the first successful call named syscall
// that match accepts; what says what was looked for when none is.
func firstLine(t *testing.T, trace, syscall, what string, match func(*parser.Event) bool) int {
	t.Helper()
	line := 0
	if !eachEvent(t, trace, func(ev *parser.Event) bool {
		line = ev.Pos.Line
		return ev.Name == syscall && ev.OK() && match(ev)
	}) {
		t.Fatalf("%s: no %s %s", trace, syscall, what)
	}
	return line
}

// rejections lists the checker-failed findings at or after line whose
// message (which ends with the checker's output) contains want.
func rejections(res *Result, line int, want string) []*check.Finding {
	var out []*check.Finding
	for _, f := range res.Findings {
		if f.Rule.ID == check.CheckerFailed && f.Line >= line && strings.Contains(f.Message, want) {
			out = append(out, f)
		}
	}
	return out
}

func verdict(res *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d crash states, %d distinct, %d checked, %d rejected", res.Candidates, res.Distinct, res.Checked, res.Failed)
	for i, f := range res.Findings {
		if i == 5 {
			fmt.Fprintf(&b, "\n  ... %d more", len(res.Findings)-i)
			break
		}
		fmt.Fprintf(&b, "\n  line %d: %s", f.Line, f.Message)
	}
	return b.String()
}

// requireClean fails unless the checker ran and accepted every state.
func requireClean(t *testing.T, res *Result) {
	t.Helper()
	if res.Checked == 0 || res.Failed != 0 || len(res.Findings) != 0 {
		t.Errorf("want every state accepted: %s", verdict(res))
	}
}

// TestAppsSQLiteFull: under synchronous=FULL in rollback-journal mode
// SQLite does not sync the directory after it deletes the journal. A
// power cut after the commit can bring the journal back, hot, and the
// next open rolls the committed row back: a state after the unlink
// (at or after the line sqlite3 printed "committed") without row 2.
// Confirmed by hand: the snapshot's test.db with the trace's two page
// writes applied, plus test.db-journal rebuilt from the trace's journal
// writes (fdatasynced, its name synced), makes the checker print "row 2
// is gone" at that line.
func TestAppsSQLiteFull(t *testing.T) {
	a := app{"sqlite-full", []string{"sqlite3"}}
	a.skipUnless(t)
	t.Parallel()
	unlink := lineOf(t, a.trace(), "unlink", "test.db-journal")
	res := a.explore(t, model.Posix)
	if len(rejections(res, unlink+1, "row 2 is gone")) == 0 {
		t.Errorf("want a state after the journal's unlink (line %d) rejected for losing the committed row: %s", unlink, verdict(res))
	}
	// Nothing else is wrong with FULL: every rejection is that loss.
	for _, f := range res.Findings {
		if !strings.Contains(f.Message, "row 2 is gone") {
			t.Errorf("unexpected rejection at line %d: %s", f.Line, f.Message)
		}
	}
}

// TestAppsSQLiteExtra: synchronous=EXTRA syncs the directory after the
// unlink; every state is accepted.
func TestAppsSQLiteExtra(t *testing.T) {
	a := app{"sqlite-extra", []string{"sqlite3"}}
	a.skipUnless(t)
	t.Parallel()
	requireClean(t, a.explore(t, model.Posix))
}

// TestAppsSQLiteWAL: in WAL mode with synchronous=FULL a commit syncs the
// WAL before it returns; every state is accepted. (The -shm index is
// mapped shared: a blind spot for crashsim, which SQLite rebuilds from the
// WAL after a crash.)
func TestAppsSQLiteWAL(t *testing.T) {
	a := app{"sqlite-wal", []string{"sqlite3"}}
	a.skipUnless(t)
	t.Parallel()
	requireClean(t, a.explore(t, model.Posix))
}

// TestAppsGitDefault: git's default config hardens nothing of a commit
// ("risks losing recent work"); crash states with an empty object, index
// or ref under its final name make git fsck or HEAD fail. The loss git
// documents, which explore must show.
func TestAppsGitDefault(t *testing.T) {
	a := app{"git-default", []string{"git"}}
	a.skipUnless(t)
	t.Parallel()
	res := a.explore(t, model.Posix)
	if len(rejections(res, 0, "")) == 0 {
		t.Errorf("want states rejected: %s", verdict(res))
	}
}

// TestAppsGitFsyncAll: with core.fsync=all git fsyncs every object, the
// index and the ref before publishing them, but never a directory. Under
// posix a crash can keep the rename of refs/heads/main.lock over
// refs/heads/main and lose the link that named the new commit object:
// "fatal: bad object HEAD". Confirmed by hand: the snapshot with
// refs/heads/main holding the new commit's name (its data fsynced, its
// rename persisted) and no objects/f3/8e3e... makes git log print "fatal:
// bad object HEAD" and the checker reject it.
func TestAppsGitFsyncAll(t *testing.T) {
	a := app{"git-fsync-all", []string{"git"}}
	a.skipUnless(t)
	t.Parallel()
	rename := lineOf(t, a.trace(), "rename", "refs/heads/main.lock")
	res := a.explore(t, model.Posix)
	if len(rejections(res, rename, "bad object HEAD")) == 0 {
		t.Errorf("want a state after the ref's rename (line %d) rejected with \"fatal: bad object HEAD\": %s", rename, verdict(res))
	}
}

// TestAppsMercurial: Mercurial never calls fsync, and promises only that
// hg recover undoes an interrupted commit: the transaction journal
// (.hg/store/journal) holds each revlog's length before the commit, and
// the revlogs are only appended to. But the journal is not synced before
// the appends either, so a crash can keep a revlog's new size without its
// bytes (zeros, once writeback has started) while the journal's lines are
// not on disk: hg recover has nothing to cut back, and hg verify says
// "index 00changelog is corrupted" (or 00manifest). explore must show it
// under posix, and under ext4 too, whose journal commits the journal's
// creation before the appends but not its data. Confirmed by hand: the
// snapshot with the trace's appends to README's revlog and the manifest,
// the changelog's 141 new bytes as zeros, and .hg/store/journal empty (a
// state every entry operation persisted in) makes the checker print
// "hg verify failed: abort: index 00changelog is corrupted"; with the
// journal's three lines on disk hg recover cuts the revlogs back and the
// state is accepted, and with its first two only it is rejected again.
//
// The caches, the undo files (hg rollback's) and last-message.txt are left
// out, as Mercurial rebuilds the caches and verify reads none of them; and
// each crash point builds at most 8 states: the checker runs hg recover,
// verify, status and log (in one Python process), about half a second of
// CPU a state here.
func TestAppsMercurial(t *testing.T) {
	a := app{"hg-commit", []string{"hg"}}
	a.skipUnless(t)
	t.Parallel()
	skip := []string{"/.hg/cache/", "/.hg/wcache/", "/.hg/undo", "/.hg/store/undo", "/.hg/last-message.txt"}
	scope := func(p string) bool {
		for _, s := range skip {
			if strings.HasPrefix(p, a.root()+s) {
				return false
			}
		}
		return true
	}
	// Before the journal is opened nothing in the store has changed: no
	// state reported before that line may be rejected.
	first := lineOf(t, a.trace(), "openat", "/.hg/store/journal")
	for _, p := range []model.Persistence{model.Posix, model.Ext4} {
		res := a.exploreWith(t, p, func(o *Options) {
			o.Scope, o.MaxJoint, o.Samples = scope, 8, 2
		})
		if len(rejections(res, 0, "index 00changelog is corrupted")) == 0 {
			t.Errorf("%s: want a state rejected with \"index 00changelog is corrupted\": %s", p, verdict(res))
		}
		for _, f := range rejections(res, 0, "") {
			if f.Line < first {
				t.Errorf("%s: a state before the journal opens (line %d) rejected at line %d: %s", p, first, f.Line, f.Message)
			}
		}
	}
}

// TestAppsGDBM: gdbmtool -s syncs each store before it returns, and a
// key it said was saved survives; but GDBM's manual says it does not
// protect a database from a crash while it writes unless crash tolerance
// is on, which gdbmtool cannot turn on. A store overwrites the key, the
// value and the bucket in place, then syncs: a crash in between can keep
// the bucket without the key and value, and then gdbmtool cannot list the
// database at all ("Malformed bucket hash entry"), the old keys with it;
// or keep the bucket and the key without the value, and the key reads
// back with the bytes that were there before (zeros). explore must show
// both under posix and ext4, and never a saved key lost. Confirmed by
// hand: the snapshot with only the first store's bucket write (4096
// bytes at offset 8192) applied makes the checker fail with that
// message, and with every write of the first store but the value's,
// with "items neither stored before nor by the run: k04 \000\000\000".
func TestAppsGDBM(t *testing.T) {
	a := app{"gdbm-store", []string{"gdbmtool"}}
	a.skipUnless(t)
	t.Parallel()
	for _, p := range []model.Persistence{model.Posix, model.Ext4} {
		res := a.explore(t, p)
		for _, want := range []string{"Malformed bucket hash entry", "items neither stored before nor by the run: k04 \\000\\000\\000"} {
			if len(rejections(res, 0, want)) == 0 {
				t.Errorf("%s: want a state rejected with %q: %s", p, want, verdict(res))
			}
		}
		if lost := rejections(res, 0, "but gdbmtool had saved it"); len(lost) > 0 {
			t.Errorf("%s: a saved key is lost at line %d: %s", p, lost[0].Line, lost[0].Message)
		}
	}
}

// TestAppsDpkg: dpkg syncs every file it unpacks and each note of its
// progress, but never a directory it makes or renames a file into.
// Under posix a crash after the database says "install ok installed"
// can lose the names of the package's files: dpkg --verify finds them
// missing. Under ext4, whose journal commits entry operations in order,
// the sync of the database makes them durable, and every state is
// accepted. Confirmed by hand: the installed tree with a.txt back at
// a.txt.dpkg-new makes the checker print "crashdemo is installed, but
// dpkg --verify says: missing /usr/share/demo/a.txt".
func TestAppsDpkg(t *testing.T) {
	a := app{"dpkg-install", []string{"dpkg", "dpkg-query"}}
	a.skipUnless(t)
	t.Parallel()
	res := a.explore(t, model.Posix)
	if len(rejections(res, 0, "crashdemo is installed, but dpkg --verify says: missing")) == 0 {
		t.Errorf("want a state with crashdemo installed and a file of it missing: %s", verdict(res))
	}
	// Every rejection is that loss (explore keeps the end of a long
	// message: dpkg --verify's lines).
	for _, f := range rejections(res, 0, "") {
		if !strings.Contains(f.Message, "missing     /usr/") {
			t.Errorf("unexpected rejection at line %d: %s", f.Line, f.Message)
		}
	}
	requireClean(t, a.explore(t, model.Ext4))
}

// TestAppsLMDB: LMDB commits are atomic and durable (pages synced before
// the meta page, written O_DSYNC); every state of the load is accepted.
// (lock.mdb is mapped shared: the reader table, set up again on open.)
func TestAppsLMDB(t *testing.T) {
	a := app{"lmdb-load", []string{"mdb_dump"}}
	a.skipUnless(t)
	t.Parallel()
	requireClean(t, a.explore(t, model.Posix))
}

// TestAppsBDB: Berkeley DB's write-ahead log makes a transaction durable
// when DB_TXN->commit returns (the default: the log is written and
// fdatasynced first), and normal recovery (db_recover) redoes committed
// changes a crash kept from the database file and drops a torn log tail.
// In the trace each commit is one pwrite into the log, inside a log file
// already 10 MB long, then an fdatasync; closing data.db writes its one
// changed page in place and fdatasyncs it. Every write lies within one
// 4096-byte page, which the models persist whole, and explore finds every
// state accepted under posix and ext4: recovery, db_verify and db_dump
// give k01..k03 and every key whose "saved" line the crash came after.
// The state that needs recovery most, all three commits in the log and
// data.db's page not on disk (a crash right after its pwrite64), is
// checked there. Confirmed by hand, as user nobody: that state, and the
// snapshot with only a 200-byte prefix of the first log write, are
// accepted; and the checker can reject: the snapshot with k04's log write
// dropped, checked at the line after its "saved k04", gives "k04 is gone",
// and only the first 512 bytes of the page write applied (a sector-level
// tear, which no model here builds) gives db5.3_verify's "item 6 of
// unrecognizable type".
func TestAppsBDB(t *testing.T) {
	a := app{"bdb-txn", []string{"db5.3_recover", "db5.3_verify", "db5.3_dump"}}
	a.skipUnless(t)
	t.Parallel()
	page := lineOfFD(t, a.trace(), "pwrite64", "/data.db")
	for _, p := range []model.Persistence{model.Posix, model.Ext4} {
		res := a.explore(t, p)
		requireClean(t, res)
		checked := false
		for _, ps := range res.PointStats {
			if ps.Line == page && ps.Built >= 2 && ps.Checked >= 1 {
				checked = true
			}
		}
		if !checked {
			t.Errorf("%s: want the states after data.db's page write (line %d), one without it, built and checked: %s", p, page, verdict(res))
		}
	}
}

// TestAppsLevelDB: LevelDB, opened through plyvel, points CURRENT at a new
// manifest with a rename and then unlinks the old manifest, with no
// directory fsync after either. Under posix the unlink can persist without
// the rename: CURRENT names a manifest that is gone, and the database does
// not open. That state exists only after the unlink, so it is rejected
// there. Confirmed by hand: the snapshot with MANIFEST-000002 removed and
// the new files in place (CURRENT still the old one) makes plyvel fail
// with "CURRENT points to a non-existent file". Under ext4, whose journal
// commits entry operations in order, the unlink cannot persist without
// the rename, and every state opens with every saved key.
func TestAppsLevelDB(t *testing.T) {
	a := app{"leveldb-open", []string{"/usr/bin/python3"}}
	a.skipUnless(t)
	t.Parallel()
	if err := exec.Command("/usr/bin/python3", "-c", "import plyvel").Run(); err != nil {
		t.Skip("python3-plyvel is not installed for /usr/bin/python3")
	}
	unlink := lineOf(t, a.trace(), "unlink", "MANIFEST-000002")
	res := a.explore(t, model.Posix)
	if len(rejections(res, unlink, "CURRENT points to a non-existent file")) == 0 {
		t.Errorf("want a state after the old manifest's unlink (line %d) rejected, CURRENT naming it: %s", unlink, verdict(res))
	}
	for _, f := range rejections(res, 0, "") {
		if f.Line < unlink && strings.Contains(f.Message, "CURRENT points to") {
			t.Errorf("a state before the unlink (line %d) rejected for CURRENT: %s", f.Line, f.Message)
		}
		if strings.Contains(f.Message, "is gone after a crash") {
			t.Errorf("a key put with sync=True is lost: line %d: %s", f.Line, f.Message)
		}
	}
	requireClean(t, a.explore(t, model.Ext4))
}

// TestAppsRedisAOF: with appendfsync always each SET is in the AOF and
// fsynced before its reply, and Redis drops a truncated last command on
// load. What explore finds under posix is a tail of zeros: the AOF's new
// size reached the disk and the appended bytes did not, which the posix
// model allows between a write and its fdatasync. Redis refuses to load
// such a file ("Bad file format reading the append only file ... use
// redis-check-aof --fix"), so a crash during a SET, before its reply,
// leaves a server that does not start. Confirmed by hand: the snapshot's
// AOF with k1's command and 29 zero bytes appended makes redis-server
// exit with that message, while the same AOF cut inside k2's command
// loads (aof-load-truncated).
func TestAppsRedisAOF(t *testing.T) {
	a := app{"redis-aof-always", []string{"redis-server", "redis-cli"}}
	a.skipUnless(t)
	t.Parallel()
	res := a.explore(t, model.Posix)
	if len(rejections(res, 0, "Bad file format")) == 0 {
		t.Errorf("want states with a zero-filled AOF tail rejected (Redis refuses to load them): %s", verdict(res))
	}
	// Never an acknowledged SET lost: the AOF is synced before each reply.
	if lost := rejections(res, 0, "but the server had replied OK"); len(lost) > 0 {
		t.Errorf("an acknowledged SET is lost at line %d: %s", lost[0].Line, lost[0].Message)
	}
}

// TestAppsPostgres: a commit returns only after its WAL is flushed, and
// recovery replays the WAL; every state is accepted. postgres does not run
// as root, so explore runs as another user: as root, the crashsim binary
// (built here) runs as user postgres. pg_stat is left out: PostgreSQL
// resets statistics after a crash.
func TestAppsPostgres(t *testing.T) {
	a := app{"postgres-commit", nil}
	a.skipUnless(t)
	t.Parallel()
	for _, p := range []string{"/usr/lib/postgresql/15/bin/postgres", "/usr/lib/postgresql/15/bin/pg_checksums"} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s is not installed", p)
		}
	}
	var runAs []string
	uid, gid := -1, -1
	if os.Getuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root and there is no user postgres to run postgres as")
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		runAs = []string{"setpriv", "--reuid=" + u.Uid, "--regid=" + u.Gid, "--init-groups"}
		if out, _ := exec.Command("setpriv", "--help").Output(); bytes.Contains(out, []byte("--pdeathsig")) {
			// The change of user clears the parent-death signal the
			// command below sets: setpriv sets it again for explore.
			runAs = append(runAs, "--pdeathsig=KILL")
		}
	}
	// Everything the other user touches: readable, and the snapshot and
	// work directory its own. top is a directory below memTempDir's, so
	// that the chmod below never reaches /dev/shm itself.
	top := filepath.Join(memTempDir(t), "top")
	if err := os.Mkdir(top, 0o700); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(top, "crashsim")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/crashsim/crashsim/cmd/crashsim").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	snap, work := filepath.Join(top, "snap"), filepath.Join(top, "work")
	for _, d := range []string{snap, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("tar", "-C", snap, "-xJf", filepath.Join(a.dir(), "initial.tar.xz")).CombinedOutput(); err != nil {
		t.Fatalf("extracting the snapshot: %v: %s", err, out)
	}
	if uid >= 0 {
		for _, d := range []string{filepath.Dir(top), top} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if out, err := exec.Command("chown", "-R", fmt.Sprintf("%d:%d", uid, gid), snap, work).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v: %s", err, out)
		}
	}
	args := append(runAs, bin, "explore", "--format", "json", "--timeout", "60s",
		"--root", a.root(), "--initial", snap, "--work-dir", work,
		"--ignore", a.root()+"/pgdata/pg_stat", "--checker", a.checker(), a.trace())
	cmd := exec.Command(args[0], args[1:]...)
	// Killed with the test: a test binary killed (a timeout, ^C) leaves no
	// explore running; explore, killed, leaves nothing of its own.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var report struct {
		Findings []struct {
			Rule    string `json:"rule"`
			Line    int    `json:"line"`
			Message string `json:"message"`
		} `json:"findings"`
	}
	if jerr := json.Unmarshal(stdout.Bytes(), &report); jerr != nil {
		t.Fatalf("explore: %v, report %v:\n%s", err, jerr, stderr.String())
	}
	for _, f := range report.Findings {
		t.Errorf("line %d: %s: %s", f.Line, f.Rule, f.Message)
	}
	m := regexp.MustCompile(`the checker ran on (\d+) and rejected (\d+)`).FindStringSubmatch(stderr.String())
	if m == nil || m[1] == "0" {
		t.Errorf("the checker ran on no state:\n%s", stderr.String())
	}
	if err != nil {
		t.Errorf("explore: %v\n%s", err, stderr.String())
	}
}

// TestAppsBbolt: bbolt (go.etcd.io/bbolt, a Go embedded database) with its
// default options promises that a read-write transaction is durable once
// DB.Update returns: the commit writes its new pages (copy-on-write),
// fdatasyncs, writes a meta page (one of two, with a checksum) and
// fdatasyncs again; the open that creates the file writes its first four
// pages and fdatasyncs them. It never fsyncs the directory. The traced
// program (fixtures/apps/bbolt-put/prog, built here: a module of its own)
// is a multi-threaded Go binary that creates db.bolt and puts k01..k04.
//
// What explore finds: no commit is ever torn or lost while db.bolt is
// there (the copy-on-write pages and the meta checksums hold), but
//   - under posix, db.bolt itself can be missing after every "saved kNN"
//     (its name was never synced): the checker says every saved key is
//     lost. Under ext4 the fdatasync of the new file commits its name;
//   - under posix and ext4, a crash between the open's 16384-byte write
//     and its fdatasync can leave db.bolt 4096 bytes long ("file size too
//     small 4096") or its size with zeros ("invalid database"): bbolt then
//     refuses the file, and the program cannot start again until someone
//     removes it, though no key had been saved.
//
// Confirmed by hand: with the snapshot (an empty directory) as it is, the
// checker at the trace's last line prints "db.bolt does not exist after a
// crash at line N, but the run had printed "saved k04" ...: the saved keys
// are lost"; a db.bolt of the first 4096 bytes of the open's write, and
// one of 16384 zero bytes, make it fail with "file size too small 4096"
// and "invalid database", and the program's own put (a read-write open)
// fails the same way; a db.bolt with every write of the trace applied
// (and the ftruncate) holds k01..k04 and is accepted, and one with only
// k01's commit is accepted before "saved k02" and rejected after it.
func TestAppsBbolt(t *testing.T) {
	a := app{"bbolt-put", []string{"go"}}
	a.skipUnless(t)
	prog := buildBboltProg(t, a)
	// The checker runs as a user of its own: the program's directory (a
	// test's temporary one, closed to others) is shown to it read-only.
	t.Setenv(ReadableEnv, filepath.Dir(prog))
	checker := a.checker() + " " + prog

	saved := savedLines(t, a)
	created := lineOf(t, a.trace(), "openat", "db.bolt")
	// The kinds of rejection each model must show, and the only ones.
	initWindow := []string{"bbolt cannot open db.bolt: file size too small 4096", "bbolt cannot open db.bolt: invalid database"}
	missing := "db.bolt does not exist after a crash at line"
	for _, tc := range []struct {
		p    model.Persistence
		want []string
	}{
		{model.Posix, append([]string{missing}, initWindow...)},
		{model.Ext4, initWindow},
	} {
		res := a.exploreWith(t, tc.p, func(o *Options) { o.Checker = checker })
		if res.Checked == 0 {
			t.Fatalf("%s: the checker ran on no state: %s", tc.p, verdict(res))
		}
		for _, want := range tc.want {
			if len(rejections(res, 0, want)) == 0 {
				t.Errorf("%s: want a state rejected with %q: %s", tc.p, want, verdict(res))
			}
		}
		for _, f := range rejections(res, 0, "") {
			kind := ""
			for _, want := range tc.want {
				if strings.Contains(f.Message, want) {
					kind = want
				}
			}
			switch {
			case kind == "":
				t.Errorf("%s: unexpected rejection at line %d: %s", tc.p, f.Line, f.Message)
			case kind == missing && f.Line < saved[0]:
				t.Errorf("%s: db.bolt missing rejected before the first save (line %d): line %d: %s", tc.p, saved[0], f.Line, f.Message)
			case kind != missing && (f.Line < created || f.Line >= saved[0]):
				// Only the open's first write can leave such a file.
				t.Errorf("%s: a file bbolt refuses, outside the open's first write (lines %d to %d): line %d: %s", tc.p, created, saved[0], f.Line, f.Message)
			}
		}
	}
}

// buildBboltProg builds fixtures/apps/bbolt-put/prog into a temporary
// directory and returns the program's path. It skips the test when the
// module's dependencies cannot be had (no module proxy, nothing cached).
func buildBboltProg(t *testing.T, a app) string {
	t.Helper()
	src := filepath.Join(a.dir(), "prog")
	env := append(os.Environ(), "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS=-mod=readonly -buildvcs=false")
	dl := exec.Command("go", "mod", "download")
	dl.Dir, dl.Env = src, env
	if out, err := dl.CombinedOutput(); err != nil {
		t.Skipf("the modules of %s (go.etcd.io/bbolt) are not in the module cache and cannot be downloaded (%v): %s", src, err, bytes.TrimSpace(out))
	}
	prog := filepath.Join(t.TempDir(), "bbolt-put")
	build := exec.Command("go", "build", "-o", prog, ".")
	build.Dir, build.Env = src, env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of %s: %v: %s", src, err, out)
	}
	return prog
}

// savedLines reads SAVED_LINES from the case's durable.env.
func savedLines(t *testing.T, a app) []int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(a.dir(), "durable.env"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^SAVED_LINES="([0-9 ]+)"$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no SAVED_LINES", a.name)
	}
	var out []int
	for _, f := range strings.Fields(string(m[1])) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// TestAppsVim: vim saving a user's file with :wq, as vim does by default
// for a file in the user's home (-u DEFAULTS, so defaults.vim and no vimrc;
// backupskip emptied, as its default skips the backup of files under /tmp,
// where the case lives; swap file on). With writebackup and
// backupcopy=auto, vim renames notes.txt to notes.txt~, creates a new
// notes.txt, truncates it, writes the text in one call (6609 bytes: two
// pages), fsyncs it ('fsync' is on), then unlinks notes.txt~ and exits.
// It never fsyncs the directory, and writes only the swap file's first
// block (no text: vim -r has nothing to recover here, and no message
// offers it). What vim promises: :wq returns once the file is written and
// fsynced; the backup exists so that a write that fails leaves the old
// text in notes.txt~. The checker wants notes.txt whole, old or new, at
// every crash, and new once vim has exited.
//
// What explore finds (a state is checked at the last crash point that can
// leave it, CRASHSIM_CRASH_LINE):
//   - under ext4, between the rename and the fsync, notes.txt missing
//     (the rename committed, not the create), empty, 6609 zero bytes (the
//     size committed before the data) or the new text's first page alone;
//     each time notes.txt~ holds the old text, from which the user can get
//     it back by hand. The fsync commits the rename and the create with
//     it: no state after it is rejected, and vim's exit is durable;
//   - under posix, the same before the exit (the zero-filled file at a
//     sampled crash point, from the family of each write's size without
//     its data), and after it notes.txt can still
//     hold the old text, or be missing (the rename durable, the create
//     not), with notes.txt~ holding the old text or, when its unlink
//     persisted, with nothing left at all: no directory fsync orders them.
//     The data can be wrong only before the fsync.
//
// The posix model also builds, before the fsync, notes.txt empty with no
// notes.txt~ at all: the create persisted and the rename did not, and the
// old file is named by nothing. Under posix the entry operations of
// different names persist in any subset, and each name shows the last of
// its own that did (a directory whose entries sit in several blocks,
// written back without a journal); the ordered models exclude it. The
// test neither requires nor forbids it.
//
// Confirmed by hand: the snapshot with notes.txt renamed to notes.txt~,
// and then an empty notes.txt, 6609 zero bytes, or the first 4096 bytes of
// the trace's write at notes.txt, checked at the write's line, gives the
// window's four messages; the snapshot as it is, checked at the exit
// line, gives "the save is lost"; renamed only, "missing ... after vim had
// written it and exited", with notes.txt~ or, removed, without; the
// trace's whole write at notes.txt is accepted before and after the exit,
// with or without notes.txt~, and the old text before it.
func TestAppsVim(t *testing.T) {
	a := app{"vim-save", []string{"cmp"}}
	a.skipUnless(t)
	t.Parallel()
	exit := exitLine(t, a)
	rename := lineOf(t, a.trace(), "rename", "notes.txt")
	fsync := lineOfFD(t, a.trace(), "fsync", "/notes.txt")
	const (
		missing = "notes.txt is missing after a crash at line"
		empty   = "notes.txt is empty after a crash at line"
		zeros   = "notes.txt is 6609 zero bytes after a crash at line"
		short   = "notes.txt holds neither the old text nor the new (4096 bytes: the new text cut short)"
		lost    = "notes.txt holds the old text after a crash at line"
		backup  = "notes.txt~ holds the old text: the user can recover it from there"
		exited  = "after vim had written it and exited"
	)
	for _, tc := range []struct {
		p      model.Persistence
		during []string // rejections that must come before vim's exit, notes.txt~ holding the old text
		after  []string // and after it
	}{
		{model.Ext4, []string{missing, empty, zeros, short}, nil},
		{model.Posix, []string{missing, empty, zeros, short}, []string{lost, missing}},
	} {
		res := a.explore(t, tc.p)
		if res.Checked == 0 {
			t.Fatalf("%s: the checker ran on no state: %s", tc.p, verdict(res))
		}
		for _, want := range tc.during {
			found := false
			for _, f := range rejections(res, rename, want) {
				found = found || f.Line < exit && strings.Contains(f.Message, backup)
			}
			if !found {
				t.Errorf("%s: want a state between the rename (line %d) and vim's exit (line %d) rejected with %q, notes.txt~ holding the old text: %s", tc.p, rename, exit, want, verdict(res))
			}
		}
		for _, want := range tc.after {
			found := false
			for _, f := range rejections(res, exit, want) {
				found = found || strings.Contains(f.Message, exited)
			}
			if !found {
				t.Errorf("%s: want a state after vim's exit (line %d) rejected with %q: %s", tc.p, exit, want, verdict(res))
			}
		}
		// A state is reported at the last crash point that can leave it.
		for _, f := range rejections(res, 0, "") {
			switch {
			case !containsAny(f.Message, missing, empty, zeros, short, lost):
				t.Errorf("%s: unexpected rejection at line %d: %s", tc.p, f.Line, f.Message)
			case f.Line < rename:
				t.Errorf("%s: a state before the rename (line %d) rejected at line %d: %s", tc.p, rename, f.Line, f.Message)
			case tc.p == model.Ext4 && f.Line >= fsync:
				t.Errorf("%s: a state after the fsync (line %d), which commits the rename and the create, rejected at line %d: %s", tc.p, fsync, f.Line, f.Message)
			case containsAny(f.Message, empty, zeros, short) && f.Line >= fsync:
				t.Errorf("%s: notes.txt's data, fsynced at line %d, not on disk at line %d: %s", tc.p, fsync, f.Line, f.Message)
			}
		}
	}
}

// TestAppsVimNoWritebackup: the same save by a user whose vimrc says "set
// nobackup nowritebackup" (vim does the same, by default, for a file under
// /tmp). With no backup to make, vim first fsyncs its swap file, which
// holds the buffer's text (so that vim -r can recover it), then opens
// notes.txt, truncates it, writes the text in place and fsyncs it. The
// checker is vim-save's.
//
// What explore finds: under ext4 and posix, between the truncation and the
// fsync, notes.txt empty, 6609 zero bytes or the new text's first page
// alone, the old text gone with no backup; after the fsync nothing (the
// name never changes), so the save holds once :wq returns. Under ext4 the
// swap file's fsync commits its name too, and vim -r recovers the new
// text from it in every rejected state; under posix its name was never
// synced, and some states have no swap file to recover from.
//
// Confirmed by hand: the snapshot with the swap file as the trace's writes
// up to its fsync leave it, and notes.txt empty, 6609 zero bytes or the
// first 4096 bytes of the trace's write, checked at the write's line, gives
// those three messages, each with "vim -r notes.txt recovers the new text
// from .notes.txt.swp"; without the swap file, the message has no such
// note; the trace's whole write at notes.txt is accepted after the exit.
func TestAppsVimNoWritebackup(t *testing.T) {
	a := app{"vim-nowritebackup", []string{"cmp", "vim"}}
	a.skipUnless(t)
	t.Parallel()
	trunc := lineOfFD(t, a.trace(), "ftruncate", "/notes.txt")
	fsync := lineOfFD(t, a.trace(), "fsync", "/notes.txt")
	const (
		empty   = "notes.txt is empty after a crash at line"
		zeros   = "notes.txt is 6609 zero bytes after a crash at line"
		short   = "notes.txt holds neither the old text nor the new (4096 bytes: the new text cut short)"
		recover = "vim -r notes.txt recovers the new text from .notes.txt.swp"
	)
	for _, p := range []model.Persistence{model.Ext4, model.Posix} {
		res := a.explore(t, p)
		if res.Checked == 0 {
			t.Fatalf("%s: the checker ran on no state: %s", p, verdict(res))
		}
		for _, want := range []string{empty, zeros, short} {
			if len(rejections(res, trunc, want)) == 0 {
				t.Errorf("%s: want a state after the truncation (line %d) rejected with %q: %s", p, trunc, want, verdict(res))
			}
		}
		noSwap := 0
		for _, f := range rejections(res, 0, "") {
			switch {
			case !containsAny(f.Message, empty, zeros, short):
				t.Errorf("%s: unexpected rejection at line %d: %s", p, f.Line, f.Message)
			case f.Line < trunc || f.Line >= fsync:
				t.Errorf("%s: a state outside the truncation (line %d) to the fsync (line %d) rejected at line %d: %s", p, trunc, fsync, f.Line, f.Message)
			case !strings.Contains(f.Message, recover):
				noSwap++
				if p == model.Ext4 {
					t.Errorf("%s: the swap file, fsynced before the truncation, does not give the new text back at line %d: %s", p, f.Line, f.Message)
				}
			}
		}
		if p == model.Posix && noSwap == 0 {
			t.Errorf("%s: want a state with no swap file to recover from (its name never synced): %s", p, verdict(res))
		}
	}
}

// containsAny reports whether s contains one of subs.
func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// exitLine reads EXIT_LINE from the case's durable.env.
func exitLine(t *testing.T, a app) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(a.dir(), "durable.env"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^EXIT_LINE=([0-9]+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no EXIT_LINE", a.name)
	}
	n, err := strconv.Atoi(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAppsEtcd: etcd (3.4, Debian's etcd-server) acknowledges a put once
// its entry is committed, and a single member commits an entry once it has
// appended it to its write-ahead log and fdatasynced it; the key-value
// store (member/snap/db, bbolt) is written behind in batches and caught
// up from the WAL on restart, and a WAL whose tail is torn or zeros is cut
// back to its last whole record. So an acknowledged put survives a power
// cut. The trace is a multi-threaded Go server restarted on a member that
// holds k01 and k02, serving three puts (k03..k05) from etcdctl, then
// stopped by SIGTERM; the checker restarts it on each state and reads
// every key.
//
// What explore finds: every state accepted, under posix (3773 states, 352
// distinct, exhaustively) and ext4 (455, 92 distinct). No name in data/
// changes but wal/0.tmp (the next segment, preallocated, never renamed
// into place here); every append is fdatasynced before its reply; and a
// state that keeps an append's new size without its bytes (posix) leaves
// zeros, which etcd reads as the WAL's end.
//
// Confirmed by hand: the snapshot's WAL with the trace's appends written
// at the offset etcd's ftruncate left (the store as in the snapshot, so
// etcd must replay them) holds k01..k05 and is accepted; with the appends
// up to k03's only, it is accepted before k04's reply and rejected after
// it ("k04 is gone after a crash at line ..."); with k04's record as zeros
// of its length, likewise; with k03's as zeros, rejected after k03's
// reply. explore builds no such state after a reply.
//
// wal/0.tmp is left out: etcd reads no .tmp file (a restart preallocates
// a new one), and its 64 MB in every state cost as much as the rest. Under
// posix each crash point builds at most 16 states (4 random): explored
// whole, posix takes about 70 seconds on two CPUs and ext4 20; the test
// about 40.
func TestAppsEtcd(t *testing.T) {
	a := app{"etcd-put", []string{"etcd", "etcdctl"}}
	a.skipUnless(t)
	t.Parallel()
	tmp := a.root() + "/data/member/wal/"
	scope := func(p string) bool {
		return !(strings.HasPrefix(p, tmp) && strings.HasSuffix(p, ".tmp"))
	}
	acked := keyLines(t, a, "k03", "k04", "k05")
	for _, p := range []model.Persistence{model.Posix, model.Ext4} {
		res := a.exploreWith(t, p, func(o *Options) {
			o.Scope = scope
			if p == model.Posix {
				o.MaxJoint, o.Samples = 16, 4
			}
		})
		requireClean(t, res)
		// States where each put had been acknowledged were checked: the
		// checker's demand that the key be there was put to the test.
		for k, line := range acked {
			checked := 0
			for _, ps := range res.PointStats {
				if ps.Line >= line {
					checked += ps.Checked
				}
			}
			if checked == 0 {
				t.Errorf("%s: no state checked at or after line %d, where etcd acknowledged %s: %s", p, line, k, verdict(res))
			}
		}
	}
}

// keyLines reads the KNN_LINE=L lines of a case's durable.env: the line
// where the program told its user each key was saved (etcd's reply to a
// put, ldb's "OK"), by key ("k03"). It fails unless they are the keys
// want names.
func keyLines(t *testing.T, a app, want ...string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(a.dir(), "durable.env"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^K(\d+)_LINE=(\d+)$`).FindAllSubmatch(b, -1) {
		n, _ := strconv.Atoi(string(m[2]))
		out["k"+string(m[1])] = n
	}
	var got []string
	for k := range out {
		got = append(got, k)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("%s: durable.env names keys %v, want %v", a.name, got, want)
	}
	return out
}

// TestAppsRestic: restic 0.14 backs up a small directory into a
// repository that holds one snapshot of it already. Every file restic
// puts in the repository (its lock, two packs written by two goroutines
// at once, an index, the snapshot) goes to NAME-tmp-N first, is fsynced,
// renamed to NAME, and its directory fsynced, before the next one is
// started; "snapshot ID saved" follows the snapshot's directory fsync.
// Only the lock's removal at the end is never synced, so a crash after
// the run can leave a stale lock (check's name-not-synced in want), which
// the checker ignores (--no-lock): `restic unlock` is what a user runs
// for it. So no state is rejected under either model: before the
// snapshot's rename the repository holds the old snapshot and, at most,
// packs and an index that nothing names yet (restic check calls them
// harmless), and from the message on the new snapshot is always there.
//
// The exploration leaves out the NAME-tmp-N files: restic lists only
// names that parse as IDs, so a leftover temporary file of any content is
// ignored (checked by hand: an empty, a zero-filled and a whole NAME-tmp-N
// beside each new pack and the index, and the snapshot's under a
// temporary name only, pass the checker). With them the states are 34 (posix) and 30 (ext4)
// distinct, all accepted (RECORD's explore command), which takes longer
// than this test may: the checker runs restic three times per state, each
// run deriving the key with scrypt.
//
// Confirmed by hand that the checker rejects what it must: the snapshot
// as it was before the run, checked at SAVED_LINE ("snapshot ... is
// gone"); the final repository with the index removed ("restic check
// --read-data fails: ... not found in repository"), with the snapshot
// file emptied ("invalid data returned"), with a pack emptied (restic
// retries its reads; "did not finish in 40 seconds"), and with a file of
// data/ changed after the backup ("does not hold the files of data/").
func TestAppsRestic(t *testing.T) {
	a := app{"restic-backup", []string{"restic", "timeout", "diff"}}
	a.skipUnless(t)
	t.Parallel()
	saved := resticSavedLine(t, a)
	for _, p := range []model.Persistence{model.Posix, model.Ext4} {
		res := a.exploreWith(t, p, func(o *Options) {
			o.Scope = func(path string) bool { return !strings.Contains(path, "-tmp-") }
		})
		requireClean(t, res)
		// Both sides of the promise were put to the test: states where
		// the new snapshot may be missing, and states a crash after the
		// message leaves, where the checker demands it. A state is checked
		// with the end of its point's span as the crash line: the line
		// before the next point, or the trace's end for the last point
		// (the lock's unlinkat, begun just before the message).
		before, after := 0, 0
		for i, ps := range res.PointStats {
			if i+1 == len(res.PointStats) || res.PointStats[i+1].Line > saved {
				after += ps.Checked
			} else {
				before += ps.Checked
			}
		}
		if before == 0 || after == 0 {
			t.Errorf("%s: %d states checked at crash lines before line %d (\"snapshot ... saved\") and %d at or after it, want some of both: %s", p, before, saved, after, verdict(res))
		}
	}
}

// resticSavedLine reads SAVED_LINE from restic-backup's durable.env: the
// line where restic printed "snapshot ID saved".
func resticSavedLine(t *testing.T, a app) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(a.dir(), "durable.env"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^SAVED_LINE=(\d+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no SAVED_LINE in durable.env", a.name)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// TestAppsBorg: borg create (BorgBackup 1.2, Debian's borgbackup) stores
// archive a2 in a repository that holds a1. A repository is a log of
// segment files, and borg commits a transaction by writing a segment
// that holds only a commit tag; the index, hints and integrity files are
// rebuilt from the segments when they are older than the last commit.
// borg fdatasyncs every segment and fsyncs its directory before it
// writes the next, then writes the index files as .tmp files, fsyncs
// them, renames them into place and fsyncs repo/ (COMMIT_LINE in
// durable.env, the end of the commit). The checker (borg check, list and
// extract, run in one Python process) requires a1, a2 from COMMIT_LINE
// on, and each file's text in each archive.
//
// What explore finds: every state accepted, under posix (433 states, 136
// distinct, explored whole) and ext4 (111, 41 distinct). The states
// before the commit tag's segment is on disk hold a1 only (borg check
// ignores a segment after the last commit tag, torn or zeros); the ones
// after it hold a2 whether or not the index files made it (borg replays
// the segments after the last index).
//
// The cache (home/.cache) is left out. borg copies its files into
// txn.active with sendfile, whose bytes no trace shows; they come from
// cache files the trace had not changed, so explore builds them from the
// snapshot (it refused to, blind-no-data, until it could), but in scope
// the cache multiplies the states (up to 2016 at a crash point under
// ext4), and this checker runs no second borg create, which is what the
// cache breaks. Built by hand, the posix state after the cache's commit
// (txn.active back, its copies empty: never synced) passes the checker,
// but the next borg create rolls the cache back from txn.active and fails
// ("config does not look like a Borg cache"), and so does every borg list
// after it, until the cache is deleted: no archive is lost. The repository's lock files
// are left out too: the checker breaks a lock it finds (borg break-lock).
//
// Explored whole, posix takes about two minutes on two CPUs and ext4
// half a minute: the test checks one distinct state in ten under posix
// (at most 8 states a crash point, 2 random) and one in five under ext4,
// states after the commit among them.
func TestAppsBorg(t *testing.T) {
	a := app{"borg-create", []string{"/usr/bin/borg", "/usr/bin/python3"}}
	a.skipUnless(t)
	t.Parallel()
	r := a.root()
	scope := func(p string) bool {
		return !strings.HasPrefix(p, r+"/home/.cache/") && !strings.HasPrefix(p, r+"/repo/lock.")
	}
	commit := durableLine(t, a, "COMMIT_LINE")
	for _, p := range []model.Persistence{model.Posix, model.Ext4} {
		res := a.exploreWith(t, p, func(o *Options) {
			o.Scope = scope
			o.Shards, o.Shard = 5, 1
			if p == model.Posix {
				o.MaxJoint, o.Samples, o.Shards = 8, 2, 10
			}
		})
		t.Logf("%s: %s", p, verdict(res))
		requireClean(t, res)
		// States after the commit were checked: the checker's demand
		// that a2 be there was put to the test.
		checked := 0
		for _, ps := range res.PointStats {
			if ps.Line >= commit {
				checked += ps.Checked
			}
		}
		if checked == 0 {
			t.Errorf("%s: no state checked at or after line %d, where borg's commit ended: %s", p, commit, verdict(res))
		}
	}
}

// durableLine reads NAME=LINE from the case's durable.env.
func durableLine(t *testing.T, a app, name string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(a.dir(), "durable.env"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `=([0-9]+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no %s in durable.env", a.name, name)
	}
	n, err := strconv.Atoi(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAppsRocksDB: ldb (Debian's rocksdb-tools, RocksDB 7.8) puts k04 and
// k05, each printing "OK" once its put has returned, then loads k06 with
// the write-ahead log disabled. ldb has no option for synced writes: a
// put goes to the log with sync=false and ldb exits with it unsynced, so
// a put it said OK to can be lost until the next run's open flushes it
// into a synced table and makes it durable by the directory fsync after
// CURRENT's rename. explore must show that loss, under posix and ext4,
// for k04 and k05, checked at lines from its OK to that directory fsync,
// and never for k06, which closing the database flushed and synced
// before ldb exited. Under posix a crash can also keep the rename of
// CURRENT without the MANIFEST or table created before it (no directory
// fsync between them): ldb checkconsistency then fails, at the renames
// only, and check's rename-before-dir-sync foresees each; ext4 commits those names in order, and there every rejection is
// a lost put. Confirmed by hand, from the snapshot and the trace's bytes:
// the first run whole but its log write makes the checker accept at line
// 1149 and say "k04 is gone" at 1175; the state at the first CURRENT
// rename (line 1062) without MANIFEST-000020, or without 000018.sst,
// fails checkconsistency; the whole trace replayed is the recorded tree
// and is accepted.
//
// RocksDB's info logs (db/LOG, LOG.old.*) are left out: nothing reads
// them, and their unsynced writes and renames multiply the states about
// a thousandfold (ext4: 1.8 million states to 2039). Each crash point
// builds at most 4 states, or the families and 1 random state: explored
// whole, ext4 takes about 20 seconds on two CPUs (201 distinct states)
// and posix, sampled at the default 256, two minutes; the test about 20.
func TestAppsRocksDB(t *testing.T) {
	a := app{"rocksdb-put", []string{"ldb"}}
	a.skipUnless(t)
	t.Parallel()
	db := a.root() + "/db/"
	scope := func(p string) bool { return !strings.HasPrefix(p, db+"LOG") }
	saved := keyLines(t, a, "k04", "k05", "k06")
	// The renames over CURRENT and the directory fsync after each: what a
	// run's open makes durable is durable from the fsync on.
	var renames, dirSyncs []int
	eachEvent(t, a.trace(), func(ev *parser.Event) bool {
		switch {
		case ev.Name == "rename" && ev.OK() && ev.Arg(1).Str == db+"CURRENT":
			renames = append(renames, ev.Pos.Line)
		case ev.Name == "fsync" && ev.OK() && ev.Arg(0).HasAnno && ev.Arg(0).Anno == db[:len(db)-1] && len(dirSyncs) < len(renames):
			dirSyncs = append(dirSyncs, ev.Pos.Line)
		}
		return false
	})
	if len(renames) != 3 || len(dirSyncs) != 3 {
		t.Fatalf("want 3 renames over CURRENT, each followed by a directory fsync: renames %v, fsyncs %v", renames, dirSyncs)
	}
	// k04's put is made durable by the second run's open, k05's by the
	// third's.
	durableAt := map[string]int{"k04": dirSyncs[1], "k05": dirSyncs[2]}
	for _, p := range []model.Persistence{model.Posix, model.Ext4} {
		res := a.exploreWith(t, p, func(o *Options) {
			o.Scope, o.MaxJoint, o.Samples = scope, 4, 1
		})
		t.Logf("%s: %s", p, verdict(res))
		for k, end := range durableAt {
			lost := rejections(res, 0, k+" is gone after a crash")
			if len(lost) == 0 {
				t.Errorf("%s: want a state without %s rejected after its OK (line %d): %s", p, k, saved[k], verdict(res))
			}
			for _, f := range lost {
				if f.Line < saved[k] || f.Line >= end {
					t.Errorf("%s: %s lost at line %d, outside its OK (line %d) to the fsync that makes it durable (line %d): %s", p, k, f.Line, saved[k], end, f.Message)
				}
			}
		}
		if p == model.Posix && len(rejections(res, 0, "No such file or directory")) == 0 {
			t.Errorf("%s: want a state rejected at a rename over CURRENT (lines %v) for a MANIFEST or table it names that is missing: %s", p, renames, verdict(res))
		}
		for _, f := range rejections(res, 0, "") {
			switch {
			case strings.Contains(f.Message, "k04 is gone"), strings.Contains(f.Message, "k05 is gone"):
			// explore keeps the end of a long message: RocksDB's, not
			// the checker's first line.
			case p == model.Posix && strings.Contains(f.Message, "No such file or directory") && slices.Contains(renames, f.Line):
				// check foresees it: the rename outran the new names.
				if !strings.Contains(f.Message, "predicted by") || !strings.Contains(f.Message[strings.LastIndex(f.Message, "predicted by"):], check.RenameBeforeDirSync) {
					t.Errorf("%s: the state rejected at the rename at line %d is not predicted by %s: %s", p, f.Line, check.RenameBeforeDirSync, f.Message)
				}
			default:
				t.Errorf("%s: unexpected rejection at line %d: %s", p, f.Line, f.Message)
			}
		}
	}
}

// TestAppsZooKeeper: a standalone ZooKeeper 3.8 server (Debian's
// zookeeper) answers a create once the transaction is fdatasynced in its
// log (forceSync, the default). The trace is the server restarted on a
// data directory that holds /k01 and /k02, serving three creates
// (/k03../k05) from ZooKeeper's own client, then stopped by SIGTERM; the
// checker restarts it on each state and lists the znodes.
//
// What explore finds, as ALICE did of ZooKeeper, in two problems:
//
//   - Under both models, a crash after the server creates its new log
//     file (log.6) and before the first fdatasync of it leaves the file
//     empty, or without its whole 16-byte header, and ZooKeeper 3.8.0 does
//     not start on it: it reads the header and stops at the
//     EOFException. No create had been answered yet, but the server is
//     down until someone deletes the file by hand. ZooKeeper fixed the
//     empty case in 2024 (ZOOKEEPER-2332: an empty last log is deleted
//     on start).
//   - Under posix only, nothing syncs the directory after log.6 is
//     created (check's name-not-synced), so a crash after the replies can
//     leave log.6 missing, and the creates the server had acknowledged
//     are gone. Under ext4 the fdatasync of the new file commits its name
//     too.
//
// Confirmed by hand: the snapshot with an empty log.6 beside it makes
// ZooKeeper exit at start with java.io.EOFException, and the checker
// print "did not start"; the final files without log.6 make it print
// "k03 is gone".
//
// Each state costs two JVMs (about a second). Explored whole, posix has
// 64 distinct states (24 rejected) and ext4 37 (6 rejected); with at most
// 8 states a crash point under posix (2 random) posix has 44, and the
// test takes 40 to 50 seconds on two CPUs.
func TestAppsZooKeeper(t *testing.T) {
	a := app{"zookeeper-create", []string{"java", "ss", "timeout"}}
	a.skipUnless(t)
	a.skipWithout(t, "/usr/share/java/zookeeper.jar", "zookeeper")
	t.Parallel()
	acked := keyLines(t, a, "k03", "k04", "k05")
	created := lineOf(t, a.trace(), "openat", "/version-2/log.6")
	synced := lineOfFD(t, a.trace(), "fdatasync", "/version-2/log.6")
	if !(created < synced && synced < acked["k03"]) {
		t.Fatalf("want log.6 created (line %d), then fdatasynced (line %d), then k03 acknowledged (line %d)", created, synced, acked["k03"])
	}
	for _, p := range []model.Persistence{model.Posix, model.Ext4} {
		res := a.exploreWith(t, p, func(o *Options) {
			if p == model.Posix {
				o.MaxJoint, o.Samples = 8, 2
			}
		})
		t.Logf("%s: %s", p, verdict(res))
		down := rejections(res, created, "did not start")
		gone := rejections(res, acked["k03"], "k03 is gone")
		if len(down) == 0 {
			t.Errorf("%s: no state after log.6's creation at line %d on which ZooKeeper does not start: %s", p, created, verdict(res))
		}
		for _, f := range down {
			if f.Line >= synced {
				t.Errorf("%s: ZooKeeper does not start after a crash at line %d, after log.6's first fdatasync (line %d): %s", p, f.Line, synced, f.Message)
			}
		}
		if p == model.Posix && len(gone) == 0 {
			t.Errorf("posix: no state after k03's reply (line %d) without it, though nothing syncs log.6's name: %s", acked["k03"], verdict(res))
		}
		if p == model.Ext4 && len(gone) != 0 {
			t.Errorf("ext4: an acknowledged create is gone, though the log's fdatasync commits its name: %s", gone[0].Message)
		}
		if n := len(down) + len(gone); n != len(res.Findings) || res.Failed == 0 {
			t.Errorf("%s: want only those two problems: %s", p, verdict(res))
		}
	}
}

// TestAppsHSQLDB: HSQLDB (2.x, Debian's libhsqldb-java), a Java SQL
// database ALICE studied, promises that with its write delay off a
// commit has synced the log before it returns, and that a database not
// shut down is recovered from that log when it is opened. The trace is a
// program of ours (Prog.java, JDBC) that commits rows 2 and 3 into a
// database holding row 1, one transaction each, then shuts it down; the
// checker opens each state with the same program and reads the rows.
//
// What explore finds: HSQLDB marks the database modified (test.properties,
// modified=yes) after the first commit's log is synced and before the
// commit returns, by writing and fsyncing test.properties.new, unlinking
// test.properties and renaming the new file over it. Nothing syncs the
// directory, so under ext4 too a crash after "committed 2" and before the
// next fsync (row 3's, which commits the journal) can keep the old file,
// modified=no: HSQLDB then takes the database for shut down cleanly,
// does not replay test.log, and row 2 is gone. Under posix more states
// lose it (test.log's own name is never synced), and a crash in the
// shutdown's swap of test.script can leave no script, or no properties,
// and the database does not open (or opens empty).
//
// Confirmed by hand: a run of the same insert and commit stopped by
// Runtime.halt (the files as the page cache holds them) opens with rows 1
// and 2; the same files with the snapshot's test.properties put back open
// with row 1 only. And a real ext4 leaves that state: crashsim oracle
// --fs ext4 --model ext4, with Prog setup as its setup and Prog put as
// its program, found the image frozen right after row 3's log write
// (after "committed 2") holding the old test.properties beside a log
// with row 2, and no state outside the model's (51 crash points).
//
// test.lck, HSQLDB's lock file, is left out: it holds a heartbeat, and a
// lock file built now reads as held by a live process, where a real crash
// leaves an old one that HSQLDB takes over. Under posix each crash point
// builds at most 8 states (2 random): explored so, posix has about 80
// distinct states and ext4 31, and the test takes under 30 seconds on two
// CPUs.
func TestAppsHSQLDB(t *testing.T) {
	a := app{"hsqldb-commit", []string{"java", "javac"}}
	a.skipUnless(t)
	const jar = "/usr/share/java/hsqldb.jar"
	a.skipWithout(t, jar, "libhsqldb-java")
	classes := t.TempDir()
	if out, err := exec.Command("javac", "-d", classes, "-cp", jar, filepath.Join(a.dir(), "Prog.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac of Prog.java: %v: %s", err, out)
	}
	// The checker runs as a user of its own: the classes' directory is
	// made readable to it, as bbolt-put's program is.
	t.Setenv(ReadableEnv, classes)
	saved := savedLines(t, a)
	if len(saved) != 2 {
		t.Fatalf("durable.env: want the lines of 2 commits, got %v", saved)
	}
	lck := a.root() + "/db/test.lck"
	// The two models at once, each checker a JVM of its own: the
	// environment set above is their parent's, so they can run in
	// parallel with each other, not with other tests.
	for _, p := range []model.Persistence{model.Posix, model.Ext4} {
		t.Run(p.String(), func(t *testing.T) {
			t.Parallel()
			res := a.exploreWith(t, p, func(o *Options) {
				o.Checker = a.checker() + " " + classes
				o.Scope = func(path string) bool { return path != lck }
				if p == model.Posix {
					o.MaxJoint, o.Samples = 8, 2
				}
			})
			t.Logf("%s: %s", p, verdict(res))
			gone := rejections(res, saved[0], "row 2 is gone")
			broken := rejections(res, saved[1], "does not open")
			if len(gone) == 0 {
				t.Errorf("%s: no state after row 2's commit returned (line %d) without it: %s", p, saved[0], verdict(res))
			}
			if n := len(gone) + len(broken); n != len(res.Findings) {
				t.Errorf("%s: want only lost commits after their return and databases that do not open after the last: %s", p, verdict(res))
			}
			if p == model.Posix && len(broken) == 0 {
				t.Errorf("posix: no state of the shutdown on which the database does not open: %s", verdict(res))
			}
			if p == model.Ext4 {
				// Only the window between the first commit's return and the
				// next fsync, before row 3's commit returns.
				for _, f := range res.Findings {
					if f.Line >= saved[1] {
						t.Errorf("ext4: a rejection outside row 2's window (lines %d to %d): line %d: %s", saved[0], saved[1], f.Line, f.Message)
					}
				}
			}
		})
	}
}
