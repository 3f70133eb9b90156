package model

import (
	"slices"
	"testing"
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
	t.Skip("bug: bind(AF_UNIX) with a sun_path is not modelled, so the model takes the unlink at shutdown " +
		"for the removal of a file that existed before the run (outcome initial, name-not-synced says " +
		"\"as it was before the run\") although an earlier unlink of the name failed with ENOENT; " +
		"fix: model a successful bind with a sun_path as the creation of a name that is no regular file " +
		"(a pending entry op, like mknod of a socket), and read an unlink failing with ENOENT as the name absent")
	const trace = "10 unlink(\"/srv/run/.s.sock\") = -1 ENOENT (No such file or directory)\n" +
		"10 socket(AF_UNIX, SOCK_STREAM, 0) = 5\n" +
		"10 bind(5, {sa_family=AF_UNIX, sun_path=\"/srv/run/.s.sock\"}, 110) = 0\n" +
		"10 chmod(\"/srv/run/.s.sock\", 0777) = 0\n" +
		"10 listen(5, 244) = 0\n" +
		"10 close(5) = 0\n" +
		"10 unlink(\"/srv/run/.s.sock\") = 0\n" +
		"10 exit_group(0) = ?\n"
	for _, p := range Persistences {
		m := New(Options{Persistence: p})
		for _, ev := range traceEvents(t, trace, "socket") {
			m.Apply(ev)
		}
		po := m.Crash("/srv/run/.s.sock", 256)
		if slices.Contains(po.Outcomes, Initial) {
			t.Errorf("under %s: outcomes %v at the socket's path: it did not exist before the run", p, po.Outcomes)
		}
	}
}
