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
		{"a rename to a new name replaces nothing", []string{openDir, manifest, syncMan, current, fresh, dirSync}, nil, nil},
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
				for _, w := range []string{"CURRENT", "MANIFEST-2", "fsync the directory d before the rename"} {
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
