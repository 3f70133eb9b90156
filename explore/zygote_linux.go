//go:build linux

package explore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"github.com/crashsim/crashsim/internal/reap"
	"golang.org/x/sys/unix"
)

// A confined checker runs as an unprivileged user of the host: uid and
// gid 0 of a user namespace that map to a host uid and gid no one else
// has (checkerIDs), in a network namespace of its own (only a loopback
// interface, up) and an IPC namespace of its own. crashsim cannot start
// it itself: a process enters a user namespace only when it is made
// (clone) or while it has one thread, and a Go process has many. So each
// jail (confined_linux.go) starts a starter once, crashsim's own binary
// again, made in those three namespaces (and in the jail's mount
// namespace), and has it start the checkers:
//
//   - the starter is uid 1 of the namespace (the host uid after the
//     checkers'), so a checker cannot signal it, trace it or read its
//     /proc files, and holds in the namespace only the capabilities it
//     needs: to kill the checkers' processes, to make them uid 0, to drop
//     capabilities and to bring the loopback up;
//   - it starts each checker from a thread that has dropped all of them
//     but setuid and setgid, emptied the bounding set, set no_new_privs,
//     and set SECBIT_NOROOT (locked): the checker, uid 0 in the
//     namespace, execs with no capability at all, in the namespace or
//     outside it;
//   - it is a child subreaper: whatever a checker starts stays below it,
//     and it kills and reaps all of it before it answers. When crashsim
//     ends (the jail thread that started it ends: a parent-death signal)
//     or closes its socket, it kills all of it and ends.
//
// On the host the checker is then a uid that owns no file and no
// process: it cannot signal root's processes (kill -9 -1 reaches its own
// processes only), trace them or read their /proc/PID/environ or fd, or
// open root's files and sockets (docker.sock, a database's socket) that
// others may not. Its network namespace holds no route out and none of
// the host's listening sockets, abstract unix sockets included. Its
// state directory is an idmapped mount (jail_linux.go) that shows the
// files explore made, owned by root on disk, as its own: it sees itself
// as root owning its files (git's safe.directory check passes), and what
// it creates is root's on disk.

// zygoteMode is the runner variable's value that makes a starter.
const zygoteMode = "starter"

// uidBase is the first host uid of confined checkers. The range from it
// to systemd's foreign range (2147352576) is one no distribution gives
// out (systemd's "unused" block, below 2^31 so that no tool reads a uid
// as negative).
const (
	uidBase = 0x7F000000
	uidEnd  = 0x7FFE0000
)

// checkerIDs chooses the host uid (and gid) of a jail's checkers, and the
// uid after it, its starter's. It is uidBase plus twice the kernel's
// number of the jail's mount namespace (its inode number, less the first
// the kernel gives out), which the caller, the jail's thread, is in: the
// kernel gives no other namespace that number while it lives, and it
// lives as long as the starter and the checkers in it, so two jails, of
// one crashsim run or of two, or of crashsims in two containers, never
// share a uid.
func checkerIDs() (int, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/thread-self/ns/mnt", &st); err != nil {
		return 0, fmt.Errorf("the mount namespace's number: %w", err)
	}
	const first = 0xF0000000 // the kernel's PROC_DYNAMIC_FIRST
	if st.Ino < first || uidBase+2*(st.Ino-first)+1 >= uidEnd {
		return 0, fmt.Errorf("the mount namespace's number %d is outside the range crashsim maps to users", st.Ino)
	}
	return int(uidBase + 2*(st.Ino-first)), nil
}

// zygote is crashsim's side of a starter.
type zygote struct {
	pid   int
	pidfd int // signals the starter, not a process that took its pid once it was reaped
	// conn is crashsim's end of the socket, read through the runtime's
	// poller (see unixConn).
	conn   *net.UnixConn
	userns int // open on the starter's user namespace: the idmap of the state directories
	uid    int // the checkers' host uid and gid
}

// startZygote starts a starter, in group (none when nil), whose checkers
// are host uid uid; ready waits until it can start them. It must be
// called from the jail's thread: the starter shares that thread's mount
// namespace, and ends (killing what is below it) when the thread does.
func startZygote(uid int, group *reap.Group) (*zygote, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket pair: %w", err)
	}
	defer unix.Close(fds[1])
	conn, err := unixConn(fds[0], "starter")
	if err != nil {
		return nil, err
	}
	null, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		conn.Close()
		return nil, err
	}
	defer unix.Close(null)
	env := append(withoutRunnerEnv(os.Environ()), runnerEnv+"="+zygoteMode)
	attr := &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{uintptr(null), 2, 2, uintptr(fds[1])},
		Sys: &syscall.SysProcAttr{
			Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC,
			// Two uids: 0, the checkers', and 1, the starter's own.
			UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 2}},
			GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}},
			GidMappingsEnableSetgroups: true, // for the checkers' setgroups(0): they keep no group of root's
			Credential:                 &syscall.Credential{Uid: 1, Gid: 0},
			// It execs as uid 1, so it keeps only these (in the namespace).
			AmbientCaps: []uintptr{unix.CAP_KILL, unix.CAP_SETUID, unix.CAP_SETGID, unix.CAP_SETPCAP, unix.CAP_NET_ADMIN},
			// Caught: the starter kills what is below it, then ends.
			Pdeathsig: zygoteParentGone,
		},
	}
	if group != nil {
		attr.Sys.UseCgroupFD, attr.Sys.CgroupFD = true, group.FD()
	}
	pidfd := -1
	attr.Sys.PidFD = &pidfd
	// Executed through an fd: the starter's user may not enter the
	// directories on the way to crashsim's binary (it needs only the
	// right to execute the file itself).
	bin, err := openToExec(exe, attr.Files)
	if err != nil {
		conn.Close()
		return nil, err
	}
	defer unix.Close(bin)
	pid, err := syscall.ForkExec("/proc/self/fd/"+strconv.Itoa(bin), []string{exe}, attr)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("start %s: %w", exe, err)
	}
	z := &zygote{pid: pid, pidfd: pidfd, conn: conn, uid: uid, userns: -1}
	if z.userns, err = unix.Open("/proc/"+strconv.Itoa(pid)+"/ns/user", unix.O_RDONLY|unix.O_CLOEXEC, 0); err != nil {
		z.stop()
		return nil, fmt.Errorf("open its user namespace: %w", err)
	}
	return z, nil
}

// openToExec opens exe (O_PATH) to be executed as /proc/self/fd/N by a
// child started with files. The child moves fds about before it
// executes: its files to 0 to len(files)-1, and first, above the
// highest of len(files) and the files' own fds, its error pipe and every
// file that pass 2 would overwrite, one fd each. N is put above all of
// those: a lower N (free when exe was opened because another goroutine
// had just closed it, or the next fd up because another had one open)
// would name one of them in the child, and executing a socket or a pipe
// fails with EACCES.
func openToExec(exe string, files []uintptr) (int, error) {
	low := len(files)
	for _, f := range files {
		low = max(low, int(f))
	}
	// The pipe, one skipped fd, and at most every file moved up.
	low += 3 + len(files)
	fd, err := unix.Open(exe, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil || fd >= low {
		return fd, err
	}
	defer unix.Close(fd)
	return unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, low)
}

// zygoteParentGone is the starter's parent-death signal.
const zygoteParentGone = syscall.SIGUSR1

// withoutRunnerEnv drops the runner variable from env.
func withoutRunnerEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if len(kv) > len(runnerEnv) && kv[:len(runnerEnv)+1] == runnerEnv+"=" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// ready waits for the starter's word that it can start checkers.
func (z *zygote) ready() error {
	kind, b, err := readFrame(z.conn)
	switch {
	case err != nil:
		return fmt.Errorf("the starter ended: %w", err)
	case kind == frameNotRun:
		return errors.New(string(b))
	case kind != frameReady:
		return fmt.Errorf("the starter said %q", kind)
	}
	return nil
}

// killTree kills what is below the starter, which is a child subreaper.
func (z *zygote) killTree() { reap.KillTree(z.pid) }

// kill kills the starter and what is below it.
func (z *zygote) kill() {
	z.killTree()
	if z.pidfd >= 0 {
		_ = unix.PidfdSendSignal(z.pidfd, unix.SIGKILL, nil, 0)
	}
}

// stop ends the starter: it sees its socket close, kills what is below it
// and exits (or is killed after a while); and releases its namespace.
func (z *zygote) stop() {
	z.conn.Close()
	if z.userns >= 0 {
		unix.Close(z.userns)
		z.userns = -1
	}
	done := make(chan struct{})
	go func() {
		var ws unix.WaitStatus
		for {
			if _, err := unix.Wait4(z.pid, &ws, 0, nil); err != unix.EINTR {
				break
			}
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		z.kill()
		<-done
	}
	if z.pidfd >= 0 {
		unix.Close(z.pidfd)
		z.pidfd = -1
	}
}

// serveZygote is the starter process. It returns when the runner closes
// the socket, after it killed what is left below it.
//
// One thread does the work of each state: it reads the request, starts
// the checker, waits for it and answers, with blocking system calls and
// no hand-over to another goroutine, which would cost each state wake-ups
// of the runtime's threads. It is the thread that dropped its privileges
// (dropToChecker): the rest of the process keeps them, to kill what a
// checker left (sweep) and what is below the starter when it ends.
func serveZygote() int {
	// Started through an fd, it is named after the fd's number: take
	// crashsim's name again (ps shows it). init runs on the main thread,
	// whose name is the process's.
	if exe, err := os.Executable(); err == nil {
		name := append([]byte(filepath.Base(exe))[:min(len(filepath.Base(exe)), 15)], 0)
		_ = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&name[0])), 0, 0, 0)
	}
	catchSignals()
	gone := make(chan os.Signal, 1)
	signal.Notify(gone, zygoteParentGone)
	go func() {
		<-gone
		reap.KillTree(os.Getpid())
		os.Exit(0)
	}()
	null, err := zygoteSetup()
	code := make(chan int)
	go func() {
		runtime.LockOSThread() // for good: the thread ends with the goroutine
		if err == nil {
			err = dropToChecker()
		}
		if err != nil {
			_ = writeFrame(zygoteSock, frameNotRun, []byte(err.Error()))
			code <- 1
			return
		}
		if writeFrame(zygoteSock, frameReady, nil) != nil {
			code <- 1
			return
		}
		for {
			kind, b, out, err := readFrameFD(zygoteSock)
			if err != nil || kind != frameRun {
				code <- 0
				return
			}
			err = zygoteRun(b, out, null)
			closeFD(out)
			if err != nil {
				code <- 1
				return
			}
		}
	}()
	c := <-code
	reap.KillTree(os.Getpid())
	return c
}

// closeOnExec marks every fd from first on close-on-exec: with
// close_range (Linux 5.11), else one by one.
func closeOnExec(first int) error {
	err := unix.CloseRange(uint(first), ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("mark fds close-on-exec: %w", err)
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("mark fds close-on-exec: %w", err)
	}
	for _, e := range ents {
		// The directory's own fd is gone by now: EBADF.
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd >= first {
			_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		}
	}
	return nil
}

// zygoteSock is the starter's end of its socket to the runner.
const zygoteSock = 3

// zygoteSetup makes the starter a child subreaper and brings the loopback
// up. No fd of its but the ones it passes reaches a checker: its socket
// to crashsim, and any other crashsim did not mark close-on-exec (one
// crashsim inherited, or the uid map Go writes for another worker's
// starter at the moment this one is forked), are closed on exec.
func zygoteSetup() (int, error) {
	if err := closeOnExec(zygoteSock); err != nil {
		return -1, err
	}
	if err := reap.SetSubreaper(); err != nil {
		return -1, err
	}
	if err := loopbackUp(); err != nil {
		return -1, fmt.Errorf("loopback: %w", err)
	}
	return unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
}

// zygoteRun runs one checker: dir and path, argv, env. It is called on
// the thread that dropped its privileges.
func zygoteRun(req []byte, out, null int) error {
	head, rest, err := takeStrings(req)
	if err != nil || len(head) != 2 || out < 0 {
		return errors.New("bad request")
	}
	argv, rest, err := takeStrings(rest)
	if err != nil || len(argv) == 0 {
		return errors.New("bad request")
	}
	env, _, err := takeStrings(rest)
	if err != nil {
		return errors.New("bad request")
	}
	attr := &syscall.ProcAttr{
		Dir: head[0], Env: env, Files: []uintptr{uintptr(null), uintptr(out), uintptr(out)},
		Sys: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL,
			// uid and gid 0 of the namespace, no supplementary group.
			Credential: &syscall.Credential{Uid: 0, Gid: 0}},
	}
	pid, err := syscall.ForkExec(head[1], argv, attr)
	if err != nil {
		err = &os.PathError{Op: "fork/exec", Path: head[1], Err: err}
		return writeFrame(zygoteSock, frameNotRun, []byte(err.Error()))
	}
	ws, err := waitChecker(pid)
	if err != nil {
		return err
	}
	for {
		var w unix.WaitStatus
		got, err := unix.Wait4(-1, &w, unix.WNOHANG, nil)
		if err == unix.ECHILD {
			break
		}
		if err == unix.EINTR || got > 0 {
			continue
		}
		// What the checker left runs: kill it from a thread that may
		// (this one cannot), then wait for one to end.
		done := make(chan struct{})
		go func() {
			reap.KillTree(os.Getpid())
			close(done)
		}()
		<-done
		_, _ = unix.Wait4(-1, &w, 0, nil)
	}
	b := binary.LittleEndian.AppendUint32(nil, uint32(ws))
	return writeFrame(zygoteSock, frameDone, append(b, 0))
}

// readFrameFD reads a frame, and the fd sent with it, from a blocking
// socket.
func readFrameFD(fd int) (byte, []byte, int, error) {
	var h [5]byte
	oob := make([]byte, unix.CmsgSpace(4*4))
	var n, oobn int
	var err error
	for {
		n, oobn, _, _, err = unix.Recvmsg(fd, h[:], oob, unix.MSG_CMSG_CLOEXEC)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return 0, nil, -1, err
	}
	if n == 0 {
		return 0, nil, -1, io.EOF
	}
	passed := rightsFD(oob[:oobn])
	b := []byte(nil)
	err = readFull(fd, h[n:])
	if err == nil {
		b = make([]byte, binary.LittleEndian.Uint32(h[1:]))
		err = readFull(fd, b)
	}
	if err != nil {
		closeFD(passed)
		return 0, nil, -1, err
	}
	return h[0], b, passed, nil
}

func readFull(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Read(fd, b)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return err
		case n == 0:
			return io.ErrUnexpectedEOF
		}
		b = b[n:]
	}
	return nil
}

// writeFrame writes a frame to a blocking socket.
func writeFrame(fd int, kind byte, payload []byte) error {
	return writeFrameFD(fd, kind, payload, -1)
}

// writeFrameFD writes a frame to a blocking socket, with the fd passed
// along when it is >= 0.
func writeFrameFD(fd int, kind byte, payload []byte, passed int) error {
	b := make([]byte, 5, 5+len(payload))
	b[0] = kind
	binary.LittleEndian.PutUint32(b[1:], uint32(len(payload)))
	b = append(b, payload...)
	var oob []byte
	if passed >= 0 {
		oob = unix.UnixRights(passed)
	}
	for len(b) > 0 {
		n, err := unix.SendmsgN(fd, b, oob, nil, unix.MSG_NOSIGNAL)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b, oob = b[n:], nil
	}
	return nil
}

// Securebits (linux/securebits.h).
const (
	secbitNoroot       = 1 << 0
	secbitNorootLocked = 1 << 1
)

// dropToChecker leaves the calling thread, in the starter's user
// namespace, only what its children need to become uid and gid 0 there:
// setuid and setgid, nothing in the bounding set, SECBIT_NOROOT (locked)
// so that uid 0 gains no capability at exec, and no_new_privs.
func dropToChecker() error {
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, secbitNoroot|secbitNorootLocked, 0, 0, 0); err != nil {
		return fmt.Errorf("securebits: %w", err)
	}
	if err := emptyBoundingSet(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var keep [2]unix.CapUserData
	keep[0].Permitted = 1<<unix.CAP_SETUID | 1<<unix.CAP_SETGID
	keep[0].Effective = keep[0].Permitted
	if err := unix.Capset(&hdr, &keep[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	return nil
}

// loopbackUp brings up the network namespace's loopback interface, so
// that a checker can serve and reach localhost (PostgreSQL does).
func loopbackUp() error {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr)
}

// forker is a goroutine, locked to a thread of its own, that changes
// that thread's credentials once and then starts processes from it: a
// child gets the credentials of the thread that forked it.
type forker struct{ reqs chan forkRequest }

type forkRequest struct {
	path string
	argv []string
	attr *syscall.ProcAttr
	done chan forkResult
}

type forkResult struct {
	pid int
	err error
}

// startForker starts a forker whose thread runs setup first.
func startForker(setup func() error) (*forker, error) {
	f := &forker{reqs: make(chan forkRequest)}
	ready := make(chan error)
	go func() {
		runtime.LockOSThread() // for good: the thread must not run anything else
		if err := setup(); err != nil {
			ready <- err
			return // the locked thread ends with its goroutine
		}
		close(ready)
		for req := range f.reqs {
			pid, err := syscall.ForkExec(req.path, req.argv, req.attr)
			req.done <- forkResult{pid, err}
		}
	}()
	if err := <-ready; err != nil {
		return nil, err
	}
	return f, nil
}

// forkExec starts a process from the forker's thread.
func (f *forker) forkExec(path string, argv []string, attr *syscall.ProcAttr) (int, error) {
	done := make(chan forkResult, 1)
	f.reqs <- forkRequest{path, argv, attr, done}
	r := <-done
	return r.pid, r.err
}
