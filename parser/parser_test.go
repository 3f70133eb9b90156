package parser

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// parseText reads a whole trace from text written to a temp file (so data
// references can be decoded), returning events and warnings.
func parseText(t *testing.T, text string) ([]*Event, []string, string) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "trace")
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var warns []string
	s, err := Open(name, Options{Warn: func(p Pos, m string) { warns = append(warns, m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var evs []*Event
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return evs, warns, name
		}
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		evs = append(evs, ev)
	}
}

// summary is the part of an event the table tests compare.
type summary struct {
	Line, End, PID int
	Comm           string
	Name           string
	Args           string
	Ret            string
	Anno           string
	Extra          string
}

func summarize(evs []*Event) []summary {
	var out []summary
	for _, ev := range evs {
		s := summary{Line: ev.Pos.Line, End: ev.EndLine, PID: ev.PID, Comm: ev.Comm(), Name: ev.Name, Anno: ev.RetAnno, Extra: ev.RetExtra()}
		switch ev.Kind {
		case KindSyscall:
			s.Args = ev.FormatArgs(nil)
			s.Ret = ev.FormatRet()
			if ev.RetDeleted {
				s.Anno += "(deleted)"
			}
		case KindExit:
			s.Name = "+++exit"
			s.Ret = strings.TrimSpace(strings.Repeat(" ", 0) + itoa(ev.Status()))
		case KindKilled:
			s.Name = "+++killed " + ev.Name
			if ev.CoreDumped {
				s.Ret = "core"
			}
		case KindSignal:
			s.Name = "---" + ev.Name
		case KindSuperseded:
			s.Name = "+++superseded"
		}
		out = append(out, s)
	}
	return out
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

func TestGrammar(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []summary
	}{
		{"no pid", `close(3) = 0` + "\n",
			[]summary{{Line: 1, End: 1, Name: "close", Args: "3", Ret: "0"}}},
		{"bare pid", "1234  close(3) = 0\n",
			[]summary{{Line: 1, End: 1, PID: 1234, Name: "close", Args: "3", Ret: "0"}}},
		{"[pid N] form", "[pid  1235] close(3) = 0\n",
			[]summary{{Line: 1, End: 1, PID: 1235, Name: "close", Args: "3", Ret: "0"}}},
		{"-f log with lines without a pid", "close(4) = 0\n[pid 7] close(3) = 0\n",
			[]summary{{Line: 1, End: 1, Name: "close", Args: "4", Ret: "0"}, {Line: 2, End: 2, PID: 7, Name: "close", Args: "3", Ret: "0"}}},
		{"-Y comm, bare and bracketed", "12<python3> close(3) = 0\n[pid 13<sh>] close(4) = 0\n",
			[]summary{{Line: 1, End: 1, PID: 12, Comm: "python3", Name: "close", Args: "3", Ret: "0"}, {Line: 2, End: 2, PID: 13, Comm: "sh", Name: "close", Args: "4", Ret: "0"}}},
		{"-y annotations with escapes", `write(3</tmp/dir \74with\76 \"q\" sp\nnl/f.txt>, "x", 1) = 1` + "\n",
			[]summary{{Line: 1, End: 1, Name: "write", Args: "3</tmp/dir <with> \"q\" sp\\nnl/f.txt>, <data>, 1" /* the decoded newline, escaped again for text */, Ret: "1"}}},
		{"-xx annotation", `fsync(3<\x2f\x74\x2f\x61>) = 0` + "\n",
			[]summary{{Line: 1, End: 1, Name: "fsync", Args: "3</t/a>", Ret: "0"}}},
		{"(deleted) outside and inside the brackets", "write(3</tmp/d.txt>(deleted), \"x\", 1) = 1\nfsync(4</tmp/e.txt (deleted)>) = 0\n",
			[]summary{{Line: 1, End: 1, Name: "write", Args: "3</tmp/d.txt>(deleted), <data>, 1", Ret: "1"}, {Line: 2, End: 2, Name: "fsync", Args: "4</tmp/e.txt>(deleted)", Ret: "0"}}},
		{"AT_FDCWD and returned fd", `openat(AT_FDCWD</home/u>, "a.txt", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3</home/u/a.txt>` + "\n",
			[]summary{{Line: 1, End: 1, Name: "openat", Args: `AT_FDCWD</home/u>, "a.txt", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666`, Ret: "3", Anno: "/home/u/a.txt"}}},
		{"pipes, sockets, devices", "pipe2([4<pipe:[5006]>, 5<pipe:[5006]>], O_CLOEXEC) = 0\nwrite(6<TCP:[127.0.0.1:40000->127.0.0.1:80]>, \"x\", 1) = 1\nwrite(7</dev/null<char 1:3>>, \"n\", 1) = 1\n",
			[]summary{
				{Line: 1, End: 1, Name: "pipe2", Args: "[4<pipe:[5006]>, 5<pipe:[5006]>], O_CLOEXEC", Ret: "0"},
				{Line: 2, End: 2, Name: "write", Args: "6<TCP:[127.0.0.1:40000->127.0.0.1:80]>, <data>, 1", Ret: "1"},
				{Line: 3, End: 3, Name: "write", Args: "7</dev/null>, <data>, 1", Ret: "1"}}},
		// shadow-utils keeps its backups as /etc/passwd- and /etc/shadow-:
		// the '>' after such a path closes it; "->" joins a socket's ends
		// only inside its brackets, nested ones of IPv6 too.
		{"paths that end in '-'", `openat(AT_FDCWD</tmp>, "/etc/passwd-", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 8</etc/passwd->` + "\nfsync(8</etc/passwd->) = 0\n" +
			`write(6<TCPv6:[[::1]:443->[::1]:5555]>, "x", 1) = 1` + "\n" + `fchown(9</a/b-<char 1:3>>, 0, 0) = 0` + "\n" +
			`openat(AT_FDCWD</w>, "[a-", O_RDONLY) = 3</w/[a->` + "\n" + `openat(AT_FDCWD</w>, "x->y", O_RDONLY) = 4</w/x-\76y>` + "\n",
			[]summary{
				{Line: 1, End: 1, Name: "openat", Args: `AT_FDCWD</tmp>, "/etc/passwd-", O_WRONLY|O_CREAT|O_TRUNC, 0666`, Ret: "8", Anno: "/etc/passwd-"},
				{Line: 2, End: 2, Name: "fsync", Args: "8</etc/passwd->", Ret: "0"},
				{Line: 3, End: 3, Name: "write", Args: "6<TCPv6:[[::1]:443->[::1]:5555]>, <data>, 1", Ret: "1"},
				{Line: 4, End: 4, Name: "fchown", Args: "9</a/b->, 0, 0", Ret: "0"},
				// strace escapes a path's '<' and '>', not its brackets.
				{Line: 5, End: 5, Name: "openat", Args: `AT_FDCWD</w>, "[a-", O_RDONLY`, Ret: "3", Anno: "/w/[a-"},
				{Line: 6, End: 6, Name: "openat", Args: `AT_FDCWD</w>, "x->y", O_RDONLY`, Ret: "4", Anno: "/w/x->y"}}},
		{"-X raw", `openat(-100, "a", 0x241, 0644) = 3` + "\n",
			[]summary{{Line: 1, End: 1, Name: "openat", Args: `-100, "a", 0x241, 0644`, Ret: "3"}}},
		{"-X verbose", `openat(-100 /* AT_FDCWD */, "a", 0x241 /* O_WRONLY|O_CREAT|O_TRUNC */, 0644) = 3` + "\n",
			[]summary{{Line: 1, End: 1, Name: "openat", Args: `AT_FDCWD, "a", O_WRONLY|O_CREAT|O_TRUNC, 0644`, Ret: "3"}}},
		{"-X verbose with a comment inside a flag expression", `clone(child_stack=NULL, flags=0x1200000 /* CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID */|17 /* SIGCHLD */, child_tidptr=0x7f) = 9` + "\n",
			[]summary{{Line: 1, End: 1, Name: "clone", Args: `child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f`, Ret: "9"}}},
		{"octal and -x escapes in paths", `unlink("a\1b\x7fc\377") = 0` + "\n",
			[]summary{{Line: 1, End: 1, Name: "unlink", Args: `"a\x01b\x7fc\xff"`, Ret: "0"}}},
		{"truncated string", `rename("aaaa"..., "b") = 0` + "\n",
			[]summary{{Line: 1, End: 1, Name: "rename", Args: `"aaaa"..., "b"`, Ret: "0"}}},
		{"writev iovecs and a cut array", `writev(3, [{iov_base="ab", iov_len=2}, {iov_base="cd", iov_len=2}, ...], 5) = 4` + "\n",
			[]summary{{Line: 1, End: 1, Name: "writev", Args: `3, [{iov_base=<data>, iov_len=2}, {iov_base=<data>, iov_len=2}, ...], 5`, Ret: "4"}}},
		{"abbrev=none struct", `newfstatat(3, "", {st_dev=makedev(0xfe, 0x1), st_ino=42, st_mode=S_IFREG|0644, st_size=10, st_atime=1700000000 /* 2023-11-14T22:13:20+0000 */}, AT_EMPTY_PATH) = 0` + "\n",
			[]summary{{Line: 1, End: 1, Name: "newfstatat", Args: `3, "", {st_dev=makedev(0xfe, 0x1), st_ino=42, st_mode=S_IFREG|0644, st_size=10, st_atime=1700000000}, AT_EMPTY_PATH`, Ret: "0"}}},
		{"unfinished and resumed across pids", "[pid 1] read(3,  <unfinished ...>\n[pid 2] close(4 <unfinished ...>\n[pid 1] <... read resumed>\"abc\", 10) = 3\n[pid 2] <... close resumed>) = 0\n",
			[]summary{
				{Line: 1, End: 3, PID: 1, Name: "read", Args: "3, <data>, 10", Ret: "3"},
				{Line: 2, End: 4, PID: 2, Name: "close", Args: "4", Ret: "0"}}},
		{"-z: the rest of a cut call on the next line, with no pid", "1 read(3,  <unfinished ...>\n\"abc\", 10)           = 3 <0.000223>\n2 +++ exited with 0 +++\n1 close(3 <unfinished ...>\n)                     = 0\n1 rt_sigprocmask(SIG_SETMASK, [],  <unfinished ...>\nNULL, 8) = 0\n",
			[]summary{
				{Line: 1, End: 2, PID: 1, Name: "read", Args: "3, <data>, 10", Ret: "3"},
				{Line: 3, End: 3, PID: 2, Name: "+++exit", Ret: "0"},
				{Line: 4, End: 5, PID: 1, Name: "close", Args: "3", Ret: "0"},
				{Line: 6, End: 7, PID: 1, Name: "rt_sigprocmask", Args: "SIG_SETMASK, [], NULL, 8", Ret: "0"}}},
		{"-z: a line of its own after a cut call stays one", "1 read(3,  <unfinished ...>\nclose(4) = 0\n1 <... read resumed>\"\", 10) = 0\n",
			[]summary{
				{Line: 2, End: 2, PID: 1, Name: "close", Args: "4", Ret: "0"}, // the only process seen: see pidTrack
				{Line: 1, End: 3, PID: 1, Name: "read", Args: "3, <data>, 10", Ret: "0"}}},
		{"stderr form: the command's lines get a pid once a child is attached", "read(3,  <unfinished ...>\nstrace: Process 8 attached\n[pid 8] close(5) = 0\n[pid 7] <... read resumed>\"\", 10) = 0\n[pid 7] close(3) = 0\n[pid 8] +++ exited with 0 +++\nclose(4) = 0\n+++ exited with 0 +++\n",
			[]summary{
				{Line: 3, End: 3, PID: 8, Name: "close", Args: "5", Ret: "0"},
				{Line: 1, End: 4, Name: "read", Args: "3, <data>, 10", Ret: "0"},
				{Line: 5, End: 5, Name: "close", Args: "3", Ret: "0"},
				{Line: 6, End: 6, PID: 8, Name: "+++exit", Ret: "0"},
				{Line: 7, End: 7, Name: "close", Args: "4", Ret: "0"},
				{Line: 8, End: 8, Name: "+++exit", Ret: "0"}}},
		{"stderr form: a child left alone loses its prefix", "clone(child_stack=NULL, flags=SIGCHLD) = 9\nstrace: Process 9 attached\n[pid 9] close(5) = 0\n[pid 6] wait4(-1,  <unfinished ...>\n[pid 9] write(1, \"x\", 1) = 1\n[pid 6] +++ killed by SIGKILL +++\nclose(1) = 0\n",
			[]summary{
				{Line: 1, End: 1, Name: "clone", Args: "child_stack=NULL, flags=SIGCHLD", Ret: "9"},
				{Line: 3, End: 3, PID: 9, Name: "close", Args: "5", Ret: "0"},
				{Line: 5, End: 5, PID: 9, Name: "write", Args: "1, <data>, 1", Ret: "1"},
				{Line: 4, End: 6, Name: "wait4", Args: "-1", Ret: "?"},
				{Line: 6, End: 6, Name: "+++killed SIGKILL"},
				{Line: 7, End: 7, PID: 9, Name: "close", Args: "1", Ret: "0"}}},
		{"resumed after a value, with a comma", "5 clone(child_stack=NULL, flags=CLONE_VM|SIGCHLD <unfinished ...>\n5 <... clone resumed>, child_tidptr=0x7f) = 6\n",
			[]summary{{Line: 1, End: 2, PID: 5, Name: "clone", Args: "child_stack=NULL, flags=CLONE_VM|SIGCHLD, child_tidptr=0x7f", Ret: "6"}}},
		{"resumed then cut again", "9 read(0,  <unfinished ...>\n9 <... read resumed> <unfinished ...>) = ?\n9 +++ killed by SIGKILL +++\n",
			[]summary{{Line: 1, End: 2, PID: 9, Name: "read", Args: "0", Ret: "?"}, {Line: 3, End: 3, PID: 9, Name: "+++killed SIGKILL"}}},
		{"unfinished call of a killed process", "9 futex(0x1, FUTEX_WAIT, 0, NULL <unfinished ...>\n9 +++ killed by SIGSEGV (core dumped) +++\n",
			[]summary{{Line: 1, End: 2, PID: 9, Name: "futex", Args: "0x1, FUTEX_WAIT, 0, NULL", Ret: "?"}, {Line: 2, End: 2, PID: 9, Name: "+++killed SIGSEGV", Ret: "core"}}},
		{"unknown return", "exit_group(0) = ?\n+++ exited with 0 +++\n",
			[]summary{{Line: 1, End: 1, Name: "exit_group", Args: "0", Ret: "?"}, {Line: 2, End: 2, Name: "+++exit", Ret: "0"}}},
		{"unavailable", "wait4(-1, <unavailable>, 0, NULL) = ? <unavailable>\n",
			[]summary{{Line: 1, End: 1, Name: "wait4", Args: "-1, <unavailable>, 0, NULL", Ret: "?"}}},
		{"ERESTARTSYS", "read(0, 0x7ffd, 10) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)\n",
			[]summary{{Line: 1, End: 1, Name: "read", Args: "0, 0x7ffd, 10", Ret: "? ERESTARTSYS", Extra: "(To be restarted if SA_RESTART is set)"}}},
		{"errno with text, injected", "fsync(3) = -1 EIO (Input/output error) (INJECTED)\n",
			[]summary{{Line: 1, End: 1, Name: "fsync", Args: "3", Ret: "-1 EIO (INJECTED)", Extra: "(Input/output error) (INJECTED)"}}},
		{"numeric errno", "ioctl(3, 0x1234) = -1 (errno 512)\n",
			[]summary{{Line: 1, End: 1, Name: "ioctl", Args: "3, 0x1234", Ret: "-1 errno 512"}}},
		{"decoded return extras", "fcntl(3, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE)\n",
			[]summary{{Line: 1, End: 1, Name: "fcntl", Args: "3, F_GETFL", Ret: "32770", Extra: "(flags O_RDWR|O_LARGEFILE)"}}},
		{"signals and exits", "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=5} ---\n--- stopped by SIGSTOP ---\n+++ superseded by execve +++\n+++ exited with 3 +++\n",
			[]summary{{Line: 1, End: 1, Name: "---SIGCHLD"}, {Line: 2, End: 2, Name: "---SIGSTOP"}, {Line: 3, End: 3, Name: "+++superseded"}, {Line: 4, End: 4, Name: "+++exit", Ret: "3"}}},
		{"strace -p sessions appended to one file (-A): a later one's lines are its process's", "strace: Process 40 attached\nclose(5) = 0\nexit_group(0) = ?\n+++ exited with 0 +++\nstrace: Can't stat '41': No such file or directory\nstrace: Process 41 attached\nread(3,  <unfinished ...>\n<... read resumed>\"\", 10) = 0\n+++ exited with 1 +++\nstrace: Process 42 attached\nclose(7) = 0\n",
			[]summary{
				{Line: 2, End: 2, Name: "close", Args: "5", Ret: "0"},
				{Line: 3, End: 3, Name: "exit_group", Args: "0", Ret: "?"},
				{Line: 4, End: 4, Name: "+++exit", Ret: "0"},
				{Line: 7, End: 8, PID: 41, Name: "read", Args: "3, <data>, 10", Ret: "0"},
				{Line: 9, End: 9, PID: 41, Name: "+++exit", Ret: "1"},
				{Line: 11, End: 11, PID: 42, Name: "close", Args: "7", Ret: "0"}}},
		{"an attach while the command runs is no later session", "close(5) = 0\nstrace: Process 9 attached\nclose(6) = 0\n+++ exited with 0 +++\n",
			[]summary{
				{Line: 1, End: 1, Name: "close", Args: "5", Ret: "0"},
				{Line: 3, End: 3, Name: "close", Args: "6", Ret: "0"},
				{Line: 4, End: 4, Name: "+++exit", Ret: "0"}}},
		{"strace diagnostics are skipped", "strace: Process 5 attached\nclose(3) = 0\n",
			[]summary{{Line: 2, End: 2, Name: "close", Args: "3", Ret: "0"}}},
		{"Ctrl-C's echo before strace's message", "5 close(3) = 0\n^Cstrace: Process 5 detached\n",
			[]summary{{Line: 1, End: 1, PID: 5, Name: "close", Args: "3", Ret: "0"}}},
		{"a strace: message splitting a line", "5 write(1, \"ab\", 2strace: Process 6 attached\n) = 2\n",
			[]summary{{Line: 1, End: 2, PID: 5, Name: "write", Args: "1, <data>, 2", Ret: "2"}}},
		{"a syscall strace could not name", "7 ???( <unfinished ...>\n7 +++ killed by SIGKILL +++\n",
			[]summary{{Line: 1, End: 2, PID: 7, Name: "???", Ret: "?"}, {Line: 2, End: 2, PID: 7, Name: "+++killed SIGKILL"}}},
		{"an argument changed by the call", "5 clone3({flags=CLONE_VM|CLONE_FILES, exit_signal=0} => {parent_tid=[6]}, 88) = 6\n",
			[]summary{{Line: 1, End: 1, PID: 5, Name: "clone3", Args: "{flags=CLONE_VM|CLONE_FILES, exit_signal=0} => {parent_tid=[6]}, 88", Ret: "6"}}},
		{"unknown syscall", "syscall_0x3e7(0x1, 0x2) = -1 ENOSYS (Function not implemented)\n",
			[]summary{{Line: 1, End: 1, Name: "syscall_0x3e7", Args: "0x1, 0x2", Ret: "-1 ENOSYS", Extra: "(Function not implemented)"}}},
		{"-T duration", "fsync(3) = 0 <0.000449>\n",
			[]summary{{Line: 1, End: 1, Name: "fsync", Args: "3", Ret: "0"}}},
		{"sigset as text", "rt_sigprocmask(SIG_BLOCK, [INT TERM], NULL, 8) = 0\n",
			[]summary{{Line: 1, End: 1, Name: "rt_sigprocmask", Args: "SIG_BLOCK, [INT TERM], NULL, 8", Ret: "0"}}},
		{"wait status expression", "wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 7\n",
			[]summary{{Line: 1, End: 1, Name: "wait4", Args: "-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL", Ret: "7"}}},
		{"returned fd of a deleted file", "dup(3</tmp/x>(deleted)) = 4</tmp/x>(deleted)\n",
			[]summary{{Line: 1, End: 1, Name: "dup", Args: "3</tmp/x>(deleted)", Ret: "4", Anno: "/tmp/x(deleted)"}}},
		{"a shift in a value (termios flags, capability sets)", "ioctl(1</dev/pts/0<char 136:0>>, TCGETS2, {c_iflag=ICRNL|IXON, c_cflag=B38400|B38400<<IBSHIFT|CS8|CREAD, c_lflag=ISIG, ...}) = 0\n7 capget({version=_LINUX_CAPABILITY_VERSION_3, pid=0}, {effective=0, permitted=0, inheritable=1<<CAP_WAKE_ALARM}) = 0\n",
			[]summary{
				{Line: 1, End: 1, Name: "ioctl", Args: "1</dev/pts/0>, TCGETS2, {c_iflag=ICRNL|IXON, c_cflag=B38400|B38400<<IBSHIFT|CS8|CREAD, c_lflag=ISIG, ...}", Ret: "0"},
				{Line: 2, End: 2, PID: 7, Name: "capget", Args: "{version=_LINUX_CAPABILITY_VERSION_3, pid=0}, {effective=0, permitted=0, inheritable=1<<CAP_WAKE_ALARM}", Ret: "0"}}},
		{"a tracee gone inside a call (strace 4.x)", "[pid 9] writev(45<UNIX:[6532160]>, [{iov_base=\"\\x04\", iov_len=1}], 1 <ptrace(SYSCALL):No such process>\n[pid 9] <... writev resumed>) = ?\n[pid 8] mmap(NULL, 4096, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0 <ptrace(SYSCALL):No such process>\n[pid 8] +++ killed by SIGKILL +++\n",
			[]summary{
				{Line: 1, End: 2, PID: 9, Name: "writev", Args: "45<UNIX:[6532160]>, [{iov_base=<data>, iov_len=1}], 1", Ret: "?"},
				{Line: 3, End: 4, PID: 8, Name: "mmap", Args: "NULL, 4096, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0", Ret: "?"},
				{Line: 4, End: 4, PID: 8, Name: "+++killed SIGKILL"}}},
		{"-e write= hex dumps are passed over", "write(3, \"hi\\n\", 3) = 3\n | 00000  68 69 0a                                         hi.              |\nwritev(3, [{iov_base=\"ab\", iov_len=2}, {iov_base=\"c\", iov_len=1}], 2) = 3\n * 2 bytes in buffer 0\n | 00000  61 62                                            ab               |\n * 1 bytes in buffer 1\n | 00000  63                                               c                |\nclose(3) = 0\n",
			[]summary{
				{Line: 1, End: 1, Name: "write", Args: "3, <data>, 3", Ret: "3"},
				{Line: 3, End: 3, Name: "writev", Args: "3, [{iov_base=<data>, iov_len=2}, {iov_base=<data>, iov_len=1}], 2", Ret: "3"},
				{Line: 8, End: 8, Name: "close", Args: "3", Ret: "0"}}},
		{"strace 4.x sigreturn with the mask it restored", "sigreturn() (mask [])     = 0\n7 sigreturn() (mask [INT TERM]) = 8\n",
			[]summary{
				{Line: 1, End: 1, Name: "sigreturn", Ret: "0"},
				{Line: 2, End: 2, PID: 7, Name: "sigreturn", Ret: "8"}}},
		{"CRLF line ends", "close(3) = 0\r\n",
			[]summary{{Line: 1, End: 1, Name: "close", Args: "3", Ret: "0"}}},
		// A -f log saved with CRLF line ends (a Windows checkout): the
		// split call's marks end in a carriage return too, in the lane
		// that decodes the arguments and in the one that skips them.
		{"CRLF after the unfinished marks", "1 write(3, \"hi\\n\", 3 <unfinished ...>\r\n2 rt_sigaction(SIGINT, {sa_handler=SIG_IGN}, <unfinished ...>\r\n1 <... write resumed>) = 3\r\n2 <... rt_sigaction resumed>NULL, 8) = 0\r\n3 read(0,  <unfinished ... exit status 0>\r\n",
			[]summary{
				{Line: 1, End: 3, PID: 1, Name: "write", Args: "3, <data>, 3", Ret: "3"},
				{Line: 2, End: 4, PID: 2, Name: "rt_sigaction", Args: "SIGINT, {sa_handler=SIG_IGN}, NULL, 8", Ret: "0"},
				{Line: 5, End: 5, PID: 3, Name: "read", Args: "0", Ret: "?"},
				{Line: 5, End: 5, PID: 3, Name: "+++exit", Ret: "0"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs, _, _ := parseText(t, tc.in)
			if diff := cmp.Diff(tc.want, summarize(evs)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTimestamps(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []int64
	}{
		{"-t", "18:02:35 close(3) = 0\n", []int64{(18*3600 + 2*60 + 35) * 1e9}},
		{"-tt", "18:02:35.123456 close(3) = 0\n", []int64{(18*3600+2*60+35)*1e9 + 123456000}},
		{"-tt across midnight", "23:59:59.5 close(3) = 0\n00:00:00.25 close(4) = 0\n", []int64{86399*1e9 + 5e8, 86400*1e9 + 25e7}},
		{"-ttt", "1795975352.029797 close(3) = 0\n", []int64{1795975352029797000}},
		{"ns precision", "1795975352.219806051 close(3) = 0\n", []int64{1795975352219806051}},
		{"-r accumulates", "     0.000000 close(3) = 0\n     0.000145 close(4) = 0\n     0.000010 close(5) = 0\n", []int64{0, 145000, 155000}},
		{"pid then time", "1944  18:02:31.322294 close(3) = 0\n", []int64{(18*3600+2*60+31)*1e9 + 322294000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs, _, _ := parseText(t, tc.in)
			var got []int64
			for _, ev := range evs {
				if !ev.HasTime {
					t.Fatalf("line %d: no time", ev.Pos.Line)
				}
				got = append(got, ev.Time)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("times (-want +got):\n%s", diff)
			}
		})
	}
	evs, _, _ := parseText(t, "fsync(3) = 0 <0.000449>\n")
	if evs[0].Dur != 449*time.Microsecond {
		t.Errorf("-T duration = %v, want 449µs", evs[0].Dur)
	}
}

// TestContinuationData: the bytes of a write whose rest strace -z put on
// a line of its own are read from where they are in the file.
func TestContinuationData(t *testing.T) {
	evs, _, _ := parseText(t, "1 write(3</d/f>,  <unfinished ...>\n\"hello\", 5) = 5\n2 +++ exited with 0 +++\n")
	if len(evs) != 2 || evs[0].Name != "write" || len(evs[0].Args) != 3 {
		t.Fatalf("events %v", summarize(evs))
	}
	d := NewDataReader()
	defer d.Close()
	got, err := d.Bytes(evs[0].Args[1].Data, evs[0].Ret)
	if err != nil || string(got) != "hello" {
		t.Errorf("data = %q, %v; want \"hello\"", got, err)
	}
}

// TestContinuationError: a line that is neither strace output nor the rest
// of the cut call before it is still an error at its own position.
func TestContinuationError(t *testing.T) {
	name := filepath.Join(t.TempDir(), "trace")
	if err := os.WriteFile(name, []byte("1 read(3,  <unfinished ...>\nhello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for err == nil {
		_, err = s.Next()
	}
	var pe *Error
	if !errors.As(err, &pe) || pe.Pos.Line != 2 || pe.Pos.Col < 1 {
		t.Errorf("error %v; want one at line 2", err)
	}
}

func TestDataClippedToReturnValue(t *testing.T) {
	evs, _, _ := parseText(t, `write(3, "\x68\x65\x6c\x6c\x6f\x20\x77\x6f\x72\x6c\x64", 11) = 5`+"\n"+`write(4, "a\nb\0c\"", 6) = 6`+"\n")
	d := NewDataReader()
	defer d.Close()
	got, err := d.Bytes(evs[0].Args[1].Data, evs[0].Ret)
	if err != nil || string(got) != "hello" {
		t.Errorf("clipped data = %q, %v; want \"hello\"", got, err)
	}
	got, err = d.Bytes(evs[1].Args[1].Data, evs[1].Ret)
	if err != nil || string(got) != "a\nb\x00c\"" {
		t.Errorf("escaped data = %q, %v", got, err)
	}
	if evs[0].Args[1].HasStr {
		t.Error("write data was decoded inline; it must stay in the file")
	}
}

func TestFlags(t *testing.T) {
	evs, _, _ := parseText(t, "openat(AT_FDCWD, \"a\", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3\nopenat(-100, \"a\", 0x80241, 0666) = 3\n")
	named, ok1 := evs[0].Bits(2, OpenFlags)
	raw, ok2 := evs[1].Bits(2, OpenFlags)
	if !ok1 || !ok2 || named != raw || named != 0x80241 {
		t.Errorf("flags: named %#x (%v), raw %#x (%v); want both 0x80241", named, ok1, raw, ok2)
	}
	if _, ok := OpenFlags.Bits("O_WRONLY|O_BOGUS", evs[0].Arch); ok {
		t.Error("an unknown flag name was accepted")
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"garbage", "hello world\n", "trace:1:6: expected '(' after syscall name \"hello\"; this line is not strace output (a shell prompt, a program's own output, or text copied along with the trace?): strace wrote its trace where the program writes its output (the terminal, without -o), so the program's output is mixed into the trace; record with strace -o FILE, and cut off what is not the trace"},
		{"not a line start", "#!/bin/sh\n", "trace:1:1: expected a syscall name, a signal (---) or an exit (+++), found \"#!/bin/sh\""},
		{"no return", "close(3)\nclose(4) = 0\n", "trace:1:9: expected '=' and the return value of close"},
		{"bad return", "close(3) = zz\n", "trace:1:12: expected a number or '?' as the return value of close, found \"zz\""},
		{"unclosed args", "write(3, \"abc\"\nclose(3) = 0\n", "trace:1:15: line ended inside the arguments of write: expected ',' or ')'"},
		{"unterminated string", "write(3, \"abc, 3) = 3\nclose(3) = 0\n", "trace:1:10: unterminated string: expected '\"'"},
		{"a struct not closed", "fstat(3, {st_mode=S_IFREG\nclose(3) = 0\n", "trace:1:26: line ended inside a struct: expected '}'"},
		{"an array not closed", "poll([{fd=3, events=POLLIN}\nclose(3) = 0\n", "trace:1:28: line ended inside an array: expected ']'"},
		{"unbalanced brackets", "write(3, [1, 2, 3) = 3\nclose(3) = 0\n", "trace:1:23: line ended inside the arguments of write: expected ',' or ')'"},
		{"NUL bytes", "close(3) = 0\nclo\x00se(3) = 0\n", "trace:2:4: NUL byte in the line: this is not an strace text log (a binary file?)"},
		{"strace -c table", "% time     seconds  usecs/call     calls    errors syscall\n------ ----------- ----------- --------- --------- ----------------\n", "trace:1:1: this is an strace -c summary: it counts calls but records none; record without -c (e.g. strace -f -ttt -y -xx -o FILE CMD)"},
		{"empty", "", "trace:1: the trace is empty: no strace output in it"},
		{"blank lines only", "\n\n", "trace:2: the trace is empty: no strace output in it"},
		{"bad timestamp", "12:3x close(3) = 0\n", "trace:1:5: expected a space after the timestamp"},
		{"bad escape", `unlink("a\q") = 0` + "\n", "trace:1:8: bad escape in string"},
		{"nothing after =>", "clone3({flags=0} => \nclose(3) = 0\n", "trace:1:21: line ended where a value was expected"},
		{"-c summary after strace: lines", "strace: Process 5 attached\n% time     seconds  usecs/call     calls    errors syscall\n", "trace:2:1: this is an strace -c summary: it counts calls but records none; record without -c (e.g. strace -f -ttt -y -xx -o FILE CMD)"},
		{"ltrace log", "puts(\"hi\") = 3\n+++ exited (status 0) +++\n", "trace:2:5: expected \"exited with N\", \"killed by SIG\" or \"superseded by execve\" after \"+++\"; this looks like an ltrace log (library calls): crashsim reads strace logs (strace -f -ttt -y -xx -o FILE CMD)"},
		{"ltrace -S", "SYS_brk(0) = 0x55d0\nSYS_write(1, \"x\", 1 = 1\nSYS_close(3) = 0\n", "trace:2:24: line ended inside the arguments of SYS_write: expected ',' or ')'; this looks like an ltrace log (library calls): crashsim reads strace logs (strace -f -ttt -y -xx -o FILE CMD)"},
		{"perf trace", "     0.000 ( 0.004 ms): cat/1234 openat(dfd: CWD, filename: /etc/ld.so.cache) = 3\n", "trace:1:12: expected a syscall name, a signal (---) or an exit (+++), found \"( 0.004 ms): cat/123...\"; this looks like perf trace output: crashsim reads strace logs (strace -f -ttt -y -xx -o FILE CMD)"},
		{"JSON", "{\"findings\": []}\n", "trace:1:1: expected a syscall name, a signal (---) or an exit (+++), found \"{\\\"findings\\\": []}\"; this looks like JSON, not an strace log"},
		{"a date before each line", "2024-05-01T10:00:00Z close(3) = 0\n", "trace:1:1: expected a timestamp or a syscall name; the lines start with a date, which strace never prints: a prefix added by another tool (a CI or journal log?); cut it off, or record with strace -o FILE"},
		{"program output inside a write to a copy of stdout", "getdents64(3, /* 3 entries */, 32768) = 80\nwrite(23, \"Hello\"..., 34Hello, world\n) = 34\n", "trace:2:37: line ended inside the arguments of write: expected ',' or ')'; this write is cut by the program's own output, printed right after its byte count: strace wrote its trace where the program writes its output (the terminal, without -o), so the program's output is mixed into the trace; record with strace -o FILE"},
		{"a program's message with a parenthesis", "close(3) = 0\nERROR: Could not find a version (from versions: none)\n", "trace:2:6: expected '(' after syscall name \"ERROR\"; this line is not strace output (a shell prompt, a program's own output, or text copied along with the trace?): strace wrote its trace where the program writes its output (the terminal, without -o), so the program's output is mixed into the trace; record with strace -o FILE, and cut off what is not the trace"},
		{"stderr output after the count that reads as more arguments", "write(2, \"I0725 \"..., 127I0725 22:30:35.1 x.cc:9] \"Pinned\") = 127\n", "trace:1:49: expected ',' or ')' after argument 3 of write, found \"] \\\"Pinned\\\") = 127\"; this write to the program's stdout or stderr is cut by its own output: strace wrote its trace where the program writes its output (the terminal, without -o), so the program's output is mixed into the trace; record with strace -o FILE"},
		{"a child's message inside wait4", "getdents64(5, /* 16 entries */, 4096) = 472\nwait4(-1, mkdir: cannot create directory '/run/user/0': Permission denied\n[{WIFEXITED(s) && WEXITSTATUS(s) == 1}], 0, NULL) = 70160\n", "trace:2:74: line ended inside the arguments of wait4: expected ',' or ')'; this call is cut by the program's own output (or a child's): strace wrote its trace where the program writes its output (the terminal, without -o), so the program's output is mixed into the trace; record with strace -o FILE"},
		{"an unclosed flag argument is no prose", "openat(AT_FDCWD, \"/a\", O_RDONLY\nclose(3) = 0\n", "trace:1:32: line ended inside the arguments of openat: expected ',' or ')'"},
		{"program output inside its own write", "write(1, \"hello\\n\", 6hello\n) = 6\n", "trace:1:27: line ended inside the arguments of write: expected ',' or ')'; this write to the program's stdout or stderr is cut by its own output: strace wrote its trace where the program writes its output (the terminal, without -o), so the program's output is mixed into the trace; record with strace -o FILE"},
		// -y names the terminal; a newline first in the output ends the
		// line at the byte count, on any fd.
		{"program output inside its own write, -y", "write(2</dev/pts/4>, \"done\\n\", 5done\n) = 5\n", "trace:1:37: line ended inside the arguments of write: expected ',' or ')'; this write to the program's stdout or stderr is cut by its own output: strace wrote its trace where the program writes its output (the terminal, without -o), so the program's output is mixed into the trace; record with strace -o FILE"},
		{"a newline written to a copy of stdout", "close(3) = 0\nwrite(9</dev/pts/4>, \"\\n\", 1\n) = 1\n", "trace:2:29: line ended inside the arguments of write: expected ',' or ')'; this write is cut by the program's own output, printed right after its byte count: strace wrote its trace where the program writes its output (the terminal, without -o), so the program's output is mixed into the trace; record with strace -o FILE"},
		// A thread's resumed half after the program's output: no rest of
		// the call cut short on the line before (strace -Z's continuation).
		{"a resumed half after the program's output", "[pid 3] write(5, \"x\", 1 <unfinished ...>\nhello [pid 3] <... write resumed>) = 1\n", "trace:2:6: expected '(' after syscall name \"hello\"; this line is not strace output (a shell prompt, a program's own output, or text copied along with the trace?): strace wrote its trace where the program writes its output (the terminal, without -o), so the program's output is mixed into the trace; record with strace -o FILE, and cut off what is not the trace"},
		{"another thread's resumed half after a bracketed message", "[pid 4] prctl(PR_SET_NAME, \"w\" <unfinished ...>\n[pid 3] write(2, \"[INFO] \", 7 <unfinished ...>\n[INFO] [pid 4] <... prctl resumed>) = 0\n", "trace:3:8: expected a syscall name, a signal (---) or an exit (+++), found \"[pid 4] <... prctl r...\"; strace's line starts after \"[INFO] \", which strace does not print: the program's output, printed just before strace's line; strace wrote its trace where the program writes its output (the terminal, without -o), so the program's output is mixed into the trace; record with strace -o FILE"},
		{"a shell prompt first", "user@host:~$ strace ls\nclose(3) = 0\n", "trace:1:5: expected '(' after syscall name \"user\"; this looks like the command line that ran strace (a prompt, then the command), pasted with its output: remove it; without -o, strace wrote where the program writes, and the program's own output may be mixed in: record with strace -o FILE"},
		{"old strace, a line still unreadable", "execve(\"/bin/true\", [\"true\"], [/* 26 vars */]) = 0\nbrk(0) = 0x1c5e000\nclose(3) 0\nclose(4) = 0\n", "trace:3:10: expected '=' and the return value of close, found \"0\"; this looks like strace before 5.x (line 1 has [/* 26 vars */]): crashsim reads strace 4.x, but not this line; a recording with strace 5 or 6 avoids it"},
		{"old getdents, then an unreadable line", "getdents(3, /* 2 entries */, 32768) = 48\nclose(3) 0\nclose(4) = 0\n", "trace:2:10: expected '=' and the return value of close, found \"0\"; this looks like strace before 5.x (line 1 has a comment in place of an argument (/* 2 entries */)): crashsim reads strace 4.x, but not this line; a recording with strace 5 or 6 avoids it"},
		{"old signal line, then an unreadable one", "--- SIGCHLD (Child exited) @ 0 (0) ---\nclose(3) 0\nclose(4) = 0\n", "trace:2:10: expected '=' and the return value of close, found \"0\"; this looks like strace before 5.x (line 1 has an old signal line (--- SIG (text) ---)): crashsim reads strace 4.x, but not this line; a recording with strace 5 or 6 avoids it"},
		// A 300,000-byte name was echoed whole, a line of 300 KB.
		{"a long name", strings.Repeat("q", 300000) + "\nclose(3) = 0\n", "trace:1:300001: expected '(' after syscall name \"" + strings.Repeat("q", 40) + "\"... (300000 bytes); this line is not strace output (a shell prompt, a program's own output, or text copied along with the trace?): strace wrote its trace where the program writes its output (the terminal, without -o), so the program's output is mixed into the trace; record with strace -o FILE, and cut off what is not the trace"},
		{"a long name called", strings.Repeat("q", 300000) + "(1) = 0\n", "trace:1:1: expected a syscall name, found \"" + strings.Repeat("q", 40) + "\"... (300000 bytes): longer than any strace prints"},
		{"a long argument name", "stat(\"/x\", {" + strings.Repeat("m", 300000) + "=\nclose(3) = 0\n", "trace:1:300014: expected a value after \"" + strings.Repeat("m", 40) + "\"... (300001 bytes)"},
		{"binary file", "\x7fELF\x02\x01\x01\x00\x00\x00", "trace:1:8: NUL byte in the line: this is not an strace text log (a binary file?)"},
		{"control bytes", "close(3) = 0\n\x01\x02\x03\x04\x05\x06\x07\x08", "trace:2:1: 8 of the first 21 bytes are control or non-UTF-8 bytes: this is not an strace text log (a binary file?)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name := filepath.Join(t.TempDir(), "trace")
			os.WriteFile(name, []byte(tc.in), 0o644)
			s, err := Open(name, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for {
				_, err = s.Next()
				if err != nil {
					break
				}
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a *parser.Error", err)
			}
			got := strings.Replace(pe.Error(), name, "trace", 1)
			if got != tc.want {
				t.Errorf("error\n got: %s\nwant: %s", got, tc.want)
			}
		})
	}
}

func TestErrorDetailShowsCaret(t *testing.T) {
	e := &Error{Pos: Pos{File: "t", Line: 3, Col: 7}, Msg: "expected ')'", Text: "close(3 x"}
	want := "t:3:7: expected ')'\n\tclose(3 x\n\t      ^"
	if got := e.Detail(); got != want {
		t.Errorf("Detail:\n%s\nwant:\n%s", got, want)
	}
}

// A line of multi-byte characters is cut between characters, and the
// caret stands under the character the column points at.
func TestErrorDetailMultibyte(t *testing.T) {
	line := "write(2, \"x\"..., 9" + strings.Repeat("─", 120) + "!"
	col := len(line) // the '!'
	e := &Error{Pos: Pos{File: "t", Line: 2, Col: col}, Msg: "m", Text: line}
	got := e.Detail()
	parts := strings.Split(got, "\n\t")
	if len(parts) != 3 {
		t.Fatalf("Detail has %d parts: %q", len(parts), got)
	}
	shown, caret := parts[1], parts[2]
	if !utf8.ValidString(shown) || strings.ContainsRune(shown, utf8.RuneError) {
		t.Errorf("the shown line has a broken character: %q", shown)
	}
	if k := utf8.RuneCountInString(caret) - 1; k < 0 || []rune(shown)[k] != '!' {
		t.Errorf("the caret points at rune %d of %q, not at the '!'", k, shown)
	}
}

func TestTruncatedLastLineWarns(t *testing.T) {
	evs, warns, _ := parseText(t, "close(3) = 0\nwrite(4, \"abc")
	if len(evs) != 1 || len(warns) != 1 || !strings.Contains(warns[0], "cut short") {
		t.Errorf("got %d events, warnings %q; want 1 event and a cut-short warning", len(evs), warns)
	}
}

func TestOpenProblems(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "missing"), Options{}); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing: %v", err)
	}
}

func TestHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 32 MB line")
	}
	const n = 8 << 20
	var b strings.Builder
	b.WriteString(`write(3, "`)
	for i := 0; i < n; i++ {
		b.WriteString(`\x41`)
	}
	b.WriteString(`", 8388608) = 8388608` + "\n")
	evs, _, _ := parseText(t, b.String())
	if len(evs) != 1 || evs[0].Ret != n || evs[0].Args[1].Data.Len != 4*n {
		t.Fatalf("huge line: %d events", len(evs))
	}
	d := NewDataReader()
	defer d.Close()
	var count countWriter
	if m, err := d.Copy(&count, evs[0].Args[1].Data, evs[0].Ret); err != nil || m != n {
		t.Errorf("decoded %d bytes, %v; want %d", m, err, n)
	}
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

func TestFFSet(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "tr")
	os.WriteFile(prefix+".100", []byte("1700000001.000000 clone(child_stack=NULL, flags=SIGCHLD) = 101\n1700000003.000000 wait4(-1, NULL, 0, NULL) = 101\n"), 0o644)
	os.WriteFile(prefix+".101", []byte("1700000002.000000 write(1, \"x\", 1) = 1\n1700000002.500000 exit_group(0) = ?\n1700000002.600000 +++ exited with 0 +++\n"), 0o644)
	s, err := Open(prefix, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		ev, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, itoa(ev.PID)+" "+ev.Name+ev.Kind.String()[:1])
	}
	want := []string{"100 clones", "101 writes", "101 exit_groups", "101 e", "100 wait4s"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merge order (-want +got):\n%s", diff)
	}

	// Without timestamps there is no order across processes: refuse.
	os.WriteFile(prefix+".100", []byte("close(3) = 0\n"), 0o644)
	os.WriteFile(prefix+".101", []byte("close(4) = 0\n"), 0o644)
	s, _ = Open(prefix, Options{})
	_, err = s.Next()
	if err == nil || !strings.Contains(err.Error(), "record with -ttt") {
		t.Errorf("untimed -ff set: %v", err)
	}
}

// strace 4.x prints "????(" for a call of a dying process it could not
// read, in three shapes: each is left out with a warning, and the lines
// around them read as ever.
func TestUnreadableCall(t *testing.T) {
	evs, warns, _ := parseText(t, "16820 close(3) = 0\n16820 ????( <unavailable>)= ? <unavailable>\n16820 ????(= ? <unavailable>\n16820 <... ???? resumed> ) = ? <unavailable>\n16820 +++ exited with 0 +++\n")
	if len(evs) != 2 || evs[0].Name != "close" || evs[1].Kind != KindExit {
		t.Errorf("got %d events, want close and the exit", len(evs))
	}
	if len(warns) != 3 || !strings.Contains(warns[0], "could not read this call") {
		t.Errorf("warnings %q, want one for each ???? line", warns)
	}
}

// TestSigchldChildPID: a SIGCHLD line names the child in its siginfo,
// which check uses to tell a child the trace never shows; other signals,
// and a SIGCHLD without si_pid (strace 4.x's "--- SIGCHLD (Child exited)
// @ 0 (0) ---"), name none.
func TestSigchldChildPID(t *testing.T) {
	evs, _, _ := parseText(t, "500 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=30110, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---\n"+
		"500 --- SIGINT {si_signo=SIGINT, si_code=SI_USER, si_pid=77, si_uid=0} ---\n"+
		"--- SIGCHLD (Child exited) @ 0 (0) ---\n")
	var got []int
	for _, ev := range evs {
		got = append(got, ev.ChildPID())
	}
	if want := []int{30110, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("child pids %v, want %v", got, want)
	}
}

// Some strace 4.x builds (Android's, on arm) print an old sigaction's
// struct without its closing brace when they could not finish it. The
// call is one the model reads nothing of but its result: it is read
// without its arguments, with a warning, where it used to stop the
// whole trace with an error. A call that changes files keeps the error,
// and so does a line with no ") = RET" end.
func TestUnbalancedArgsOfHarmlessCall(t *testing.T) {
	evs, warns, _ := parseText(t, "700 sigaction(SIGBUS, {SIG_IGN, , {0x8c40, [], SA_ONSTACK}, 0) = 0\n"+
		"700 sigaction(SIGHUP, {SIG_DFL, , {0x8c40, [], 0}, 0) = -1 EINVAL (Invalid argument)\n"+
		"700 close(4) = 0\n")
	var got []string
	for _, ev := range evs {
		got = append(got, ev.Name+" "+itoa(ev.PID)+" args="+itoa(len(ev.Args))+" ret="+itoa(int(ev.Ret))+" errno="+ev.Errno)
	}
	want := []string{"sigaction 700 args=0 ret=0 errno=", "sigaction 700 args=0 ret=-1 errno=EINVAL", "close 700 args=1 ret=0 errno="}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if len(warns) != 2 || !strings.Contains(warns[0], "the arguments of sigaction do not read") {
		t.Errorf("warnings %q, want one for each sigaction", warns)
	}
	for _, text := range []string{
		"pwrite64(3, {\"ab\", 2, 0) = 2\nclose(3) = 0\n",
		"sigaction(SIGBUS, {SIG_IGN, , {0x8c40, [], SA_ONSTACK}, 0\nclose(3) = 0\n",
	} {
		name := filepath.Join(t.TempDir(), "trace")
		os.WriteFile(name, []byte(text), 0o644)
		s, err := Open(name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Next(); err == nil {
			t.Errorf("%q read without an error", text)
		}
		s.Close()
	}
}
