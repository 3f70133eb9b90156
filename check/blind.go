package check

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// A blind spot is something a verdict needs that crashsim could not see: a
// verdict of "clean" with one would be a guess. Most are what the recording
// could not show, worked out from the trace itself; one (see Exploration) is
// what explore left unchecked by its own bound. Each has a stable ID, like
// a rule, and a fix: the strace or crashsim flag that lets the next
// recording, check or exploration see it.
const (
	BlindRawArgs            = "blind-raw-args"
	BlindFailedOnly         = "blind-failed-only"
	BlindSuccessfulOnly     = "blind-successful-only"
	BlindSyscallFilter      = "blind-syscall-filter"
	BlindUnfollowedChildren = "blind-unfollowed-children"
	BlindUnknownCwd         = "blind-unknown-cwd"
	BlindRootUnmatched      = "blind-root-unmatched"
	BlindNoData             = "blind-no-data"
	BlindIOUring            = "blind-io-uring"
	BlindLinuxAIO           = "blind-linux-aio"
	BlindSharedMmap         = "blind-shared-mmap"
	BlindUnknownArch        = "blind-unknown-arch"
	BlindNoCalls            = "blind-no-calls"
	BlindUnknownFD          = "blind-unknown-fd"
	BlindCutShort           = "blind-cut-short"
	BlindUnnamedCall        = "blind-unnamed-call"
	BlindPartialSet         = "blind-partial-set"
	BlindUnseenChange       = "blind-unseen-change"
	BlindStatesUnchecked    = "blind-states-unchecked"
)

// BlindSpot describes one kind of blind spot.
type BlindSpot struct {
	ID    string
	Hides string // what a trace with it cannot show
	Fix   string // the flag that fixes it
}

// Exploration reports whether explore raises the blind spot from its own
// bound, rather than any command from what the recording lacks: a better
// recording does not fix it.
func (b BlindSpot) Exploration() bool { return b.ID == BlindStatesUnchecked }

var blindSpots = []BlindSpot{
	{BlindRawArgs, "paths printed as addresses: which files the trace changes", "record without -e raw= (strace -f -y -o TRACE CMD)"},
	{BlindFailedOnly, "every successful call: every write, sync and rename", "record without -Z (--failed-only)"},
	{BlindSuccessfulOnly, "failed calls: a failed fsync, and so the data it did not make durable", "record without -z (--successful-only) and without -e status=, and keep exit_group in a -e trace= list of your own"},
	{BlindSyscallFilter, "the calls a -e trace= or -P filter left out (close, fsync, ...): findings that depend on them may be false", "record without -e trace=, -e status= or -P (which shows only the calls that name one path), or with crashsim trace, which chooses the list; a list of your own must keep every open, write, sync, rename, unlink and close, and read, dup, fcntl and exit_group"},
	{BlindUnfollowedChildren, "what child processes and threads did: their writes, syncs and renames", "record with strace -f (one file) or -ff"},
	{BlindUnknownCwd, "where relative paths lie, so they cannot be matched against --root", "record with strace -y, or give check, states or explore --cwd DIR (the directory the program started in)"},
	{BlindRootUnmatched, "every file the trace changed: --root matched none of them", "give --root the directory the program saved into"},
	{BlindPartialSet, "what the other processes of an strace -ff recording did, when one file of the set is given: their writes, syncs and renames", "give the set's prefix (crashsim check PREFIX reads every PREFIX.PID file in order; the set needs -tt or -ttt), or record with -f into one file"},
	{BlindIOUring, "the reads, writes, fsyncs and renames submitted through io_uring: strace shows io_uring_enter, never the operations in the ring", "no strace flag shows them: check the program with io_uring turned off (most libraries and runtimes have a switch)"},
	{BlindLinuxAIO, "the writes and fsyncs submitted with io_submit (Linux AIO, as libaio and InnoDB use it): strace prints them when they are queued, but they happen when the kernel completes them, and crashsim does not model them", "no strace flag helps: check the program with its synchronous I/O (InnoDB: innodb_use_native_aio=OFF)"},
	{BlindUnseenChange, "a change to a file that a stat, a read or an lseek to its end in the trace shows (the file is longer or shorter than the trace's calls left it) but no call in the trace made: a write a -e trace= or -e status= filter left out, one by a process or thread strace did not follow, or one by another program", "record with strace -f and without -e trace= and -e status= filters (strace -f -o TRACE CMD); if another program writes the file at the same time, stop it while recording"},
	{BlindSharedMmap, "the stores into a file mapped shared and writable: strace shows the mmap and an msync, never which bytes changed or when, so crash states of that file cannot be built", "no strace flag shows them: check the file by other means, or trace a build that writes it with write or pwrite"},
	{BlindNoData, "the bytes a write put in a file, which a crash state needs", "record with -s 65536 -xx and without -e raw=write, or let explore run the program (crashsim explore --checker CMD -- PROGRAM)"},
	{BlindNoCalls, "everything the program did: the trace holds not one system call", "record again (strace -f -o TRACE CMD) after reading the lines strace wrote in the trace about itself: in a container, ptrace may need --cap-add SYS_PTRACE; with -p, attach before the program saves"},
	{BlindUnknownFD, "what was written through fds the trace never opened (inherited from before it, or opened before an attach): which files those changes reached when the trace never names them, whether they were synced, and, in a trace that starts after the program did (strace -p, an excerpt), what the program wrote to such a file before the trace began", "record with strace -y, which names the file of every fd, and from the program's start (strace -f -y -o TRACE CMD) rather than attached with -p"},
	{BlindCutShort, "what the program did after the trace ends, when it ends before the traced command, or a process still running after it, exited (an excerpt, a strace stopped or killed, strace -p detached): its later writes, syncs and renames", "record until the program exits (strace -f -o TRACE CMD waits for it); for a window of a long-running program (strace -p), stop strace only after the save you want checked"},
	{BlindUnnamedCall, "what a call did that strace printed by its number (syscall_316, syscall_0x13c), not knowing it, with its arguments as bare numbers: a rename, write, open or other change the verdict needs", "record with a newer strace (strace -V says which one recorded): one older than the kernel prints the calls added since by number"},
	{BlindUnknownArch, "which flags a number printed in the trace stands for (0x4000 is O_DIRECT on amd64, O_DIRECTORY on arm64), when the trace does not show which machine recorded it", "give --arch (amd64, arm64 or 386) of the machine that recorded the trace; crashsim trace writes it in TRACE.initial"},
	{BlindStatesUnchecked, "the checker's verdict on the distinct crash states explore's --max-states bound left out: explore built and counted them but never ran the checker on them, and any of them could be a state the program cannot recover from; or on the states a crash inside an O_DSYNC write over data on disk leaves, which explore cannot build", "explore again with a larger --max-states N, or --max-states 0 for no bound (the summary says how many distinct states there are); for a write torn inside its call, no option: check the program's recovery by other means"},
}

// BlindSpots lists every kind of blind spot.
func BlindSpots() []BlindSpot { return blindSpots }

// LookupBlind returns the blind spot with the given ID.
func LookupBlind(id string) (BlindSpot, bool) {
	for _, b := range blindSpots {
		if b.ID == id {
			return b, true
		}
	}
	return BlindSpot{}, false
}

// BlindWarning is a blind spot one trace has: what it hides, where it was
// first seen and what fixes it. An accepted warning (--accept-blind) is still
// reported, but does not make the run fail.
type BlindWarning struct {
	ID       string
	Message  string
	Trace    string
	Line     int
	Fix      string
	Accepted bool
}

// Note is something left out of scope on purpose, said so that it is not
// left out quietly: files on a filesystem that no power cut spares.
type Note struct {
	ID      string
	Message string
	Trace   string // "" when the note is about no line
	Line    int
}

// NoteVolatile is the ID of notes about volatile filesystems.
const NoteVolatile = "volatile-filesystem"

// lineOf names a trace line as the text report does: FILE:LINE, or
// "line N" for a trace without a name.
func lineOf(at model.Ref) string {
	if at.File == "" {
		return fmt.Sprintf("line %d", at.Line)
	}
	return fmt.Sprintf("%s:%d", at.File, at.Line)
}

// NoteFailed is the ID of the note that the traced command failed.
const NoteFailed = "command-failed"

// stopSignals are the signals that stop a program on request, which
// NoteFailed does not count as a failure.
var stopSignals = []string{"SIGTERM", "SIGINT", "SIGHUP"}

// NoteOutsideRoots is the ID of the note that the program changed files
// outside the roots, which the check leaves out.
const NoteOutsideRoots = "changed-outside-roots"

// NoteFaked is the ID of the note about calls strace answered itself.
const NoteFaked = "injected-success"

// Mount is one mounted filesystem, as /proc/self/mountinfo lists it.
type Mount struct {
	Dir    string
	FSType string
}

// Volatile reports whether nothing on the filesystem survives a power cut.
func (m Mount) Volatile() bool { return m.FSType == "tmpfs" || m.FSType == "ramfs" }

// LikelyVolatile are the directories that are tmpfs on every common Linux
// system, for traces recorded on a machine crashsim cannot look at: out of
// scope unless a --root lies at or below one.
var LikelyVolatile = []string{"/run", "/dev/shm"}

// under reports whether p is dir or below it.
func under(p, dir string) bool {
	// p below dir is dir, then '/': dir+"/" built a string at every call
	// (the watcher asks it of paths an event changes).
	return p == dir || dir == "/" && strings.HasPrefix(p, "/") ||
		len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir)
}

// volatileAt says whether p lies on a volatile filesystem, and which: the
// mount holding it (the longest mount point above it), or else a likely
// volatile directory no root puts back in scope.
func (o *Options) volatileAt(p string) (dir, fstype string, ok bool) {
	if !strings.HasPrefix(p, "/") {
		return "", "", false
	}
	p = model.RunAlias(p)
	if m, ok := o.mountAt(p); ok {
		return m.Dir, m.FSType, m.Volatile()
	}
	for _, d := range o.LikelyVolatile {
		if !under(p, d) {
			continue
		}
		for _, r := range o.Roots {
			// /dev/shm is tmpfs wherever there is one; /run may not be.
			if r = model.RunAlias(r); r != "/" && under(r, d) && under(p, r) && !under(d, "/dev") {
				return "", "", false
			}
		}
		return d, "tmpfs", true
	}
	return "", "", false
}

// Watcher works out, event by event, what a trace could not show. It keeps
// a few counters, never the events, and no process model: it sees each
// event with the paths the model resolved (ObserveResolved).
type Watcher struct {
	opt *Options
	// openFlags decodes an open's flags: model.OpenFlags, or, in a
	// check, the models' shared memo of them (model.Shared.OpenFlags).
	openFlags func(*parser.Event) uint64

	syscalls, ok, failed int
	first                model.Ref
	// cmdFailed is where the traced command's process exited with a
	// status other than 0 or was killed, and cmdHow says which.
	cmdFailed model.Ref
	cmdHow    string
	// faked counts the calls strace answered with a success itself (-e
	// inject=CALL:retval=N), which the kernel never ran (Event.Faked).
	faked      int
	firstFaked model.Ref
	// fdSizes counts the successful size changes through an fd
	// (ftruncate, fallocate).
	fdSizes  int
	anyEvent model.Ref // the first event of any kind (a signal, an exit)

	exitCalls int
	// syncCalls counts fsync, fdatasync, sync and syncfs calls: a trace
	// of nothing but them and exits was filtered.
	syncCalls int
	exitLine  model.Ref // first "+++ exited" line
	exits     int
	killed    int // "+++ killed by ... +++" lines
	// firstEnded: the traced command's process (cmdPID: the first line's
	// pid, 0 for lines without one, which the parser also gives the
	// command's later lines in an strace -f to a terminal) exited, was
	// killed or called exit_group.
	firstEnded bool
	cmdPID     int
	cmdSet     bool
	// cmdAt is where cmdPID's event starts. A call the first line begins
	// (<unfinished ...>) comes as an event only at its resumed line,
	// after the calls others ended in between: the earliest start seen
	// names the command.
	cmdAt model.Ref
	// cmdExec: the first event is an execve, as in a trace strace started
	// the command for; otherwise (strace -p, an excerpt) cmdPID is only
	// the first process the trace shows.
	cmdExec bool
	// execSeen: some execve is in the trace. loaderAt is the first open
	// of /etc/ld.so.cache before any: the dynamic loader starting a
	// program whose execve the trace lacks.
	execSeen bool
	loaderAt model.Ref
	// pathNoFD: the trace shows a call that names a path and takes no fd
	// (open, stat, unlink, rename, ...), which -e trace=%desc leaves out.
	pathNoFD bool
	// ldCache is the first open of /etc/ld.so.cache that succeeded, and
	// preload whether the trace names /etc/ld.so.preload: glibc's
	// loader asks for it (access, R_OK) before it opens the cache, and
	// the call fails unless the file exists.
	ldCache model.Ref
	// mmaps counts the mmap calls: the dynamic loader maps each library
	// it opens, so a trace that shows it open ld.so.cache and has not one
	// mmap was recorded with a -e trace= list.
	mmaps int
	// anonMaps: some mmap took no file (fd -1), a call strace -P PATH
	// never keeps.
	anonMaps bool
	preload  bool
	// preloadAt is the loader's first access of /etc/ld.so.preload: it
	// opens /etc/ld.so.cache and each library next, so a trace with it
	// and not one open left the opens out.
	preloadAt model.Ref
	// accessSeen: the trace shows some access, faccessat or faccessat2
	// call, so a filter did not leave that kind out.
	accessSeen bool
	// statSeen: the trace shows a call of the stat kind (stat,
	// newfstatat, access, readlink, ...), which crashsim trace's own
	// list leaves out and strace's %file and %desc classes keep.
	statSeen bool
	// aioLib is the first open of libaio's shared object that succeeded,
	// and unclassed whether the trace shows a call in none of strace's
	// classes (set_tid_address, set_robust_list, futex, ..., which every
	// glibc program makes; io_submit is one): a class filter (-e
	// trace=%file,%desc,%process) leaves all of them out, io_submit too.
	aioLib    model.Ref
	unclassed bool
	// glibcStart: the trace shows a call glibc makes as every program
	// or thread starts (glibcStartCalls), of no strace class.
	glibcStart bool
	// preloadOpened: the loader opened /etc/ld.so.preload before
	// ld.so.cache, as glibc did before it made the glibcStartCalls (a
	// LinuxThreads glibc, older than 2.3), whose absence then says
	// nothing of a filter.
	preloadOpened bool
	// heap: the trace shows brk or mprotect (%memory), which glibc's
	// malloc and its loader make in every dynamic program, old or new.
	heap bool
	// execFresh holds the processes whose execve succeeded and that
	// have opened nothing since, and loaderStart is the first open of
	// /etc/ld.so.cache by such a process: the dynamic loader starting a
	// program the trace shows start, which asks for /etc/ld.so.preload
	// (access, failing unless the file exists) just before it.
	execFresh   map[int]bool
	loaderStart model.Ref
	// nonblock holds, by process (thread group leader) and fd, the fds
	// set O_NONBLOCK (fcntl F_SETFL) since that process's last epoll_ctl
	// other than its netpoller's first (epollInit: the one after its
	// epoll_create1), and epollMade the processes that made an epoll fd.
	// Go's os package sets each file it opens non-blocking and adds it
	// to the netpoller's epoll; epoll_ctl fails with EPERM for a regular
	// file or directory, and only then does it clear O_NONBLOCK again.
	// unpolled is the first such clear with no epoll_ctl since the set:
	// the failed epoll_ctl is not in the trace.
	nonblock   map[[2]int]bool
	epollMade  map[int]bool
	epollInit  map[int]bool
	unpolled   model.Ref
	unpolledFD int
	// last is where the last event is: a trace that ends before any
	// process exited was cut off there.
	lastFile string
	lastLine int

	closes int
	syncs  map[string]bool
	// barrier says the program asked for durability at least once: a
	// sync of any kind (failed or not), msync, or a write on an O_SYNC
	// or O_DSYNC fd.
	barrier bool
	writes  int       // calls that write file data (or sync a mapping), to any fd
	written model.Ref // first successful open for writing
	opens   int
	// settled is the first call that showed data in a file in scope the
	// trace may have made (model.Effect.Settled), settledPath its path:
	// the model takes it as there before, which a write hidden by a
	// filter would make wrong.
	settled     model.Ref
	settledPath string
	// afterSync is the first call that cut a file (truncate, ftruncate,
	// an open with O_TRUNC) or opened one for appending after a sync,
	// afterSyncPath its path and afterSyncHow which of the two: in a
	// trace without a single write, what it cut was written by calls a
	// filter left out (-e trace=!write), and the model, which saw none of
	// them, takes the file for empty and the cut for nothing; what was
	// appended is gone with them.
	afterSync     model.Ref
	afterSyncPath string
	afterSyncHow  string
	// kept is the first successful open of a file for writing that
	// keeps its data (keepsData), keptPath its path: a program opens a
	// file so to write to it, and in a trace without a single write,
	// what it wrote a filter left out (-e trace=!write). The model
	// takes the file for unchanged and would check it clean.
	kept      model.Ref
	keptPath  string
	keptFlags uint64
	// keptPID, keptFD and keptEnded are the kept open's process, fd and
	// end, for asking the process model whether that fd is still open:
	// a look at the file while it is comes before the write it was
	// opened for (Python's open stats its new fd), and says nothing of
	// that write.
	keptPID, keptFD int
	keptEnded       int64
	// fresh holds, while the trace shows no write, the fds (by thread
	// group and fd) opened on a file that was new or emptied as it was
	// opened (O_TMPFILE, O_TRUNC, O_CREAT|O_EXCL), each with its open;
	// readBack is the first read that returned bytes through one, and
	// readBackOpen that open: bytes no call in the trace put there.
	fresh        map[[2]int]model.Ref
	readBack     model.Ref
	readBackOpen model.Ref
	readBackN    int64
	// queued: the trace submits I/O through Linux AIO or sets up an
	// io_uring, whose writes no write call shows (each has a blind spot
	// of its own when it worked): no sign that a filter left writes out.
	queued bool
	// storesMapped: some file, in scope or not, was mapped shared and
	// writable (the model says which mmap or mprotect made one): the
	// program writes to it by storing into memory, which no call shows,
	// so a trace without a write call is not one a filter cut.
	storesMapped bool

	// Writes to fds the trace never opened and cannot name, in a trace
	// without a single open or close.
	anyOpens    int
	blindWrites int
	blindWrite  model.Ref
	// okOpens counts the opens that returned an fd, the first at
	// firstOpen: opened and never read nor closed is a filter's work.
	okOpens   int
	firstOpen model.Ref

	// reads counts the calls that read a file's data (read, pread64,
	// readv, copy_file_range, sendfile, splice: none in a trace whose
	// filter left them out), fdReads those that read at the fd's offset
	// (read, readv: none under -e trace=!read, where the loader's
	// pread64 of each library still shows). dropped is the first removal
	// of the last name of a file in scope that existed before the trace
	// and was opened for reading, and never read, or the first
	// truncation that shrank one, and droppedPath its path: what
	// remove-before-sync asks about, and cannot answer without the
	// reads.
	reads, fdReads int
	dropped        model.Ref
	droppedPath    string
	droppedHow     string // "removed" or "cut shorter"
	// readOpen holds the paths in scope opened for reading and not read
	// since (by any call, or a mapping), while the trace has shown no
	// read at the fd's offset (nil after the first): a copy reads its
	// source through such an open.
	readOpen map[string]bool

	// kindNames are the first names of calls, kinds how many (it stops
	// at three): a whole trace of many calls of one or two kinds was
	// filtered.
	kindNames [3]string
	kinds     int
	// notClass holds the strace classes (blind_class.go) some call of
	// the trace is not in: a trace whose every call is in one of them
	// was recorded with that class as its filter.
	notClass syscalls.Class
	// nonProcess counts the calls that are not of a process's life
	// (execve, fork, clone, wait, exit): a run of such calls alone was
	// recorded with a filter that keeps only them (-e
	// trace=execve,exit_group, %process), however many kinds they are.
	nonProcess int
	// fileCalls counts the calls that take an fd or name a file, execve
	// left out: a whole run of many calls without one was recorded with
	// a filter that leaves them all out (-e trace=!%desc of a static
	// program, whose opens, writes and renameat take fds).
	fileCalls int
	// execs counts the execve calls that succeeded: programs run.
	execs int

	// procs is the process model of the model whose paths the watcher
	// sees (UseModel): it tells an fd the trace never opened and cannot
	// name. unnamed counts the changes made through such fds, the first
	// at unnamedAt.
	procs     *model.Procs
	unnamed   int
	unnamedAt model.Ref
	unnamedFD int64
	// unnamedLater are the changes through fds that were stand-ins when
	// made (model.Procs.Unnamed), by stand-in: counted in Finish unless
	// the stand-in turned out to be its parent's pipe, socket or
	// standard stream (model.Procs.StandInBlind).
	unnamedLater map[*model.Handle]*unnamedChanges
	// unnamedEarly is the parent's file the change at unnamedAt went to,
	// when it was made before the clone of its process returned and the
	// fd turned out to be that file ("?" unnamed): the model did not
	// apply it.
	unnamedEarly string
	// unnamedRecvd says the fd of the change at unnamedAt came over a
	// Unix socket, received at unnamedRecv (model.Procs.ReceivedAt).
	unnamedRecv  parser.Pos
	unnamedRecvd bool
	// unopened counts the syncs through fds above 2 the trace never
	// opened but names (-y), the first at unopenedAt on unopenedPath: in
	// a trace without a single open, a filter's work.
	unopened     int
	unopenedAt   model.Ref
	unopenedPath string
	// unopenedUses counts every call through those fds (reads, writes,
	// closes, maps, syncs), the first at unopenedUse on unopenedUsePath:
	// in a trace with neither an open nor an execve, a filter that left
	// out the calls that name a file (-e trace=!%file).
	unopenedUses    int
	unopenedUse     model.Ref
	unopenedUsePath string
	// unopenedStd counts the syncs through such fds that were standard
	// input, output or error, the first at unopenedStdAt on
	// unopenedStdPath: in a trace with neither an open nor an execve, a
	// filter's work as well (dd of=F conv=fsync under -e
	// trace=write,fsync).
	unopenedStd     int
	unopenedStdAt   model.Ref
	unopenedStdPath string

	// early holds, while the trace's first process shows no start (its
	// first event is no execve: strace -p attached to a running program,
	// or an excerpt), the regular files used through fds that were open
	// before the trace began, by handle: what the program wrote to them
	// before, no line shows (see observeEarly). At most maxEarly.
	// earlySynced holds the paths an fsync or fdatasync that succeeded
	// covered (a sync, or a syncfs, the model says: m.SyncedAfter):
	// what was written before the trace is durable then.
	early       map[*model.Handle]*earlyFile
	earlySynced map[string]bool
	m           *model.Model // the model whose paths the watcher sees (UseModel)

	raw     model.Ref
	rawCall string

	// unnamedCall is the first successful call strace printed by its
	// number that stands for one whose effect a verdict needs
	// (syscalls.ByNumber), unnamedCallName that call, unnamedCallArch
	// the architecture it was read with; unnamedCalls counts them.
	unnamedCall     model.Ref
	unnamedCallName string
	unnamedCallArch syscalls.Arch
	unnamedCalls    int
	// unnamedNr is the first one's number, and unnamedNotAMD64 whether
	// every strace names that number on amd64, so that the trace, whose
	// machine it did not otherwise show, is not from amd64 and the call
	// was not read with amd64's table (unnamedCallArch is then the one it
	// was named on, or Unknown). archSeen is what the trace's calls show
	// of its machine (the parser's Evidence sees the same calls; this one
	// also takes in the numbers strace printed: Evidence.Unnamed).
	unnamedNr       uint64
	unnamedNotAMD64 bool
	archSeen        syscalls.Evidence

	forks map[int]model.Ref // child pid -> the call that returned it
	// runtimes is the language runtime each process ran, where the
	// trace showed one (runtime.go).
	runtimes map[int]runtimeKind
	// sigchld is the first SIGCHLD naming each child (si_pid): a child no
	// line belongs to was not followed, or a filter left its calls out,
	// even when the fork that made it is not in the trace either.
	sigchld map[int]model.Ref
	// woke is the first futex call that woke a waiter (woken of them):
	// in a trace of one pid, a thread the trace does not show.
	woke  model.Ref
	woken int64
	pids  map[int]bool
	// running holds the pids with an event that have not ended since
	// (end), and leader each thread's group leader, for a thread a
	// clone with CLONE_THREAD made: an exit_group ends the whole group.
	// execCut holds, by pid, an execve that never returned and after
	// which the pid has no line: strace -b execve detaches from a
	// process there ("<detached ...>"), and follows nothing it runs.
	execCut map[int]model.Ref
	// rawPipe is the first pipe, pipe2 or socketpair that succeeded and
	// printed an address where its two fds belong (-e verbose=none): it
	// made fds the trace cannot number.
	rawPipe model.Ref
	// groupEnded holds the threads an exit_group of their group ended
	// (endGroup), until a line of theirs shows them running again.
	groupEnded map[int]bool
	// A process still running when the trace ends, after the traced
	// command ended, says the trace was cut off (a daemon's recording
	// stopped, an excerpt ending in a later run).
	running  map[int]bool
	leader   map[int]int
	firstPID int // the first pid a line names: the traced command's
	// afterAll holds the pids first seen when every process before them
	// had ended, made by no fork in the trace: nothing traced started
	// them, so they are a later recording appended to the same file
	// (strace -A): a run, true, when their first call is an execve, else
	// a strace -p session.
	afterAll map[int]bool

	relative  pathSet // relative paths that no root can hold
	inRoots   int
	elsewhere pathSet // absolute paths changed outside the roots
	volatile  pathSet // paths changed on volatile filesystems
	volDirs   []string
	volFS     string

	uring model.Ref // the first io_uring_setup that succeeded
	// uringEnter is the first io_uring_enter that submitted work (or woke
	// a kernel thread that submits it), and uringEnterFD its ring's fd: a
	// ring whose io_uring_setup the trace does not show (made before an
	// attach, or left out by a filter) is used the same.
	uringEnter   model.Ref
	uringEnterFD int64
	// ringFD is the first call on an fd -y names anon_inode:[io_uring]
	// (the mmap of its rings, its close): a ring whose io_uring_setup a
	// filter (-e trace=!io_uring_setup) left out.
	ringFD model.Ref
	aio    model.Ref // the first io_submit that queued an operation

	// unseen are stats, reads and seeks that showed a size of a file in
	// scope that the trace's calls do not give it (model.EffSizeSeen,
	// Effect.SizeAtLeast), at most maxUnseen; one is dropped when a call
	// on the file that began before it ended comes after it (it ran
	// beside it).
	unseen []unseenSize
	// statPath is the path the last stat event named, as the model
	// resolved it.
	statPath string

	mapped     model.Ref // the first shared writable mapping of a file in scope
	mappedPath string
	// mappedID is that file's inode, and mappedNow the name a later
	// rename or link gave it (localedef maps a temp file, then renames
	// it over the archive): the name the user knows it by.
	mappedID  int
	mappedNow string
	// mappedSynced: a sync covered that file after its mapping (msync
	// with MS_SYNC, fsync, fdatasync, sync, syncfs).
	mappedSynced bool
	movedAt      model.Ref
	// outMapped are the last files mapped shared and writable outside
	// the scope, until one is renamed or linked into it: the Go linker
	// fills its output in /tmp through a mapping, then renames it into
	// place.
	outMapped [4]outMap
	nOut      int

	// archGuess is the first call with flags printed as a number that
	// means different things on different architectures, read while the
	// trace's architecture was unknown (as amd64's), and archFlags the
	// number; arch is the architecture the last event was read with.
	archGuess model.Ref
	archFlags string
	// archPlain holds flag texts found to mean the same on every
	// architecture, so that each is read once, not at every call (a
	// program opens its files with a few sets of flags); bounded.
	archPlain map[plainFlags]struct{}
	archTable *syscalls.FlagTable
	arch      syscalls.Arch

	// lastPID is the pid last added to pids: most lines repeat it.
	lastPID int
	pidSeen bool

	noData     model.Ref
	noDataCall string
	noDataPath string
	noDataPart bool
	// noDataCopy: the bytes were copied in the kernel (sendfile,
	// copy_file_range, splice), which no recording shows, and from a
	// source whose bytes are not the snapshot's: noDataFrom says why.
	noDataCopy bool
	noDataFrom string
	// noDataNamed: the file at noDataPath got that name from a file
	// from before the trace outside the roots (a hard link to it, a
	// rename of it), whose bytes no snapshot of the roots holds;
	// noDataFrom is that name.
	noDataNamed bool
}

// minFilteredCalls is how many calls of at most two kinds make a trace
// look filtered.
const minFilteredCalls = 20

// processCall reports whether a call is of a process's life only: it
// starts, forks, waits for or ends a process, and touches no file (an
// execve reads one, which changes nothing).
func processCall(e syscalls.Effect) bool {
	switch e {
	case syscalls.Execve, syscalls.Fork, syscalls.Exit, syscalls.Wait:
		return true
	}
	return false
}

// minFilteredOpens is how many opens, with not one read nor close in a
// whole run, make a trace filtered: one or two could be a program that
// exits holding them.
const minFilteredOpens = 3

// keptLooked drops the sign of an open that keepsData when a later read
// or stat looks at its file after the fd is closed: what it shows is the
// evidence then. Data the model does not explain is a sign of its own
// (settled, unseen); what it does explain says the file was not written
// (": >> log; cat log", which reads nothing back). A read while the fd
// is open drops it too when the open also reads: the program uses its
// file as a reader (sqlite3 opens its database O_RDWR to query it).
func (w *Watcher) keptLooked(ev *parser.Event, paths []string, read bool) {
	if w.kept.Line == 0 || !ev.OK() || len(paths) == 0 || paths[0] != w.keptPath {
		return
	}
	open := w.procs != nil && w.procs.StillOpen(w.keptPID, w.keptFD, w.keptEnded)
	if !open || read && w.keptFlags&syscalls.O_RDWR != 0 {
		w.kept, w.keptPath = model.Ref{}, ""
	}
}

// keepsData reports whether an open's flags open a file to be written
// without making or cutting it: not truncated, and not created unless
// appended to (touch opens O_WRONLY|O_CREAT and writes nothing, and a
// database is opened O_RDWR|O_CREAT to be queried).
func keepsData(flags uint64) bool {
	// O_TMPFILE makes a new file, with no name and no data: nothing kept.
	if flags&(syscalls.O_WRONLY|syscalls.O_RDWR) == 0 || flags&syscalls.O_TRUNC != 0 || flags&syscalls.O_TMPFILE == syscalls.O_TMPFILE {
		return false
	}
	return flags&syscalls.O_CREAT == 0 || flags&syscalls.O_APPEND != 0
}

// keptHow says how an open that keepsData opened its file.
func keptHow(flags uint64) string {
	switch {
	case flags&syscalls.O_APPEND != 0:
		return "for appending"
	case flags&syscalls.O_RDWR != 0:
		return "for reading and writing, neither created nor truncated"
	}
	return "write only, neither created nor truncated"
}

// pathSet counts distinct paths and keeps the first with where it was
// seen. Past maxPaths it stops telling them apart and counts changes.
type pathSet struct {
	n     int
	seen  map[string]bool
	first string
	at    model.Ref
}

const maxPaths = 4096

func (s *pathSet) add(p string, at model.Ref) {
	if s.seen == nil {
		s.seen = map[string]bool{}
		s.first, s.at = p, at
	}
	if s.seen[p] {
		return
	}
	if len(s.seen) < maxPaths {
		s.seen[p] = true
	}
	s.n++
}

// NewWatcher returns a watcher for a trace checked with opt.
func NewWatcher(opt *Options) *Watcher {
	return &Watcher{opt: opt, openFlags: model.OpenFlags, syncs: map[string]bool{}, forks: map[int]model.Ref{}, pids: map[int]bool{}, running: map[int]bool{}}
}

// UseModel gives the watcher the model whose process model resolves the
// paths ObserveResolved gets, to tell fds the trace never opened, and
// which says what a sync or a syncfs covered.
func (w *Watcher) UseModel(m *model.Model) { w.procs, w.m = m.Procs(), m }

// receivedFix is what names an fd received over a socket: crashsim
// trace records without -y unless asked (it costs a readlink of every fd
// strace prints).
const receivedFix = "record with -y, which names every fd, those a process receives too: crashsim trace --fd-paths, or by hand strace -f -y -o TRACE CMD"

// ref is where an event is, as model.Ref says it.
func ref(ev *parser.Event) model.Ref {
	return model.Ref{File: ev.Pos.File, Line: ev.Pos.Line, PID: ev.PID, Seq: ev.Seq, Syscall: ev.Name}
}

var syncCalls = []string{"fsync", "fdatasync", "sync", "syncfs"}

// ObserveResolved looks at one event with the paths the model resolved
// for it (model.Options.Resolved: before the model applies it). Call it
// for every event, in trace order.
func (w *Watcher) ObserveResolved(ev *parser.Event, paths []string) {
	w.observe(ev, w.call(ev), paths)
}

// watchCall is what the watcher needs to know of a call, worked out once
// per row of the syscall table rather than at every event.
type watchCall struct {
	needsPaths bool  // opens, chdir and changing calls: paths it counts
	changing   bool  // it changes a file or a name, besides opening one
	pathArgs   []int // the argument positions that name paths
	// archFlags are the positions of flags whose numbers mean different
	// things on different architectures (open flags).
	archFlags []int
}

// watchCalls is watchCall by syscalls.Call.
var watchCalls = func() []watchCall {
	calls := syscalls.Calls()
	out := make([]watchCall, len(calls)+1)
	for _, c := range calls {
		r := c.Row()
		e := r.Effect
		w := watchCall{changing: e.Changes(), pathArgs: r.PathArgs()}
		w.needsPaths = w.changing || e == syscalls.Open || e == syscalls.Chdir || e == syscalls.Chroot
		for i, a := range r.Args {
			if a.Table != nil && a.Table.Varies() {
				w.archFlags = append(w.archFlags, i)
			}
		}
		out[c] = w
	}
	return out
}()

// call returns what the watcher knows of a syscall event's call, or nil
// for another kind of event.
func (w *Watcher) call(ev *parser.Event) *watchCall {
	if ev.Kind != parser.KindSyscall {
		return nil
	}
	return &watchCalls[ev.Call]
}

// ldPreload is the file glibc's dynamic loader asks for on every start.
const ldPreload = "/etc/ld.so.preload"

// aioObject is in the path of libaio's shared object wherever it is
// installed (libaio.so.1, libaio.so.1t64, libaio.so.1.0.2).
const aioObject = "/libaio.so."

// glibcStartCalls are calls of no strace class that glibc makes as every
// program and thread starts: a dynamic program's full trace has them, a
// -e trace= list that names its calls almost never does. (sync, also of
// no class, is a program's own call, often in such a list.)
var glibcStartCalls = map[string]bool{"set_tid_address": true, "set_robust_list": true, "rseq": true}

// unclassedCalls are calls that strace puts in none of its classes
// (%file, %desc, %process, %memory, ...) and that glibc makes in every
// program or thread: a trace without one of them was recorded with a
// filter that leaves out every call of no class, io_submit among them.
var unclassedCalls = map[string]bool{
	"set_tid_address": true, "set_robust_list": true, "rseq": true,
	"futex": true, "prlimit64": true, "getrandom": true,
	"sched_getaffinity": true, "sched_yield": true,
	"io_getevents": true, "io_pgetevents": true,
}

// ringAnno is how strace -y names an io_uring's fd.
const ringAnno = "anon_inode:[io_uring]"

// ioringEnterSQWakeup is IORING_ENTER_SQ_WAKEUP: an io_uring_enter with
// it wakes the kernel thread of a ring set up with IORING_SETUP_SQPOLL,
// which submits the work the program queued without a count in the call.
const ioringEnterSQWakeup = 1 << 1

// submits reports whether an io_uring_enter that succeeded submitted work
// to its ring: it took at least one entry, or woke the thread that takes
// them. A call that only waits for completions submits nothing.
func submits(ev *parser.Event) bool {
	if !ev.OK() {
		return false
	}
	if n, ok := ev.Arg(1).Int(); ok && n > 0 && ev.Ret > 0 {
		return true
	}
	f := ev.Arg(3)
	if strings.Contains(f.Text, "IORING_ENTER_SQ_WAKEUP") {
		return true
	}
	n, ok := f.Int()
	return ok && n&ioringEnterSQWakeup != 0
}

// ringUse notes a call on an io_uring's fd, by its -y name.
func (w *Watcher) ringUse(ev *parser.Event, row *syscalls.Row) {
	if w.ringFD.Syscall != "" || row.FD() < 0 {
		return
	}
	if a := ev.Arg(row.FD()); a != nil && a.HasAnno && a.Anno == ringAnno {
		w.ringFD = ref(ev)
	}
}

func (w *Watcher) observe(ev *parser.Event, c *watchCall, paths []string) {
	if w.anyEvent.Line == 0 {
		w.anyEvent = ref(ev)
	}
	if ev.PID != 0 && w.firstPID == 0 {
		w.firstPID = ev.PID
	}
	if !w.cmdSet || ev.Pos.Line < w.cmdAt.Line && ev.Pos.File == w.cmdAt.File {
		w.command(ev)
	}
	if !w.pidSeen || ev.PID != w.lastPID {
		if !w.pids[ev.PID] && w.firstEnded && len(w.running) == 0 {
			if _, forked := w.forks[ev.PID]; !forked {
				if w.afterAll == nil {
					w.afterAll = map[int]bool{}
				}
				w.afterAll[ev.PID] = ev.Kind == parser.KindSyscall && ev.Call.Row().Effect == syscalls.Execve
			}
		}
		w.pids[ev.PID] = true
		w.lastPID, w.pidSeen = ev.PID, true
		// A thread's call cut by its group's exit_group ("<... futex
		// resumed>) = ?" after the leader's exit_group line, with no
		// "+++ exited" line under -qq) is the thread's end, not a
		// process running again.
		if w.groupEnded[ev.PID] && ev.Kind == parser.KindSyscall && !ev.RetKnown {
			w.pidSeen = false // a next line of the pid is a process again
		} else if ev.Kind != parser.KindExit && ev.Kind != parser.KindKilled {
			w.running[ev.PID] = true
			delete(w.groupEnded, ev.PID)
		}
	}
	w.lastFile, w.lastLine = ev.Pos.File, max(ev.EndLine, ev.Pos.Line)
	if len(w.execCut) > 0 {
		delete(w.execCut, ev.PID)
	}
	if ev.Kind == parser.KindSyscall && !ev.RetKnown && !ev.Failed() && ev.Call.Row().Effect == syscalls.Execve && ev.FormerPID() == 0 {
		if w.execCut == nil {
			w.execCut = map[int]model.Ref{}
		}
		w.execCut[ev.PID] = ref(ev)
	}
	switch ev.Kind {
	case parser.KindExit:
		if w.exits == 0 {
			w.exitLine = ref(ev)
		}
		w.exits++
		w.end(ev.PID)
		if ev.PID == w.cmdPID && ev.Status() != 0 && w.cmdFailed.Line == 0 {
			w.cmdFailed, w.cmdHow = ref(ev), fmt.Sprintf("exited with status %d", ev.Status())
		}
		return
	case parser.KindKilled:
		w.killed++
		w.end(ev.PID)
		// SIGTERM, SIGINT and SIGHUP are how a server is stopped when
		// its recording ends (timeout, Ctrl-C), and many die of them
		// after a clean shutdown: no failure to speak of.
		if ev.PID == w.cmdPID && w.cmdFailed.Line == 0 && !slices.Contains(stopSignals, ev.Name) {
			w.cmdFailed, w.cmdHow = ref(ev), "was killed by "+ev.Name
		}
		return
	case parser.KindSignal:
		if pid := ev.ChildPID(); pid > 0 && ev.Name == "SIGCHLD" {
			if _, ok := w.sigchld[pid]; !ok {
				if w.sigchld == nil {
					w.sigchld = map[int]model.Ref{}
				}
				w.sigchld[pid] = ref(ev)
			}
		}
		return
	case parser.KindSyscall:
	default:
		return
	}
	if w.syscalls == 0 {
		w.first = ref(ev)
	}
	w.syscalls++
	if w.kinds < len(w.kindNames) && !slices.Contains(w.kindNames[:w.kinds], ev.Name) {
		w.kindNames[w.kinds] = ev.Name
		w.kinds++
	}
	if w.notClass != syscalls.AllClasses {
		w.noteClass(ev.Name)
	}
	switch {
	case ev.OK():
		w.ok++
	case ev.Failed():
		w.failed++
	case ev.Faked():
		if w.faked == 0 {
			w.firstFaked = ref(ev)
		}
		w.faked++
	}
	if ev.Call != 0 {
		w.archSeen.Call(ev.Call)
	} else if nr, ok := syscalls.Number(ev.Name); ok {
		w.unnamedNumber(ev, nr)
	}
	if ev.Call == 0 && !w.unclassed && unclassedCalls[ev.Name] {
		w.unclassed = true
	}
	if ev.Call == 0 && !w.glibcStart && glibcStartCalls[ev.Name] {
		w.glibcStart = true
	}
	if ev.Call == 0 && !w.heap && ev.Name == "brk" {
		w.heap = true
	}
	if ev.Call == 0 && ev.RetKnown && ev.Ret > 0 && w.woke.Line == 0 && ev.Name == "futex" {
		// A futex call that woke someone: FUTEX_WAIT returns 0, the
		// wakes and requeues the number of waiters they woke.
		w.woke, w.woken = ref(ev), ev.Ret
	}
	row := ev.Call.Row()
	w.watchNonblock(ev, row)
	if !processCall(row.Effect) {
		w.nonProcess++
	}
	if row.HasFiles() && row.Effect != syscalls.Execve {
		w.fileCalls++
		if !w.pathNoFD && row.Path() >= 0 && row.FD() < 0 && row.Dirfd() < 0 {
			w.pathNoFD = true
		}
	}
	switch row.Effect {
	case syscalls.Exit:
		w.exitCalls++
		if ev.Name == "exit_group" {
			w.endGroup(ev.PID) // first: end forgets a thread's leader
		}
		w.end(ev.PID)
	case syscalls.Close, syscalls.CloseRange:
		w.closes++
		w.ringUse(ev, row)
		if len(w.fresh) > 0 {
			w.freshGone(ev, row)
		}
	case syscalls.Dup:
		if len(w.fresh) > 0 {
			w.freshGone(ev, row)
		}
	case syscalls.Execve:
		w.execSeen = true
		if ev.OK() || !ev.RetKnown {
			// An execve that "failed" with ? did replace the image.
			w.noteExec(ev.PID, ev.Arg(0).Str)
		}
		if ev.OK() {
			w.execs++
			if w.execFresh == nil {
				w.execFresh = map[int]bool{}
			}
			w.execFresh[ev.PID] = true
		}
		if t := ev.FormerPID(); t != 0 {
			// A thread's execve, which took over its leader's pid:
			// the line that started it is the thread's, shown in the
			// trace, and the thread is gone under its own pid.
			w.pids[t] = true
			delete(w.running, t)
		}
	case syscalls.Open:
		if w.execFresh[ev.PID] {
			if w.loaderStart.Line == 0 && ev.OK() && len(paths) > 0 && paths[0] == "/etc/ld.so.cache" {
				w.loaderStart = ref(ev)
			}
			delete(w.execFresh, ev.PID)
		}
		w.anyOpens++
		if ev.OK() {
			if w.okOpens == 0 {
				w.firstOpen = ref(ev)
			}
			w.okOpens++
		}
	case syscalls.WriteFD, syscalls.WriteAt:
		w.writes++
		if fd, ok := ev.Arg(row.FD()).Int(); ok && fd >= 3 && ev.OK() && len(paths) == 0 {
			if w.blindWrites == 0 {
				w.blindWrite = ref(ev)
			}
			w.blindWrites++
		}
	case syscalls.Truncate, syscalls.Fallocate:
		if ev.OK() && row.FD() >= 0 {
			w.fdSizes++
		}
		if ev.OK() && row.Effect == syscalls.Truncate {
			w.changedAfterSync(ev, paths, "is truncated")
		}
	case syscalls.ReadFD:
		w.readFresh(ev, row)
		w.reads++
		w.fdReads++
		w.readOpen = nil
		w.keptLooked(ev, paths, true)
	case syscalls.ReadAt:
		// The loader reads each library so: a trace whose filter left
		// out read still shows them. What it read is read.
		w.readFresh(ev, row)
		w.reads++
		if len(w.readOpen) > 0 && len(paths) > 0 {
			delete(w.readOpen, paths[0])
		}
		w.keptLooked(ev, paths, true)
	case syscalls.CopyInto:
		w.writes++
		w.reads++
		w.readOpen = nil
	case syscalls.Msync:
		w.writes++
		w.barrier = true
	case syscalls.Fsync, syscalls.Fdatasync, syscalls.Sync, syscalls.Syncfs:
		w.syncs[ev.Name] = true
		w.syncCalls++
		w.unclassed = w.unclassed || ev.Name == "sync" // in no class, as io_submit
		w.barrier = true
	case syscalls.IOUringSetup:
		w.queued = true
		if ev.OK() && w.uring.Syscall == "" {
			w.uring = ref(ev)
		}
	case syscalls.IOUringEnter:
		if w.uringEnter.Syscall == "" && submits(ev) {
			w.queued = true
			w.uringEnter = ref(ev)
			w.uringEnterFD, _ = ev.Arg(0).Int()
		}
	case syscalls.Pipe:
		if w.rawPipe.Line == 0 && ev.OK() {
			if a := ev.Arg(row.Pos(syscalls.ArgFDPair)); a != nil && a.Kind == parser.ValNumber {
				w.rawPipe = ref(ev)
			}
		}
	case syscalls.Mmap:
		w.mmaps++
		if fd, ok := ev.Arg(row.FD()).Int(); ok && fd < 0 {
			w.anonMaps = true
		}
		w.ringUse(ev, row)
		if len(w.readOpen) > 0 && ev.OK() && len(paths) > 0 && w.readOpen[paths[0]] {
			// A file mapped where the program can read it is read
			// through memory, with no read call: that it shows none
			// is no sign of a filter (git and bup map their packs).
			if prot, ok := ev.Bits(row.PosOf(syscalls.ProtFlags), syscalls.ProtFlags); ok && prot != syscalls.PROT_NONE {
				delete(w.readOpen, paths[0])
			}
		}
	case syscalls.Mprotect:
		w.heap = true
	case syscalls.Stat:
		w.statSeen = true
		w.statPath = ""
		w.keptLooked(ev, paths, false)
		if len(paths) > 0 {
			w.statPath = paths[0] // for observeSize, which sees the effect
		}
		// Failed ones too: the loader's access of ld.so.preload fails
		// unless the file exists.
		if ev.Name == "access" || ev.Name == "faccessat" || ev.Name == "faccessat2" {
			w.accessSeen = true
			for i := range 2 {
				if a := ev.Arg(i); a != nil && a.HasStr && a.Str == ldPreload {
					w.preload = true
					if w.preloadAt.Line == 0 {
						w.preloadAt = ref(ev)
					}
				}
			}
		}
	case syscalls.AIOSubmit:
		w.unclassed = true
		w.queued = true
		if ev.OK() && ev.Ret > 0 && w.aio.Syscall == "" {
			w.aio = ref(ev)
		}
	case syscalls.Fork:
		if ev.OK() && ev.Ret > 0 {
			if _, ok := w.forks[int(ev.Ret)]; !ok {
				w.forks[int(ev.Ret)] = ref(ev)
			}
			w.noteFork(ev.PID, int(ev.Ret))
			if ev.CloneFlags()&syscalls.CLONE_THREAD != 0 {
				if w.leader == nil {
					w.leader = map[int]int{}
				}
				w.leader[int(ev.Ret)] = w.leaderOf(ev.PID)
			}
		}
	}
	w.arch = ev.Arch
	if ev.Arch == syscalls.Unknown && w.archFlags == "" && len(c.archFlags) > 0 {
		w.guessedArch(ev, row, c.archFlags)
	}
	if !ev.Failed() && w.rawCall == "" {
		for _, i := range c.pathArgs {
			if ev.Arg(i).Kind == parser.ValNumber {
				w.raw, w.rawCall = ref(ev), ev.Name
				break
			}
		}
	}
	if row.Effect == syscalls.Open && w.ldCache.Line == 0 && len(paths) > 0 && paths[0] == ldPreload {
		// Before the cache, failed or not: a glibc older than
		// set_tid_address (2.3) probed with open, where later ones call
		// access.
		w.preloadOpened = true
	}
	if !ev.OK() {
		return
	}
	if i := row.FD(); i >= 0 && w.procs != nil && !w.cmdExec {
		w.observeEarly(ev, row, i)
	}
	if i := row.FD(); i >= 0 && w.procs != nil && w.anyOpens == 0 {
		if unopened, std := w.procs.Unopened(ev.PID, ev.Arg(i), ev.Began()); unopened {
			w.observeUnopened(ev, row, paths, std)
		}
	}
	if c.changing && w.procs != nil {
		if i := row.FD(); i >= 0 {
			if fd, ok := ev.Arg(i).Int(); ok {
				// Standard input, output and error as the program got
				// them are left out (a terminal or a pipe almost always:
				// the model marks them), but not an fd the program put
				// there: a shell's `echo x >&3` dup2s an inherited fd 3
				// onto 1 and writes to the file through fd 1.
				if unnamed, standIn := w.procs.Unnamed(ev.PID, ev.Arg(i), ev.Began()); unnamed {
					w.noteUnnamed(ev, ev.Arg(i), fd, standIn)
				}
			}
		}
	}
	switch row.Effect {
	case syscalls.Open:
		const writing = syscalls.O_WRONLY | syscalls.O_RDWR | syscalls.O_CREAT | syscalls.O_TRUNC
		if !w.execSeen && w.loaderAt.Line == 0 && len(paths) > 0 && paths[0] == "/etc/ld.so.cache" {
			w.loaderAt = ref(ev)
		}
		if w.ldCache.Line == 0 && ev.OK() && len(paths) > 0 && paths[0] == "/etc/ld.so.cache" {
			w.ldCache = ref(ev)
		}
		if len(paths) > 0 && paths[0] == ldPreload {
			w.preload = true
		}
		if w.aioLib.Line == 0 && ev.OK() && len(paths) > 0 && strings.Contains(paths[0], aioObject) {
			w.aioLib = ref(ev)
		}
		flags := w.openFlags(ev)
		// Not one with O_TRUNC: it empties the file as it opens it, so
		// nothing read through it is the data the file held (a program
		// opens its temp file O_RDWR|O_CREAT|O_TRUNC and never reads it).
		if w.fdReads == 0 && flags&syscalls.O_WRONLY == 0 && flags&syscalls.O_TRUNC == 0 && len(paths) > 0 && w.opt.inScope(paths[0]) {
			if w.readOpen == nil {
				w.readOpen = map[string]bool{}
			}
			w.readOpen[paths[0]] = true
		}
		if flags&writing == 0 {
			return
		}
		if len(paths) > 0 && model.PseudoFile(paths[0]) {
			return
		}
		if w.opens == 0 {
			w.written = ref(ev)
		}
		w.opens++
		if w.kept.Line == 0 && ev.OK() && len(paths) > 0 && keepsData(flags) {
			w.kept, w.keptPath, w.keptFlags = ref(ev), paths[0], flags
			w.keptPID, w.keptFD, w.keptEnded = ev.PID, int(ev.Ret), ev.Ended()
		}
		if w.writes == 0 && w.readBack.Line == 0 && (flags&syscalls.O_TRUNC != 0 || flags&syscalls.O_TMPFILE == syscalls.O_TMPFILE ||
			flags&(syscalls.O_CREAT|syscalls.O_EXCL) == syscalls.O_CREAT|syscalls.O_EXCL) {
			if w.fresh == nil {
				w.fresh = map[[2]int]model.Ref{}
			}
			if len(w.fresh) < 64 {
				w.fresh[[2]int{w.leaderOf(ev.PID), int(ev.Ret)}] = ref(ev)
			}
		}
		switch {
		case flags&syscalls.O_TRUNC != 0:
			w.changedAfterSync(ev, paths, "is truncated")
		case flags&syscalls.O_APPEND != 0:
			w.changedAfterSync(ev, paths, "is opened for appending")
		}
	default:
		if !c.changing {
			return
		}
	}
	for i, p := range paths {
		if i == 0 && ev.RetAnno != p && strings.HasPrefix(ev.RetAnno, "/") && ev.Call.Effect() == syscalls.Open {
			// -y names the file the open reached, through any
			// symlink on the way, and the model and the findings
			// follow that name: its scope is that name's.
			p = ev.RetAnno
		}
		w.changed(ev, p)
	}
}

// freshGone forgets an fd of Watcher.fresh that a close ends or a dup
// puts another file on: what it reads then is no longer the fresh file.
func (w *Watcher) freshGone(ev *parser.Event, row *syscalls.Row) {
	var fd int64
	var ok bool
	switch row.Effect {
	case syscalls.Close:
		fd, ok = ev.Arg(0).Int()
	case syscalls.Dup:
		fd, ok = ev.Ret, ev.OK()
	default: // close_range: forget them all
		w.fresh = nil
		return
	}
	if ok {
		delete(w.fresh, [2]int{w.leaderOf(ev.PID), int(fd)})
	}
}

// readFresh notes a read that returned bytes through an fd opened on a
// new or emptied file (Watcher.fresh), while the trace shows no write.
func (w *Watcher) readFresh(ev *parser.Event, row *syscalls.Row) {
	if len(w.fresh) == 0 || !ev.OK() || ev.Ret <= 0 {
		return
	}
	if w.writes > 0 || w.readBack.Line > 0 {
		w.fresh = nil
		return
	}
	if fd, ok := ev.Arg(row.FD()).Int(); ok {
		if at, ok := w.fresh[[2]int{w.leaderOf(ev.PID), int(fd)}]; ok {
			w.readBack, w.readBackOpen, w.readBackN = ref(ev), at, ev.Ret
		}
	}
}

// watchNonblock follows the O_NONBLOCK an fcntl sets and clears, and the
// epoll calls between, for Watcher.unpolled.
//
// A trace with a failed call shows failures, and the sign is not asked
// (Finish wants none): from the first one on, nothing is followed.
func (w *Watcher) watchNonblock(ev *parser.Event, row *syscalls.Row) {
	if !ev.OK() || w.unpolled.Line > 0 || w.failed > 0 {
		if w.failed > 0 && w.nonblock != nil {
			w.nonblock, w.epollMade, w.epollInit = nil, nil, nil
		}
		return
	}
	switch {
	case ev.Name == "epoll_create1" || ev.Name == "epoll_create":
		l := w.leaderOf(ev.PID)
		if w.epollMade == nil {
			w.epollMade, w.epollInit = map[int]bool{}, map[int]bool{}
		}
		w.epollMade[l], w.epollInit[l] = true, true
	case ev.Name == "epoll_ctl":
		l := w.leaderOf(ev.PID)
		if w.epollInit[l] {
			// The netpoller adds its own eventfd (or pipe) first.
			w.epollInit[l] = false
			return
		}
		for k := range w.nonblock {
			if k[0] == l {
				delete(w.nonblock, k)
			}
		}
	case row.Effect == syscalls.Fcntl:
		fd, ok := ev.Arg(0).Int()
		if !ok || ev.Arg(1).Text != "F_SETFL" {
			return
		}
		k := [2]int{w.leaderOf(ev.PID), int(fd)}
		if strings.Contains(ev.Arg(2).Text, "O_NONBLOCK") {
			if w.nonblock == nil {
				w.nonblock = map[[2]int]bool{}
			}
			w.nonblock[k] = true
		} else if w.nonblock[k] && w.epollMade[k[0]] {
			w.unpolled, w.unpolledFD = ref(ev), k[1]
		}
	case row.Effect == syscalls.Close:
		if fd, ok := ev.Arg(0).Int(); ok && len(w.nonblock) > 0 {
			delete(w.nonblock, [2]int{w.leaderOf(ev.PID), int(fd)})
		}
	}
}

// command takes ev's process for the traced command's: the first event,
// or one that starts on an earlier line than the one taken before.
func (w *Watcher) command(ev *parser.Event) {
	w.cmdPID, w.cmdSet, w.cmdAt = ev.PID, true, ref(ev)
	if ev.PID != 0 {
		w.firstPID = ev.PID
	}
	w.cmdExec = ev.Kind == parser.KindSyscall && ev.Call.Row().Effect == syscalls.Execve
	// Not ended: a process's exit comes after the call that ends its
	// first line (the reader delivers a call left open at an exit first).
	w.firstEnded = false
	if w.cmdFailed.Line > 0 && w.cmdFailed.PID != ev.PID {
		w.cmdFailed, w.cmdHow = model.Ref{}, ""
	}
}

// end notes that a process exited, was killed or called exit_group.
func (w *Watcher) end(pid int) {
	w.firstEnded = w.firstEnded || pid == w.cmdPID
	delete(w.running, pid)
	delete(w.leader, pid) // what is left holds the threads still running
	// A later line of the pid is a process again (a pid reused, or a log
	// of several runs): observe adds it back.
	w.pidSeen = false
}

// endGroup ends every thread of pid's group, which its exit_group ended.
// The threads of a process the trace did not see made (strace -p
// attaching to each, or a thread made before the trace began) show no
// clone: the exit_group of such a process ends every other pid whose
// making the trace does not show either.
func (w *Watcher) endGroup(pid int) {
	l := w.leaderOf(pid)
	delete(w.running, l)
	// A thread of the command that ends it ends it (with -qq no "+++
	// exited" line says so).
	w.firstEnded = w.firstEnded || l == w.cmdPID
	gone := func(t int) {
		delete(w.running, t)
		if w.groupEnded == nil {
			w.groupEnded = map[int]bool{}
		}
		w.groupEnded[t] = true
	}
	for t, tl := range w.leader {
		if tl == l {
			gone(t)
			delete(w.leader, t)
		}
	}
	if _, made := w.forks[l]; made {
		return
	}
	for t := range w.running {
		if _, made := w.forks[t]; !made {
			gone(t)
		}
	}
}

// leaderOf is the leader of pid's thread group, as the trace's clones
// with CLONE_THREAD say (pid itself for a process).
func (w *Watcher) leaderOf(pid int) int {
	if l, ok := w.leader[pid]; ok {
		return l
	}
	return pid
}

// unnamedNumber takes in a call strace printed by its number nr. Read
// on the trace's architecture, it is a blind spot when it stands for a
// call whose effect a verdict needs. While the trace has not shown its
// machine, its number is read as amd64's, unless every strace names that
// number on amd64 (258, mkdirat): then the trace is not from amd64, and
// the call is named on a machine the trace may still be from (arm64,
// whose generic numbering riscv64 shares for every call that changes a
// file), and is a blind spot whatever it is there: the trace may be from
// a machine crashsim does not read, where the number means another call.
func (w *Watcher) unnamedNumber(ev *parser.Event, nr uint64) {
	w.archSeen.Unnamed(ev.Name)
	if ev.Failed() {
		return
	}
	c, ok := syscalls.OnArch(nr, ev.Arch)
	arch, notAMD64 := ev.Arch, false
	if ev.Arch == syscalls.Unknown && syscalls.NamedBy(nr).Has(syscalls.AMD64) {
		c, notAMD64 = 0, true
		for _, a := range [...]syscalls.Arch{syscalls.ARM64, syscalls.I386} {
			if w.archSeen.Possible().Has(a) {
				if on, named := syscalls.OnArch(nr, a); named {
					c, arch = on, a
					break
				}
			}
		}
	} else if !ok {
		return
	}
	if w.unnamedCalls == 0 {
		w.unnamedCall, w.unnamedCallName, w.unnamedCallArch = ref(ev), c.Name(), arch
		w.unnamedNr, w.unnamedNotAMD64 = nr, notAMD64
	}
	w.unnamedCalls++
}

// notAMD64Blind is the blind-unnamed-call of a call strace printed by a
// number every strace names on amd64 (unnamedNotAMD64), its message and
// its fix: the trace is not from amd64, and which machine it is from,
// and so what the call did, the trace may not tell.
func (w *Watcher) notAMD64Blind(more string) (msg, fix string) {
	nr := w.unnamedNr
	amd64 := ""
	if c, ok := syscalls.OnArch(nr, syscalls.AMD64); ok {
		amd64 = " (" + c.Name() + ")"
	}
	msg = fmt.Sprintf("strace printed %s by its number, not knowing the call, yet every strace names call %d on amd64%s: the trace is not from amd64", w.unnamedCall.Syscall, nr, amd64)
	generic := w.archSeen.Possible().Has(syscalls.ARM64)
	const lost = "its arguments are bare numbers, so what it changed cannot be seen, and any loss can hide there"
	const noX86 = "it shows no call only x86 has (arch_prctl, open, stat), as on arm64, riscv64 and the other machines with the generic numbering"
	b, _ := LookupBlind(BlindUnnamedCall)
	switch {
	case w.unnamedCallName != "":
		return fmt.Sprintf("%s; on %s, which it may be from, it is %s%s: %s", msg, w.unnamedCallArch, w.unnamedCallName, more, lost), b.Fix
	case generic && nr >= syscalls.GenericOwnFirst && nr <= syscalls.GenericOwnLast:
		return fmt.Sprintf("%s; %s, where %d-%d are each machine's calls of its own: none on arm64, riscv_hwprobe (258) and riscv_flush_icache (259) on riscv64, which change no file; crashsim reads amd64, arm64 and 386 traces and cannot tell which machine recorded this one, so it cannot tell what the call%s did, and any loss can hide there", msg, noX86, syscalls.GenericOwnFirst, syscalls.GenericOwnLast, more),
			"if the trace is from riscv64 (the traced program's name, or uname -m where it was recorded, says), the call is riscv_hwprobe or riscv_flush_icache, which change no file and which no strace up to 7.2 names (Go's runtime calls riscv_hwprobe as it starts); if from arm64, give --arch arm64, where the number is no call"
	case generic:
		return fmt.Sprintf("%s; %s, where %d is a call that changes no file, but crashsim cannot tell which machine recorded this one, so it cannot tell what the call%s did, and any loss can hide there", msg, noX86, nr, more),
			"give --arch arm64 if the trace is from arm64 (crashsim trace writes it in TRACE.initial); otherwise record with a strace that names the call (strace -V says which one recorded)"
	}
	return fmt.Sprintf("%s, nor from another machine crashsim reads (arm64, 386), so what the call%s did cannot be told, and any loss can hide there", msg, more),
		"record on amd64, arm64 or 386, with a strace that names the call (strace -V says which one recorded)"
}

// misread reports whether the flags guessedArch noted mean something else
// on the architecture the trace was read with in the end (or may: it is
// still unknown) than amd64's reading of them, which they got.
func (w *Watcher) misread() bool {
	if w.arch == syscalls.Unknown {
		return true
	}
	as, _ := w.archTable.Bits(w.archFlags, syscalls.AMD64)
	is, _ := w.archTable.Bits(w.archFlags, w.arch)
	return as != is
}

// plainFlags is a flag text of a table, found to mean the same on every
// architecture.
type plainFlags struct {
	table *syscalls.FlagTable
	text  string
}

// guessedArch notes a call whose flags hold a number that means
// different things on different architectures, read while the trace had
// not shown its architecture.
func (w *Watcher) guessedArch(ev *parser.Event, row *syscalls.Row, pos []int) {
	for _, i := range pos {
		a := ev.Arg(i)
		if row.Args[i].Kind == syscalls.ArgOpenHow {
			a = a.Field("flags")
		}
		t := row.Args[i].Table
		k := plainFlags{t, a.Text}
		if _, plain := w.archPlain[k]; plain {
			continue
		}
		if t.Ambiguous(a.Text) {
			w.archGuess, w.archFlags, w.archTable = ref(ev), a.Text, t
			return
		}
		if w.archPlain == nil {
			w.archPlain = map[plainFlags]struct{}{}
		}
		if len(w.archPlain) < 256 {
			w.archPlain[k] = struct{}{}
		}
	}
}

// changed counts a path an event changed: below the roots, elsewhere, on a
// volatile filesystem, or relative to a directory the trace does not name.
func (w *Watcher) changed(ev *parser.Event, p string) {
	o := w.opt
	switch {
	case p == "" || model.PseudoFile(p) || o.ignored(p):
	case !strings.HasPrefix(p, "/"):
		if len(o.Roots) > 0 && !o.underRoots(p) {
			w.relative.add(p, ref(ev))
		} else {
			w.inRoots++
		}
	default:
		if dir, fs, ok := o.volatileAt(p); ok {
			w.volatile.add(p, ref(ev))
			if !slices.Contains(w.volDirs, dir) {
				w.volDirs = append(w.volDirs, dir)
			}
			if w.volFS == "" || w.volFS == fs {
				w.volFS = fs
			} else {
				w.volFS = "tmpfs or ramfs"
			}
			return
		}
		if o.underRoots(p) {
			w.inRoots++
			return
		}
		w.elsewhere.add(p, ref(ev))
	}
}

// ObserveEffect looks at what the model made of an event: a file in
// scope mapped shared and writable (the model says which mmap is one),
// and, for commands that build crash states, writes whose bytes the trace
// lacks. A caller replaying the trace through a model of its own passes
// it as model.Options.Observe (check.Run does so for its first model).
func (w *Watcher) ObserveEffect(m *model.Model, e *model.Effect) { w.observeEffect(e) }

func (w *Watcher) observeEffect(e *model.Effect) {
	if e.Kind == model.EffWrite && e.Handle != nil && e.Handle.Flags&syscalls.O_DSYNC != 0 {
		w.barrier = true
	}
	if e.Kind == model.EffUnmodeled && e.Event != nil && (e.Event.Call.Effect() == syscalls.Mmap || e.Event.Call.Effect() == syscalls.Mprotect) && e.Inode != nil {
		// Stores into a file mapped shared and writable, in scope or
		// not, are writes no write call shows: that the trace has none
		// is no sign of a filter then (rrdtool update).
		w.storesMapped = true
		if p := e.Inode.Name(); w.mappedPath == "" && w.opt.inScope(p) {
			w.mapped, w.mappedPath, w.mappedID = e.Ref, p, e.Inode.ID
		} else if w.mappedPath == "" {
			w.outMapped[w.nOut%len(w.outMapped)] = outMap{id: e.Inode.ID, at: e.Ref, path: p}
			w.nOut++
		}
	} else if (w.mappedID != 0 || w.nOut > 0) && (e.Kind == model.EffFileSync && e.Inode != nil || e.Kind == model.EffSyncAll) {
		if w.mappedID != 0 && (e.Kind == model.EffSyncAll || e.Inode.ID == w.mappedID) {
			w.mappedSynced = true
		}
		for i := range min(w.nOut, len(w.outMapped)) {
			if o := &w.outMapped[i]; e.Kind == model.EffSyncAll || e.Inode.ID == o.id {
				o.synced = true
			}
		}
	} else if e.Kind == model.EffEntry && w.mappedID != 0 {
		for _, c := range e.Entry.Changes {
			if c.New != nil && c.New.ID == w.mappedID && c.Path != "" {
				w.mappedNow, w.movedAt = c.Path, e.Ref
			}
		}
	} else if e.Kind == model.EffEntry && w.nOut > 0 {
		w.movedIn(e)
	}
	if w.dropped.Line == 0 && len(w.readOpen) > 0 {
		w.observeDrop(e)
	}
	if e.Settled && w.settledPath == "" {
		if p := e.Inode.Name(); w.opt.inScope(p) {
			w.settled, w.settledPath = e.Ref, p
		}
	}
	if e.Kind == model.EffSizeSeen || e.SizeAtLeast || len(w.unseen) > 0 {
		w.observeSize(e)
	}
	if w.opt.NeedData {
		w.observeData(e)
	}
}

// outMap is a file mapped shared and writable outside the scope.
type outMap struct {
	id     int
	at     model.Ref // the mapping
	path   string
	synced bool // a sync covered it after the mapping
}

// movedIn takes a file mapped outside the scope that entry effect e
// names in it (a rename or a link) for the mapped file in scope: its
// stores, which no line shows, are in scope from then on.
func (w *Watcher) movedIn(e *model.Effect) {
	for _, c := range e.Entry.Changes {
		if c.New == nil || c.Path == "" || !w.opt.inScope(c.Path) {
			continue
		}
		for i := range min(w.nOut, len(w.outMapped)) {
			if o := w.outMapped[i]; o.id == c.New.ID {
				w.mapped, w.mappedPath, w.mappedID, w.mappedSynced = o.at, o.path, o.id, o.synced
				w.mappedNow, w.movedAt = c.Path, e.Ref
				w.nOut = 0
				return
			}
		}
	}
}

// unseenSize is a stat, read or seek that showed a size the model does
// not explain.
type unseenSize struct {
	at          model.Ref
	ended       int64 // the call's Ended: a call that began before ran beside it
	inode       int
	path        string
	seen, model int64
	atLeast     bool // a read: bytes up to seen were there
}

const maxUnseen = 4

// observeSize keeps a surprising size, and drops one that a call running
// beside the call that showed it explains.
func (w *Watcher) observeSize(e *model.Effect) {
	if e.Kind == model.EffSizeSeen || e.SizeAtLeast {
		p := ""
		if e.Event.Call.Effect() == syscalls.Stat {
			p = w.statPath
		}
		if p == "" {
			p = e.Inode.Name() // a stat of an fd, a read, a seek
		}
		if len(w.unseen) < maxUnseen && w.opt.inScope(p) {
			w.unseen = append(w.unseen, unseenSize{at: e.Ref, ended: e.Event.Ended(), inode: e.Inode.ID, path: p,
				seen: e.SizeSeen, model: e.Inode.Size, atLeast: e.SizeAtLeast})
		}
		return
	}
	if e.Inode == nil || e.Data == nil && e.Kind != model.EffUnmodeled {
		return
	}
	w.unseen = slices.DeleteFunc(w.unseen, func(u unseenSize) bool {
		return u.inode == e.Inode.ID && e.Event.Began() < u.ended
	})
}

// observeDrop notes the first removal of the last name of a file in scope
// that existed before the trace and was opened for reading, or the first
// truncation that shrank one.
func (w *Watcher) observeDrop(e *model.Effect) {
	switch e.Kind {
	case model.EffEntry:
		if e.Entry.Kind != model.EntryUnlink {
			return
		}
		for _, c := range e.Entry.Changes {
			if f := c.Old; f != nil && c.New == nil && !f.Dir && f.Initial && len(f.Names()) == 0 && w.readOpen[c.Path] {
				w.dropped, w.droppedPath, w.droppedHow = e.Ref, c.Path, "removed"
				return
			}
		}
	case model.EffTruncate:
		if f := e.Inode; f != nil && !f.Dir && f.Initial && e.Data != nil && e.Data.Size >= 0 &&
			(e.Data.SizeBefore < 0 || e.Data.Size < e.Data.SizeBefore) && w.readOpen[f.Name()] {
			w.dropped, w.droppedPath, w.droppedHow = e.Ref, f.Name(), "cut shorter"
		}
	}
}

// observeData notes a write in scope whose bytes the trace lacks, for
// commands that build crash states (Options.NeedData).
func (w *Watcher) observeData(e *model.Effect) {
	if w.noDataCall == "" && e.Kind == model.EffEntry && e.Entry != nil {
		w.observeNamedFrom(e)
		return
	}
	if w.noDataCall != "" || e.Kind != model.EffWrite || e.Data == nil || e.Data.Kind != model.DataWrite || e.Inode == nil {
		return
	}
	p := e.Inode.Name()
	if !w.opt.inScope(p) {
		return
	}
	if c := e.Data.Copy(); c != nil && c.Unchanged && c.Off >= 0 && c.Path != "" && w.opt.underRoots(c.Path) {
		// A copy in the kernel from a file below the root that the trace
		// had not changed: its bytes are the initial snapshot's, which
		// explore reads (and says so, naming the line, when the snapshot
		// lacks them).
		return
	}
	for _, c := range e.Data.Chunks() {
		if !c.Ref.Valid() || c.Ref.Truncated {
			// A chunk without a string is also the rest of an iovec array
			// strace cut short (see model.DataOp.Chunks).
			w.noData, w.noDataCall, w.noDataPath, w.noDataPart = e.Ref, e.Ref.Syscall, p, c.Ref.Valid()
			w.noDataCopy = syscalls.Lookup(e.Ref.Syscall).Row().Effect == syscalls.CopyInto
			if w.noDataCopy {
				w.noDataFrom = copyFrom(e.Data.Copy())
			}
			return
		}
	}
}

// observeNamedFrom notes an entry op that names, in scope, a file that
// existed before the trace under a name outside the roots (link or
// rename from there): a crash state that holds it needs its bytes from
// before the trace, and the initial snapshot, a copy of the roots, does
// not hold them.
func (w *Watcher) observeNamedFrom(e *model.Effect) {
	for _, c := range e.Entry.Changes {
		ino := c.New
		if ino == nil || !ino.Initial || ino.Unsure || ino.Dir || !w.opt.inScope(c.Path) {
			continue
		}
		ps := ino.Paths()
		if len(ps) == 0 || !strings.HasPrefix(ps[0], "/") || w.opt.underRoots(ps[0]) {
			continue
		}
		w.noData, w.noDataCall, w.noDataPath = e.Ref, e.Ref.Syscall, c.Path
		w.noDataNamed, w.noDataFrom = true, ps[0]
		return
	}
}

// copyFrom says why the bytes of a copy made in the kernel from c (nil:
// from something the model cannot name) cannot be taken from the initial
// snapshot, for blind-no-data.
func copyFrom(c *model.CopySource) string {
	switch {
	case c == nil || c.Path == "":
		return " from a pipe or a file the trace cannot name"
	case !c.Unchanged:
		return fmt.Sprintf(" from %s, which the trace had changed before (or cannot tell whether it existed before)", shown(c.Path))
	case c.Off < 0:
		return fmt.Sprintf(" from %s at an offset the trace does not show", shown(c.Path))
	}
	return fmt.Sprintf(" from %s, outside the root", shown(c.Path))
}

// Synced reports whether the program asked for durability at least
// once: any sync call (fsync, fdatasync, sync, syncfs, msync), failed or
// not, or a write on an fd opened O_SYNC or O_DSYNC.
func (w *Watcher) Synced() bool { return w.barrier }

// Describe says in one line what the watcher saw of the recording, for -v:
// the counts its blind spots are worked out from.
func (w *Watcher) Describe() string {
	var syncs []string
	for _, c := range syncCalls {
		if w.syncs[c] {
			syncs = append(syncs, c)
		}
	}
	if len(syncs) == 0 {
		syncs = []string{"none"}
	}
	followed := 0
	for pid := range w.forks {
		if w.pids[pid] {
			followed++
		}
	}
	return fmt.Sprintf("%d calls (%d succeeded, %d failed), %d exit_group/exit, %d opens for writing, %d closes, syncs: %s; %d children started, %d of them in the trace; %d changes below the roots, %d paths changed elsewhere, %d relative paths with no known directory, %d paths on tmpfs",
		w.syscalls, w.ok, w.failed, w.exitCalls, w.opens, w.closes, strings.Join(syncs, ", "), len(w.forks), followed, w.inRoots, w.elsewhere.n, w.relative.n, w.volatile.n)
}

// attachFix gives the last of out, a blind-syscall-filter that says the
// trace's fds were never opened, the fix for an attach as well as for a
// filter when the trace shows no execve: strace -p started after the
// program did, and one recorded from the start with -y names every fd.
func (w *Watcher) attachFix(out []BlindWarning) {
	if w.execSeen || len(out) == 0 {
		return
	}
	b, _ := LookupBlind(BlindSyscallFilter)
	out[len(out)-1].Fix = b.Fix + "; if strace attached with -p instead, record from the program's start (crashsim trace, or strace -f -y -o TRACE CMD)"
}

// Finish returns the blind spots and notes of the whole trace.
func (w *Watcher) Finish() ([]BlindWarning, []Note) {
	var out []BlindWarning
	add := func(id string, at model.Ref, msg string) {
		b, _ := LookupBlind(id)
		out = append(out, BlindWarning{ID: id, Message: msg, Trace: at.File, Line: at.Line, Fix: b.Fix})
	}
	if w.syscalls == 0 {
		// strace that could not trace (ptrace refused in a container), or
		// an attach (-p) to a program that did nothing while watched:
		// "clean" would be said of nothing. Trace is left for the caller,
		// who knows the file's name, when not even a signal came.
		add(BlindNoCalls, w.anyEvent, "the trace holds not one system call: there is nothing of the program to judge; strace's own lines in it (\"strace: ...\") may say why it traced nothing")
	} else if w.ok == 0 && w.failed == 0 {
		// Calls, but none that returned: an attach (-p) to threads that
		// each sat in one call until strace stopped ("restart_syscall(<...
		// resuming interrupted ...> <unfinished ...>"), or a trace cut off.
		what := fmt.Sprintf("not one of the trace's %d calls returned (each was still running when the trace ends, or never returns, as exit_group)", w.syscalls)
		if w.syscalls == 1 {
			what = "the trace's one call did not return (it was still running when the trace ends, or never returns, as exit_group)"
		}
		add(BlindNoCalls, w.first, what+": there is nothing of the program to judge")
	}
	if w.ok+w.failed > 0 && !w.firstEnded {
		// The traced command never ended: no "+++ exited"/"+++ killed"
		// line of its process and no exit or exit_group call by it
		// (strace prints the call even with -qq, which drops the lines).
		// A recording runs until its program exits, whatever children
		// and threads ended before; this one was cut off.
		who := "before any process in it exited (no exit_group, no \"+++ exited\" line)"
		if w.cmdPID != 0 && w.cmdExec {
			who = fmt.Sprintf("before the traced command, pid %d, exited (no exit_group of it, no \"+++ exited\" line for it)", w.cmdPID)
		} else if w.cmdPID != 0 {
			// No execve first: attached with -p, or an excerpt. The
			// first process shown stands for the command.
			who = fmt.Sprintf("before its first process, pid %d, exited (no exit_group of it, no \"+++ exited\" line for it)", w.cmdPID)
		} else if len(w.pids) > 1 {
			who = "before the traced command exited (no exit_group of it, no \"+++ exited\" line for it)"
		}
		if at, ok := w.execCut[w.cmdPID]; ok {
			add(BlindCutShort, at, execCutMsg(w.cmdPID))
			out[len(out)-1].Fix = execCutFix
		} else {
			add(BlindCutShort, model.Ref{File: w.lastFile, Line: w.lastLine}, fmt.Sprintf("the trace ends at line %d %s: it was cut off, as an excerpt, a strace stopped or killed, or strace -p detached, so what the program did after, its writes, syncs and renames, is not in it", w.lastLine, who))
		}
	} else if w.ok+w.failed > 0 && len(w.running) > 0 && w.opt.SetPrefix == "" {
		// The command ended, and a process it left (a daemon, a later
		// run of a log of several) did not: strace -f waits for every
		// process it follows, so the recording stopped before it.
		pid := slices.Min(slices.Collect(maps.Keys(w.running)))
		who := fmt.Sprintf("pid %d", pid)
		if pid == 0 {
			who = "the process of the lines without a pid"
		}
		if at, ok := w.execCut[pid]; ok {
			add(BlindCutShort, at, execCutMsg(pid))
			out[len(out)-1].Fix = execCutFix
		} else if run, ok := w.afterAll[pid]; ok {
			later := "a later strace -p session appended to the same file (strace -A), stopped or cut off while the process ran"
			if run {
				later = "a later run appended to the same file (strace -A), stopped or cut off before it ended"
			}
			add(BlindCutShort, model.Ref{File: w.lastFile, Line: w.lastLine}, fmt.Sprintf("the trace ends at line %d before %s exited (no exit_group of it, no \"+++ exited\" line for it): it first shows after every process before it had exited, and no fork in the trace made it, so it is %s, and what it did after, its writes, syncs and renames, is not in it", w.lastLine, who, later))
		} else {
			add(BlindCutShort, model.Ref{File: w.lastFile, Line: w.lastLine}, fmt.Sprintf("the trace ends at line %d before %s exited (no exit_group of it, no \"+++ exited\" line for it), though the traced command had: strace -f waits for every process it follows, so the recording was stopped or cut off before it ended, and what it did after, its writes, syncs and renames, is not in it", w.lastLine, who))
		}
	}
	// A file of an -ff set has no pid column (its events are pid 0): a
	// numbered trace that has one is a whole recording of its own.
	partial := w.opt.SetPrefix != "" && len(w.opt.SetOthers) > 0 && len(w.pids) == 1 && w.pids[0]
	if o := w.opt; partial {
		at := w.anyEvent
		if at.Line == 0 {
			at = model.Ref{File: w.lastFile, Line: 1}
		}
		others := fmt.Sprintf("%s beside it, %s", plural(len(o.SetOthers), "other file", "other files"), filepath.Base(o.SetOthers[0]))
		if len(o.SetOthers) > 1 {
			others += " the first"
		}
		add(BlindPartialSet, at, fmt.Sprintf("this file is one of the strace -ff set %s (%s): it holds one process of the recording, and what the others wrote, synced and renamed is not in it", o.SetPrefix, others))
	}
	if w.unnamedCalls > 0 && w.unnamedNotAMD64 {
		more := ""
		if w.unnamedCalls > 1 {
			more = fmt.Sprintf(" (%d such calls in all)", w.unnamedCalls)
		}
		msg, fix := w.notAMD64Blind(more)
		add(BlindUnnamedCall, w.unnamedCall, msg)
		out[len(out)-1].Fix = fix
	} else if w.unnamedCalls > 0 {
		on := "on " + w.unnamedCallArch.String()
		if w.unnamedCallArch == syscalls.Unknown {
			on = "on amd64 (the trace does not say which machine recorded it)"
		}
		more := ""
		if w.unnamedCalls > 1 {
			more = fmt.Sprintf(" (%d such calls in all)", w.unnamedCalls)
		}
		add(BlindUnnamedCall, w.unnamedCall, fmt.Sprintf("strace printed %s by its number, not knowing the call, which %s is %s%s: its arguments are bare numbers, so what it changed cannot be seen, and any loss can hide there", w.unnamedCall.Syscall, on, w.unnamedCallName, more))
	}
	if w.rawCall != "" {
		add(BlindRawArgs, w.raw, fmt.Sprintf("%s has numbers where paths belong (recorded with -e raw=): crashsim cannot tell which files the trace changes, so any loss can hide here", w.rawCall))
	}
	if w.syscalls > 0 && w.ok == 0 && w.failed > 0 {
		add(BlindFailedOnly, w.first, fmt.Sprintf("all %d calls in the trace failed: it looks recorded with -Z (--failed-only), which leaves out every write, sync and rename that succeeded", w.syscalls))
	}
	var lost []int // children a clone or fork returned that the trace never shows
	for pid := range w.forks {
		if !w.pids[pid] {
			lost = append(lost, pid)
		}
	}
	// unfollowed: threads or children made calls the trace does not
	// follow (blind-unfollowed-children, below), which may be the calls
	// a sign of a filter misses.
	unfollowed := len(lost) > 0 && len(lost) > w.unexplained() || w.woke.Line != 0 && len(w.pids) == 1
	// filterWrites: writes to fds never opened are put down to a filter
	// (below), and not said again as blind-unknown-fd; filterFDs: any
	// use of such fds is (a filter, or an attach), and the files used
	// through them are not said again either.
	filterWrites, filterFDs := false, false
	// noWrites: files were opened for writing, and not one call wrote to
	// any fd or changed a size through one, nor was a file mapped to be
	// written by storing into memory.
	noWrites := w.opens > 0 && w.writes == 0 && w.fdSizes == 0 && !w.storesMapped
	// killedOnly: every process that ended was killed, none exited by
	// itself: a program killed before it closed what it opened shows no
	// close without a filter (a static one opens nothing else).
	killedOnly := w.killed > 0 && w.exits == 0 && w.exitCalls == 0
	if w.opens > 0 && w.closes == 0 && !killedOnly {
		missing := "close"
		var absent []string
		for _, s := range syncCalls {
			if !w.syncs[s] {
				absent = append(absent, s)
			}
		}
		if len(absent) == len(syncCalls) {
			missing = "close, nor any fsync, fdatasync, sync or syncfs"
		}
		add(BlindSyscallFilter, w.written, fmt.Sprintf("files were opened for writing (first here) but the trace has not one %s: it looks recorded with a syscall filter (-e trace=...) that leaves them out; findings that depend on them (data-not-synced, name-not-synced, rename-before-sync, remove-before-sync, fsync-before-write) may be false, and a loss they would show may be hidden", missing))
	} else if noWrites && (w.syncs["fsync"] || w.syncs["fdatasync"]) {
		// Files opened for writing and synced, and not one write to any
		// fd, not even the terminal: the filter left the writes out.
		// Unless the program changed its files through their fds by
		// other calls (fallocate, ftruncate): a filter that kept those
		// kept writes too (they are all of %desc), and a program that
		// only reserves or cuts space, and prints nothing, writes none
		// (util-linux's fallocate).
		add(BlindSyscallFilter, w.written, "files were opened for writing (first here) and synced, but the trace has not one write, pwrite64 or writev to any file or terminal: it looks recorded with a syscall filter (-e trace=...) that leaves them out; a write after the last fsync, which a crash loses, cannot be seen, and findings about data may be false")
	} else if noWrites && w.settledPath != "" {
		// Files opened for writing, not one write to any fd, and data in
		// one of them that the trace may have made with O_CREAT (sh's
		// "printf x >> f; cat f" under -e trace=!write): taken as there
		// before the trace, and so unchanged, it would check clean. In a
		// trace that shows every write, a program that reads a file's
		// data and writes nothing anywhere, not even to its terminal,
		// is rare.
		add(BlindSyscallFilter, w.settled, fmt.Sprintf("%s holds data here, which the trace never wrote, and it may have been made by the trace (opened with O_CREAT), but the trace has not one write, pwrite64 or writev to any file or terminal: either it was there before with that data, or a syscall filter (-e trace=...) left out the writes that put it there, which a crash can lose; which one cannot be seen", shown(w.settledPath)))
	} else if w.writes == 0 && !w.storesMapped && w.opens > 0 && w.afterSync.Line > 0 {
		// sh -c 'echo x > f; sync; truncate -s 0 f' under -e
		// trace=!write: the echo's write is gone, and the model takes
		// the synced f for empty and its cut, which a crash can undo
		// only in part, for none; "echo y >> f" after the sync leaves
		// an open and no write. The truncations of a program that
		// writes nothing (truncate, util-linux's fallocate) seldom
		// follow a sync.
		add(BlindSyscallFilter, w.afterSync, fmt.Sprintf("%s %s here after a sync, but the trace has not one write, pwrite64 or writev to any file or terminal: it looks recorded with a syscall filter (-e trace=!write, or a list without the writes) that leaves them out; what was written before the sync and what was written after it, which a crash can lose or bring back, cannot be seen", shown(w.afterSyncPath), w.afterSyncHow))
	} else if noWrites && w.kept.Line > 0 && len(w.unseen) == 0 && !w.queued {
		// sh -c 'echo y >> f' or a program that opens its existing
		// file O_WRONLY and writes into it, under -e trace=!write: an
		// open and no write, which the model takes for a file left as
		// it was. A program that opens a file to write only, neither to
		// create nor to cut it, and then writes nothing anywhere, not
		// even to its terminal, is rare.
		add(BlindSyscallFilter, w.kept, fmt.Sprintf("%s is opened here to be written (%s), but the trace has not one write, pwrite64 or writev to any file or terminal: it looks recorded with a syscall filter (-e trace=!write, or a list without the writes) that leaves them out; what the program wrote there, which a crash can lose, cannot be seen", shown(w.keptPath), keptHow(w.keptFlags)))
	} else if noWrites && w.readBack.Line > 0 && !w.queued && !unfollowed {
		// ed keeps its buffer in an O_TMPFILE file and reads it back to
		// save: under -e trace=!write the file, new and empty when
		// opened, returns bytes no call put there, and the truncation of
		// the saved file and its rewrite look like a file emptied (or
		// left as it was). A file made or emptied by its open holds
		// only what was written to it after (ftruncate and fallocate,
		// which make zeros to read, are writes here: noWrites).
		what := "a new file (O_TMPFILE)"
		if a := w.readBackOpen; a.Line > 0 {
			what = fmt.Sprintf("a file new or emptied when opened at line %d", a.Line)
		}
		add(BlindSyscallFilter, w.readBack, fmt.Sprintf("this %s returned %s from %s, but the trace has not one write, pwrite64 or writev to any file or terminal to put them there: it looks recorded with a syscall filter (-e trace=!write, or a list without the writes) that leaves them out; what the program wrote to its files (a file truncated and rewritten, data not synced), which a crash can lose, cannot be seen", w.readBack.Syscall, plural(int(w.readBackN), "byte", "bytes"), what))
	} else if filterWrites = w.blindWrites > 0 && w.anyOpens == 0 && w.closes == 0; filterWrites {
		filterFDs = true
		add(BlindSyscallFilter, w.blindWrite, fmt.Sprintf("%s went to fds the trace never opened and cannot name (first here), and the trace has not one open or close: it looks recorded with a syscall filter (-e trace=...) that leaves them out, or attached (-p) after the files were opened; those files cannot be judged", plural(w.blindWrites, "write", "writes")))
		w.attachFix(out)
	} else if unopened, at, path := w.unopenedSyncs(); unopened > 0 {
		// Named files synced through fds that no call in the trace
		// opened, and not one open anywhere: sqlite3 recorded with -e
		// trace=write,pwrite64,fsync,fdatasync,exit_group writes and
		// syncs its database and journal, and the unlink of the journal,
		// which takes no fd, is left out with the opens, so the trace
		// checked clean. Every dynamic program opens its libraries. (Writes
		// alone through such fds need no word here: unsynced, they are
		// findings of their own.)
		filterFDs = true
		what, where := callsAt(unopened, path)
		add(BlindSyscallFilter, at, fmt.Sprintf("%s synced files through fds the trace never opened (%s), and the trace has not one open: it looks recorded with a syscall filter (-e trace=...) that leaves out the opens, and with them perhaps the creates, truncations, renames and unlinks of those files, which a crash can undo; or attached with -p after the files were opened; what a crash loses there cannot be seen", what, where))
		w.attachFix(out)
	} else if w.unopenedUses > 0 && w.anyOpens == 0 && !w.execSeen {
		// Files read, written, mapped or closed through fds no call in
		// the trace opened, and neither an open nor an execve anywhere:
		// -e trace=!%file leaves out every call that names a file, the
		// program's start, its opens, renames and unlinks with them (a
		// shell's mv or rm after a sync checked clean so). The loader's
		// fds alone show it: close(3</etc/ld.so.cache>).
		filterFDs = true
		what, where := callsAt(w.unopenedUses, w.unopenedUsePath)
		add(BlindSyscallFilter, w.unopenedUse, fmt.Sprintf("%s used files through fds the trace never opened (%s), and the trace has neither an open nor an execve: it looks recorded with a syscall filter (-e trace=!%%file, %%desc) that leaves out the calls that name a file, the creates, renames and unlinks a crash can undo among them; or attached with -p after the files were opened; what a crash loses there cannot be seen", what, where))
		w.attachFix(out)
	} else if w.preloadAt.Line > 0 && w.anyOpens == 0 {
		// The loader asks for /etc/ld.so.preload and then opens its cache
		// and each library: not one open after it is a filter that left
		// the opens out, -e trace=!%desc among them (openat takes a
		// directory fd), which keeps rename and unlink but drops
		// renameat2 and unlinkat (mv and sed -i checked clean so).
		add(BlindSyscallFilter, w.preloadAt, "the dynamic loader asks for /etc/ld.so.preload here, and the trace has not one open, where the loader opens /etc/ld.so.cache and each library next: it looks recorded with a syscall filter (-e trace=..., as !%desc) that leaves out the opens, and with them perhaps the calls that change names relative to a directory fd (renameat2, unlinkat, linkat, mkdirat), which a crash can undo; what a crash loses there cannot be seen")
	} else if !w.execSeen && (w.exits > 0 || !w.firstEnded) && w.syscalls > 0 && w.syscalls == w.syncCalls+w.exitCalls {
		// Every call is a sync or an exit, and no execve: a program
		// strace started begins with its execve, and between it and its
		// exit opens, maps and writes. A list of syncs alone (-e
		// trace=fsync,fdatasync,sync,exit_group) leaves this and no
		// other sign (sed -i after a sync checked clean). A window cut
		// short (strace -p -e fdatasync on a server) is as blind: its
		// blind-cut-short may be accepted, as for any window, and the
		// writes would still be missing.
		or := ""
		if !w.firstEnded {
			or = ", or attached (-p) without -f to one thread of a program whose other threads do the writing"
		}
		add(BlindSyscallFilter, w.first, fmt.Sprintf("the trace's %d calls are all syncs and exits, with no execve: it looks recorded with a -e trace= list of syncs (as fsync,fdatasync,sync,exit_group) that leaves out every call that writes, creates, renames or removes a file%s; what a crash loses there cannot be seen", w.syscalls, or))
	} else if w.fdReads == 0 && w.anyOpens > 0 && w.dropped.Line > 0 && !partial && !unfollowed {
		// (In one file of an -ff set, another thread's file may hold
		// the reads, and so may the threads a trace does not follow.)
		// Every program reads (the dynamic loader reads each library's
		// header; Go's runtime reads a file of /sys): a trace with opens
		// and not one read was filtered. One whose only reads are at
		// offsets, pread64 as the loader makes, and that never read the
		// file it opened for reading, was recorded under -e trace=!read
		// (dd's copy, then rm of its source, checked clean so).
		none, filter := "not one read, pread64, readv, copy_file_range, sendfile or splice", "-e trace=..."
		if w.reads > 0 {
			none, filter = "nothing that read it, and not one read or readv anywhere (only reads at an offset, as the dynamic loader's pread64)", "-e trace=!read, or a list without read"
		}
		add(BlindSyscallFilter, w.dropped, fmt.Sprintf("%s was opened for reading and is %s here, but the trace has %s: it looks recorded with a syscall filter (%s) that leaves out reads, so whether the program had copied its data into a file not yet synced when it lost it (remove-before-sync) cannot be seen", w.droppedPath, w.droppedHow, none, filter))
	} else if w.kinds <= 2 && w.syscalls >= minFilteredCalls && w.firstEnded {
		// Any program makes several kinds of call from its start to its
		// exit (a static one that only writes still shows execve, write
		// and exit_group): one or two kinds over many calls of a whole
		// run is what a filter leaves. (A window of a running program,
		// cut short, is said as that.)
		add(BlindSyscallFilter, w.first, fmt.Sprintf("the trace's %d calls are all %s: a program makes many kinds of call, so it looks recorded with a syscall filter (-e trace=...) that leaves out the others, its writes, syncs and renames among them; what a crash loses there cannot be seen", w.syscalls, strings.Join(w.kindNames[:w.kinds], " or ")))
	} else if w.nonProcess == 0 && (w.syscalls >= minFilteredCalls || w.execs >= 2) && w.firstEnded {
		// Every program opens, reads, maps or writes something between
		// its execve and its exit (the dynamic loader alone does; a
		// static program that does nothing shows execve and exit_group
		// only): a run of many calls, or of two programs, whose calls
		// only start, fork, wait for and end processes was recorded
		// with a filter that keeps those (a build profiler's -e
		// trace=execve,execveat,exit,exit_group), however many kinds it
		// keeps.
		add(BlindSyscallFilter, w.first, fmt.Sprintf("the trace's %d calls all start, fork, wait for or end processes (execve, clone, wait4, exit_group, ...): a program also opens, reads and writes files, so it looks recorded with a syscall filter (-e trace=execve,exit_group or %%process) that leaves out every call on files, its writes, syncs and renames among them; what a crash loses there cannot be seen", w.syscalls))
	} else if w.fileCalls == 0 && w.execSeen && w.syscalls >= minFilteredCalls && w.firstEnded {
		// A program opens, reads, maps or writes something between its
		// execve and its exit (Go's runtime opens a file of /sys, the
		// dynamic loader its cache): a whole run of many calls without
		// one call on a file was filtered. A static Go program under -e
		// trace=!%desc, which takes its opens, writes, fsyncs and
		// renameat, shows the runtime's signals, futexes and clones
		// only, and checked clean.
		add(BlindSyscallFilter, w.first, fmt.Sprintf("not one of the trace's %d calls takes an fd or names a file, besides the execve: a program opens, reads or writes something between its start and its exit, so it looks recorded with a syscall filter (-e trace=!%%desc, or a list) that leaves out every call on files, its writes, syncs and renames among them; what a crash loses there cannot be seen", w.syscalls))
	} else if w.okOpens >= minFilteredOpens && w.reads == 0 && w.closes == 0 && w.firstEnded {
		// A program reads or closes what it opens (the dynamic loader
		// reads each library's header and closes it): a whole run with
		// opens and not one read nor close was filtered (-e trace=%file
		// keeps opens, stats and execve only).
		add(BlindSyscallFilter, w.firstOpen, fmt.Sprintf("%d opens returned an fd (first here), and the trace has not one read nor close: it looks recorded with a syscall filter (-e trace=..., as %%file) that leaves out what the program did with its files, its writes and syncs among them; what a crash loses there cannot be seen", w.okOpens))
	} else if w.loaderAt.Line > 0 && !w.execSeen && !w.pathNoFD {
		// The loader's first open is a program starting: strace -p
		// cannot attach that early, so its execve was filtered out,
		// and with it the other calls that name a file (-e trace=%desc
		// keeps the calls on fds only). Unless the trace shows such a
		// call: then it is a library loaded in the middle of a run (an
		// NSS module, dlopen), in an excerpt or an attach.
		add(BlindSyscallFilter, w.loaderAt, "the program starts here (the dynamic loader opens /etc/ld.so.cache) but the trace has no execve: it looks recorded with a syscall filter (-e trace=..., as %desc) that leaves out execve and with it the calls that name a file, renames and unlinks among them; what a crash loses there cannot be seen")
	} else if w.ldCache.Line > 0 && w.mmaps == 0 {
		// The loader maps each library it opens (mmap is in %desc and
		// %memory, and crashsim trace's list keeps it): opened and never
		// mapped is a -e trace= list written by hand, and which calls it
		// kept cannot be told. sqlite3 under a list that keeps the opens,
		// writes, syncs and closes and not unlink checked clean: the
		// unlink of its journal, whose directory is never fsynced, was
		// left out with the mmaps.
		add(BlindSyscallFilter, w.ldCache, "the dynamic loader opens /etc/ld.so.cache here, and the trace has not one mmap, which the loader makes for every library it opens: it looks recorded with a -e trace= list that leaves mmap out, and which of the calls that change files (unlink, rename, link, mkdir, truncate, ...) it kept cannot be told; a crash can undo those it left out")
	} else if w.aioLib.Line > 0 && !w.unclassed && w.statSeen {
		// libaio loaded, and not one call of no strace class: a class
		// filter (-e trace=%file,%desc,%process) hid them all, and with
		// them the io_submit calls that would say the program queued
		// writes and fsyncs (blind-linux-aio). Not crashsim trace's own
		// list, which keeps io_submit: that one has no stat calls.
		add(BlindSyscallFilter, w.aioLib, "the program loaded libaio here, the library of Linux asynchronous I/O, but the trace has no io_submit and not one of the calls that strace puts in no class (set_tid_address, set_robust_list, futex, ...), which every program makes: it looks recorded with a class filter (-e trace=%file,%desc,...) that leaves them out, so writes and fsyncs queued with io_submit, which crashsim does not model either, cannot be seen")
	} else if w.ldCache.Line > 0 && !w.glibcStart && w.statSeen && !w.accessSeen && !w.preloadOpened && (w.execSeen || !w.pathNoFD) {
		// A program linked with glibc starts (its loader opens the
		// cache: not a library loaded in the middle of a run, in a
		// trace without execve that shows calls a %desc list leaves
		// out) and none of the calls of no strace class that glibc
		// makes as every program starts shows (glibcStartCalls):
		// a -e trace= list. Not %file, which keeps the loader's access
		// of /etc/ld.so.preload, nor crashsim trace's list, which keeps
		// no stat call. Which calls that change names such a list kept
		// cannot be told: coreutils use renameat2, unlinkat and mkdir,
		// and a list of rename and unlink, or %desc and %process, hides
		// them (mv after a sync checked clean).
		add(BlindSyscallFilter, w.ldCache, "the dynamic loader opens /etc/ld.so.cache here, and the trace has none of the calls glibc makes in every program that strace puts in no class (set_tid_address, set_robust_list, rseq, ...), nor the loader's access of /etc/ld.so.preload: it looks recorded with a -e trace= list, and whether it kept every call that changes a name (renameat2, unlinkat, linkat, mkdir, ...: mv, rm and ln use these, not rename or unlink) cannot be told; a crash can undo those it left out")
	} else if w.ldCache.Line > 0 && !w.glibcStart && !w.unclassed && !w.heap && w.statSeen && w.accessSeen && !w.preloadOpened && (w.execSeen || !w.pathNoFD) {
		// As above, with the loader's access of ld.so.preload: a class
		// filter (-e trace=%file,%desc,%process) that keeps every call
		// naming a file or taking an fd, and leaves out those of no
		// class. sync is one: sh -c '...; sync' under such a filter
		// read as a program that never synced. Only where brk and
		// mprotect are missing too: a glibc older than 2.34 makes the
		// start calls only in a program linked with libpthread.
		add(BlindSyscallFilter, w.ldCache, "the dynamic loader opens /etc/ld.so.cache here, and the trace has neither brk nor mprotect, which glibc's loader and malloc make in every program, nor any call strace puts in no class (set_tid_address, set_robust_list, futex, ...): it looks recorded with a class filter (-e trace=%file,%desc,%process) that leaves out every call of no class, sync among them, so a sync the program made cannot be seen and a finding that says it never synced may be false")
	}
	// A filter without exit_group also hides it: say the filter only.
	// In a file of an -ff set, a thread ends when another's exit_group
	// ends the process: that file has none (the set's other files say
	// more, as the warning above does).
	filtered := partial || len(out) > 0 && out[len(out)-1].ID == BlindSyscallFilter
	// Without -f (no pid column), a thread the trace does not follow may
	// have made the exit_group that ended the process: what that says
	// is blind-unfollowed-children's, below, not a filter's.
	// So may one when a futex woke a thread no line shows (said below as
	// blind-unfollowed-children too): strace -p attaches to one thread.
	threadExit := w.exitLine.PID == 0 && !partial && unfollowed
	// pathOnly: every call takes an fd or names a file, and no execve
	// shows: the shape of strace -P PATH (--trace-path), which keeps only
	// the calls on the paths it names and their fds, never the program's
	// start, brk, mmap or futex, nor its exit_group (or of a -e trace=
	// list of calls on fds, as %desc). Not where an mmap took no file.
	pathOnly := w.fileCalls == w.syscalls && !w.execSeen && !w.anonMaps
	// narrow: every call is one call, or of one strace class that holds
	// no call on files (%memory, ...), with no execve: a -e trace= list
	// of that call or class, which the missing exit_group confirms.
	class, some := w.onlyClass()
	narrow := !w.execSeen && (w.kinds == 1 || class != "")
	if !filtered && !threadExit && w.ok > 0 && w.exits > 0 && w.exitCalls == 0 && narrow {
		add(BlindSyscallFilter, w.first, w.narrowMsg(class, some, pathOnly))
	} else if !filtered && !threadExit && w.ok > 0 && w.exits > 0 && w.exitCalls == 0 && pathOnly {
		add(BlindSyscallFilter, w.exitLine, fmt.Sprintf("%s exited here, but no process in the trace called exit_group or exit, and every one of its %d calls takes an fd or names a file, with no execve, brk or futex: it looks recorded with -P PATH (--trace-path), which keeps only the calls on the paths it names and their fds, or with a -e trace= list of calls on fds (as %%desc), which leaves out the renames, unlinks and mkdirs that take no fd; what a crash loses in the calls left out (a journal beside the file, the temp file a rename publishes, a directory's fsync) cannot be seen", w.exitWho(), w.syscalls))
	} else if !filtered && !threadExit && w.ok > 0 && w.failed > 0 && w.exits > 0 && w.exitCalls == 0 {
		// A process that ends by itself calls exit_group (or its last
		// thread exit), and strace prints the call even with -qq: a
		// process exited and no call in the trace is one. Failed calls
		// are shown, so it is no -z: a -e trace= list left exit_group
		// out, and what else it left out the trace cannot say.
		// -e trace=%desc on a static binary (no loader open, no execve)
		// is one, and it hides every rename, unlink and mkdir (which
		// take no fd); so is a list written by hand.
		who, or := "the program", ""
		if w.exitLine.PID != 0 {
			who = fmt.Sprintf("pid %d", w.exitLine.PID)
		} else {
			// No pid column: one thread traced without -f ends so too,
			// when another thread's exit_group ends the process.
			or = ", or it shows one thread of a process whose other threads were not traced (no -f)"
		}
		add(BlindSyscallFilter, w.exitLine, fmt.Sprintf("%s exited here, but no process in the trace called exit_group or exit, which every process that ends by itself does: it looks recorded with a syscall filter (-e trace=..., as %%desc) that leaves out exit_group, and with it perhaps the renames, unlinks and other calls that change files%s; or with -e status= without unfinished (exit_group never returns, so only that status shows it), which also hides a call the process died in; what a crash loses there cannot be seen", who, or))
	} else if !filtered && !threadExit && w.syscalls > 0 && w.failed == 0 && w.exits > 0 && w.exitCalls == 0 {
		how := "it looks recorded with -z (--successful-only), or with a -e trace= filter that leaves out exit_group"
		if !w.cmdExec {
			// No execve first: an excerpt cut from a longer log can
			// look the same, its exit_group line left out.
			how = "it looks recorded with -z (--successful-only), or with a -e trace= filter that leaves out exit_group, or is an excerpt of a longer trace (it does not start with an execve)"
		}
		add(BlindSuccessfulOnly, w.exitLine, "no call in the trace failed and no process called exit_group before it exited: "+how+"; "+failedHidden)
	} else if !filtered && w.failed == 0 && w.unpolled.Line > 0 {
		// Go's os package clears the O_NONBLOCK it set on a file it
		// opened only when adding the file to its epoll failed (EPERM,
		// as for every regular file and directory): the clear shows,
		// the failed epoll_ctl before it does not.
		add(BlindSuccessfulOnly, w.unpolled, fmt.Sprintf("no call in the trace failed, and this fcntl clears the O_NONBLOCK set on fd %d with no epoll_ctl of it between, which Go's os package does only after its epoll_ctl of the file failed (EPERM, as for every regular file and directory): the trace leaves out failed calls, as -e status=!failed (or successful,unfinished) or -z records; %s", w.unpolledFD, failedHidden))
	} else if !filtered && w.failed == 0 && w.loaderStart.Line > 0 && !w.preload && !w.preloadOpened && !w.accessSeen && w.glibcStart && w.heap {
		// As below, where the trace shows no access call at all: the
		// calls of no class and of %memory that glibc makes in every
		// program are there, so no class filter and no -e trace= list
		// (crashsim trace's has neither) left out the loader's access,
		// and the process's execve shows it starting.
		add(BlindSuccessfulOnly, w.loaderStart, "no call in the trace failed, and the dynamic loader, which opens /etc/ld.so.cache here just after the program's execve, is not seen asking for /etc/ld.so.preload first (access, which fails unless that file exists), while the calls glibc makes in every program (brk, set_tid_address, ...) show: it looks recorded with -e status= without failed (as -e status=!failed, or successful,unfinished), or with -z; "+failedHidden)
	} else if !filtered && w.failed == 0 && w.ldCache.Line > 0 && !w.preload && w.accessSeen {
		// exit_group shows (-e status=!failed keeps it: it never
		// returns), but not the loader's access of /etc/ld.so.preload,
		// made before the ld.so.cache open and failing (ENOENT) unless
		// the file exists: the failed calls were left out. Only where
		// the trace shows access calls at all: a -e trace= list without
		// them (crashsim trace's own) hides that call too.
		add(BlindSuccessfulOnly, w.ldCache, "no call in the trace failed, and the dynamic loader, which opens /etc/ld.so.cache here, is not seen asking for /etc/ld.so.preload first, a call that fails unless that file exists: it looks recorded with -e status= without failed (as -e status=!failed), or with -z; "+failedHidden)
	}
	w.settleUnnamed()
	if w.unnamed > 0 && !filterWrites {
		more := ""
		if w.unnamed > 1 {
			more = fmt.Sprintf(" (%d changes through such fds in all)", w.unnamed)
		}
		if w.unnamedEarly != "" {
			// The parent's file, found once the clone returned.
			file := "a file the trace does not name"
			if w.unnamedEarly != "?" {
				file = shown(w.unnamedEarly)
			}
			add(BlindUnknownFD, w.unnamedAt, fmt.Sprintf("%s on fd %d by process %d, printed before the clone that made that process had returned in its parent (on a busy machine strace can show a new child's first calls first)%s: the fd was not known then; it is its parent's %s, and the check did not apply that change to it, so what a crash leaves of it cannot be judged", w.unnamedAt.Syscall, w.unnamedFD, w.unnamedAt.PID, more, file))
		} else if w.unnamedRecvd {
			at := fmt.Sprintf("line %d", w.unnamedRecv.Line)
			if w.unnamedRecv.File != w.unnamedAt.File {
				at = w.unnamedRecv.String()
			}
			add(BlindUnknownFD, w.unnamedAt, fmt.Sprintf("%s on fd %d, an fd received over a Unix socket at %s (recvmsg, SCM_RIGHTS)%s: the trace does not name the fds a process receives (no -y), so whether it is a file, which file, and whether it was synced cannot be judged", w.unnamedAt.Syscall, w.unnamedFD, at, more))
			out[len(out)-1].Fix = receivedFix
		} else if p := w.rawPipe; p.Line > 0 && p.Seq < w.unnamedAt.Seq {
			// -e verbose=none prints pipe2(0x7ffc..., 0) = 0: the fds
			// it made have no numbers in the trace. The fd may be one
			// of them, or a file the program got some other way: a
			// write to a file cannot be taken for a pipe's.
			at := fmt.Sprintf("line %d", p.Line)
			if p.File != w.unnamedAt.File {
				at = lineOf(p)
			}
			what := "a pipe"
			if p.Syscall == "socketpair" {
				what = "a socket"
			}
			add(BlindUnknownFD, w.unnamedAt, fmt.Sprintf("%s on fd %d, which the trace never opened and does not name%s: the %s at %s made two fds whose numbers the trace does not print (an address where they belong, as strace -e verbose=none prints it), and fd %d may be one of them or a copy of one (%s, not a file); or it was open when the program started (inherited, as a shell's redirection 3>FILE makes one), or made by a call the trace does not show; the trace has no -y paths, so whether it is a file, which file, and whether it was synced cannot be judged", w.unnamedAt.Syscall, w.unnamedFD, more, p.Syscall, at, w.unnamedFD, what))
			out[len(out)-1].Fix = "record without -e verbose=none (strace then prints the fds pipe, pipe2 and socketpair make), and with -y, which names the file of every fd: strace -f -y -o TRACE CMD"
		} else if _, forked := w.forks[w.unnamedAt.PID]; w.cmdExec && w.unnamedAt.PID != w.cmdPID && !forked {
			// The trace starts with the program's execve, and the
			// process using the fd was made by no fork or clone in it:
			// a -e trace= list without clone hid where it came from,
			// and the fds it got from its parent with it.
			add(BlindUnknownFD, w.unnamedAt, fmt.Sprintf("%s on fd %d by process %d, which the trace never opened and does not name%s: no fork or clone in the trace made process %d, though the trace starts where the program did (its execve), so it looks recorded with a -e trace= list that leaves out clone (or fork), which would have given it its parent's fds; whether it is a file, which file, and whether it was synced cannot be judged", w.unnamedAt.Syscall, w.unnamedFD, w.unnamedAt.PID, more, w.unnamedAt.PID))
			out[len(out)-1].Fix = "record without a -e trace= list, or keep clone, clone3, fork and vfork in yours, and with -y, which names every fd (crashsim trace chooses the list)"
		} else if w.cmdExec {
			// From the program's start: the fd came through its execve
			// (a shell's 3>file), or from a call a filter left out or a
			// thread made that the trace does not follow.
			add(BlindUnknownFD, w.unnamedAt, fmt.Sprintf("%s on fd %d, which the trace never opened and does not name%s: the fd was open when the program started (inherited, as a shell's redirection 3>FILE makes one) or made by a call the trace does not show (an open, accept, pipe or dup a -e trace= list left out, or one of a thread not followed without -f), and the trace has no -y paths, so whether it is a file, which file, and whether it was synced cannot be judged", w.unnamedAt.Syscall, w.unnamedFD, more))
			out[len(out)-1].Fix = "record with strace -f -y (-y names the file of every fd), without a -e trace= list that leaves out calls making fds (crashsim trace chooses the list)"
		} else {
			add(BlindUnknownFD, w.unnamedAt, fmt.Sprintf("%s on fd %d, which the trace never opened and does not name%s: the fd was open before the trace began (inherited, passed from another process, or opened before strace -p attached) and the trace has no -y paths, so whether it is a file, which file, and whether it was synced cannot be judged", w.unnamedAt.Syscall, w.unnamedFD, more))
		}
	} else if e, n := w.earlyUnsynced(); n > 0 && !filterFDs && !partial {
		// A trace from the program's start shows every write to the
		// files it opens; one that starts mid-run (strace -p, an
		// excerpt) does not show what went into a file opened before
		// it. The model takes such a file as it stood when the trace
		// began, durable, and a program that closes it without a sync
		// checked clean: the data written before the attach is what a
		// power cut loses.
		what := fmt.Sprintf("%s was open on fd %d", shown(e.path), e.fd)
		if e.path == "" {
			what = fmt.Sprintf("fd %d, which the trace never opened and does not name (no -y: a file, a pipe or a socket), was open", e.fd)
		}
		more := ""
		if n > 1 {
			more = fmt.Sprintf("; %d such files in all", n)
		}
		add(BlindUnknownFD, e.at, fmt.Sprintf("%s before the trace began (this %s is the trace's first call on it%s), and the trace does not start where the program did (its first line is no execve: strace -p attached to a running program, or an excerpt): what the program wrote to that file before is not in the trace, and nothing in the trace makes it durable (no fsync or fdatasync of it, no sync or syncfs), so a crash can lose that data, and whether there was any cannot be judged", what, e.at.Syscall, more))
		out[len(out)-1].Fix = "record from the program's start (strace -f -y -o TRACE CMD) rather than attached with -p; or make the program fsync the file (or sync) while the trace records, so that the trace shows its data made durable"
	}
	var signalled []int // lost children only a SIGCHLD names
	for pid := range w.sigchld {
		if _, forked := w.forks[pid]; !forked && !w.pids[pid] {
			signalled = append(signalled, pid)
		}
	}
	// Lines that carry a pid were recorded with -f: a child missing
	// from such a trace was cut or edited out of it, not left unfollowed.
	followed := len(w.pids) > 1 || (len(w.pids) == 1 && !w.pids[0])
	if partial {
		// The children are in the set's other files, which the warning
		// above names: not lost by a recording without -f.
	} else if len(lost) > 0 && len(lost) > w.unexplained() {
		at := earliest(lost, w.forks)
		why := "recorded without -f"
		if followed {
			why = "its lines carry pids, as strace -f writes them, so it is an excerpt or an edited log that leaves the children's lines out"
		}
		if prefix, ok := strings.CutSuffix(at.File, "."+strconv.Itoa(at.PID)); ok && prefix != "" {
			// A file of an -ff set (PREFIX.PID) made the child.
			why = fmt.Sprintf("the strace -ff set has no file %s.%d for it (removed, or never written)", prefix, lost[0])
		}
		add(BlindUnfollowedChildren, at, fmt.Sprintf("%s returned %s (first pid %d) that the trace never shows: %s, so what the children and threads wrote, synced and renamed is missing", at.Syscall, plural(len(lost), "child", "children"), lost[0], why))
	} else if len(signalled) > 0 && len(signalled) > w.unexplained() {
		at := earliest(signalled, w.sigchld)
		why := "recorded without -f, with a -e trace= filter that leaves out fork and the children's calls, or attached (strace -p) after they started"
		if followed {
			why = "its lines carry pids, as strace -f writes them, so it has a -e trace= filter that leaves out fork and the children's calls, was attached (strace -p) after they started, or is an excerpt that leaves their lines out"
		}
		add(BlindUnfollowedChildren, at, fmt.Sprintf("SIGCHLD names %s the trace never shows (first pid %d, here), and no call in it made them: %s, so what the children wrote, synced and renamed is missing", plural(len(signalled), "child", "children"), signalled[0], why))
	}
	if !partial && w.woke.Line != 0 && len(w.pids) == 1 && (len(out) == 0 || out[len(out)-1].ID != BlindUnfollowedChildren) {
		// Threads made before the trace began (strace -p without -f
		// attaches to one thread) return no fork in it.
		add(BlindUnfollowedChildren, w.woke, fmt.Sprintf("futex woke %s the trace never shows (first here), and every line is one thread's: recorded without -f, or attached (-p) to one thread of a program with more, so what the other threads wrote, synced and renamed is missing", plural(int(w.woken), "waiting thread", "waiting threads")))
	}
	if r := w.relative; r.n > 0 {
		add(BlindUnknownCwd, r.at, fmt.Sprintf("%s names %q relative to a directory the trace does not show (no -y, no listing, no --cwd): %s cannot be placed below --root %s and %s left out", r.at.Syscall, r.first, plural(r.n, "relative path", "relative paths"), shown(strings.Join(w.rootsGiven(), ", ")), isAre(r.n)))
	}
	if e := w.elsewhere; len(w.opt.Roots) > 0 && w.inRoots == 0 && e.n > 0 {
		// The warning's line is where the first path was changed.
		what := shown(e.first)
		if e.n > 1 {
			what = fmt.Sprintf("%d paths, the first %s,", e.n, what)
		}
		add(BlindRootUnmatched, e.at, fmt.Sprintf("--root %s matched no file the trace changed, while it changed %s elsewhere: nothing was checked", shown(strings.Join(w.rootsGiven(), ", ")), what))
	}
	if w.uring.Syscall != "" {
		add(BlindIOUring, w.uring, "the program set up an io_uring: file operations it submits through the ring (writes, fsyncs, renames) never appear in an strace log, so a loss there cannot be seen")
	} else if w.ringFD.Syscall != "" {
		add(BlindIOUring, w.ringFD, fmt.Sprintf("the program used an io_uring (its fd, here in %s, is %s) whose io_uring_setup the trace does not show, a syscall filter having left it out: file operations it submits through the ring (writes, fsyncs, renames) never appear in an strace log, so a loss there cannot be seen", w.ringFD.Syscall, ringAnno))
	} else if w.uringEnter.Syscall != "" {
		// Without -y nothing names the ring's fd, but io_uring_enter
		// works on nothing else: a ring set up before the trace began
		// (strace -p), or whose setup a filter left out.
		add(BlindIOUring, w.uringEnter, fmt.Sprintf("the program submitted work to an io_uring here, through fd %d, whose io_uring_setup the trace does not show (the ring was set up before the trace began, as before strace -p attached, or a syscall filter left the setup out): file operations it submits through the ring (writes, fsyncs, renames) never appear in an strace log, so a loss there cannot be seen", w.uringEnterFD))
	}
	if w.aio.Syscall != "" {
		add(BlindLinuxAIO, w.aio, "the program queued file operations with io_submit (Linux AIO): their writes and fsyncs happen when the kernel completes them, which crashsim does not model, so a loss there cannot be seen")
	}
	if w.mappedPath != "" {
		what := shown(w.mappedPath)
		if w.mappedNow != "" && w.mappedNow != w.mappedPath {
			at := lineOf(w.movedAt)
			if w.movedAt.File == w.mapped.File {
				at = fmt.Sprintf("line %d", w.movedAt.Line)
			}
			what = fmt.Sprintf("%s, named %s from %s on,", what, shown(w.mappedNow), at)
		}
		unsynced := ""
		if !w.mappedSynced {
			// Whatever the stores were, nothing made them durable: the
			// kernel writes the pages back when it chooses.
			unsynced = "; and nothing synced it after the mapping (no msync with MS_SYNC, fsync, fdatasync or sync): whatever the program stored there, a crash can lose"
		}
		add(BlindSharedMmap, w.mapped, fmt.Sprintf("%s is mapped shared and writable: the program can change it by storing into memory, which no strace line shows, so what a crash leaves of it cannot be worked out%s", what, unsynced))
	}
	if w.archFlags != "" && w.misread() {
		what := "the trace does not show which machine recorded it, so it was read as amd64's"
		if w.arch != syscalls.Unknown {
			what = fmt.Sprintf("it was read as amd64's before the trace showed it was recorded on %s", w.arch)
		}
		add(BlindUnknownArch, w.archGuess, fmt.Sprintf("%s has %s printed as a number (%s) whose bits mean different things on amd64 and arm64 (O_DIRECT, O_DIRECTORY, O_NOFOLLOW and O_LARGEFILE move): %s; findings about its file may be false", w.archGuess.Syscall, w.archTable.Name(), w.archFlags, what))
	}
	if w.noDataCall != "" && w.noDataNamed {
		add(BlindNoData, w.noData, fmt.Sprintf("%s named %s the file %s, which existed before the trace outside the root: the initial snapshot holds only what is below the root, so the file's bytes from before the trace, which every crash state that holds it needs, are unknown", w.noDataCall, shown(w.noDataPath), shown(w.noDataFrom)))
		out[len(out)-1].Fix = "explore with a --root above both names and --initial a copy of that directory as it was before the run, or check the file by other means"
	} else if w.noDataCall != "" && w.noDataCopy {
		// No flag helps: strace prints a copy's length, never its bytes.
		add(BlindNoData, w.noData, fmt.Sprintf("%s copied bytes into %s in the kernel%s, and strace shows a copy's length, never its bytes, so no crash state with them can be built", w.noDataCall, shown(w.noDataPath), w.noDataFrom))
		out[len(out)-1].Fix = "no strace flag shows them, and explore takes a copy's bytes from the initial snapshot only for a source below the root that the trace had not changed: explore a build of the program that copies with read and write (Python's shutil.copyfile uses sendfile, shutil.copyfileobj does not), or check the file by other means"
	} else if w.noDataCall != "" {
		how := "does not show the bytes"
		if w.noDataPart {
			how = "holds only part of the bytes (strace -s cut them)"
		}
		add(BlindNoData, w.noData, fmt.Sprintf("the trace %s this %s wrote to %s, so no crash state with them can be built", how, w.noDataCall, shown(w.noDataPath)))
	}
	if len(w.unseen) > 0 && len(out) == 0 {
		// Said only when nothing above explains it: a filter, a child
		// not followed or an fd the trace cannot name each make a file's
		// size differ, and one cause is one problem.
		u := w.unseen[0]
		shows := fmt.Sprintf("shows %s at %s", shown(u.path), plural(int(u.seen), "byte", "bytes"))
		if u.atLeast {
			shows = fmt.Sprintf("returns bytes of %s up to byte %d", shown(u.path), u.seen)
		}
		add(BlindUnseenChange, u.at, fmt.Sprintf("this %s %s, but the calls in the trace leave it at %s: a call that the trace does not show changed it (one a -e trace= or -e status= filter left out, one by a process or thread strace did not follow, or one by another program), so what that change was, whether it was synced, and what a crash leaves of the file cannot be seen", u.at.Syscall, shows, plural(int(u.model), "byte", "bytes")))
	}
	return out, w.notes()
}

// narrowMsg says blind-syscall-filter of a trace whose every call is one
// call, or of one class (class, some of its calls), with no execve and no
// exit_group: the filter that keeps that call or class alone. A call on
// files alone (pathOnly: write, as -e trace=write keeps it) may be -P
// PATH's work too.
func (w *Watcher) narrowMsg(class, some string, pathOnly bool) string {
	what := fmt.Sprintf("every one of the trace's %d calls is of strace's %s class (%s)", w.syscalls, class, some)
	filter, or := fmt.Sprintf("-e trace=%s, which keeps the calls of that class alone", class), ""
	if w.kinds == 1 {
		what = fmt.Sprintf("the trace's %s %s", plural(w.syscalls, "call is", "calls are all"), w.kindNames[0])
		filter = "-e trace=" + w.kindNames[0] + ", which keeps that call alone"
		switch {
		case class != "":
			or = fmt.Sprintf(", or with -e trace=%s, the class of calls that holds it", class)
		case pathOnly:
			or = ", or with -P PATH (--trace-path), which keeps only the calls on the paths it names and their fds"
		}
	}
	if w.exitLine.PID == 0 {
		// No pid column: one thread traced without -f (strace -p TID)
		// ends so too when another thread's exit_group ends the process.
		or += "; or it shows one thread of a process whose other threads were not traced (no -f)"
	}
	return fmt.Sprintf("%s, with no execve, and no process called exit_group or exit though %s exited (line %d): it looks recorded with %s and leaves out every other call (those that open, sync, rename and remove files among them)%s; what a crash loses there cannot be seen", what, w.exitWho(), w.exitLine.Line, filter, or)
}

// failedHidden ends each blind-successful-only message: what a trace
// without its failed calls cannot show.
const failedHidden = "failed calls cannot be seen, so neither can a failed fsync and the data it left unsynced"

// execCutMsg says blind-cut-short of pid, whose last line is an execve
// that never returned: the sign of strace -b execve.
func execCutMsg(pid int) string {
	who := fmt.Sprintf("pid %d", pid)
	if pid == 0 {
		who = "the process of the lines without a pid"
	}
	return fmt.Sprintf("%s's last line is this execve, which never returned (strace -b execve prints \"<detached ...>\" there), and nothing of that process follows: it looks recorded with strace -b execve, which stops following a process when it calls execve, so what the program it started did, its writes, syncs and renames, is not in the trace (or the trace was cut off while that execve ran)", who)
}

// execCutFix is the fix of a blind-cut-short execCutMsg says.
const execCutFix = "record without -b execve: strace -f follows the programs a process starts (strace -f -o TRACE CMD)"

// exitWho names the process of the first "+++ exited" line.
func (w *Watcher) exitWho() string {
	if w.exitLine.PID != 0 {
		return fmt.Sprintf("pid %d", w.exitLine.PID)
	}
	return "the program"
}

// earliest sorts pids in the order of the events that named them (refs
// holds one for each), and returns the first: pids[0] is the one it names,
// which after pids wrapped is not the smallest.
func earliest(pids []int, refs map[int]model.Ref) model.Ref {
	slices.SortFunc(pids, func(a, b int) int {
		return cmp.Or(cmp.Compare(refs[a].Seq, refs[b].Seq), cmp.Compare(a, b))
	})
	return refs[pids[0]]
}

// callsAt words n calls whose first was on path: "a call" and "here",
// or "3 calls" and "first here", the path after it when there is one.
func callsAt(n int, path string) (what, where string) {
	what, where = "a call", "here"
	if n > 1 {
		what, where = fmt.Sprintf("%d calls", n), "first here"
	}
	if path != "" {
		where += ", " + shown(path)
	}
	return what, where
}

// shown is a path as a message shows it: quoted when it holds control
// characters, so a file name cannot rewrite the terminal.
func shown(p string) string {
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return strconv.Quote(p)
		}
	}
	return p
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// unexplained counts the pids with lines of their own that no fork in the
// trace returned, besides the traced command. In a pid namespace a fork
// returns the child's pid inside it while strace names the child by its
// pid outside: as many such pids as lost children means the children were
// followed after all.
func (w *Watcher) unexplained() int {
	n := 0
	for pid := range w.pids {
		if _, forked := w.forks[pid]; !forked && pid != 0 && pid != w.firstPID {
			n++
		}
	}
	return n
}

// rootsGiven are the roots as the user gave them (the command line adds
// each one's absolute form after it).
func (w *Watcher) rootsGiven() []string {
	var abs, all []string
	seen := map[string]bool{}
	for _, r := range w.opt.Roots {
		if seen[r] {
			continue
		}
		seen[r] = true
		all = append(all, r)
		if strings.HasPrefix(r, "/") {
			abs = append(abs, r)
		}
	}
	if len(abs) > 0 {
		return abs
	}
	return all
}

func (w *Watcher) notes() []Note {
	var out []Note
	for _, r := range w.rootsGiven() {
		dir, fs, ok := w.opt.volatileAt(r)
		switch {
		case !ok:
		case len(w.opt.Mounts) > 0:
			out = append(out, Note{ID: NoteVolatile, Message: fmt.Sprintf("--root %s is on %s (mounted at %s): nothing below it survives a power cut, so it is out of scope", shown(r), fs, shown(dir))})
		default:
			out = append(out, Note{ID: NoteVolatile, Message: fmt.Sprintf("--root %s is below %s, %s on every Linux system: nothing below it survives a power cut, so it is out of scope", shown(r), shown(dir), fs)})
		}
	}
	if v := w.volatile; v.n > 0 {
		dirs := strings.Join(w.volDirs, ", ")
		msg := fmt.Sprintf("%s below %s (%s) left out of scope, first %s here: nothing on %s survives a power cut", plural(v.n, "path", "paths"), shown(dirs), w.volFS, shown(v.first), w.volFS)
		if len(w.opt.Mounts) == 0 {
			msg += fmt.Sprintf(" (assumed of %s for a saved trace", dirs)
			for _, d := range w.volDirs {
				if !under(d, "/dev") {
					msg += fmt.Sprintf("; a --root below %s checks it", d)
					break
				}
			}
			msg += ")"
		}
		out = append(out, Note{ID: NoteVolatile, Message: msg, Trace: v.at.File, Line: v.at.Line})
	}
	if w.cmdFailed.Line > 0 {
		// Not a blind spot either: the trace shows the whole run. But a
		// clean verdict on a run that stopped early says little of the
		// save the user meant to check.
		out = append(out, Note{ID: NoteFailed, Message: fmt.Sprintf("the traced command %s at %s: a run that failed may have stopped before the save you meant to check, and the verdict covers only what it did", w.cmdHow, lineOf(w.cmdFailed)), Trace: w.cmdFailed.File, Line: w.cmdFailed.Line})
	}
	if e := w.elsewhere; len(w.opt.Roots) > 0 && w.inRoots > 0 && e.n > 0 {
		// Not a blind spot: the roots are the user's choice (or crashsim
		// trace's default, the directory the command started in). But a
		// clean verdict should not hide that the program saved files the
		// check left out.
		out = append(out, Note{ID: NoteOutsideRoots, Message: fmt.Sprintf("the program also changed %s outside --root %s (first %s, at %s), which the check left out: a loss there is not reported; to check them too, give their directory as another --root", plural(e.n, "path", "paths"), shown(strings.Join(w.rootsGiven(), ", ")), shown(e.first), lineOf(e.at)), Trace: e.at.File, Line: e.at.Line})
	}
	if w.faked > 0 {
		// Not a blind spot: the trace says plainly that these calls did
		// nothing, and the model takes them so. The note is there because
		// the program's own view differs: it was told they succeeded.
		them := "them"
		if w.faked == 1 {
			them = "it"
		}
		msg := fmt.Sprintf("strace answered %s itself with a success (-e inject=...:retval=), first %s at %s: the kernel never ran %s, so crashsim takes %s as not made (a faked fsync made nothing durable, a faked write wrote nothing)", plural(w.faked, "call", "calls"), w.firstFaked.Syscall, lineOf(w.firstFaked), them, them)
		out = append(out, Note{ID: NoteFaked, Message: msg, Trace: w.firstFaked.File, Line: w.firstFaked.Line})
	}
	return out
}

// observeUnopened counts a successful call through an fd the trace never
// opened but names (Procs.Unopened). Standard input, output and error
// count only among the syncs, and apart: a program writes to the file a
// shell redirected its output into in every trace, and syncs it rarely
// (dd of=F conv=fsync puts F on fd 1).
func (w *Watcher) observeUnopened(ev *parser.Event, row *syscalls.Row, paths []string, std bool) {
	path := ""
	if len(paths) > 0 {
		path = paths[0]
	}
	sync := row.Effect.IsSync()
	switch {
	case std && sync:
		if w.unopenedStd == 0 {
			w.unopenedStdAt, w.unopenedStdPath = ref(ev), path
		}
		w.unopenedStd++
	case std:
	default:
		if w.unopenedUses == 0 {
			w.unopenedUse, w.unopenedUsePath = ref(ev), path
		}
		w.unopenedUses++
		if sync {
			if w.unopened == 0 {
				w.unopenedAt, w.unopenedPath = ref(ev), path
			}
			w.unopened++
		}
	}
}

// unopenedSyncs is the count of syncs through fds the trace never opened
// but names, in a trace without a single open, with the first one and
// its path; 0 in a trace with an open. The syncs of standard input,
// output and error count only in a trace without an execve as well
// (strace started no program in it): a static program that syncs the
// file its output was redirected into opens nothing.
func (w *Watcher) unopenedSyncs() (n int, at model.Ref, path string) {
	if w.anyOpens > 0 {
		return 0, model.Ref{}, ""
	}
	n, at, path = w.unopened, w.unopenedAt, w.unopenedPath
	if !w.execSeen && w.unopenedStd > 0 {
		if n == 0 || w.unopenedStdAt.Seq < at.Seq {
			at, path = w.unopenedStdAt, w.unopenedStdPath
		}
		n += w.unopenedStd
	}
	return n, at, path
}

// earlyFile is a regular file a trace that starts mid-run uses through
// an fd open before it began: where it was first used, through which fd,
// its path ("" when no -y names it), and what the trace did with it.
type earlyFile struct {
	at   model.Ref
	fd   int64
	path string
	// synced: an fsync or fdatasync through that fd (or a dup of it)
	// made it durable. written: the trace writes it (a write, a cut, a
	// shared writable map). let: it closes or dups it, or changes its
	// flags (F_SETFL), as a program does with a file it has written.
	// read: the trace reads it, as a program does with its input or a
	// library. other: a stat showed it is no regular file.
	synced, written, let, read, other bool
}

// blind reports whether what was written to e before the trace began may
// be lost, and the trace cannot show it: nothing made it durable, and the
// trace lets it go (a close, a dup) without reading or writing it. An fd
// read and never written in the trace is taken for one the program reads
// (a library, its input), and an unsynced write in the trace is a finding
// of its own (data-not-synced, or blind-unknown-fd's write through an fd
// no -y names), whose fix, a sync after the last write, makes what was
// written before durable too.
func (e *earlyFile) blind() bool {
	return e.let && !e.synced && !e.other && !e.written && !e.read
}

// maxEarly bounds the files observeEarly keeps: the first of them is the
// one said, and a daemon attached with -p can hold thousands.
const maxEarly = 64

// observeEarly notes a successful call through argument i of ev, an fd,
// in a trace whose first process shows no start: the use of a regular
// file open before the trace began (named by -y and in scope, or named by
// nothing, as strace without -y prints it), or an fsync or fdatasync that
// makes one durable. A program attached with strace -p may have written
// such a file for hours before; whether that data reached the disk the
// trace can tell only by a sync of it.
func (w *Watcher) observeEarly(ev *parser.Event, row *syscalls.Row, i int) {
	if _, made := w.forks[ev.PID]; made && w.leader[ev.PID] == 0 {
		// A process the trace made (not a thread: those share the fd
		// table) got its copy of the fd at the fork: closing it says
		// nothing of the file, which the process that wrote it before
		// still holds (the sleep a shell attached with -p runs closes
		// the shell's standard output).
		return
	}
	v := ev.Arg(i)
	h := w.procs.FDHandle(w.procs.Proc(ev.PID), v, ev.Began())
	if h == nil {
		return
	}
	sync := row.Effect == syscalls.Fsync || row.Effect == syscalls.Fdatasync
	if sync && h.Path != "" {
		if w.earlySynced == nil {
			w.earlySynced = map[string]bool{}
		}
		if len(w.earlySynced) < maxPaths {
			w.earlySynced[h.Path] = true
		}
	}
	e := w.early[h]
	if e == nil {
		if h.Kind != model.HandleFile || h.Node != nil && h.Node.Dir || v.Deleted {
			return
		}
		path := ""
		if unopened, _ := w.procs.Unopened(ev.PID, v, ev.Began()); unopened {
			if !strings.HasPrefix(h.Path, "/") || !w.opt.inScope(h.Path) {
				return
			}
			path = h.Path
		} else if unnamed, standIn := w.procs.Unnamed(ev.PID, v, ev.Began()); !unnamed || standIn != nil {
			// Opened in the trace, standard input, output or error
			// with no name (a terminal, almost always), or a child's
			// fd before its clone returned (its parent's, and said of
			// the parent).
			return
		}
		if len(w.early) >= maxEarly {
			return
		}
		fd, _ := v.Int()
		e = &earlyFile{at: ref(ev), fd: fd, path: path}
		if w.early == nil {
			w.early = map[*model.Handle]*earlyFile{}
		}
		w.early[h] = e
	}
	switch row.Effect {
	case syscalls.Fsync, syscalls.Fdatasync:
		e.synced = true
	case syscalls.WriteFD, syscalls.WriteAt, syscalls.CopyInto, syscalls.Truncate, syscalls.Fallocate:
		e.written = true
	case syscalls.ReadFD, syscalls.ReadAt:
		e.read = true
	case syscalls.Mmap:
		prot, _ := syscalls.ProtFlags.Bits(ev.Arg(2).Text, ev.Arch)
		flags, _ := syscalls.MmapFlags.Bits(ev.Arg(3).Text, ev.Arch)
		if prot&syscalls.PROT_WRITE != 0 && flags&syscalls.MAP_SHARED != 0 {
			e.written = true
		} else {
			e.read = true
		}
	case syscalls.Close, syscalls.Dup:
		e.let = true
	case syscalls.Fcntl:
		switch cmd, _ := syscalls.FcntlCmds.Bits(ev.Arg(row.Flags()).Text, ev.Arch); cmd {
		case syscalls.F_DUPFD, syscalls.F_DUPFD_CLOEXEC, syscalls.F_SETFL:
			e.let = true
		}
	case syscalls.Stat:
		e.other = e.other || notRegular(ev)
	}
}

// notRegular reports whether a stat shows its file is no regular file (a
// fifo, a socket, a device, a directory): -y names a fifo by its path.
func notRegular(ev *parser.Event) bool {
	for j := range ev.Args {
		a := &ev.Args[j]
		for _, f := range [...]string{"st_mode", "stx_mode"} {
			if m := a.Field(f); m != nil && m.Kind != parser.ValNone && strings.HasPrefix(m.Text, "S_IF") {
				return !strings.HasPrefix(m.Text, "S_IFREG")
			}
		}
	}
	return false
}

// earlyUnsynced returns the first file observeEarly kept that nothing in
// the trace made durable, and how many such files there are (0 when
// none): what the program wrote to them before the trace began, a crash
// can lose, and the trace cannot show whether it did.
func (w *Watcher) earlyUnsynced() (first *earlyFile, n int) {
	if w.cmdExec {
		return nil, 0
	}
	var blind []*earlyFile
	for h, e := range w.early {
		// A socket call that came after the fd's first use showed the
		// fd is a socket (model.Procs marks it).
		if h.Kind == model.HandleFile && e.blind() && (e.path == "" || !w.earlySynced[e.path]) && (w.m == nil || !w.m.SyncedAfter(e.path, -1)) {
			blind = append(blind, e)
		}
	}
	slices.SortFunc(blind, func(a, b *earlyFile) int { return a.at.Seq - b.at.Seq })
	seen := map[string]bool{} // a file several fds (or processes) held counts once
	for _, e := range blind {
		if e.path != "" {
			if seen[e.path] {
				continue
			}
			seen[e.path] = true
		}
		if first == nil {
			first = e
		}
		n++
	}
	return first, n
}

// changedAfterSync notes a call that cut a file or opened one for
// appending, how saying which (see Watcher.afterSync).
func (w *Watcher) changedAfterSync(ev *parser.Event, paths []string, how string) {
	if w.syncCalls == 0 || w.afterSync.Line > 0 || len(paths) == 0 || model.PseudoFile(paths[0]) {
		return
	}
	w.afterSync, w.afterSyncPath, w.afterSyncHow = ref(ev), paths[0], how
}

// unnamedChanges are the changes made through one fd that was a stand-in
// when they were made: how many, and the first.
type unnamedChanges struct {
	n     int
	first model.Ref
	fd    int64
}

// noteUnnamed counts a change through fd, which the trace never opened
// and does not name; standIn, when not nil, says the answer waits for the
// clone of the event's process to return (model.Procs.Unnamed): bash's
// command substitution writes to the pipe its parent made, and on a busy
// machine strace can print the subshell's write before its clone returns.
func (w *Watcher) noteUnnamed(ev *parser.Event, v *parser.Value, fd int64, standIn *model.Handle) {
	if standIn != nil {
		c := w.unnamedLater[standIn]
		if c == nil {
			if w.unnamedLater == nil {
				w.unnamedLater = map[*model.Handle]*unnamedChanges{}
			}
			c = &unnamedChanges{first: ref(ev), fd: fd}
			w.unnamedLater[standIn] = c
		}
		c.n++
		return
	}
	if w.unnamed == 0 {
		w.unnamedAt, w.unnamedFD = ref(ev), fd
		w.unnamedRecv, w.unnamedRecvd = w.procs.ReceivedAt(ev.PID, v, ev.Began())
	}
	w.unnamed++
}

// settleUnnamed adds to the count of changes through unnamed fds those
// made through stand-ins that reached a file the model could not see,
// once the trace has ended.
func (w *Watcher) settleUnnamed() {
	for h, c := range w.unnamedLater {
		blind, file := w.procs.StandInBlind(h)
		if !blind {
			continue
		}
		if w.unnamed == 0 || c.first.Seq < w.unnamedAt.Seq {
			w.unnamedAt, w.unnamedFD, w.unnamedEarly = c.first, c.fd, file
			w.unnamedRecvd = false
		}
		w.unnamed += c.n
	}
	w.unnamedLater = nil
}
