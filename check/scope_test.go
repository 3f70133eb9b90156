package check

import "testing"

// TestIgnored: an ignore glob is matched with "**" crossing directories,
// against the whole path, the path relative to its root (or the start
// directory), and, without a '/', the base name.
func TestIgnored(t *testing.T) {
	opt := Options{Roots: []string{".", "/home/u/app"}, Cwd: "/work", Ignore: []string{"/tmp/**", "cache/**", "*.log", "sub/x?.txt"}}
	for p, want := range map[string]bool{
		"/tmp":                    true,
		"/tmp/a/b/c":              true,
		"/tmpx/a":                 false,
		"/home/u/app/cache":       true,
		"/home/u/app/cache/1/2":   true,
		"/home/u/app/data/cache":  false,
		"/work/cache/z":           true, // relative to the start directory
		"/var/log/app.log":        true,
		"/var/log/app.log.1":      false,
		"/home/u/app/sub/x1.txt":  true,
		"/home/u/app/sub/x12.txt": false,
		"/elsewhere/sub/x1.txt":   false,
	} {
		if got := opt.Ignored(p); got != want {
			t.Errorf("Ignored(%q) = %v, want %v", p, got, want)
		}
		if want && opt.InScope(p) {
			t.Errorf("InScope(%q) although ignored", p)
		}
	}
	if (&Options{}).Ignored("/tmp/x") {
		t.Error("no glob ignores something")
	}
	for g, want := range map[string]bool{"[": false, "a/[b": false, "**/x": true, "{a,b}": true} {
		if ValidGlob(g) != want {
			t.Errorf("ValidGlob(%q) = %v", g, !want)
		}
	}
}

// TestInScope: pseudo files are out of scope, and with roots, every path
// below none of them.
func TestInScope(t *testing.T) {
	for _, tc := range []struct {
		path  string
		roots []string
		want  bool
	}{
		{"/w/a.txt", nil, true},
		{"a.txt", nil, true}, // relative: a trace without -y that names no cwd
		{"", nil, false},
		{"pipe:[12]", nil, false},
		{"socket:[34]", nil, false},
		{"anon_inode:[eventfd]", nil, false},
		{"anon_inode:inotify", nil, false},
		{"/proc", nil, false},
		{"/proc/self/status", nil, false},
		{"/sys/kernel/x", nil, false},
		{"/dev/null", nil, false},
		{"/devices/x", nil, true},
		{"/acct/uid/1000/tasks", nil, false}, // Android's cgroup mount
		{"/acctx/a", nil, true},
		{"/w/a.txt", []string{"/w"}, true},
		{"/w", []string{"/w/"}, true},
		{"/wx/a.txt", []string{"/w"}, false},
		{"/w/a.txt", []string{"/"}, true},
		{"/dev/null", []string{"/"}, false},
		{"a.txt", []string{"."}, true},
		{"/w/a.txt", []string{"."}, false},
	} {
		opt := Options{Roots: tc.roots}
		if got := opt.InScope(tc.path); got != tc.want {
			t.Errorf("InScope(%q) with roots %q = %v, want %v", tc.path, tc.roots, got, tc.want)
		}
	}
}
