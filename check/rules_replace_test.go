package check

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
)

// TestRenameBeforeDirSync: a pointer file renamed over the old one before
// the directory fsync that makes the new file it names durable. posix can
// keep the rename and lose the new name; the ordered models cannot.
func TestRenameBeforeDirSync(t *testing.T) {
	const (
		openDir  = `1 openat(AT_FDCWD, "/d", O_RDONLY|O_DIRECTORY) = 4`
		manifest = "1 openat(AT_FDCWD, \"/d/MANIFEST-2\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n1 write(3, \"m\", 1) = 1"
		syncMan  = "1 fdatasync(3) = 0\n1 close(3) = 0"
		closeMan = `1 close(3) = 0`
		current  = "1 openat(AT_FDCWD, \"/d/CURRENT.tmp\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 5\n1 write(5, \"MANIFEST-2\\n\", 11) = 11\n1 fdatasync(5) = 0\n1 close(5) = 0"
		replace  = `1 rename("/d/CURRENT.tmp", "/d/CURRENT") = 0`
		fresh    = `1 rename("/d/CURRENT.tmp", "/d/POINTER") = 0`
		dirSync  = `1 fsync(4) = 0`
		sync     = `1 sync() = 0`
		rewrite  = "1 openat(AT_FDCWD, \"/d/MANIFEST-2\", O_WRONLY) = 3\n1 write(3, \"n\", 1) = 1\n1 close(3) = 0"
	)
	tests := []struct {
		name   string
		lines  []string
		models []model.Persistence
		want   []string // the paths of the rule's findings
	}{
		{"the rename before the directory fsync", []string{openDir, manifest, syncMan, current, replace, dirSync}, nil, []string{"/d/MANIFEST-2"}},
		{"the directory fsynced before the rename", []string{openDir, manifest, syncMan, dirSync, current, replace, dirSync}, nil, nil},
		{"ext4 commits the create first", []string{openDir, manifest, syncMan, current, replace, dirSync}, []model.Persistence{model.Ext4}, nil},
		{"the new file's data never synced", []string{openDir, manifest, closeMan, current, replace, dirSync}, nil, nil},
		// A new name publishes the file as a replace does (see
		// TestRenameBeforeDirSyncNewName).
		{"a rename to a new name", []string{openDir, manifest, syncMan, current, fresh, dirSync}, nil, []string{"/d/MANIFEST-2"}},
		{"the directory never fsynced: name-not-synced's", []string{openDir, manifest, syncMan, current, replace}, nil, nil},
		{"a sync of everything before the rename", []string{openDir, manifest, syncMan, sync, current, replace, dirSync}, nil, nil},
		{"written again after its sync", []string{openDir, manifest, syncMan, rewrite, current, replace, dirSync}, nil, nil},
		{"the new file synced twice, another between", []string{openDir,
			"1 openat(AT_FDCWD, \"/d/MANIFEST-2\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n1 write(3, \"m\", 1) = 1\n1 fdatasync(3) = 0",
			current, "1 write(3, \"n\", 1) = 1\n1 fdatasync(3) = 0\n1 close(3) = 0", replace, dirSync}, nil, []string{"/d/MANIFEST-2"}},
		// Two saves renamed in one batch: the second's temp name is its
		// own, gone before the directory sync, and nothing can name it.
		{"another save's temp file, renamed before the directory fsync", []string{openDir, manifest, syncMan, current,
			`1 rename("/d/CURRENT.tmp", "/d/CURRENT") = 0`, `1 rename("/d/MANIFEST-2", "/d/MANIFEST") = 0`, dirSync}, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			existed := func(p string) (bool, bool) { return p == "/d" || p == "/d/CURRENT", true }
			var got []string
			for _, f := range findingsOf(t, strings.Join(tc.lines, "\n")+"\n", Options{Existed: existed, Models: tc.models}, RenameBeforeDirSync) {
				got = append(got, f.Path)
				if f.State == nil || f.State.Outcome != string(model.Missing) || f.State.Path != f.Path {
					t.Errorf("%s: state %+v, want %s missing", f.Path, f.State, f.Path)
				}
				pointer := "CURRENT"
				if slices.Contains(tc.lines, fresh) {
					pointer = "POINTER"
				}
				for _, w := range []string{pointer, "MANIFEST-2", "fsync the directory d before the rename"} {
					if !strings.Contains(f.Message, w) {
						t.Errorf("message %q does not say %q", f.Message, w)
					}
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings on %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRenameBeforeDirSyncForgets: the files synced while their name was
// pending are let go once a directory sync makes the name durable, so
// that a million files each synced and dir-synced keep none (a release
// candidate kept every one, 800 MB for a million), and a name left
// pending in front (its directory never synced) does not keep the rest.
func TestRenameBeforeDirSyncForgets(t *testing.T) {
	rd := &renameBeforeDirSync{}
	r := &run{}
	r.m = model.New(model.Options{Observe: func(m *model.Model, e *model.Effect) { rd.Observe(r, e) }})
	var text strings.Builder
	text.WriteString("1 openat(AT_FDCWD, \"/a/stuck\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n1 write(3, \"x\", 1) = 1\n1 fsync(3) = 0\n1 close(3) = 0\n")
	text.WriteString("1 openat(AT_FDCWD, \"/b\", O_RDONLY|O_DIRECTORY) = 4\n")
	const n = 3000
	for i := range n {
		fmt.Fprintf(&text, "1 openat(AT_FDCWD, \"/b/f%d\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n1 write(3, \"x\", 1) = 1\n1 fsync(3) = 0\n1 close(3) = 0\n1 fsync(4) = 0\n", i)
	}
	applyText(t, r.m, text.String())
	if len(rd.waiting) == 0 || len(rd.waiting) > 200 {
		t.Errorf("%d files synced and dir-synced beside one never dir-synced: %d waiting; want the one and at most a few more", n, len(rd.waiting))
	}
	if rd.waiting[0].path != "/a/stuck" {
		t.Errorf("the first waiting is %s, want /a/stuck", rd.waiting[0].path)
	}
}

// TestRenameBeforeDirSyncNamedByRename: the file a pointer names got its
// name from a rename of its own (saved by temp file, fsync and rename,
// then the pointer renamed over the old one, the directory fsynced only
// at the end), or is a new directory whose entries were fsynced. posix
// can keep the pointer's rename and lose that name; before, the file was
// let go at its own rename and the save passed clean.
func TestRenameBeforeDirSyncNamedByRename(t *testing.T) {
	const (
		openDir  = `1 openat(AT_FDCWD, "/d", O_RDONLY|O_DIRECTORY) = 4`
		part     = "1 openat(AT_FDCWD, \"/d/part.tmp\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n1 write(3, \"v2\", 2) = 2\n1 fsync(3) = 0\n1 close(3) = 0"
		movePart = `1 rename("/d/part.tmp", "/d/part") = 0`
		snap     = "1 mkdir(\"/d/snap\", 0755) = 0\n1 openat(AT_FDCWD, \"/d/snap/data\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n1 write(3, \"x\", 1) = 1\n1 fsync(3) = 0\n1 close(3) = 0\n1 openat(AT_FDCWD, \"/d/snap\", O_RDONLY|O_DIRECTORY) = 6\n1 fsync(6) = 0\n1 close(6) = 0"
		current  = "1 openat(AT_FDCWD, \"/d/CURRENT.tmp\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 5\n1 write(5, \"v2\\n\", 3) = 3\n1 fdatasync(5) = 0\n1 close(5) = 0"
		replace  = `1 rename("/d/CURRENT.tmp", "/d/CURRENT") = 0`
		dirSync  = `1 fsync(4) = 0`
	)
	tests := []struct {
		name    string
		lines   []string
		existed []string // besides /d and /d/CURRENT
		models  []model.Persistence
		want    string // the finding's path, "" for none
		outcome model.Outcome
		says    string
	}{
		{"a new file renamed into place", []string{openDir, part, movePart, current, replace, dirSync}, nil, nil, "/d/part", model.Missing, "leave part missing"},
		{"renamed over an old file", []string{openDir, part, movePart, current, replace, dirSync}, []string{"/d/part"}, nil, "/d/part", model.Initial, "leave part as it was before the run"},
		{"the directory fsynced between", []string{openDir, part, movePart, dirSync, current, replace, dirSync}, []string{"/d/part"}, nil, "", "", ""},
		{"ext4 commits the renames in order", []string{openDir, part, movePart, current, replace, dirSync}, []string{"/d/part"}, []model.Persistence{model.Ext4}, "", "", ""},
		{"a new directory", []string{openDir, snap, current, replace, dirSync}, nil, nil, "/d/snap", model.Missing, "whose entries were synced"},
		{"a new directory, its parent fsynced between", []string{openDir, snap, dirSync, current, replace, dirSync}, nil, nil, "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			existed := func(p string) (bool, bool) {
				return p == "/d" || p == "/d/CURRENT" || slices.Contains(tc.existed, p), true
			}
			f := onlyFinding(t, findingsOf(t, strings.Join(tc.lines, "\n")+"\n", Options{Existed: existed, Models: tc.models}, RenameBeforeDirSync), tc.want)
			if f == nil {
				return
			}
			if f.State == nil || f.State.Path != tc.want || f.State.Outcome != string(tc.outcome) {
				t.Errorf("state %+v, want %s %s", f.State, tc.want, tc.outcome)
			}
			if !strings.Contains(f.Message, tc.says) {
				t.Errorf("message %q does not say %q", f.Message, tc.says)
			}
		})
	}
}

// TestRenameBeforeDirSyncLastPointer: parts saved each by temp file and
// rename over the old one, then a manifest renamed over its old version,
// the directory fsynced once at the end. Each part's name is still
// pending at the manifest's rename, the likeliest pointer: the findings
// are there, not at the next part's rename, which replaced a file too.
func TestRenameBeforeDirSyncLastPointer(t *testing.T) {
	var lines []string
	lines = append(lines, `1 openat(AT_FDCWD, "/d", O_RDONLY|O_DIRECTORY) = 4`)
	for _, p := range []string{"a", "b", "MANIFEST"} {
		lines = append(lines,
			fmt.Sprintf(`1 openat(AT_FDCWD, "/d/%s.tmp", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3`, p),
			`1 write(3, "v2", 2) = 2`, `1 fsync(3) = 0`, `1 close(3) = 0`,
			fmt.Sprintf(`1 rename("/d/%s.tmp", "/d/%s") = 0`, p, p))
	}
	lines = append(lines, `1 fsync(4) = 0`)
	manifestLine := len(lines) - 1
	existed := func(p string) (bool, bool) {
		return p == "/d" || p == "/d/a" || p == "/d/b" || p == "/d/MANIFEST", true
	}
	var got []string
	for _, f := range findingsOf(t, strings.Join(lines, "\n")+"\n", Options{Existed: existed}, RenameBeforeDirSync) {
		got = append(got, f.Path)
		if f.Line != manifestLine || !strings.Contains(f.Message, "replaced MANIFEST") {
			t.Errorf("%s: line %d (%s), want the manifest's rename, line %d", f.Path, f.Line, f.Message, manifestLine)
		}
		if f.State == nil || f.State.Outcome != string(model.Initial) {
			t.Errorf("%s: state %+v, want the old version", f.Path, f.State)
		}
	}
	slices.Sort(got)
	if want := []string{"/d/a", "/d/b"}; !slices.Equal(got, want) {
		t.Errorf("findings on %q, want %q", got, want)
	}
}

// TestRenameBeforeDirSyncNewName: a rename that gives a synced file a
// new name publishes it as a replace does. Exim writes a message's -D
// file and fsyncs it, then its -H file under a temp name, fsyncs that
// and renames it into the spool: before the directory's fsync a crash
// can keep the -H and lose the -D. A file still under a temp name then,
// renamed only later, is none the new file can need (Borg's hints and
// index, renamed after its integrity file).
func TestRenameBeforeDirSyncNewName(t *testing.T) {
	const (
		openDir = `1 openat(AT_FDCWD, "/d", O_RDONLY|O_DIRECTORY) = 4`
		data    = "1 openat(AT_FDCWD, \"/d/m-D\", O_RDWR|O_CREAT|O_EXCL, 0640) = 3\n1 write(3, \"body\", 4) = 4\n1 fsync(3) = 0"
		hdr     = "1 openat(AT_FDCWD, \"/d/hdr.tmp\", O_RDWR|O_CREAT|O_EXCL, 0640) = 5\n1 write(5, \"hdr\", 3) = 3\n1 fsync(5) = 0\n1 close(5) = 0"
		hdrNo   = "1 openat(AT_FDCWD, \"/d/hdr.tmp\", O_RDWR|O_CREAT|O_EXCL, 0640) = 5\n1 write(5, \"hdr\", 3) = 3\n1 close(5) = 0"
		publish = `1 rename("/d/hdr.tmp", "/d/m-H") = 0`
		dirSync = `1 fsync(4) = 0`
		hints   = "1 openat(AT_FDCWD, \"/d/hints.tmp\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n1 write(3, \"h\", 1) = 1\n1 fsync(3) = 0\n1 close(3) = 0"
		hintsIn = `1 rename("/d/hints.tmp", "/d/hints") = 0`
	)
	for _, tc := range []struct {
		name   string
		lines  []string
		models []model.Persistence
		want   string
	}{
		{"the -H file published beside the -D file", []string{openDir, data, hdr, publish, dirSync}, nil, "/d/m-D"},
		{"the directory fsynced before", []string{openDir, data, dirSync, hdr, publish, dirSync}, nil, ""},
		{"ext4 commits in order", []string{openDir, data, hdr, publish, dirSync}, []model.Persistence{model.Ext4}, ""},
		{"the renamed file never synced", []string{openDir, data, hdrNo, publish, dirSync}, nil, ""},
		{"the waiting file renamed into place later", []string{openDir, hints, hdr, publish, dirSync, hintsIn, dirSync}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			existed := func(p string) (bool, bool) { return p == "/d", true }
			f := onlyFinding(t, findingsOf(t, strings.Join(tc.lines, "\n")+"\n", Options{Existed: existed, Models: tc.models}, RenameBeforeDirSync), tc.want)
			if f == nil {
				return
			}
			if !strings.Contains(f.Message, "rename gave m-H its name while the name of m-D") || f.State == nil || f.State.Outcome != string(model.Missing) {
				t.Errorf("finding %q, state %+v", f.Message, f.State)
			}
		})
	}
}

// onlyFinding checks that fs is one finding, on want, or none when want
// is "", and returns it (nil for none).
func onlyFinding(t *testing.T, fs []*Finding, want string) *Finding {
	t.Helper()
	if want == "" {
		for _, f := range fs {
			t.Errorf("unexpected finding: %s", f.Message)
		}
		return nil
	}
	if len(fs) != 1 || fs[0].Path != want {
		t.Fatalf("findings %v, want one on %s", fs, want)
	}
	return fs[0]
}
