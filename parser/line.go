package parser

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/internal/textesc"
)

// lineKind says what one physical trace line holds.
type lineKind uint8

const (
	lineCall       lineKind = iota // name(args) = ret
	lineUnfinished                 // name(args <unfinished ...>
	lineResumed                    // <... name resumed>args) = ret
	lineSignal                     // --- SIG... ---
	lineExit                       // +++ exited with N +++
	lineKilled                     // +++ killed by SIG... +++
	lineSuperseded                 // +++ superseded by execve +++
	lineDiag                       // strace: diagnostics, blank lines
)

// timeFormat is how the trace prints timestamps; the first one decides.
type timeFormat uint8

const (
	timeUnknown  timeFormat = iota
	timeClock               // -t, -tt: HH:MM:SS[.frac] since midnight
	timeEpoch               // -ttt: seconds since the Unix epoch
	timeRelative            // -r: seconds since the previous line
)

// lineParser parses one physical line. It is reused for every line of a
// file; nothing in it outlives the line but the Event it fills.
type lineParser struct {
	// wholeSeconds: a clock timestamp had no fraction (-t), which cannot
	// order the calls of an -ff set's processes within a second.
	wholeSeconds bool
	// args is nil until a line has read an argument, and empty but not
	// nil since: a call without arguments gets Args nil before that and
	// empty after, as when the arguments gathered in a buffer here.
	args []Value
	// argSlab is where argsAndReturn reads the arguments in place (see
	// argRoom), slab where carve takes the Values of Elems from.
	argSlab []Value
	slab    []Value
	extras  []EventExtra // where extra takes EventExtras from
	// valueExtras is where valueExtra takes ValueExtras from.
	valueExtras []ValueExtra
	// elemStacks are compound's stacks of elements, one per nesting
	// depth: an element is read in place on its depth's stack, which
	// only a compound of that depth appends to (an element's own
	// elements go on the next one's), so no append moves it under it.
	elemStacks [][]Value
	file       string
	line       int
	off        int64 // file offset of text[0]
	text       []byte
	// A line joined from two (see Reader.step) maps text[splitAt:] to the
	// file offset off2.
	splitAt int
	off2    int64

	ev *Event
	// mem is ev's memory when it is recycled (Options.Recycle): its
	// Values and Extras are carved from there, not from the slabs above.
	// pool is the recycling Pipeline's, nil when there is none.
	mem  *eventMem
	pool *eventPool
	// eolErr is set when the line ended inside a call: the reader may join
	// it with the next line (a "strace:" message cut it in two).
	eolErr bool
	// dataArg is the index of the argument whose strings are data buffers
	// (never decoded inline), or -1.
	dataArg int
	argIdx  int

	// unreadable is set by a line of a call strace could not read
	// ("????("), which the reader warns of.
	unreadable bool
	// unbalanced is set by a call read without its arguments, which do
	// not read while its result does (unbalancedArgs); the reader warns.
	unbalanced bool
	// resumeArgs tells how many arguments the first half of a pid's
	// unfinished call of that name printed (-1 when none is pending), and
	// what it left open (see openCut), if anything.
	resumeArgs func(pid int, name string) (int, *openCut)

	// A line that ends its call unfinished right after an argument (not
	// after a comma) leaves openArg its position and text[openStart:openEnd]
	// its text, and closers the brackets it ends inside, innermost first
	// (see openCut); openArg is -1 when it ends after a comma or with no
	// argument. Set only for a line read as lineUnfinished.
	openArg, openStart, openEnd int
	closers                     []byte
	// A resumed half read joined to what its first half left open
	// (joinCut) has text the joined text: text[:joinLen] the first half's
	// (joined.text), text[joinLen:] joinLine[joinAt:]. joined stays set
	// after the line, for the Reader; nil when the half was not joined.
	joined   *openCut
	joinLen  int
	joinAt   int
	joinLine []byte
	joinBuf  []byte
	stack    []byte // closesCut's

	// decode says which argument positions of a call are decoded (nil:
	// all); mayskip is false for a line that is decoded in full whatever
	// decode says (the last line of a trace when it has no newline).
	decode  func(name string) ArgSet
	mayskip bool
	// scan is false for a line whose calls skipArgs may not pass whole:
	// it is no validator, and a line right after a call cut short must
	// be rejected where the full reading rejects it (Reader.stepLine).
	// Their positions are still read value by value, which rejects what
	// the full reading rejects.
	scan bool
	// want is the set of positions decoded on this line; while skipping
	// is set, value reads past a position without keeping anything of it
	// (intern returns "" and nothing is allocated).
	want     ArgSet
	skipping bool

	names       map[string]string // interned strings (see intern)
	cache       *internCache      // intern's front cache; the members of an -ff set share one
	calls       *callCache        // what callName found for the names of calls
	internBytes int               // what names holds, as intern counts it
	// annos are the last two fd paths annotation read plainly (no '<',
	// no escape, not " (deleted)" inside the brackets), newest first.
	annos   [2]string
	scratch []byte

	// old names a shape only strace before 5.x prints, when the line had
	// one (the Reader keeps the first, for its error hints).
	old string
	// mode is the personality a "[ Process PID=N runs in MODE mode. ]"
	// line named (see personality), nil for other lines.
	mode []byte
}

const maxDepth = 64

// valueSlab is how many Values one allocation of carve holds. Values
// carved from a slab are never reused once handed out (a recycled event's
// come from its own memory, eventMem); an event a consumer keeps holds its
// slab's memory (about 40 KB) alive.
const valueSlab = 256

// minArgRoom is the room for arguments argRoom gives at least: the
// arguments of nearly every call.
const minArgRoom = 8

// argRoom returns where the arguments of a line are read in place (empty,
// with the room as its capacity): the memory of a recycled event, or else
// a slab. Reading them there and not into a buffer saves copying each
// one (a Value is 144 bytes) when the line is done. Nothing is handed
// out until argsDone. A slab's room is zero past what the lines before
// handed out (argsDone clears what they read and did not), so that
// argsAndReturnInto need not clear each Value again before reading into
// it; a recycled event's is not (eventMem.reset leaves the Values of the
// lines it served).
func (l *lineParser) argRoom() []Value {
	if m := l.mem; m != nil {
		return m.argRoom()
	}
	if len(l.argSlab) < minArgRoom {
		l.argSlab = make([]Value, valueSlab)
	}
	return l.argSlab[:0:len(l.argSlab)]
}

// argsDone hands out the first n of the arguments args read in the room
// argRoom gave (failed: an error stopped the line): in place when they fit there, else (a line of more
// arguments than the room, which append moved) as carve copies them. Its
// capacity is its length, as carve's.
func (l *lineParser) argsDone(room, args []Value, n int, failed bool) []Value {
	inPlace := cap(args) == cap(room)
	if l.mem == nil {
		l.tidySlab(args, n, inPlace, failed)
	}
	if n == 0 {
		if m := l.mem; m != nil && inPlace {
			m.argsDone(args, 0, true)
		}
		if l.args == nil {
			return nil
		}
		return l.args[:0:0]
	}
	if m := l.mem; m != nil {
		return m.argsDone(args, n, inPlace)
	}
	if !inPlace {
		return l.carve(args[:n])
	}
	l.argSlab = l.argSlab[n:]
	return args[:n:n]
}

// tidySlab keeps the rest of the argument slab zero (see argRoom) once
// a line has read args in it and hands out the first n: the Values read
// past those (positions skipped after the last one kept, and the one an
// error stopped in) are cleared. A room the line outgrew (append moved
// its arguments) was written to its end: the slab is dropped.
func (l *lineParser) tidySlab(args []Value, n int, inPlace, failed bool) {
	if !inPlace {
		l.argSlab = nil
		return
	}
	end := len(args)
	if failed && end < cap(args) {
		end++
	}
	clear(args[n:end])
}

// carve returns a copy of v, carved from the memory of a recycled event,
// or else from a slab (one allocation per valueSlab Values, not one per
// call). Its capacity is its length, so an append to it never writes into
// the slab or the memory.
func (l *lineParser) carve(v []Value) []Value {
	if l.mem != nil {
		return l.mem.carve(v)
	}
	n := len(v)
	if n == 0 || n > valueSlab/8 {
		return slices.Clone(v)
	}
	if len(l.slab) < n {
		l.slab = make([]Value, valueSlab)
	}
	out := l.slab[:n:n]
	copy(out, v)
	l.slab = l.slab[n:]
	return out
}

// memOf is the memory ev's parts are carved from when it is recycled
// (eventPool), nil otherwise.
func (l *lineParser) memOf(ev *Event) *eventMem {
	if ev == l.ev {
		return l.mem
	}
	return l.pool.memOf(ev)
}

// extraSlab is how many EventExtras one allocation of extra holds.
const extraSlab = 64

// extra returns ev.Extra, carved from a slab when ev has none yet.
func (l *lineParser) extra(ev *Event) *EventExtra {
	if ev.Extra == nil {
		if m := l.memOf(ev); m != nil {
			// Cleared here too: a line parsed again (Reader.clearEvent)
			// may have filled it the first time.
			m.use()
			m.extra = EventExtra{Stack: m.extra.Stack[:0], SpawnAlso: m.extra.SpawnAlso[:0]}
			ev.Extra = &m.extra
			return ev.Extra
		}
		if len(l.extras) == 0 {
			l.extras = make([]EventExtra, extraSlab)
		}
		ev.Extra = &l.extras[0]
		l.extras = l.extras[1:]
	}
	return ev.Extra
}

// fileOff maps an index in text to its offset in the trace file.
func (l *lineParser) fileOff(i int) int64 {
	if l.joinLen > 0 {
		if i < l.joinLen {
			return l.joined.fileOff(i)
		}
		i += l.joinAt - l.joinLen
	}
	if i >= l.splitAt {
		return l.off2 + int64(i-l.splitAt)
	}
	return l.off + int64(i)
}

// hasPrefix is bytes.HasPrefix for a constant prefix: the comparison
// compiles to a few loads, where bytes.HasPrefix calls memequal. The first
// byte is compared alone first: most tests fail there, and a prefix longer
// than 8 bytes ("<unfinished ...>", tested after every argument) is
// compared with a call.
func hasPrefix(b []byte, p string) bool {
	return len(b) >= len(p) && (len(p) == 0 || b[0] == p[0]) && string(b[:len(p)]) == p
}

// hasSuffix is hasPrefix at the end.
func hasSuffix(b []byte, p string) bool {
	return len(b) >= len(p) && string(b[len(b)-len(p):]) == p
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// nameByte is isNameByte as a table, for the loops that scan names.
var nameByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isNameByte(byte(c))
	}
	return t
}()

// isBlank is len(bytes.TrimSpace(b)) == 0, deciding at the first byte on
// most lines.
func isBlank(b []byte) bool {
	for _, c := range b {
		switch {
		case asciiSpace(c):
		case c >= utf8.RuneSelf:
			return len(bytes.TrimSpace(b)) == 0
		default:
			return false
		}
	}
	return true
}

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func skipSpaces(b []byte, i int) int {
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return i
}

// The intern table is bounded by bytes, not entries: a trace of endless
// distinct paths would otherwise keep every path of its first 64k
// strings (15 MB on 100k paths). Each entry counts its length plus
// internEntryCost for the map's own share. When the next entry would pass
// internBudget the table is dropped and starts again empty: what repeats
// (syscall names, flag sets, errno texts, the paths of open fds) comes
// straight back, and one-off paths go with the old table. Strings longer
// than maxInternLen (long paths, long flag expressions) are never
// interned: they rarely repeat and would crowd the budget.
const (
	internBudget    = 1 << 20
	internEntryCost = 48
	maxInternLen    = 256
)

// internCacheSize is how many strings the intern table's front cache
// holds (a power of 2): enough for the names, flag sets, errno texts and
// open fds' paths a trace repeats from line to line.
const internCacheSize = 4096

// internCache is intern's front cache: 64 KiB, behind a pointer so that
// the Readers of an -ff set of thousands of files can share one.
type internCache [internCacheSize]string

// internSlot picks b's place in the front cache from its length and its
// first and last 8 bytes: paths that share a long prefix differ at the end.
func internSlot(b []byte) uint32 {
	n := len(b)
	var h uint64
	switch {
	case n >= 8:
		h = binary.LittleEndian.Uint64(b) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(b[n-8:]), 29)
	case n >= 4:
		h = uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[n-4:]))<<32
	case n > 0:
		h = uint64(b[0]) | uint64(b[n/2])<<8 | uint64(b[n-1])<<16
	}
	h = (h ^ uint64(n)) * 0x9e3779b97f4a7c15
	return uint32(h >> (64 - 12))
}

// intern returns b as a string, shared with earlier equal strings: syscall
// names, flag sets, fd paths repeat on most lines of a trace. A small
// front cache (one string per slot, the last one interned there) answers
// most of them without hashing b for the map.
func (l *lineParser) intern(b []byte) string {
	if l.skipping {
		return ""
	}
	if len(b) > maxInternLen {
		return string(b)
	}
	if l.cache == nil {
		l.cache = new(internCache)
	}
	slot := &l.cache[internSlot(b)]
	if *slot == string(b) {
		return *slot
	}
	if s, ok := l.names[string(b)]; ok {
		*slot = s
		return s
	}
	s := string(b)
	*slot = s
	cost := len(b) + internEntryCost
	if l.internBytes+cost > internBudget {
		l.names = make(map[string]string, len(l.names)/4)
		l.internBytes = 0
	}
	l.names[s] = s
	l.internBytes += cost
	return s
}

// personality notes the mode of a line "[ Process PID=N runs in MODE
// mode. ]" in l.mode, for the Reader's Evidence.
func (l *lineParser) personality(b []byte) {
	if _, rest, ok := bytes.Cut(b, []byte(" runs in ")); ok {
		if mode, _, ok := bytes.Cut(rest, []byte(" mode.")); ok {
			l.mode = mode
		}
	}
}

// parse fills l.ev from l.text and says what kind of line it was and the
// timestamp format seen on it (timeUnknown when the line had none).
func (l *lineParser) parse() (lineKind, timeFormat, *Error) {
	b := l.text
	l.eolErr = false
	if isBlank(b) {
		return lineDiag, timeUnknown, nil
	}
	if hasPrefix(b, "strace: ") || hasPrefix(b, "strace:\t") {
		return lineDiag, timeUnknown, nil
	}
	ev := l.ev
	i := skipSpaces(b, 0)
	// strace 4.x printed its process messages into the trace without the
	// "strace: " prefix, and every strace notes a change of personality
	// as "[ Process PID=123 runs in 32 bit mode. ]".
	if i < len(b) && b[i] == 'P' && isProcessMsg(b[i:]) {
		l.old = "a \"Process N attached\" line without \"strace: \""
		return lineDiag, timeUnknown, nil
	}
	if hasPrefix(b[i:], "[ Process PID=") {
		l.personality(b[i:])
		return lineDiag, timeUnknown, nil
	}
	if hasPrefix(b[i:], "^Cstrace: ") {
		// Ctrl-C stopping strace -p in a terminal: the terminal's echo
		// of it, then strace's "Process N detached".
		return lineDiag, timeUnknown, nil
	}
	var err *Error
	if i, err = l.pidPrefix(i); err != nil {
		return 0, 0, err
	}
	// --secontext prints its context before the timestamp; -n and -i
	// print after it.
	i = l.bracketPrefixes(i)
	tf := timeUnknown
	if i < len(b) && isDigit(b[i]) {
		if i, tf, err = l.timestamp(i); err != nil {
			return 0, 0, err
		}
	}
	i = skipSpaces(b, i)
	if i < len(b) && b[i] == '(' && (tf == timeClock || tf == timeEpoch) {
		i = l.relativeAfterTime(i)
	}
	i = l.bracketPrefixes(i)
	if i < len(b) && (b[i] == '?' && hasPrefix(b[i:], "????(") || b[i] == '<' && hasPrefix(b[i:], "<... ???? resumed>")) {
		// strace 4.x, when it could not read the call of a process
		// going away: "????( <unavailable>)= ? <unavailable>", even
		// "????(= ? <unavailable>". Nothing of the call is known; the
		// reader warns that it is left out.
		l.unreadable = true
		l.old = "a call strace could not read (\"????(\")"
		return lineDiag, tf, nil
	}
	if i < len(b) && b[i] == '[' && hasPrefix(b[i:], "[ Process PID=") {
		// strace 5 and later print the personality line after the pid
		// and the time, as a call's line.
		l.personality(b[i:])
		return lineDiag, timeUnknown, nil
	}
	if i >= len(b) {
		l.eolErr = true
		return 0, 0, l.errorf(i, "expected a syscall, a signal (---) or an exit (+++) after the line prefix")
	}
	ev.Pos.Col = i + 1
	switch {
	case hasPrefix(b[i:], "--- "):
		return lineSignal, tf, l.signal(i + 4)
	case hasPrefix(b[i:], "+++ "):
		k, err := l.exit(i + 4)
		return k, tf, err
	case hasPrefix(b[i:], "<... "):
		k, err := l.resumed(i + 5)
		return k, tf, err
	case hasPrefix(b[i:], "strace: "):
		return lineDiag, tf, nil
	case isNameByte(b[i]) && !isDigit(b[i]), hasPrefix(b[i:], "???("):
		k, err := l.call(i)
		return k, tf, err
	}
	if isDumpLine(b) {
		// Looked for only here, where every line strace starts with a
		// call or a mark has been taken: not on the way of every line.
		return lineDiag, tf, nil
	}
	return 0, 0, l.errorf(i, "expected a syscall name, a signal (---) or an exit (+++), found %q", snippet(b[i:]))
}

// isDumpLine reports whether b is a line of the hex dump -e write=FD
// and -e read=FD print after the call's line: " | 00000  68 65 ...  he.. |"
// for each 16 bytes, and " * 3 bytes in buffer 0" before each buffer of
// a vector. The calls' lines hold what the model needs; the dumps are
// passed over as strace's other messages are.
func isDumpLine(b []byte) bool {
	switch {
	case hasPrefix(b, " | "):
		k := 3
		for k < len(b) && k < 8 {
			if _, ok := hexVal(b[k]); !ok {
				break
			}
			k++
		}
		return k == 8 && hasPrefix(b[k:], "  ")
	case hasPrefix(b, " * "):
		k := 3
		for k < len(b) && isDigit(b[k]) {
			k++
		}
		return k > 3 && hasPrefix(b[k:], " bytes in buffer ")
	}
	return false
}

// maxSyscallName bounds a syscall name: strace's longest, and its
// syscall_0x... for a number it does not know, are some 30 bytes.
const maxSyscallName = 64

// maxNameShown is how much of a name a message quotes.
const maxNameShown = 40

func snippet(b []byte) string {
	if len(b) > 20 {
		return string(b[:20]) + "..."
	}
	return string(b)
}

// pidPrefix reads "[pid N] ", "[pid N<comm>] ", "N ", "N<comm> ".
func (l *lineParser) pidPrefix(i int) (int, *Error) {
	b := l.text
	if hasPrefix(b[i:], "[pid") {
		j := skipSpaces(b, i+4)
		k := j
		for k < len(b) && isDigit(b[k]) {
			k++
		}
		if k == j {
			return 0, l.errorf(j, "expected a process id after \"[pid\"")
		}
		l.ev.PID = atoi(b[j:k])
		if k < len(b) && b[k] == '<' {
			e := bytes.IndexByte(b[k:], '>')
			if e < 0 {
				return 0, l.errorf(k, "expected '>' closing the command name")
			}
			l.extra(l.ev).Comm = l.intern(b[k+1 : k+e])
			k += e + 1
		}
		if k >= len(b) || b[k] != ']' {
			return 0, l.errorf(k, "expected ']' closing \"[pid %d\"", l.ev.PID)
		}
		return skipSpaces(b, k+1), nil
	}
	if i >= len(b) || !isDigit(b[i]) {
		return i, nil
	}
	k, u := digitRun(b, i)
	pid := int(u)
	if k-i > 12 {
		// atoi's value, which stops growing past 1<<40, where u wraps.
		pid = atoi(b[i:k])
	}
	switch {
	case k < len(b) && b[k] == '<': // -Y: pid<comm>
		e := bytes.IndexByte(b[k:], '>')
		if e < 0 {
			return 0, l.errorf(k, "expected '>' closing the command name")
		}
		l.ev.PID = pid
		l.extra(l.ev).Comm = l.intern(b[k+1 : k+e])
		return skipSpaces(b, k+e+1), nil
	case k < len(b) && b[k] == ' ':
		// A bare number followed by a space is a pid: timestamps always
		// hold ':' or '.'.
		l.ev.PID = pid
		return skipSpaces(b, k), nil
	}
	return i, nil
}

func atoi(b []byte) int {
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
		if n > 1<<40 {
			return n
		}
	}
	return n
}

// clockTime reads the "HH:MM:SS" of -t and -tt at b[i]: two digits each,
// with no digit and no ':' after the last. It returns the index past it
// and its seconds as timestamp's loop sums them, or false for any other
// shape, which that loop reads (byte by byte where digitRun would take
// three runs of two digits, each a call: a few hundred instructions a
// line).
func clockTime(b []byte, i int) (int, int64, bool) {
	if i+8 > len(b) || b[i+2] != ':' || b[i+5] != ':' {
		return 0, 0, false
	}
	h0, h1, m0, m1, s0, s1 := b[i]-'0', b[i+1]-'0', b[i+3]-'0', b[i+4]-'0', b[i+6]-'0', b[i+7]-'0'
	if h0 > 9 || h1 > 9 || m0 > 9 || m1 > 9 || s0 > 9 || s1 > 9 {
		return 0, 0, false
	}
	if k := i + 8; k < len(b) && (isDigit(b[k]) || b[k] == ':') {
		return 0, 0, false
	}
	h, m, s := int64(h0)*10+int64(h1), int64(m0)*10+int64(m1), int64(s0)*10+int64(s1)
	return i + 8, (h*60+m)*60 + s, true
}

// epochSeconds reads the seconds of -ttt at b[i]: ten digits and a '.'
// after them (Unix time from 2001 to 2286). It returns the index of the
// '.' and their value, or false for any other shape.
func epochSeconds(b []byte, i int) (int, int64, bool) {
	if i+11 > len(b) || b[i+10] != '.' {
		return 0, 0, false
	}
	// The first eight at once, as digitRun reads them.
	x := binary.LittleEndian.Uint64(b[i:])
	lo := x - 0x3030303030303030
	if (lo|(x+0x4646464646464646))&0x8080808080808080 != 0 {
		return 0, 0, false
	}
	d := (lo & 0x0f0f0f0f0f0f0f0f) * (1 + 10<<8) >> 8
	d = (d & 0x00ff00ff00ff00ff) * (1 + 100<<16) >> 16
	d = (d & 0x0000ffff0000ffff) * (1 + 10000<<32) >> 32
	d8, d9 := b[i+8]-'0', b[i+9]-'0'
	if d8 > 9 || d9 > 9 {
		return 0, 0, false
	}
	return i + 10, int64(d)*100 + int64(d8)*10 + int64(d9), true
}

// sixDigits reads a run of exactly six digits at b[i] (the microseconds
// of -tt and -ttt): the index past it and its value, or false.
func sixDigits(b []byte, i int) (int, int64, bool) {
	if i+6 > len(b) || i+6 < len(b) && isDigit(b[i+6]) {
		return 0, 0, false
	}
	d0, d1, d2, d3, d4, d5 := b[i]-'0', b[i+1]-'0', b[i+2]-'0', b[i+3]-'0', b[i+4]-'0', b[i+5]-'0'
	if d0 > 9 || d1 > 9 || d2 > 9 || d3 > 9 || d4 > 9 || d5 > 9 {
		return 0, 0, false
	}
	return i + 6, ((((int64(d0)*10+int64(d1))*10+int64(d2))*10+int64(d3))*10+int64(d4))*10 + int64(d5), true
}

// timestamp reads HH:MM:SS[.frac] or SECS.frac and stores nanoseconds.
// Each run of digits is read once, its value summed as it is scanned.
func (l *lineParser) timestamp(i int) (int, timeFormat, *Error) {
	b := l.text
	start := i
	var secs int64
	tf := timeEpoch
	k, v, done := clockTime(b, i)
	if done {
		// -t, -tt: "HH:MM:SS", read as the loop below reads it.
		secs, tf, i = v, timeClock, k
	} else if k, v, done = epochSeconds(b, i); done {
		// -ttt: ten digits of seconds and a '.', as the loop reads them.
		secs, i = v, k
	}
	for !done {
		j, u := digitRun(b, i)
		v := int64(u) // past 18 digits it is an error below
		if j == i {
			return 0, 0, l.errorf(i, "malformed timestamp")
		}
		if j-i > 18 {
			return 0, 0, l.errorf(i, "timestamp out of range")
		}
		secs = secs*60 + v
		i = j
		if i < len(b) && b[i] == ':' {
			tf = timeClock
			i++
			continue
		}
		break
	}
	var ns int64
	if tf == timeClock && (i >= len(b) || b[i] != '.') {
		l.wholeSeconds = true // -t: an -ff set cannot be ordered by it
	}
	if i < len(b) && b[i] == '.' {
		i++
		if k, us, ok := sixDigits(b, i); ok {
			// Microseconds (-tt, -ttt), as the run below reads them.
			ns, i = us*1000, k
		} else {
			j, u := digitRun(b, i)
			if j == i {
				return 0, 0, l.errorf(i, "expected digits after '.' in the timestamp")
			}
			// Nanoseconds: the first nine digits, read again when there
			// are more (the value of all of them may not fit).
			switch n := j - i; {
			case n < 9:
				ns = int64(u) * pow10[9-n]
			case n == 9:
				ns = int64(u)
			default:
				_, u = digitRun(b[:i+9], i)
				ns = int64(u)
			}
			i = j
		}
	} else if tf == timeEpoch {
		// A number without ':' or '.' here is not a timestamp.
		return 0, 0, l.errorf(start, "expected a timestamp or a syscall name")
	}
	if i < len(b) && b[i] != ' ' {
		return 0, 0, l.errorf(i, "expected a space after the timestamp")
	}
	if tf == timeEpoch && secs < 100_000_000 {
		// -r prints small deltas; -ttt prints seconds since 1970.
		tf = timeRelative
	}
	l.ev.Time = secs*int64(time.Second) + ns
	l.ev.HasTime = true
	return i, tf, nil
}

var pow10 = [...]int64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000}

func (l *lineParser) signal(i int) *Error {
	b := l.text
	i = skipSpaces(b, i)
	if hasPrefix(b[i:], "stopped by ") {
		i += len("stopped by ")
	}
	if hasPrefix(b[i:], "{si_signo=") {
		// strace 4.7 to 4.9 named the signal only inside its siginfo:
		// "--- {si_signo=SIGSEGV, si_code=SEGV_MAPERR, ...} (Segmentation
		// fault) ---".
		i += len("{si_signo=")
		l.old = "a signal line without the signal's name before its siginfo"
	}
	j := i
	for j < len(b) && nameByte[b[j]] {
		j++
	}
	if j == i {
		return l.errorf(i, "expected a signal name after \"---\"")
	}
	l.ev.Kind = KindSignal
	l.ev.Name = l.intern(b[i:j])
	if l.ev.Name == "SIGCHLD" {
		// Which child: a pid no other line names is a child the trace
		// does not show (check's blind-unfollowed-children).
		if k := bytes.Index(b[j:], []byte("si_pid=")); k >= 0 {
			start := j + k + len("si_pid=")
			m := start
			for m < len(b) && isDigit(b[m]) {
				m++
			}
			if n, ok := parseInt(b[start:m]); ok && n > 0 && n < 1<<31 {
				l.extra(l.ev).ChildPID = int(n)
			}
		}
	}
	if hasPrefix(b[j:], " (") {
		// strace 4.x: "--- SIGCHLD (Child exited) @ 0 (0) ---".
		l.old = "an old signal line (--- SIG (text) ---)"
	}
	if !bytes.HasSuffix(bytes.TrimRight(b, " \r"), []byte("---")) {
		l.eolErr = true
		return l.errorf(len(b), "expected \"---\" closing the signal line")
	}
	return nil
}

func (l *lineParser) exit(i int) (lineKind, *Error) {
	b := l.text
	rest := bytes.TrimRight(b[i:], " \r")
	if !bytes.HasSuffix(rest, []byte("+++")) {
		l.eolErr = true
		return 0, l.errorf(len(b), "expected \"+++\" closing the exit line")
	}
	rest = bytes.TrimSpace(rest[:len(rest)-3])
	switch {
	case hasPrefix(rest, "exited with "):
		n, err := strconv.Atoi(string(rest[len("exited with "):]))
		if err != nil {
			return 0, l.errorf(i+len("exited with "), "expected an exit status")
		}
		l.ev.Kind = KindExit
		if n != 0 {
			l.extra(l.ev).Status = n
		}
		return lineExit, nil
	case hasPrefix(rest, "killed by "):
		sig := rest[len("killed by "):]
		if k := bytes.IndexByte(sig, ' '); k >= 0 {
			l.ev.CoreDumped = bytes.Contains(sig[k:], []byte("core dumped"))
			sig = sig[:k]
		}
		if len(sig) == 0 {
			return 0, l.errorf(i+len("killed by "), "expected a signal name")
		}
		l.ev.Kind, l.ev.Name = KindKilled, l.intern(sig)
		return lineKilled, nil
	case hasPrefix(rest, "superseded by execve"):
		l.ev.Kind = KindSuperseded
		if n, ok := bytes.CutPrefix(rest[len("superseded by execve"):], []byte(" in pid ")); ok {
			pid, err := strconv.Atoi(string(n))
			if err != nil || pid <= 0 {
				return 0, l.errorf(i+len("superseded by execve in pid "), "expected the pid of the thread that called execve")
			}
			l.extra(l.ev).FormerPID = pid
		}
		return lineSuperseded, nil
	}
	return 0, l.errorf(i, "expected \"exited with N\", \"killed by SIG\" or \"superseded by execve\" after \"+++\"")
}

const unfinishedText = "<unfinished ...>"

// ptraceText opens the mark strace 4.x prints in place of
// unfinishedText when the tracee vanished inside the call (killed by
// SIGKILL or the OOM killer): "write(3, "..."..., 34 <ptrace(SYSCALL):No
// such process>". The call is cut short as by unfinishedText; its
// "resumed" half, "= ?", may follow, or the process's end.
const ptraceText = "<ptrace(SYSCALL):"

// unfinishedMark returns the length of the mark at b[i] that cuts a call
// short (unfinishedText, or ptraceText up to its '>'), 0 when none is
// there.
func unfinishedMark(b []byte, i int) int {
	switch {
	case hasPrefix(b[i:], unfinishedText):
		return len(unfinishedText)
	case hasPrefix(b[i:], ptraceText):
		if k := bytes.IndexByte(b[i+len(ptraceText):], '>'); k >= 0 {
			return len(ptraceText) + k + 1
		}
	case hasPrefix(b[i:], pidChangedText):
		// A thread's execve, cut where the thread took the leader's pid:
		// "+++ superseded by execve in pid N +++" and "<... execve
		// resumed>" follow under that pid.
		_, n := pidChangedAt(b, i)
		return n
	case hasPrefix(b[i:], exitStatusText):
		_, n := exitStatusAt(b, i)
		return n
	}
	return 0
}

// exitStatusText opens the mark strace 4.x printed in place of
// unfinishedText when the process exited inside the call, its line the
// last one printed: "futex(0x7f0000, FUTEX_WAIT_PRIVATE, 0, NULL
// <unfinished ... exit status 0>", or "<unfinished ...exit status 1>".
// The call never returned, and the process exited with that status, as
// "+++ exited with N +++" (which those versions did not print) says.
const exitStatusText = "<unfinished ..."

// exitStatusAt reads an "<unfinished ... exit status N>" mark at b[i]:
// the status N and the mark's length, 0 and 0 when none is there.
func exitStatusAt(b []byte, i int) (status, n int) {
	if !hasPrefix(b[i:], exitStatusText) {
		return 0, 0
	}
	k := skipSpaces(b, i+len(exitStatusText))
	if !hasPrefix(b[k:], "exit status ") {
		return 0, 0
	}
	k += len("exit status ")
	digits := k
	for ; k < len(b) && isDigit(b[k]) && status < 1<<20; k++ {
		status = status*10 + int(b[k]-'0')
	}
	if k == digits {
		return 0, 0
	}
	k = skipSpaces(b, k)
	if k >= len(b) || b[k] != '>' {
		return 0, 0
	}
	return status, k + 1 - i
}

// exitedInside returns the status of the "<unfinished ... exit status
// N>" mark that ends an unfinished line, if that is the mark it ends with.
func exitedInside(text []byte) (int, bool) {
	end := len(text)
	for end > 0 && (text[end-1] == ' ' || text[end-1] == '\r') {
		end--
	}
	if end < 2 || text[end-1] != '>' || !isDigit(text[end-2]) && text[end-2] != ' ' {
		return 0, false // "<unfinished ...>", as nearly every such line ends
	}
	i := bytes.LastIndex(text[:end], []byte(exitStatusText))
	if i < 0 {
		return 0, false
	}
	status, n := exitStatusAt(text, i)
	return status, n > 0 && i+n == end
}

// pidChangedAt reads a "<pid changed to L ...>" mark at b[i]: the pid L
// and the mark's length, 0 and 0 when none is there.
func pidChangedAt(b []byte, i int) (pid, n int) {
	if !hasPrefix(b[i:], pidChangedText) {
		return 0, 0
	}
	k := i + len(pidChangedText)
	for ; k < len(b) && isDigit(b[k]) && pid < 1<<30; k++ {
		pid = pid*10 + int(b[k]-'0')
	}
	if k == i+len(pidChangedText) || !hasPrefix(b[k:], " ...>") {
		return 0, 0
	}
	return pid, k + len(" ...>") - i
}

// pidChangedTo returns the pid in the "<pid changed to L ...>" mark that
// ends an unfinished line.
func pidChangedTo(text []byte) (int, bool) {
	i := bytes.LastIndex(text, []byte(pidChangedText))
	if i < 0 {
		return 0, false
	}
	pid, n := pidChangedAt(text, i)
	return pid, n > 0
}

// pidChangedText opens the mark strace prints in place of unfinishedText
// when the call's thread took another pid (execve in a thread other than
// the leader): "<pid changed to 200 ...>".
const pidChangedText = "<pid changed to "

// syscallName returns the end of the syscall name at b[i]: a C name, or
// "???" for a call strace could not name (the tracee was going away).
func (l *lineParser) syscallName(i int) int {
	b := l.text
	j := i
	for j < len(b) && nameByte[b[j]] {
		j++
	}
	if j == i && hasPrefix(b[i:], "???") {
		j = i + 3
	}
	return j
}

// call reads name(args) = ret, or name(args <unfinished ...>.
func (l *lineParser) call(i int) (lineKind, *Error) {
	b := l.text
	j := l.syscallName(i)
	if j >= len(b) || b[j] != '(' {
		if j >= len(b) {
			l.eolErr = true
		}
		return 0, l.errorf(j, "expected '(' after syscall name %s", textesc.Excerpt(string(b[i:j]), maxNameShown))
	}
	if j-i > maxSyscallName {
		// Every later message names the call: a name no strace prints
		// (the longest are some 30 bytes) would be echoed whole.
		return 0, l.errorf(i, "expected a syscall name, found %s: longer than any strace prints", textesc.Excerpt(string(b[i:j]), maxNameShown))
	}
	ev := l.ev
	ev.Kind = KindSyscall
	name := b[i:j]
	if string(name) == "old_mmap" {
		// strace 4.x's name for the one-argument mmap of i386, arm and
		// s390, which strace 5 and later prints as "mmap".
		name = []byte("mmap")
		l.old = "old_mmap"
	}
	c := l.callName(name)
	ev.Name, ev.Call = c.name, c.call
	set := l.argSet(c.set)
	if set == 0 && l.scan {
		// An unfinished half is read value by value even so: it keeps a
		// place for each argument it printed (argsAndReturn), so that its
		// resumed half's arguments are numbered as in a full reading.
		if kind, err, ok := l.skipArgs(j + 1); ok && kind != lineUnfinished {
			return kind, err
		}
	}
	l.dataArg = ev.Call.Row().Data()
	l.argIdx = 0
	kind, err := l.argsAndReturnSet(j+1, set)
	if err != nil && l.eolErr && ev.Call.Effect() == syscalls.None && !hasPrefix(name, "syscall_") {
		if k, ok := l.unbalancedArgs(j + 1); ok {
			return k, nil
		}
	}
	return kind, err
}

// unbalancedArgs reads a line that ends inside its arguments, a bracket
// left open, and yet with what reads as their end, ") = RET", for a call
// the model reads nothing of but its result (syscalls.None: sigaction,
// futex, ...). Some strace 4.x builds print a struct they could not
// finish without its closing brace: Android's, on arm, as in
// "sigaction(SIGTERM, {SIG_DFL, , {0x8c40, [], SA_RESTART}, 0) = 0".
// The call keeps its result and no arguments; the reader warns
// (unbalanced). A line cut short, or cut by a program's output, has no
// such end and keeps its error.
func (l *lineParser) unbalancedArgs(start int) (lineKind, bool) {
	b := l.text
	for k := len(b) - 1; k >= start; k-- {
		if b[k] != ')' {
			continue
		}
		if m := skipSpaces(b, k+1); m >= len(b) || b[m] != '=' {
			continue
		}
		l.eolErr = false
		if l.ret(k+1) == nil {
			l.ev.Args = nil
			l.unbalanced = true
			return lineCall, true
		}
	}
	l.eolErr = true
	return 0, false
}

// argSet is the set of argument positions of a call to decode on this
// line, given what the decode function says of it (callName).
func (l *lineParser) argSet(decoded ArgSet) ArgSet {
	if l.decode == nil || !l.mayskip {
		return AllArgs
	}
	return decoded
}

// argsAndReturnSet is argsAndReturn decoding only the positions in set. A
// line that does not read is read again in full, so that it gives the
// error a full reading gives.
func (l *lineParser) argsAndReturnSet(i int, set ArgSet) (lineKind, *Error) {
	l.want = set
	idx := l.argIdx
	kind, err := l.argsAndReturn(i)
	if err != nil && set != AllArgs {
		l.want, l.argIdx, l.eolErr, l.skipping = AllArgs, idx, false, false
		kind, err = l.argsAndReturn(i)
	}
	l.want = AllArgs
	return kind, err
}

// resumed reads "NAME resumed>" and the rest of the call.
func (l *lineParser) resumed(i int) (lineKind, *Error) {
	b := l.text
	j := l.syscallName(i)
	if j == i || !hasPrefix(b[j:], " resumed>") {
		return 0, l.errorf(i, "expected \"NAME resumed>\" after \"<...\"")
	}
	ev := l.ev
	ev.Kind = KindSyscall
	c := l.callName(b[i:j])
	ev.Name, ev.Call = c.name, c.call
	l.dataArg = ev.Call.Row().Data()
	// Continue numbering after the first half's arguments, so a resumed
	// read's buffer is still known as data.
	l.argIdx = -1
	var cut *openCut
	if l.resumeArgs != nil {
		l.argIdx, cut = l.resumeArgs(ev.PID, ev.Name)
	}
	l.joined = nil
	k := j + len(" resumed>")
	p := skipSpaces(b, k)
	never := false // the half of a call cut inside brackets that never returned
	switch {
	case cut == nil:
	case len(cut.closers) > 0 && p < len(b) && b[p] == ')':
		// "<... ioctl resumed>) = ?" (strace 4.x, the tracee gone): the
		// open brackets stay open, and the call has no result.
		never = true
	case len(cut.closers) > 0 || arrowAt(b, k):
		if len(cut.closers) > 0 {
			if err := l.closesCut(cut, ev.Name, k); err != nil {
				return 0, err
			}
		}
		l.joinCut(cut, k)
		l.argIdx, k = cut.arg, 0
	}
	// The first half may have ended after a value: "<... clone resumed>,
	// child_tidptr=...".
	if l.joined == nil && p < len(b) && b[p] == ',' {
		k = p + 1
	}
	at := k // where the resumed half's arguments start on its own line
	if l.joined != nil {
		at = j + len(" resumed>")
	}
	kind, err := l.resumedArgs(k, c.set)
	l.unjoin()
	if err != nil {
		return 0, err
	}
	if kind == lineUnfinished {
		return 0, l.errorf(at, "a resumed call cannot be unfinished again without \") = ?\"")
	}
	if never && ev.RetKnown {
		return 0, l.errorf(p, "expected %q: the resumed half of %s ends the call inside what its first half (line %d) left open (%q), with a result", cut.closers[len(cut.closers)-1], ev.Name, cut.line, openers(cut.closers))
	}
	return lineResumed, nil
}

// resumedArgs reads the arguments and the return value of a resumed
// half from text[k], decoding the positions in decoded (see argSet).
func (l *lineParser) resumedArgs(k int, decoded ArgSet) (lineKind, *Error) {
	set := l.argSet(decoded)
	if set == 0 && l.scan {
		if kind, err, skipped := l.skipArgs(k); skipped {
			return kind, err
		}
	}
	return l.argsAndReturnSet(k, set)
}

// argsAndReturn reads arguments up to ')' and the return value, or up to
// "<unfinished ...>".
func (l *lineParser) argsAndReturn(i int) (lineKind, *Error) {
	// The arguments are read in place where the event's Values are
	// carved from (argRoom), and the event gets exactly their number.
	room := l.argRoom()
	l.ev.Args = room
	l.closers = l.closers[:0]
	kind, err := l.argsAndReturnInto(i)
	args := l.ev.Args
	if kind == lineCall && l.want != AllArgs {
		// Positions skipped after the last one decoded are left out; an
		// unfinished half keeps them all, for its resumed half's numbers.
		for len(args) > 0 && args[len(args)-1].Kind == ValSkipped {
			args = args[:len(args)-1]
		}
	}
	if l.want == 0 && kind != lineUnfinished {
		// A call skipped whole has no Args, as when skipArgs passed it.
		l.ev.Args = l.argsDone(room, l.ev.Args, 0, err != nil)
		l.ev.Args = nil
		return kind, err
	}
	l.ev.Args = l.argsDone(room, l.ev.Args, len(args), err != nil)
	return kind, err
}

func (l *lineParser) argsAndReturnInto(i int) (lineKind, *Error) {
	b := l.text
	ev := l.ev
	// The argument the line ended right after, when a mark cut it short
	// there (openArg), and where it starts.
	open, openStart := -1, 0
	// scanRest: the arguments from here on may be passed whole (see
	// below); cleared once scanArgs has said no, so that a line it does
	// not take is scanned once, not once per argument.
	scanRest := l.scan && l.want != AllArgs && l.want != 0
	for {
		i = skipSpaces(b, i)
		if i >= len(b) {
			l.eolErr = true
			return 0, l.errorf(i, "line ended inside the arguments of %s: expected ')'", ev.Name)
		}
		if b[i] == ')' {
			break
		}
		if b[i] != '<' {
			// Neither mark below: the commonest case, tested first.
		} else if hasPrefix(b[i:], detachedText) {
			return l.detached(i)
		} else if m := unfinishedMark(b, i); m > 0 {
			k := skipSpaces(b, i+m)
			for k < len(b) && b[k] == '\r' {
				k++ // a log saved with CRLF line ends
			}
			if k >= len(b) {
				l.openArg, l.openStart, l.openEnd = open, openStart, i
				return lineUnfinished, nil
			}
			// "<... read resumed> <unfinished ...>) = ?": resumed only to
			// be cut short again; the call finished without a result.
			if b[k] == ')' {
				i = k
				break
			}
			return 0, l.errorf(k, "unexpected text after %q", b[i:i+m])
		}
		if scanRest && l.argIdx >= 0 && l.want>>min(l.argIdx, 63) == 0 {
			// No position from here on is decoded, and those skipped
			// after the last one kept are left out of Args: pass them
			// whole, as skipArgs passes a call decoded not at all (a
			// read's data buffer, getdents' entries, a stat's flags),
			// not value by value. An unfinished half is read on value
			// by value: it keeps a place for each argument.
			scanRest = false
			if end, kind, ok := l.scanArgs(i); ok && kind == lineCall {
				if end < 0 {
					return lineCall, nil // detached
				}
				return lineCall, l.ret(end)
			}
		}
		skip := l.want != AllArgs && l.argIdx >= 0 && !l.want.Has(l.argIdx)
		l.skipping = skip
		n := len(ev.Args)
		if l.mem == nil && n < cap(ev.Args) {
			// A slab's room is zero already (argRoom): clearing the
			// Value again cost some 5% while the collector ran (a
			// write barrier for each of its pointers).
			ev.Args = ev.Args[:n+1]
		} else {
			ev.Args = append(ev.Args, Value{})
		}
		if l.args == nil {
			l.args = []Value{}
		}
		j, err := l.value(&ev.Args[n], i, 0, l.argIdx == l.dataArg && l.dataArg >= 0)
		l.skipping = false
		if err != nil {
			ev.Args = ev.Args[:n]
			return 0, err
		}
		if skip {
			ev.Args[n] = Value{Kind: ValSkipped}
		}
		if l.argIdx >= 0 {
			l.argIdx++
		}
		j = skipSpaces(b, j)
		if j >= len(b) {
			l.eolErr = true
			return 0, l.errorf(j, "line ended inside the arguments of %s: expected ',' or ')'", ev.Name)
		}
		switch {
		case b[j] == ',':
			i = j + 1
		case b[j] == ')':
			i = j
		case unfinishedMark(b, j) > 0:
			open, openStart = n, i
			i = j
		case hasPrefix(b[j:], detachedText):
			return l.detached(j)
		default:
			return 0, l.errorf(j, "expected ',' or ')' after argument %d of %s, found %q", len(ev.Args), ev.Name, snippet(b[j:]))
		}
		if i < len(b) && b[i] == ')' {
			break
		}
	}
	return lineCall, l.ret(i + 1)
}

const detachedText = "<detached ...>"

// detached ends a call that strace stopped tracing in the middle ("-p"
// interrupted): "epoll_wait(14 <detached ...>". The call's result is not
// known; nothing may follow the mark.
func (l *lineParser) detached(i int) (lineKind, *Error) {
	b := l.text
	k := skipSpaces(b, i+len(detachedText))
	for k < len(b) && b[k] == '\r' {
		k++
	}
	if k < len(b) {
		return 0, l.errorf(k, "unexpected text after \"<detached ...>\"")
	}
	l.ev.RetKnown = false
	return lineCall, nil
}

// relativeAfterTime skips the "(+     0.000123) " that -r prints after
// an absolute time: a -t/-tt clock time, or -ttt's seconds since the
// epoch (--absolute-timestamps=format:unix). The absolute time orders the
// events, those of an -ff set's files too; the delta adds nothing to it.
func (l *lineParser) relativeAfterTime(i int) int {
	b := l.text
	if !hasPrefix(b[i:], "(+") {
		return i
	}
	k := skipSpaces(b, i+2)
	for k < len(b) && (isDigit(b[k]) || b[k] == '.') {
		k++
	}
	if k < len(b) && b[k] == ')' {
		return skipSpaces(b, k+1)
	}
	return i
}

// bracketPrefixes skips what strace prints in brackets between the
// timestamp and the call: -n's syscall number ("[  59]", "[?]"), -i's
// instruction pointer ("[00007f4d33743ad7]", "[????????????????]", eight
// digits for a 32-bit process) and --secontext's SELinux context. The instruction
// pointer is kept in Event.IP.
func (l *lineParser) bracketPrefixes(i int) int {
	b := l.text
	for i < len(b) && b[i] == '[' {
		e := bytes.IndexByte(b[i:min(len(b), i+80)], ']')
		if e < 0 {
			return i
		}
		raw := b[i+1 : i+e]
		in := bytes.TrimSpace(raw)
		switch {
		case len(in) == 0:
			return i
		case (len(raw) == 16 || len(raw) == 8) && allHexOrUnknown(raw):
			if n, ok := parseHex(raw); ok {
				if n != 0 {
					l.extra(l.ev).IP = n
				}
			}
		case allDigits(in) || string(in) == "?":
		case bytes.IndexByte(in, ' ') < 0:
			// --secontext: "[unconfined_t]", or in full
			// "[unconfined_u:unconfined_r:unconfined_t:s0]". The
			// option also puts a context after paths and fds.
			blankContexts(b, i+e+1)
		default:
			return i
		}
		i = skipSpaces(b, i+e+1)
	}
	return i
}

// blankContexts overwrites with spaces the SELinux contexts that
// --secontext prints after a path, an fd and a returned fd, from b[i] to
// the end of the line: `"/etc/hosts" [etc_t]`, `3</etc/hosts> [etc_t]`,
// `= 3 [etc_t]`, or with a mismatch `[etc_t!!tmp_t]`. Each is an
// attribute of the value before it, which the readings then see followed
// by spaces. The bytes keep their places, so that columns and the
// offsets of written data hold. It runs only on a line whose process
// context showed the option: no other strace output puts " [" after a
// value there.
func blankContexts(b []byte, i int) {
	for i < len(b) {
		switch {
		case b[i] == '"':
			e := scanString(b, i)
			if e < 0 {
				return
			}
			i = e
			continue
		case b[i] == ' ' && i+1 < len(b) && b[i+1] == '[':
			if e := contextEnd(b, i+1); e > 0 {
				for k := i; k < e; k++ {
					b[k] = ' '
				}
				i = e
				continue
			}
		}
		i++
	}
}

// contextEnd returns the index just past the ']' of a context starting at
// b[i] ('['), or -1: a context is one word, which strace prints with
// brackets and '!' escaped.
func contextEnd(b []byte, i int) int {
	for k := i + 1; k < len(b); k++ {
		switch b[k] {
		case ']':
			if k == i+1 {
				return -1
			}
			return k + 1
		case ' ', '\t', '[', '"', '{', '}', '(', ')', '<', '>':
			return -1
		}
	}
	return -1
}

func allHexOrUnknown(b []byte) bool {
	for _, c := range b {
		if !(isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == '?' || c == ' ') {
			return false
		}
	}
	return true
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return len(b) > 0
}

func parseHex(b []byte) (uint64, bool) {
	b = bytes.TrimSpace(b)
	var n uint64
	for _, c := range b {
		switch {
		case isDigit(c):
			n = n<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | uint64(c-'a'+10)
		case c >= 'A' && c <= 'F':
			n = n<<4 | uint64(c-'A'+10)
		default:
			return 0, false
		}
	}
	return n, len(b) > 0
}

// ret reads " = VALUE [EXTRA...] [<DURATION>]" after the closing paren.
func (l *lineParser) ret(i int) *Error {
	b := l.text
	ev := l.ev
	ev.Dur = -1
	i = skipSpaces(b, i)
	if i >= len(b) {
		l.eolErr = true
		return l.errorf(i, "expected '=' and the return value of %s", ev.Name)
	}
	if b[i] == '(' && hasPrefix(b[i:], "(mask [") {
		// strace 4.x: "sigreturn() (mask [INT TERM]) = 0", the signal
		// mask the call restored, between the arguments and '='.
		if k := bytes.Index(b[i:], []byte("])")); k > 0 {
			i = skipSpaces(b, i+k+2)
		}
		if i >= len(b) {
			l.eolErr = true
			return l.errorf(i, "expected '=' and the return value of %s", ev.Name)
		}
	}
	if b[i] != '=' {
		return l.errorf(i, "expected '=' and the return value of %s, found %q", ev.Name, snippet(b[i:]))
	}
	i = skipSpaces(b, i+1)
	end, dur := retEnd(b, i)
	if dur >= 0 {
		ev.Dur = dur
	}
	if i >= end {
		// A line that stops right after '=' is cut there: the last line
		// of a trace whose recording stopped reads like any other cut
		// short (a warning), not as a line strace never prints.
		l.eolErr = i >= len(b)
		return l.errorf(i, "expected the return value of %s after '='", ev.Name)
	}
	if b[i] == '?' {
		ev.RetKnown = false
		i++
	} else {
		j := i
		if b[j] == '-' {
			j++
		}
		for j < end && nameByte[b[j]] {
			j++
		}
		n, ok := parseInt(b[i:j])
		if !ok {
			return l.errorf(i, "expected a number or '?' as the return value of %s, found %q", ev.Name, snippet(b[i:end]))
		}
		ev.Ret, ev.RetKnown = n, true
		i = j
		if i < end && b[i] == '<' {
			a, k, del, err := l.annotation(i)
			if err != nil {
				return err
			}
			ev.RetAnno = a
			ev.RetDeleted = del
			i = k
		}
	}
	i = skipSpaces(b[:end], i)
	// Errno: an E-name, or "(errno N)" after -1.
	if i < end && b[i] == 'E' {
		j := i
		for j < end && nameByte[b[j]] {
			j++
		}
		ev.Errno = l.intern(b[i:j])
		i = skipSpaces(b[:end], j)
	} else if ev.RetKnown && ev.Ret < 0 && ev.Ret > -4096 && hasPrefix(b[i:end], "(errno ") {
		k := bytes.IndexByte(b[i:end], ')')
		if k > 0 {
			ev.Errno = "errno " + string(b[i+len("(errno "):i+k])
			i = skipSpaces(b[:end], i+k+1)
		}
	}
	if i < end {
		extra := b[i:end]
		if bytes.Contains(extra, []byte("(INJECTED)")) {
			ev.Injected = true
		}
		// Mostly "(No such file or directory)" and its kin: interned.
		l.extra(ev).RetExtra = l.intern(extra)
	}
	return nil
}

// retEnd is where the return value that starts at b[i] ends: before
// trailing blanks and a -T " <0.000057>" (or " <unavailable>"), whose
// duration it reports (-1: none).
func retEnd(b []byte, i int) (end int, dur time.Duration) {
	end, dur = len(b), -1
	for end > i && (b[end-1] == ' ' || b[end-1] == '\r') {
		end--
	}
	if end > i && b[end-1] == '>' {
		if k := lastSpaceAngle(b[i:end]); k >= 0 {
			inner := b[i+k+2 : end-1]
			if d, ok := parseDuration(inner); ok {
				return i + k, d
			}
			if string(inner) == "unavailable" {
				return i + k, -1
			}
		}
	}
	return end, -1
}

// lastSpaceAngle is bytes.LastIndex(b, " <"), looking back from the end
// for '<' only: the -T duration is nearly always the last one.
func lastSpaceAngle(b []byte) int {
	for end := len(b); ; {
		k := bytes.LastIndexByte(b[:end], '<')
		if k <= 0 {
			return -1
		}
		if b[k-1] == ' ' {
			return k - 1
		}
		end = k
	}
}

// parseDuration reads SECS.FRAC, digits on both sides of the dot. (One
// pass: every line of a -T trace has one.)
func parseDuration(b []byte) (time.Duration, bool) {
	var secs, ns int64
	dot := 0
	for dot < len(b) && b[dot]-'0' <= 9 {
		secs = secs*10 + int64(b[dot]-'0')
		dot++
	}
	if dot == 0 || dot >= len(b)-1 || b[dot] != '.' {
		return 0, false
	}
	frac := b[dot+1:]
	if len(frac) == 6 {
		// Microseconds, as strace prints them: six digits at one look.
		d0, d1, d2, d3, d4, d5 := frac[0]-'0', frac[1]-'0', frac[2]-'0', frac[3]-'0', frac[4]-'0', frac[5]-'0'
		if d0 > 9 || d1 > 9 || d2 > 9 || d3 > 9 || d4 > 9 || d5 > 9 {
			return 0, false
		}
		us := ((((int64(d0)*10+int64(d1))*10+int64(d2))*10+int64(d3))*10+int64(d4))*10 + int64(d5)
		return time.Duration(secs)*time.Second + time.Duration(us*1000), true
	}
	for k, c := range frac {
		if c-'0' > 9 {
			return 0, false
		}
		if k < 9 {
			ns = ns*10 + int64(c-'0')
		}
	}
	if n := len(frac); n < 9 {
		ns *= pow10[9-n]
	}
	return time.Duration(secs)*time.Second + time.Duration(ns), true
}

// parseInt reads decimal, 0x hex and 0-prefixed octal, with a leading '-',
// from the line's bytes or from a Value's text, without copying either.
func parseInt[T string | []byte](b T) (int64, bool) {
	if len(b) == 0 || len(b) > 24 {
		return 0, false
	}
	neg := false
	if b[0] == '-' {
		neg, b = true, b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(b) > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X'):
		base, b = 16, b[2:]
	case len(b) > 1 && b[0] == '0':
		base, b = 8, b[1:]
	}
	var n uint64
	for k := 0; k < len(b); k++ {
		c := b[k]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		n = n*base + d
	}
	if neg {
		return -int64(n), true
	}
	return int64(n), true
}
