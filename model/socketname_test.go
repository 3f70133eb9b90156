package model

import (
	"slices"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestUnixSocketNameIsNew: a server that binds a Unix socket in a
// directory (PostgreSQL's .s.PGSQL.PORT, MariaDB's socket) first removes a
// stale one, which fails with ENOENT on a fresh start, binds, and removes
// the socket when it stops. The trace shows the name did not exist before
// the run, so no crash state can have it "as it was before the run": the
// states at its path after the last unlink are missing, or the socket bind
// made (if that creation reached the disk and the unlink did not).
// Excerpt cut from a PostgreSQL 15 recording, paths renamed.
func TestUnixSocketNameIsNew(t *testing.T) {
	const trace = "10 unlink(\"/srv/run/.s.sock\") = -1 ENOENT (No such file or directory)\n" +
		"10 socket(AF_UNIX, SOCK_STREAM, 0) = 5\n" +
		"10 bind(5, {sa_family=AF_UNIX, sun_path=\"/srv/run/.s.sock\"}, 110) = 0\n" +
		"10 chmod(\"/srv/run/.s.sock\", 0777) = 0\n" +
		"10 listen(5, 244) = 0\n" +
		"10 close(5) = 0\n" +
		"10 unlink(\"/srv/run/.s.sock\") = 0\n" +
		"10 exit_group(0) = ?\n"
	for _, p := range Persistences {
		m := replayTextWith(t, trace, parser.Options{}, Options{Persistence: p})
		po := m.Crash("/srv/run/.s.sock", 256)
		if slices.Contains(po.Outcomes, Initial) {
			t.Errorf("under %s: outcomes %v at the socket's path: it did not exist before the run", p, po.Outcomes)
		}
	}
}

// TestBindMakesAName: bind of a Unix socket to a path makes a name, as
// mknod of a socket does; an abstract name (strace prints @"name"), an
// address of another family and a failed bind make none. A relative
// sun_path is the cwd's; strace 4 printed the family AF_LOCAL, and before
// 4.8 AF_FILE with the name as "path". redis
// binds its socket, fsyncs the directory after a save and removes the
// socket at shutdown without another: a crash can leave the socket, in
// words that name it (no data was lost).
func TestBindMakesAName(t *testing.T) {
	const dirSync = "10 openat(AT_FDCWD, \"/srv/run\", O_RDONLY) = 6\n10 fsync(6) = 0\n10 close(6) = 0\n"
	for _, c := range []struct {
		name, trace, path string
		named             bool
	}{
		{"a path", "10 bind(5, {sa_family=AF_UNIX, sun_path=\"/srv/run/s.sock\"}, 110) = 0\n", "/srv/run/s.sock", true},
		{"strace 4's AF_LOCAL", "10 bind(5, {sa_family=AF_LOCAL, sun_path=\"/srv/run/s.sock\"}, 110) = 0\n", "/srv/run/s.sock", true},
		{"strace 4.5's AF_FILE", "10 bind(5, {sa_family=AF_FILE, path=\"/srv/run/s.sock\"}, 110) = 0\n", "/srv/run/s.sock", true},
		{"strace 4.5's abstract", "10 bind(5, {sa_family=AF_FILE, path=@\"s.sock\"}, 110) = 0\n", "/srv/run/s.sock", false},
		{"-X raw", "10 bind(5, {sa_family=0x1, sun_path=\"/srv/run/s.sock\"}, 110) = 0\n", "/srv/run/s.sock", true},
		{"relative to the cwd", "10 chdir(\"/srv/run\") = 0\n10 bind(5, {sa_family=AF_UNIX, sun_path=\"s.sock\"}, 110) = 0\n", "/srv/run/s.sock", true},
		{"abstract", "10 bind(5, {sa_family=AF_UNIX, sun_path=@\"s.sock\"}, 110) = 0\n", "/srv/run/s.sock", false},
		{"failed", "10 bind(5, {sa_family=AF_UNIX, sun_path=\"/srv/run/s.sock\"}, 110) = -1 EADDRINUSE (Address already in use)\n", "/srv/run/s.sock", false},
		{"inet", "10 bind(5, {sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr(\"0.0.0.0\")}, 16) = 0\n", "/srv/run/s.sock", false},
	} {
		trace := "10 socket(AF_UNIX, SOCK_STREAM, 0) = 5\n" + c.trace
		for _, p := range Persistences {
			m := replayTextWith(t, trace, parser.Options{}, Options{Persistence: p})
			_, _, _, named := m.peek(c.path)
			if named != c.named {
				t.Errorf("%s, under %s: %s named %v, want %v", c.name, p, c.path, named, c.named)
			}
		}
	}
	trace := "10 socket(AF_UNIX, SOCK_STREAM, 0) = 5\n" +
		"10 bind(5, {sa_family=AF_UNIX, sun_path=\"/srv/run/s.sock\"}, 110) = 0\n" + dirSync +
		"10 close(5) = 0\n10 unlink(\"/srv/run/s.sock\") = 0\n10 exit_group(0) = ?\n"
	for _, p := range Persistences {
		m := replayTextWith(t, trace, parser.Options{}, Options{Persistence: p})
		po := m.Crash("/srv/run/s.sock", 256)
		var words []string
		for _, s := range po.States {
			words = append(words, m.StateWords("/srv/run/s.sock", s))
		}
		if !slices.Contains(words, "as the socket the run made") || slices.Contains(po.Outcomes, Initial) {
			t.Errorf("under %s: states %q at the socket's path, want one with the socket the run made and none as before the run", p, words)
		}
	}
}
