package check

import (
	"strings"
	"testing"
)

// TestDirectoryAliasFromAnnotations: a program that reaches its files
// through a symlinked directory (Android's /data/user/0 is /data/data; a
// home reached by a symlink) spells the path one way, and strace's -y
// shows the fds it opens by the real one. A rename the program spelled
// and the fsync of the directory it opened, shown by the real path, name
// one directory: the model learns the alias from the first open whose
// annotation ends in the same names, and takes the paths below the real
// directory by the program's spelling. Without that, the save below was
// reported as a rename no directory fsync covered.
func TestDirectoryAliasFromAnnotations(t *testing.T) {
	save := []string{
		`1 renameat(AT_FDCWD, "/data/user/0/app/prefs.xml", AT_FDCWD, "/data/user/0/app/prefs.xml.bak") = 0`,
		`1 openat(AT_FDCWD, "/data/user/0/app/prefs.xml", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</data/data/app/prefs.xml>`,
		`1 write(3</data/data/app/prefs.xml>, "<x/>", 4) = 4`,
		`1 fsync(3</data/data/app/prefs.xml>) = 0`,
		`1 close(3</data/data/app/prefs.xml>) = 0`,
		`1 unlinkat(AT_FDCWD, "/data/user/0/app/prefs.xml.bak", 0) = 0`,
		`1 openat(AT_FDCWD, "/data/user/0/app", O_RDONLY|O_DIRECTORY) = 4</data/data/app>`,
		`1 fsync(4</data/data/app>) = 0`,
		`1 close(4</data/data/app>) = 0`,
	}
	existed := func(p string) (bool, bool) {
		return p == "/data/user/0/app" || p == "/data/user/0/app/prefs.xml" || p == "/data/data/app" || p == "/data/data/app/prefs.xml", true
	}
	res := runText(t, strings.Join(save, "\n")+"\n", Options{Existed: existed})
	for f, err := range res.Findings() {
		if err != nil {
			t.Fatal(err)
		}
		if f.Rule.Severity == Error {
			t.Errorf("%s on %s: %s", f.Rule.ID, f.Path, f.Message)
		}
	}
	// A symlink to the file itself (its last name differs) is no alias:
	// the write goes to the file it names, and a crash can lose that
	// file's data, under its own name.
	link := []string{
		`1 openat(AT_FDCWD, "/w/current", O_WRONLY|O_TRUNC) = 3</w/releases/v2.conf>`,
		`1 write(3</w/releases/v2.conf>, "x", 1) = 1`,
		`1 close(3</w/releases/v2.conf>) = 0`,
	}
	got := findingsOf(t, strings.Join(link, "\n")+"\n", Options{Existed: func(p string) (bool, bool) { return true, true }}, DataNotSynced)
	if len(got) != 1 || got[0].Path != "/w/releases/v2.conf" {
		for _, f := range got {
			t.Log(f.Path, f.Message)
		}
		t.Errorf("%d data-not-synced findings, want one on /w/releases/v2.conf", len(got))
	}
}
