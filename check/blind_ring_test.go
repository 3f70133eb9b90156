package check

import "testing"

// TestIOUringEnterWithoutSetup: strace -p attached after the program set
// up its ring, without -y, shows io_uring_enter on an fd it never opened,
// and nothing names that fd. io_uring_enter works on a ring and nothing
// else, so a call that submitted work says what io_uring_setup would have:
// what went through the ring cannot be seen.
func TestIOUringEnterWithoutSetup(t *testing.T) {
	const (
		conf = "7 openat(AT_FDCWD, \"/etc/app.conf\", O_RDONLY|O_CLOEXEC) = 4\n7 close(4) = 0\n"
		end  = "7 exit_group(0) = ?\n7 +++ exited with 0 +++\n"
	)
	wantBlind(t, Options{}, []blindCase{
		{name: "two entries submitted", want: []string{BlindIOUring},
			trace: conf + "7 io_uring_enter(6, 2, 2, IORING_ENTER_GETEVENTS, NULL, 8) = 2\n" + end},
		{name: "a kernel thread woken to submit (SQPOLL)", want: []string{BlindIOUring},
			trace: conf + "7 io_uring_enter(6, 0, 0, IORING_ENTER_SQ_WAKEUP, NULL, 8) = 0\n" + end},
		{name: "the wake-up flag as a number (-X raw)", want: []string{BlindIOUring},
			trace: conf + "7 io_uring_enter(6, 0, 0, 0x2, NULL, 8) = 0\n" + end},
		// Waiting for completions submits nothing, and a call that
		// failed (EBADF: no ring there) or took no entry did nothing.
		{name: "only waiting", trace: conf + "7 io_uring_enter(6, 0, 1, IORING_ENTER_GETEVENTS, NULL, 8) = 0\n" + end},
		{name: "failed", trace: conf + "7 io_uring_enter(6, 1, 1, IORING_ENTER_GETEVENTS, NULL, 8) = -1 EBADF (Bad file descriptor)\n" + end},
		{name: "no entry taken", trace: conf + "7 io_uring_enter(6, 1, 0, 0, NULL, 8) = 0\n" + end},
	})
}
