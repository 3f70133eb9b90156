package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// receivedTrace is Python's socket.send_fds passing the write end of a
// pipe to a child, which writes to it (the sweep's scmrights/pass.py), as
// crashsim trace records it: writes raw, and recvmsg traced. %s is the
// cmsg_data the child received, and the fd's name, if any, on the lines
// that carry one.
const receivedTrace = `20 execve("/usr/bin/python3", ["python3", "pass.py"], 0x7ffc /* 3 vars */) = 0
20 socketpair(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0, [3, 4]) = 0
20 pipe2([5, 6], O_CLOEXEC) = 0
20 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f00) = 21
21 close(3) = 0
20 close(4) = 0
21 recvmsg(4, {msg_name=0x7ffcac5743d0, msg_namelen=110 => 0, msg_iov=[{iov_base=""..., iov_len=16}], msg_iovlen=1, msg_control=[{cmsg_len=20, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data=[7%[1]s]}], msg_controllen=20, msg_flags=0}, 0) = 1
21 write(0x7, 0x7f0000001000, 0x6) = 0x6
21 close(7%[1]s) = 0
21 exit_group(0) = ?
21 +++ exited with 0 +++
20 close(6) = 0
20 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 21
20 exit_group(0) = ?
20 +++ exited with 0 +++
`

// TestReceivedFD: a write to an fd received over a Unix socket is to the
// file its -y name says, or, with none, a blind spot that says where the
// fd came from and that -y names it. Before, recvmsg was not in crashsim
// trace's recording, and with or without it the fd was taken for one open
// before the trace began, with "record with strace -y" for a fix, which
// said nothing of what happened (every Erlang program: erl_child_setup
// gets its pipes so).
func TestReceivedFD(t *testing.T) {
	res := checkFile(t, writeTrace(t, fmt.Sprintf(receivedTrace, "")), Options{Roots: []string{"/d"}})
	if len(res.Warnings) != 1 || res.Warnings[0].ID != BlindUnknownFD {
		t.Fatalf("no -y: warnings %+v, want one %s", res.Warnings, BlindUnknownFD)
	}
	w := res.Warnings[0]
	if want := "write on fd 7, an fd received over a Unix socket at line 7 (recvmsg, SCM_RIGHTS)"; w.Line != 8 || !strings.HasPrefix(w.Message, want) {
		t.Errorf("no -y: warning at line %d: %q; want line 8, %q...", w.Line, w.Message, want)
	}
	for _, wrong := range []string{"before the trace began", "strace -p"} {
		if strings.Contains(w.Message, wrong) || strings.Contains(w.Fix, wrong) {
			t.Errorf("no -y: warning %q, fix %q: says %q", w.Message, w.Fix, wrong)
		}
	}
	if w.Fix != receivedFix {
		t.Errorf("no -y: fix %q, want %q", w.Fix, receivedFix)
	}

	for _, c := range []struct {
		anno     string
		findings []string
	}{
		{"<pipe:[23849978]>", nil},
		{"</d/shared.log>", []string{"data-not-synced /d/shared.log"}},
	} {
		blind, _, findings := blindRun(t, writeTrace(t, fmt.Sprintf(receivedTrace, c.anno)), Options{Roots: []string{"/d"}})
		if len(blind) > 0 {
			t.Errorf("%s: blind spots %v, want none", c.anno, blind)
		}
		if diff := cmp.Diff(c.findings, findings); diff != "" {
			t.Errorf("%s: findings (-want +got):\n%s", c.anno, diff)
		}
	}
}

// TestMemfdNoPathElsewhere: under -y, a memfd the program made (Erlang's
// VM maps its JIT code from one, and every Erlang program makes it) or
// received is named "/memfd:NAME (deleted)", which is no path: resizing
// it changes no file, here or outside --root. It was counted as a path
// changed outside --root, and a note said so (crashsim trace --fd-paths
// on an Erlang hello-world: "first /memfd:vmem").
func TestMemfdNoPathElsewhere(t *testing.T) {
	const trace = `20 execve("/usr/bin/beam.smp", ["beam.smp"], 0x7ffc /* 3 vars */) = 0
20 memfd_create(""..., 0) = 17</memfd:vmem>(deleted)
20 ftruncate(17</memfd:vmem>(deleted), 4096) = 0
20 close(17</memfd:vmem>(deleted)) = 0
20 socketpair(AF_UNIX, SOCK_STREAM, 0, [3<socket:[1]>, 4<socket:[2]>]) = 0
20 recvmsg(3<socket:[1]>, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=""..., iov_len=16}], msg_iovlen=1, msg_control=[{cmsg_len=20, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data=[5</memfd:ring>(deleted)]}], msg_controllen=20, msg_flags=0}, 0) = 1
20 ftruncate(5</memfd:ring>(deleted), 8192) = 0
20 openat(AT_FDCWD</d>, "/d/x", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 6</d/x>
20 fsync(6</d/x>) = 0
20 close(6</d/x>) = 0
20 exit_group(0) = ?
20 +++ exited with 0 +++
`
	res := checkFile(t, writeTrace(t, trace), Options{Roots: []string{"/d"}})
	for _, n := range res.Notes {
		if n.ID == NoteOutsideRoots {
			t.Errorf("note %s: %s", n.ID, n.Message)
		}
	}
	if len(res.Warnings) > 0 {
		t.Errorf("warnings %+v, want none", res.Warnings)
	}
}
