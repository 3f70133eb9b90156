package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChrootPaths: after chroot, absolute names start at the new root.
// ldconfig -r DIR and useradd -R DIR chroot into DIR and save
// /etc/ld.so.cache, /etc/passwd, by temp file and rename there; the model
// read the renames' names from the real root, outside --root DIR, and saw
// only what -y names through fds. So a save that fsynced the directory
// before the rename, not after, was clean (exit 0) under -y, and without
// -y nothing was checked (blind-root-unmatched).
func TestChrootPaths(t *testing.T) {
	save := func(y bool, dirSyncLast bool) string {
		a := func(p string) string { // a -y annotation
			if y {
				return "<" + p + ">"
			}
			return ""
		}
		dirSync := `100 openat(AT_FDCWD` + a("/srv/jail") + `, "/etc", O_RDONLY|O_DIRECTORY) = 3` + a("/srv/jail/etc") + `
100 fsync(3` + a("/srv/jail/etc") + `) = 0
100 close(3` + a("/srv/jail/etc") + `) = 0
`
		rename := "100 rename(\"/etc/app.conf.tmp\", \"/etc/app.conf\") = 0\n"
		var b strings.Builder
		b.WriteString(`100 execve("/sbin/prog", ["prog"], 0x7ffc /* 1 vars */) = 0
100 chroot("/srv/jail") = 0
100 chdir("/") = 0
100 openat(AT_FDCWD` + a("/srv/jail") + `, "/etc/app.conf.tmp", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3` + a("/srv/jail/etc/app.conf.tmp") + `
100 write(3` + a("/srv/jail/etc/app.conf.tmp") + `, "x", 1) = 1
100 fsync(3` + a("/srv/jail/etc/app.conf.tmp") + `) = 0
100 close(3` + a("/srv/jail/etc/app.conf.tmp") + `) = 0
`)
		if dirSyncLast {
			b.WriteString(rename + dirSync)
		} else {
			b.WriteString(dirSync + rename)
		}
		b.WriteString("100 exit_group(0) = ?\n100 +++ exited with 0 +++\n")
		return b.String()
	}
	opt := Options{Roots: []string{"/srv/jail"}}
	for _, y := range []bool{true, false} {
		name := map[bool]string{true: "-y", false: "no -y"}[y]
		blind, _, findings := blindRun(t, writeTrace(t, save(y, false)), opt)
		want := []string{"name-not-synced /srv/jail/etc/app.conf", "name-not-synced /srv/jail/etc/app.conf.tmp"}
		if len(blind) != 0 {
			t.Errorf("%s, directory synced before the rename: blind spots %v, want none", name, blind)
		}
		if diff := cmp.Diff(want, findings); diff != "" {
			t.Errorf("%s, directory synced before the rename: findings (-want +got):\n%s", name, diff)
		}
		blind, _, findings = blindRun(t, writeTrace(t, save(y, true)), opt)
		if len(blind) != 0 || len(findings) != 0 {
			t.Errorf("%s, directory synced after the rename: blind spots %v, findings %v, want none", name, blind, findings)
		}
		// "/.." is the new root itself, as "/" is.
		dotdot := strings.Replace(save(y, false), `rename("/etc/app.conf.tmp", "/etc/app.conf")`, `rename("/../etc/app.conf.tmp", "/etc/../../etc/app.conf")`, 1)
		blind, _, findings = blindRun(t, writeTrace(t, dotdot), opt)
		if len(blind) != 0 {
			t.Errorf("%s, the rename's names climbing above the root: blind spots %v, want none", name, blind)
		}
		if diff := cmp.Diff(want, findings); diff != "" {
			t.Errorf("%s, the rename's names climbing above the root: findings (-want +got):\n%s", name, diff)
		}
	}
}

// writeTrace writes a trace into a file of its own and returns its path.
func writeTrace(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.strace")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
