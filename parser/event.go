package parser

import (
	"fmt"
	"time"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/internal/textesc"
)

// Pos is a place in a trace file. Line and Col count from 1; Col counts bytes.
type Pos struct {
	File string
	Line int
	Col  int
}

// String is p as FILE:LINE, or FILE:LINE:COL, the file's name escaped
// as every report prints it (textesc.Escape): a trace named with a
// newline or a terminal escape must not print, before a warning or an
// error, a line that passes for crashsim's own, nor change the terminal.
// A name without such bytes prints as it is.
func (p Pos) String() string {
	if p.Col > 0 {
		return fmt.Sprintf("%s:%d:%d", textesc.Escape(p.File), p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d", textesc.Escape(p.File), p.Line)
}

// Kind says what a trace line reported.
type Kind uint8

const (
	KindSyscall    Kind = iota // a system call, joined when strace split it
	KindSignal                 // --- SIGCHLD {...} ---
	KindExit                   // +++ exited with N +++
	KindKilled                 // +++ killed by SIGNAME [(core dumped)] +++
	KindSuperseded             // +++ superseded by execve +++ (the thread's pid changed)
)

var kindNames = [...]string{"syscall", "signal", "exit", "killed", "superseded"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Event is one completed system call, or one of the process lines strace
// prints between them (signals, exits).
type Event struct {
	Kind Kind
	// The flags sit together after Kind (one word, not six): see the
	// fields they describe below.
	HasTime, RetKnown, RetDeleted, Injected, CoreDumped bool
	// Arch is the architecture the call's flags are read with: the one
	// Options.Arch gives, or what the trace had shown by this line
	// (syscalls.Evidence), or Unknown (read as amd64).
	Arch syscalls.Arch
	// Call is the call's row in the syscall table (its effect class and
	// the kinds of its arguments), the zero Call for a name the table
	// does not have and for events that are not calls.
	Call syscalls.Call

	Pos Pos // the line where the call starts; Col points at its name
	// EndLine is the line that completes the call: the "resumed" half of a
	// call strace split, or Pos.Line for a whole one.
	EndLine int
	Seq     int // 0, 1, 2, ... in the order events complete in the trace
	// Overlap is how many events completed while the call ran, between
	// its first line and the one that completes it: the Overlap events
	// just before it in Seq order. 0 for a call on one line. A sync
	// covers only what completed before it began (the models read it),
	// and a call another thread's lines cut in two may have run beside
	// some of theirs. In an -ff set, whose files hold one process each
	// and are merged by time, it is 0.
	Overlap int

	PID int // 0 when the trace has no pid column (a single process)

	// Time is the timestamp as nanoseconds: since the Unix epoch (-ttt),
	// since midnight of the run's first day (-t, -tt: a later day adds
	// 24 h), or since the first line (-r). HasTime is false when the line
	// carried none.
	Time int64
	Dur  time.Duration // -T time spent in the call; -1 when not printed
	// Done is, for an event of an -ff set of several files, when the call
	// had surely completed, on Time's clock: its process's next Time (a
	// thread makes one call at a time), or Time+Dur when -T printed less;
	// math.MaxInt64 for a file's last call without -T. 0 in one trace
	// file, whose lines say where a call completed (EndLine). See Began.
	Done int64

	Name string // syscall name ("openat", "syscall_0x3e7"); signal name for KindSignal
	// Args are the call's arguments; nil for a call that Options.DecodeArgs
	// left undecoded, and without the positions Options.DecodePositions
	// left out after the last one it kept.
	Args []Value

	// Ret is the return value; RetKnown is false for "= ?" (the call never
	// returned to the program, e.g. it exited in it).
	Ret   int64
	Errno string // "ENOENT" for a failed call, "" otherwise
	// RetAnno is the -y annotation on a returned fd ("/tmp/x.txt");
	// RetDeleted is set when it ended in "(deleted)".
	RetAnno string

	// Extra holds what few lines print (see EventExtra), nil when a line
	// printed none of it; read it through the methods of the same names.
	// Injected and CoreDumped stay among the flags above, which cost no
	// space there.
	Extra *EventExtra
}

// EventExtra is the part of an Event that most lines leave empty. It sits
// behind a pointer so that the millions of Events of a trace stay small
// (each one pointer here, not 72 bytes of mostly empty fields).
type EventExtra struct {
	Comm string // the -Y command name
	// RetExtra is what strace decoded after the return value: "(flags
	// O_RDWR|O_LARGEFILE)", "(No such file or directory)", "(INJECTED)";
	// Event.Injected is set for the last.
	RetExtra string
	// Stack is the -k stack of the call (or signal), innermost frame
	// first, each as strace printed it after " > ":
	// "/lib/x86_64-linux-gnu/libc.so.6(__write+0x14) [0x10f1e4]".
	Stack []string
	// IP is the instruction pointer -i printed, 0 when none was.
	IP uint64
	// Status is the exit status of a KindExit line (a KindKilled line
	// puts its signal in Event.Name and "(core dumped)" in
	// Event.CoreDumped).
	Status int
	// FormerPID is, on a KindSuperseded line, the thread whose execve
	// took over the process ("+++ superseded by execve in pid N +++"):
	// the call it started goes on under the process's pid. 0 when the
	// line did not say. On that execve, which the Reader gives the
	// process's pid, it is the thread that started it, whose pid is gone.
	FormerPID int
	// ChildPID is, on a SIGCHLD line, the child whose state changed (the
	// siginfo's si_pid); 0 when the line did not say.
	ChildPID int
	// Spawner is, on a call, the process whose fork, vfork, clone or
	// clone3 was under way when this call began (left unfinished, not
	// yet resumed), with SpawnFlags that call's clone flags; 0 when there
	// was none, or one whose flags do not read, or several with flags
	// that differ. Several with the same flags: Spawner is the lowest
	// pid, SpawnAlso the others, in order. Under strace -f a new child's
	// first calls can come before its parent's call returns with its
	// pid: a call of a process the trace has not shown before, made in
	// that window, is the child of one of them.
	Spawner    int
	SpawnFlags uint64
	SpawnAlso  []int
}

// Spawner is the process whose call that makes a process was under way
// when this call began, that call's clone flags, and the other processes
// with such a call under way then, with the same flags (see EventExtra).
func (e *Event) Spawner() (pid int, flags uint64, also []int) {
	if e.Extra == nil {
		return 0, 0, nil
	}
	return e.Extra.Spawner, e.Extra.SpawnFlags, e.Extra.SpawnAlso
}

// cloneFlags returns the clone flags of a fork, vfork, clone or clone3
// event read as arch (none for fork and vfork), and whether the event
// shows them.
func (e *Event) cloneFlags(arch syscalls.Arch) (uint64, bool) {
	row := e.Call.Row()
	i := row.Flags()
	if i < 0 {
		return 0, true
	}
	bits := func(v *Value) (uint64, bool) {
		if v.Kind == ValSkipped {
			return 0, false // not decoded (Options.DecodePositions)
		}
		return v.Bits(syscalls.CloneFlags, arch)
	}
	if row.Args[i].Kind == syscalls.ArgCloneArgs {
		a := e.Arg(i)
		if a.Kind == ValSkipped {
			return 0, false
		}
		return bits(a.Field("flags"))
	}
	// strace prints clone's arguments by name, in an order of its own.
	for j := range e.Args {
		if e.Args[j].Name == "flags" {
			return bits(&e.Args[j])
		}
	}
	if len(e.Args) > 0 && e.Args[0].Name == "" {
		// -X raw or old strace: clone(flags, stack, ...) unnamed.
		return bits(&e.Args[0])
	}
	return 0, false
}

// CloneFlags returns the clone flags of a fork, vfork, clone or clone3
// event (none for fork and vfork, nor where the event does not show
// them).
func (e *Event) CloneFlags() uint64 {
	flags, _ := e.cloneFlags(e.Arch)
	return flags
}

// ChildPID is the child a SIGCHLD line names (see EventExtra).
func (e *Event) ChildPID() int {
	if e.Extra == nil {
		return 0
	}
	return e.Extra.ChildPID
}

// FormerPID is the thread a KindSuperseded line names, or that started
// an execve the process's leader's pid ended (see EventExtra).
func (e *Event) FormerPID() int {
	if e.Extra == nil {
		return 0
	}
	return e.Extra.FormerPID
}

// Comm is the -Y command name, "" when the line had none.
func (e *Event) Comm() string {
	if e.Extra == nil {
		return ""
	}
	return e.Extra.Comm
}

// RetExtra is what strace printed after the return value (see EventExtra).
func (e *Event) RetExtra() string {
	if e.Extra == nil {
		return ""
	}
	return e.Extra.RetExtra
}

// Stack is the -k stack of the call, innermost frame first, or nil.
func (e *Event) Stack() []string {
	if e.Extra == nil {
		return nil
	}
	return e.Extra.Stack
}

// IP is the instruction pointer -i printed, 0 when none was.
func (e *Event) IP() uint64 {
	if e.Extra == nil {
		return 0
	}
	return e.Extra.IP
}

// Status is the exit status of a KindExit event, 0 for any other.
func (e *Event) Status() int {
	if e.Extra == nil {
		return 0
	}
	return e.Extra.Status
}

// Failed reports whether the call returned an error.
func (e *Event) Failed() bool { return e.Errno != "" }

// Began and Ended order the call against the calls of other threads, as
// keys comparable within one trace: the call began before any call whose
// Ended is greater than its Began, and surely after any whose Ended is at
// most its Began. In one trace file they are the lines strace printed the
// call's start and its end at (a call another thread's lines cut in two
// spans both). In an -ff set, each of whose files is one thread, they are
// times: when the call began (Time), and when it had surely ended (Done);
// its own file's lines would say nothing of another file's.
func (e *Event) Began() int64 {
	if e.Done != 0 {
		return e.Time
	}
	return int64(e.Pos.Line)
}

// Ended: see Began.
func (e *Event) Ended() int64 {
	if e.Done != 0 {
		return e.Done
	}
	return int64(e.EndLine)
}

// OK reports whether the call is known to have succeeded. A call strace
// answered itself (-e inject=CALL:retval=N prints "= N (INJECTED)") is
// not: strace gave the kernel an invalid call number in its place, so it
// did nothing, whatever the program was told. An injected error is a
// failure like any other (Failed), which is what the program saw.
func (e *Event) OK() bool {
	return e.Kind == KindSyscall && e.RetKnown && e.Errno == "" && !e.Injected
}

// Faked reports whether strace answered the call itself with a success
// (see OK): the program was told it succeeded, and the kernel never ran it.
func (e *Event) Faked() bool {
	return e.Kind == KindSyscall && e.RetKnown && e.Errno == "" && e.Injected
}

// Arg returns argument i, or a zero Value when the call printed fewer.
func (e *Event) Arg(i int) *Value {
	if uint(i) < uint(len(e.Args)) {
		return &e.Args[i]
	}
	return &zeroValue
}

var zeroValue Value

// ValueKind says how strace printed an argument.
type ValueKind uint8

const (
	ValNone   ValueKind = iota // missing: not printed, or an element printed empty ("{SIG_DFL, , {...}}", strace 4.x)
	ValNumber                  // 42, -1, 0x7f, 0644
	ValString                  // "..." (see Value.Str and Value.Data)
	ValIdent                   // NULL, AT_FDCWD, O_RDONLY|O_CREAT, SEEK_SET, and other symbolic text
	ValStruct                  // {a=1, b="x"}
	ValArray                   // [1, 2], [{...}, ...]
	ValOther                   // anything else: calls like makedev(1, 3), expressions, ~[...]
	// ValSkipped is an argument that Options.DecodePositions left out:
	// only its position is known.
	ValSkipped
)

// Value is one printed argument, or one field or element inside it.
type Value struct {
	// The flags come first and together: a trace holds millions of
	// Values, and padding after each bool made every one 24 bytes larger.
	Kind    ValueKind
	HasStr  bool // Str holds the decoded string
	More    bool // an array or struct ended in "..." (strace cut it short)
	HasAnno bool // Anno holds a -y annotation
	Deleted bool // the annotation said "(deleted)"

	Name string // a struct field's name (iov_len) or "" for plain arguments
	// Text is the argument as printed, without a -y annotation, for every
	// kind but ValString (whose bytes are not kept, see Data) and ValStruct
	// and ValArray (see Elems).
	Text string

	// Str is the decoded string, for strings up to MaxInlineString escaped
	// bytes and never for the data of write-like calls; Data always says
	// where the string lies in the trace.
	Str   string
	Data  DataRef
	Elems []Value

	// Anno is a decoded -y/-yy annotation: the path of an fd or of
	// AT_FDCWD, "pipe:[123]", "TCP:[...]".
	Anno string

	// Extra holds what few values print (see ValueExtra), nil when this
	// one printed none of it; read it through the methods of the same
	// names.
	Extra *ValueExtra
}

// ValueExtra is the part of a Value that most arguments leave empty,
// behind a pointer so that each of the millions of Values of a trace is
// 16 bytes smaller.
type ValueExtra struct {
	// Comment is the text of a " /* ... */" strace printed with the
	// value (-X verbose flag names, getdents' entry counts), several
	// joined by "|".
	Comment string
	// Exit is the value strace printed after "=>" for an argument the
	// call changed (clone3's struct on return), or nil.
	Exit *Value
}

// Comment is the text of the comments strace printed with the value, "|"
// between them, or "".
func (v *Value) Comment() string {
	if v.Extra == nil {
		return ""
	}
	return v.Extra.Comment
}

// Exit is the value strace printed after "=>" for an argument the call
// changed, or nil.
func (v *Value) Exit() *Value {
	if v.Extra == nil {
		return nil
	}
	return v.Extra.Exit
}

// MaxInlineString is the longest escaped string (in trace bytes) decoded
// into Value.Str. Longer strings are only referenced.
const MaxInlineString = 1 << 16

// DataRef says where a quoted string lies in the trace, so that written
// bytes are decoded from the file on demand instead of kept in memory.
type DataRef struct {
	File string // the trace file
	Off  int64  // offset of the first byte after the opening quote
	Len  int    // length of the escaped text between the quotes
	// Truncated is set when strace printed "..." after the closing quote:
	// -s cut the string and the trace does not hold all its bytes.
	Truncated bool
}

// Valid reports whether the reference points at a string.
func (d DataRef) Valid() bool { return d.File != "" }
