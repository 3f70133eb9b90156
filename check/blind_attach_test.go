package check

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// Lines of a shell attached with strace -p after it ran
// `exec 5>/srv/q/log; echo hi >&5`: it reads a line from a fifo it opens
// in the trace, then moves fd 5 out of the way (F_DUPFD) and closes it.
// The echo's bytes went into /srv/q/log before the attach, and no line
// shows them nor syncs them.
const (
	attachFifo = "41 openat(AT_FDCWD</srv/q>, \"cmd\", O_RDONLY) = 3</srv/q/cmd>\n" +
		"41 read(3</srv/q/cmd>, \"q\\n\", 128) = 2\n" +
		"41 close(3</srv/q/cmd>) = 0\n"
	attachLet = "41 fcntl(5</srv/q/log>, F_DUPFD, 10) = 10</srv/q/log>\n" +
		"41 close(5</srv/q/log>) = 0\n" +
		"41 close(10</srv/q/log>) = 0\n"
	attachEnd = "41 exit_group(0) = ?\n41 +++ exited with 0 +++\n"
	// attachExec starts the same run at the program's start.
	attachExec = "41 execve(\"/bin/sh\", [\"sh\", \"job\"], 0x7ffc10 /* 4 vars */) = 0\n"
)

// noY drops the -y annotations of a trace: strace without -y.
func noY(trace string) string {
	var b strings.Builder
	for len(trace) > 0 {
		i := strings.IndexByte(trace, '<')
		if i < 0 {
			b.WriteString(trace)
			break
		}
		j := strings.IndexByte(trace[i:], '>')
		if j < 0 || strings.HasPrefix(trace[i:], "<unfinished") || strings.HasPrefix(trace[i:], "<...") {
			b.WriteString(trace[:i+1])
			trace = trace[i+1:]
			continue
		}
		b.WriteString(trace[:i])
		trace = trace[i+j+1:]
	}
	return b.String()
}

// blindBothWays is the blind spots check finds in trace, decoding every
// argument (as the tests' checkFile does) and only those the model reads
// (as the command line does): the two must agree.
func blindBothWays(t *testing.T, trace string, opt Options) []string {
	t.Helper()
	full := blindOfText(t, "t.strace", trace, opt)
	s, err := parser.Open(writeTrace(t, trace), parser.Options{DecodePositions: model.ArgPositions})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := Run(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	var narrow []string
	for _, w := range res.Warnings {
		narrow = append(narrow, w.ID)
	}
	if diff := cmp.Diff(full, narrow); diff != "" {
		t.Errorf("blind spots decoding every argument and only the model's differ (-full +narrow):\n%s", diff)
	}
	return full
}

// TestAttachedAfterOpen: a trace that starts mid-run (strace -p, an
// excerpt) and lets go of a regular file opened before it began, which
// nothing in it syncs, may have lost what the program wrote there before
// the attach; the model takes that file as durable, and the check said
// clean (exit 0). With -y or without, it is blind-unknown-fd, and not
// when the trace starts at the program's start, or something in it made
// the file durable, or it is no file.
func TestAttachedAfterOpen(t *testing.T) {
	fsync := "41 fsync(5</srv/q/log>) = 0\n"
	cases := []struct {
		name, trace string
		opt         Options
		want        []string
	}{
		{name: "-y, attached", trace: attachFifo + attachLet + attachEnd, want: []string{BlindUnknownFD}},
		{name: "no -y, attached", trace: noY(attachFifo + attachLet + attachEnd), want: []string{BlindUnknownFD}},
		{name: "-y, closed without a dup", trace: attachFifo + "41 close(5</srv/q/log>) = 0\n" + attachEnd, want: []string{BlindUnknownFD}},
		{name: "its flags changed (F_SETFL)", trace: attachFifo + "41 fcntl(5</srv/q/log>, F_SETFL, O_WRONLY|O_APPEND) = 0\n" + attachEnd, want: []string{BlindUnknownFD}},
		// A later line starts at the program's start: nothing was
		// written before.
		{name: "from the program's start", trace: attachExec + attachFifo + attachLet + attachEnd},
		{name: "from the start, no -y", trace: noY(attachExec + attachFifo + attachLet + attachEnd)},
		// What was written before the trace is durable once the file,
		// or the whole machine, is synced in it.
		{name: "fsynced", trace: attachFifo + fsync + attachLet + attachEnd},
		{name: "fsynced, no -y", trace: noY(attachFifo + fsync + attachLet + attachEnd)},
		{name: "fsynced through a dup", trace: attachFifo + "41 fcntl(5</srv/q/log>, F_DUPFD, 10) = 10</srv/q/log>\n41 fdatasync(10</srv/q/log>) = 0\n41 close(10</srv/q/log>) = 0\n41 close(5</srv/q/log>) = 0\n" + attachEnd},
		{name: "fsynced through an open of its own", trace: attachFifo + attachLet +
			"41 openat(AT_FDCWD</srv/q>, \"log\", O_RDONLY) = 3</srv/q/log>\n41 fsync(3</srv/q/log>) = 0\n41 close(3</srv/q/log>) = 0\n" + attachEnd},
		{name: "sync()", trace: attachFifo + attachLet + "41 sync() = 0\n" + attachEnd},
		{name: "syncfs", trace: noY(attachFifo + "41 syncfs(3</srv/q/cmd>) = 0\n" + attachLet + attachEnd)},
		{name: "syncfs of its filesystem", trace: attachFifo + "41 openat(AT_FDCWD</srv/q>, \"/srv\", O_RDONLY) = 3</srv>\n41 syncfs(3</srv>) = 0\n" + attachLet + attachEnd},
		// A syncfs of tmpfs syncs nothing on the disk.
		{name: "syncfs of /dev/shm", trace: attachFifo + "41 openat(AT_FDCWD</srv/q>, \"/dev/shm\", O_RDONLY) = 3</dev/shm>\n41 syncfs(3</dev/shm>) = 0\n" + attachLet + attachEnd, want: []string{BlindUnknownFD}},
		// A failed fsync made nothing durable (and is a finding's).
		{name: "an fsync that failed", trace: attachFifo + "41 fsync(5</srv/q/log>) = -1 EIO (Input/output error)\n" + attachLet + attachEnd, want: []string{BlindUnknownFD}},
		// The program's input, or a library it maps: read, not written.
		{name: "read, then closed", trace: attachFifo + "41 read(5</srv/q/log>, \"x\", 1) = 1\n" + attachLet + attachEnd},
		{name: "mapped to be read, no -y", trace: noY(attachFifo + "41 mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, 5</srv/q/log>, 0) = 0x7f0000000000\n" + attachLet + attachEnd)},
		// A stat shows a fifo that -y names by its path.
		{name: "a fifo", trace: attachFifo + "41 fstat(5</srv/q/log>, {st_mode=S_IFIFO|0600, st_size=0, ...}) = 0\n" + attachLet + attachEnd},
		{name: "a regular file by its stat", trace: attachFifo + "41 fstat(5</srv/q/log>, {st_mode=S_IFREG|0644, st_size=3, ...}) = 0\n" + attachLet + attachEnd, want: []string{BlindUnknownFD}},
		{name: "a pipe", trace: attachFifo + "41 close(5<pipe:[7731]>) = 0\n" + attachEnd},
		// A connection a server accepted before the attach, without -y:
		// its socket calls show it is no file.
		{name: "a socket, no -y", trace: noY(attachFifo + "41 sendto(5, \"done\\n\", 5, 0, NULL, 0) = 5\n41 shutdown(5, SHUT_RDWR) = 0\n41 close(5) = 0\n" + attachEnd)},
		{name: "a socket received on, no -y", trace: noY(attachFifo + "41 recvfrom(5, \"q\", 1, 0, NULL, NULL) = 1\n41 close(5) = 0\n" + attachEnd)},
		// Let go of first (its flags set), shown a socket after; and a
		// write to it once a send showed what it is: no file the trace
		// cannot see.
		{name: "a socket whose flags were set first, no -y", trace: noY(attachFifo + "41 fcntl(5, F_SETFL, O_RDWR|O_NONBLOCK) = 0\n41 sendto(5, \"done\\n\", 5, 0, NULL, 0) = 5\n41 close(5) = 0\n" + attachEnd)},
		{name: "a socket written to after a send, no -y", trace: noY(attachFifo + "41 sendto(5, \"hi\\n\", 3, 0, NULL, 0) = 3\n41 write(5, \"done\\n\", 5) = 5\n41 close(5) = 0\n" + attachEnd)},
		// A write before anything shows what the fd is stays blind.
		{name: "written to before a send, no -y", trace: noY(attachFifo + "41 write(5, \"done\\n\", 5) = 5\n41 sendto(5, \"hi\\n\", 3, 0, NULL, 0) = 3\n41 close(5) = 0\n" + attachEnd), want: []string{BlindUnknownFD}},
		{name: "a terminal", trace: attachFifo + "41 close(5</dev/pts/2>) = 0\n" + attachEnd},
		{name: "outside the root", trace: attachFifo + attachLet + attachEnd, opt: Options{Roots: []string{"/srv/other"}}},
		{name: "on tmpfs", trace: attachFifo + "41 close(5</run/q/log>) = 0\n" + attachEnd, opt: Options{LikelyVolatile: LikelyVolatile}},
		// A child the trace made closes its copy: the shell that wrote
		// the file before holds it still. A thread shares the table.
		{name: "a child closes its copy", trace: attachFifo +
			"41 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f3c0a10) = 42\n" +
			"42 close(5</srv/q/log>) = 0\n42 exit_group(0) = ?\n42 +++ exited with 0 +++\n" +
			"41 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 42\n" + attachEnd},
		{name: "a thread closes it", trace: attachFifo +
			"41 clone(child_stack=0x7f3c0a00, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, parent_tid=[43], tls=0x7f3c0a10, child_tidptr=0x7f3c0a10) = 43\n" +
			"43 close(5</srv/q/log>) = 0\n43 exit(0) = ?\n43 +++ exited with 0 +++\n" + attachEnd, want: []string{BlindUnknownFD}},
		// Written in the trace and not synced: data-not-synced says so,
		// and its fix covers what was written before too.
		{name: "written", trace: attachFifo + "41 write(5</srv/q/log>, \"more\\n\", 5) = 5\n" + attachLet + attachEnd},
		// Without a single open in the trace, a filter is the first
		// cause (blind-syscall-filter says "or attached with -p"): one
		// cause, one warning.
		{name: "no open at all", trace: "41 read(0</srv/q/cmd>, \"q\\n\", 128) = 2\n" + attachLet + attachEnd, want: []string{BlindSyscallFilter}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, blindBothWays(t, c.trace, c.opt)); diff != "" {
				t.Errorf("blind spots (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("written: data-not-synced", func(t *testing.T) {
		p := writeTrace(t, attachFifo+"41 write(5</srv/q/log>, \"more\\n\", 5) = 5\n"+attachLet+attachEnd)
		_, _, findings := blindRun(t, p, Options{})
		if diff := cmp.Diff([]string{"data-not-synced /srv/q/log"}, findings); diff != "" {
			t.Errorf("findings (-want +got):\n%s", diff)
		}
	})
}

// TestAttachedAfterOpenSays: the warning names the file and the fd, says
// what a crash can take and why the trace cannot tell, and how to record
// one that can.
func TestAttachedAfterOpenSays(t *testing.T) {
	res := checkFile(t, writeTrace(t, attachFifo+attachLet+attachEnd), Options{})
	if len(res.Warnings) != 1 {
		t.Fatalf("warnings %+v, want one", res.Warnings)
	}
	w := res.Warnings[0]
	if w.Line != 4 {
		t.Errorf("warning at line %d, want 4 (the first call on fd 5)", w.Line)
	}
	for _, s := range []string{"/srv/q/log was open on fd 5 before the trace began", "strace -p", "a crash can lose", "cannot be judged", "no fsync or fdatasync"} {
		if !strings.Contains(w.Message, s) {
			t.Errorf("message %q lacks %q", w.Message, s)
		}
	}
	for _, s := range []string{"strace -f -y -o TRACE CMD", "fsync"} {
		if !strings.Contains(w.Fix, s) {
			t.Errorf("fix %q lacks %q", w.Fix, s)
		}
	}
	res = checkFile(t, writeTrace(t, noY(attachFifo+attachLet+attachEnd)), Options{})
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0].Message, "fd 5, which the trace never opened and does not name") {
		t.Errorf("without -y: warnings %+v, want one about fd 5, unnamed", res.Warnings)
	}
}
