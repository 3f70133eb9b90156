package check

import (
	"strings"
	"testing"
)

// TestMissingBeforeCreate: a stat, access, open or unlink that found no such file
// says the name did not exist, and so did not before the trace either:
// ld.gold stats its output, then opens it O_RDWR|O_CREAT|O_TRUNC; rsync
// stats the name it renames its temp file onto. Without a listing the
// create was "if p did not exist before", a warning, which --fail-on
// error passed. A name the trace moved a directory away from may have
// been there before, and stays unsure.
func TestMissingBeforeCreate(t *testing.T) {
	end := "100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	create := `100 openat(AT_FDCWD, "/data/p", O_RDWR|O_CREAT|O_TRUNC|O_CLOEXEC, 0777) = 3
100 read(3, "", 4096) = 0
100 write(3, "abc", 3) = 3
100 fsync(3) = 0
100 close(3) = 0
`
	renameOnto := `100 openat(AT_FDCWD, "/data/.p.tmp", O_WRONLY|O_CREAT|O_EXCL, 0600) = 3
100 write(3, "abc", 3) = 3
100 fsync(3) = 0
100 close(3) = 0
100 rename("/data/.p.tmp", "/data/p") = 0
`
	missing := `100 newfstatat(AT_FDCWD, "/data/p", 0x7ffd2b105690, 0) = -1 ENOENT (No such file or directory)` + "\n"
	// /data.new moved to /data, and that made durable.
	swap := `100 rename("/data", "/data.old") = 0
100 rename("/data.new", "/data") = 0
100 openat(AT_FDCWD, "/", O_RDONLY|O_DIRECTORY) = 4
100 fsync(4) = 0
100 close(4) = 0
`
	for _, c := range []struct {
		name, trace string
		sev         Severity
	}{
		{"stat, then open O_CREAT", missing + create, Error},
		{"access, then open O_CREAT", `100 access("/data/p", F_OK) = -1 ENOENT (No such file or directory)` + "\n" + create, Error},
		{"open for reading, then open O_CREAT", `100 openat(AT_FDCWD, "/data/p", O_RDONLY) = -1 ENOENT (No such file or directory)` + "\n" + create, Error},
		// Mercurial and servers remove a stale file before they make it.
		{"unlink, then open O_CREAT", `100 unlink("/data/p") = -1 ENOENT (No such file or directory)` + "\n" + create, Error},
		{"stat, then rename onto it", `100 newfstatat(AT_FDCWD, "/data/p", 0x7ffd2b105690, AT_SYMLINK_NOFOLLOW) = -1 ENOENT (No such file or directory)` + "\n" + renameOnto, Error},
		{"no stat", create, Warning},
		{"another directory moved in its place", missing + `100 newfstatat(AT_FDCWD, "/data", {st_mode=S_IFDIR|0755, st_size=4096, ...}, 0) = 0
100 newfstatat(AT_FDCWD, "/data.new", {st_mode=S_IFDIR|0755, st_size=4096, ...}, 0) = 0
` + swap + create, Warning},
		{"a name the trace never stat'ed moved in its place", missing + swap + create, Warning},
		{"failed for another reason", `100 newfstatat(AT_FDCWD, "/data/p", 0x7ffd2b105690, 0) = -1 EACCES (Permission denied)` + "\n" + create, Warning},
		{"an unlink failed for another reason", `100 unlink("/data/p") = -1 EACCES (Permission denied)` + "\n" + create, Warning},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := runText(t, c.trace+end, Options{Roots: []string{"/data"}})
			var got []string
			found := false
			for f, err := range res.Findings() {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, f.Rule.ID+" "+f.Path+": "+f.Message)
				if f.Rule.ID == "name-not-synced" && f.Path == "/data/p" {
					found = true
					if f.Rule.Severity != c.sev {
						t.Errorf("name-not-synced on /data/p is severity %v, want %v: %s", f.Rule.Severity, c.sev, f.Message)
					}
					if c.sev == Error && !strings.Contains(f.Message, "missing") {
						t.Errorf("message %q does not say p can be missing", f.Message)
					}
				}
			}
			if !found {
				t.Errorf("no name-not-synced on /data/p; findings:\n%s", strings.Join(got, "\n"))
			}
		})
	}
}
