package model

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crashsim/crashsim/parser"
)

// recvLine is a recvmsg of process 101 on socket 4 that received the fds
// of cmsg_data (%s) and had flags %s, as strace 6.1 prints it.
const recvLine = "101 recvmsg(4, {msg_name=0x7ffcac5743d0, msg_namelen=110 => 0, msg_iov=[{iov_base=\"\"..., iov_len=16}], msg_iovlen=1, msg_control=[{cmsg_len=20, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data=[%s]}], msg_controllen=20, msg_flags=0}, %s) = 1\n"

// TestReceivedFDs: an fd another process sent over a Unix socket
// (SCM_RIGHTS) joins the receiver's table at recvmsg: a pipe or a file as
// its -y name says, or, with no name, an fd the trace cannot name that
// ReceivedAt tells apart from one open before the trace began. Before,
// recvmsg changed no table: the fd was taken for one from before the
// trace (Python's socket.recv_fds, Erlang's erl_child_setup).
func TestReceivedFDs(t *testing.T) {
	start := earlyStart +
		"100 socketpair(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0, [3, 4]) = 0\n" +
		"100 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 101\n" +
		"101 close(3) = 0\n"
	for _, c := range []struct {
		name, data, flags string
		want              map[int]string
		unnamed           bool
	}{
		{"no -y", "7", "0", map[int]string{4: "? #1 cloexec", 7: "? #2"}, true},
		{"no -y, close-on-exec", "7, 8", "MSG_CMSG_CLOEXEC", map[int]string{4: "? #1 cloexec", 7: "? #2 cloexec", 8: "? #3 cloexec"}, true},
		{"no -y, flags as a number", "7", "0x40000000", map[int]string{4: "? #1 cloexec", 7: "? #2 cloexec"}, true},
		{"a pipe", "7<pipe:[23849978]>", "0", map[int]string{4: "? #1 cloexec", 7: "pipe:[23849978] #2"}, false},
		{"a file", "7</srv/data/shared.db>", "0", map[int]string{4: "? #1 cloexec", 7: "/srv/data/shared.db #2"}, false},
	} {
		trace := start + fmt.Sprintf(recvLine, c.data, c.flags) + "101 write(0x7, 0x7f00, 0x6) = 0x6\n"
		if got := fdsAfter(t, trace, 101)[101]; !cmp.Equal(c.want, got) {
			t.Errorf("%s: child's fds (-want +got):\n%s", c.name, cmp.Diff(c.want, got))
		}
		p := replayProcs(trace, false)
		fd7 := &parser.Value{Kind: parser.ValNumber, Text: "7"}
		unnamed, _ := p.Unnamed(101, fd7, 6)
		at, received := p.ReceivedAt(101, fd7, 6)
		if unnamed != c.unnamed || received != c.unnamed {
			t.Errorf("%s: fd 7 unnamed %v, received %v; want both %v", c.name, unnamed, received, c.unnamed)
		}
		if received && at.Line != 5 {
			t.Errorf("%s: fd 7 received at %v, want line 5", c.name, at)
		}
	}
	// The fds a process sends stay the sender's own: sendmsg adds none.
	send := start + "100 sendmsg(3, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"\"..., iov_len=1}], msg_iovlen=1, msg_control=[{cmsg_len=20, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data=[6]}], msg_controllen=24, msg_flags=0}, 0) = 1\n"
	if got := fdsAfter(t, send, 100)[100]; len(got) != 2 {
		t.Errorf("sender's fds %v, want only its sockets", got)
	}
}
