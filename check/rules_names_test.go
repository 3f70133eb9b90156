package check

import (
	"strings"
	"testing"
)

// TestNameMovedAwayThenMade: a file moved aside (vim's backup) and made
// again under its name can come back old or be missing after a crash
// until the directory is synced, and name-not-synced says both.
func TestNameMovedAwayThenMade(t *testing.T) {
	text := `1 rename("/w/notes.txt", "/w/notes.txt~") = 0
1 openat(AT_FDCWD, "/w/notes.txt", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3
1 write(3, "new", 3) = 3
1 fsync(3) = 0
1 close(3) = 0
1 unlink("/w/notes.txt~") = 0
`
	existed := func(p string) (bool, bool) { return p == "/w/notes.txt" || p == "/w", true }
	res := runText(t, text, Options{Existed: existed})
	n := 0
	for _, f := range res.findings {
		if f.Rule.ID != NameNotSynced || f.Path != "/w/notes.txt" {
			continue
		}
		n++
		if !strings.Contains(f.Message, "notes.txt can name its old file again after a crash, or be missing:") {
			t.Errorf("message %q, want it to say notes.txt can be old or missing", f.Message)
		}
	}
	if n != 1 {
		t.Fatalf("%d name-not-synced findings of /w/notes.txt, want 1", n)
	}
}

// TestNameRenameIntoSyncedDir: FSFS renames a revision from
// txn-protorevs into revs/0 and fsyncs revs/0 only. That fsync makes the
// new name durable (fsync(2): syncing the directory that holds an entry
// makes it durable), so revs/1 gets no name-not-synced finding; the old
// name, whose directory was never synced, can still show the file too,
// which cross-dir-rename says.
func TestNameRenameIntoSyncedDir(t *testing.T) {
	text := `1 openat(AT_FDCWD, "/r/protorevs/0-0.rev", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3
1 write(3, "rev", 3) = 3
1 fdatasync(3) = 0
1 close(3) = 0
1 rename("/r/protorevs/0-0.rev", "/r/revs/1") = 0
1 openat(AT_FDCWD, "/r/revs", O_RDONLY|O_CLOEXEC) = 3
1 fdatasync(3) = 0
1 close(3) = 0
1 exit_group(0) = ?
1 +++ exited with 0 +++
`
	existed := func(p string) (bool, bool) {
		return p == "/r" || p == "/r/protorevs" || p == "/r/revs", true
	}
	res := runText(t, text, Options{Existed: existed})
	crossDir := false
	for _, f := range res.findings {
		switch f.Rule.ID {
		case NameNotSynced:
			if f.Path == "/r/revs/1" {
				t.Errorf("%s: %q, but its directory was fsynced after the rename", f.Path, f.Message)
			}
		case CrossDirRename:
			crossDir = true
			if !strings.Contains(f.Message, "/r/protorevs") {
				t.Errorf("%s: message %q, want it to name protorevs, where the old name can stay", f.Path, f.Message)
			}
		}
	}
	if !crossDir {
		t.Error("no cross-dir-rename finding: the rename's source directory was never synced")
	}
}

// TestNameOfSocket: a server's socket made by bind, or removed at its
// shutdown (after a directory sync made it durable), in a directory not
// synced after, is name-not-synced at info: a
// socket holds no data, and a server binds it anew at each start. A
// file's name beside it stays an error.
func TestNameOfSocket(t *testing.T) {
	text := `1 socket(AF_UNIX, SOCK_STREAM, 0) = 7
1 bind(7, {sa_family=AF_UNIX, sun_path="/srv/run/admin.sock"}, 110) = 0
1 openat(AT_FDCWD, "/srv/run", O_RDONLY|O_DIRECTORY) = 8
1 fsync(8) = 0
1 close(8) = 0
1 socket(AF_UNIX, SOCK_STREAM, 0) = 5
1 bind(5, {sa_family=AF_UNIX, sun_path="/srv/run/db.sock"}, 110) = 0
1 openat(AT_FDCWD, "/srv/run/db.pid", O_WRONLY|O_CREAT|O_EXCL, 0644) = 6
1 write(6, "1\n", 2) = 2
1 fsync(6) = 0
1 close(6) = 0
1 unlink("/srv/run/old.sock") = 0
1 close(7) = 0
1 unlink("/srv/run/admin.sock") = 0
1 exit_group(0) = ?
1 +++ exited with 0 +++
`
	existed := func(p string) (bool, bool) { return p == "/srv" || p == "/srv/run" || p == "/srv/run/old.sock", true }
	res := runText(t, text, Options{Existed: existed})
	got := map[string]Severity{}
	for _, f := range res.findings {
		if f.Rule.ID != NameNotSynced {
			continue
		}
		got[f.Path] = f.Rule.Severity
		if got[f.Path] == Info && !strings.Contains(f.Message, "it is a socket, which holds no data") {
			t.Errorf("%s: %q does not say it is a socket", f.Path, f.Message)
		}
	}
	// old.sock: the trace did not make it, so the model does not know it
	// was a socket; the removal of a file from before the run stays an
	// error.
	want := map[string]Severity{"/srv/run/db.sock": Info, "/srv/run/admin.sock": Info, "/srv/run/db.pid": Error, "/srv/run/old.sock": Error}
	for p, s := range want {
		if got[p] != s {
			t.Errorf("name-not-synced of %s at %v, want %v (all: %v)", p, got[p], s, got)
		}
	}
}

// TestNameRemovedUnsure: a file opened with O_CREAT (no O_EXCL) and no
// listing may have existed before the trace or been made by the open.
// Removed with no directory fsync after, it comes back after a crash only
// if it existed (made by the open and never synced, it is litter, as a
// listing that says it was new finds): the finding says so, one severity
// lower, as the finding of an unsure creation does. Its directory synced
// after the open, or a file renamed onto the name, it can come back
// either way.
func TestNameRemovedUnsure(t *testing.T) {
	const (
		open   = "1 openat(AT_FDCWD, \"/w/pw.100\", O_WRONLY|O_CREAT|O_TRUNC, 0600) = 4\n1 write(4, \"100\\0\", 4) = 4\n1 fdatasync(4) = 0\n1 close(4) = 0\n"
		dirfs  = "1 openat(AT_FDCWD, \"/w\", O_RDONLY|O_DIRECTORY) = 5\n1 fsync(5) = 0\n1 close(5) = 0\n"
		remove = "1 link(\"/w/pw.100\", \"/w/pw.lock\") = 0\n1 unlink(\"/w/pw.100\") = 0\n1 unlink(\"/w/pw.lock\") = 0\n"
		onto   = "1 rename(\"/w/a\", \"/w/pw.100\") = 0\n1 unlink(\"/w/pw.100\") = 0\n"
		hedge  = "if pw.100 existed before, it can come back after a crash"
		plain  = "pw.100 can come back after a crash"
	)
	unknown := func(p string) (bool, bool) {
		if p == "/w/pw.100" {
			return false, false
		}
		return p == "/w" || p == "/w/a", true
	}
	existed := func(p string) (bool, bool) { return p == "/w" || p == "/w/a" || p == "/w/pw.100", true }
	for _, c := range []struct {
		name, text string
		existed    func(string) (bool, bool)
		want       string // the start of the message, "" for none
		sev        Severity
	}{
		{"unsure, removed", open + remove, unknown, hedge, Warning},
		{"unsure, directory synced after the open, removed", open + dirfs + remove, unknown, plain, Error},
		{"existed, removed", open + remove, existed, plain, Error},
		{"unsure, a file renamed onto it, removed", onto, unknown, plain, Error},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := runText(t, c.text, Options{Existed: c.existed})
			var got *Finding
			for _, f := range res.findings {
				if f.Rule.ID == NameNotSynced && f.Path == "/w/pw.100" {
					got = f
				}
			}
			if got == nil {
				t.Fatalf("no name-not-synced of /w/pw.100, want %q", c.want)
			}
			if !strings.HasPrefix(got.Message, c.want) || got.Rule.Severity != c.sev {
				t.Errorf("%v %q, want %v %q", got.Rule.Severity, got.Message, c.sev, c.want)
			}
			if c.want == hedge && !strings.Contains(got.Message, "the trace cannot tell") {
				t.Errorf("%q does not say the trace cannot tell", got.Message)
			}
		})
	}
}

// TestRenameBeforeSyncNameGivenUp: a file linked (or renamed) to a
// staging name while its data was pending, made durable by a sync, then
// renamed to its final name, never showed a name the program kept
// without its data: ostree stages each object so. No finding, where it
// had an error named after the final path. A file still pending when it
// leaves the name is reported, and one that keeps it is.
func TestRenameBeforeSyncNameGivenUp(t *testing.T) {
	const (
		tmpfile = "1 openat(AT_FDCWD, \"/w/stage\", O_WRONLY|O_TMPFILE, 0600) = 3\n1 write(3, \"object\\n\", 7) = 7\n"
		link    = "1 linkat(AT_FDCWD, \"/proc/self/fd/3\", AT_FDCWD, \"/w/stage/obj\", AT_SYMLINK_FOLLOW) = 0\n"
		final   = "1 renameat(AT_FDCWD, \"/w/stage/obj\", AT_FDCWD, \"/w/objects/obj\") = 0\n"
		dir     = "1 openat(AT_FDCWD, \"/w/objects\", O_RDONLY|O_DIRECTORY) = 5\n1 fsync(5) = 0\n"
	)
	existed := func(p string) (bool, bool) { return p == "/w" || p == "/w/stage" || p == "/w/objects", true }
	for _, tc := range []struct {
		name, text string
		fires      bool
	}{
		{"staged, synced, renamed away", tmpfile + link + "1 syncfs(3) = 0\n" + final + dir, false},
		{"staged, renamed away before the sync", tmpfile + link + final + "1 syncfs(3) = 0\n" + dir, true},
		{"staged and kept there, synced after", tmpfile + link + "1 fsync(3) = 0\n", true},
	} {
		got := findingsOf(t, tc.text, Options{Existed: existed}, RenameBeforeSync)
		if (len(got) > 0) != tc.fires {
			t.Errorf("%s: %d rename-before-sync findings, want any: %v", tc.name, len(got), tc.fires)
		}
	}
}
