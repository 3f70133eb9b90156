package model

import "testing"

// TestOpenedAs: an open's annotation that names the file by another
// directory than the program's spelling teaches that directory alias
// (only where the two end in the same names, at a name's boundary), and
// later paths below the real directory take the spelling; the longest
// real directory wins. A symlink to the file itself, a path spelled as
// the tail of the real one (a chroot seen from outside) and a path not
// resolved teach nothing.
func TestOpenedAs(t *testing.T) {
	p := NewProcs()
	for _, tc := range []struct{ spelled, anno, want string }{
		{"/w/current", "/w/releases/v2.conf", "/w/releases/v2.conf"},
		{"/app/f", "/srv/jail/app/f", "/srv/jail/app/f"},
		{"", "/x/y/f", "/x/y/f"},
		{"/data/user/0/app/p.xml", "/data/data/app/p.xml", "/data/user/0/app/p.xml"},
		{"/home/u/myapp/f", "/vol/app/f", "/home/u/myapp/f"},
	} {
		if got := p.openedAs(tc.spelled, tc.anno); got != tc.want {
			t.Errorf("openedAs(%q, %q) = %q, want %q", tc.spelled, tc.anno, got, tc.want)
		}
	}
	for q, want := range map[string]string{
		"/data/data/app/q":    "/data/user/0/app/q",
		"/data/data":          "/data/user/0",
		"/data/database/x":    "/data/database/x",
		"/vol/app/g":          "/home/u/myapp/g",
		"/vol/apps/g":         "/vol/apps/g",
		"/srv/jail/app/other": "/srv/jail/app/other",
		"/w/releases/v3.conf": "/w/releases/v3.conf",
	} {
		if got := p.canon(q); got != want {
			t.Errorf("canon(%q) = %q, want %q", q, got, want)
		}
	}
}
