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
