package gentrace

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"strconv"
)

// A Form is the strace command line a generated trace imitates.
type Form int

const (
	// FormTrace is what crashsim trace records: strace -f -s 0 with the
	// data calls raw. No timestamps, no fd paths; a write prints its fd,
	// buffer address and length in hex (write(0x7, 0xc000124000, 0x3a) =
	// 0x3a), and the model finds its file from the open before it.
	FormTrace Form = iota
	// FormTTTY is strace -f -ttt -y, as people record by hand: a
	// timestamp on every line, every fd argument with its path, written
	// data as text cut after 32 bytes (strace's default -s).
	FormTTTY
)

// Forms are the names ParseForm knows, in the order of the constants.
var Forms = []string{"trace", "ttt-y"}

// ParseForm reads a form's name: "trace" or "ttt-y".
func ParseForm(s string) (Form, error) {
	for i, name := range Forms {
		if s == name {
			return Form(i), nil
		}
	}
	return 0, fmt.Errorf("form %q: want trace or ttt-y", s)
}

func (f Form) String() string {
	if int(f) < len(Forms) {
		return Forms[f]
	}
	return "Form(" + strconv.Itoa(int(f)) + ")"
}

// returnColumn is where strace 6.1 puts the "= " of a return value when
// the call is shorter: column 40 of the line, pid and timestamp included.
const returnColumn = 40

// printer writes strace lines in one Form. A call's line is written when
// it completes; until then it is held open, and if another thread's line
// comes first it is closed with " <unfinished ...>" and its thread later
// prints "<... NAME resumed>", as strace -f does.
type printer struct {
	w     *bufio.Writer
	form  Form
	rng   *rand.Rand
	ts    int64 // microseconds
	lines int64
	err   error
	buf   []byte // the line being built
	open  []byte // a call's line waiting for its return value, when held
	held  bool
	owner int // the pid of open
}

// start begins a line of pid: the pid and, in FormTTTY, the time.
func (p *printer) start(pid int) {
	p.closeOpen(pid)
	p.ts += int64(1 + p.rng.IntN(40))
	p.buf = strconv.AppendInt(p.buf[:0], int64(pid), 10)
	p.buf = append(p.buf, ' ')
	if p.form == FormTTTY {
		p.buf = strconv.AppendInt(p.buf, p.ts/1e6, 10)
		p.buf = append(p.buf, '.')
		us := p.ts % 1e6
		for d := int64(100000); d > 1 && us < d; d /= 10 {
			p.buf = append(p.buf, '0')
		}
		p.buf = strconv.AppendInt(p.buf, us, 10)
		p.buf = append(p.buf, ' ')
	}
}

// closeOpen ends a held line as unfinished when a line of another pid
// comes before its return.
func (p *printer) closeOpen(pid int) {
	if !p.held || p.owner == pid {
		return
	}
	p.open = append(p.open, " <unfinished ...>\n"...)
	p.write(p.open)
	p.held = false
}

// ret ends the line in buf with ") " and "= r", padded as strace pads it.
func (p *printer) ret(r string) {
	p.buf = append(p.buf, ") "...)
	for len(p.buf) < returnColumn {
		p.buf = append(p.buf, ' ')
	}
	p.buf = append(p.buf, "= "...)
	p.buf = append(p.buf, r...)
	p.buf = append(p.buf, '\n')
	p.write(p.buf)
}

// hold keeps the call in buf open: it completes with finish.
func (p *printer) hold(pid int) {
	p.open = append(p.open[:0], p.buf...)
	p.held, p.owner = true, pid
}

// finish completes pid's held call named name with return value r: on
// its own line if nothing came between, else as a resumed half.
func (p *printer) finish(pid int, name, r string) {
	if p.held && p.owner == pid {
		p.buf, p.held = append(p.buf[:0], p.open...), false
		p.ret(r)
		return
	}
	p.start(pid)
	p.buf = append(p.buf, "<... "...)
	p.buf = append(p.buf, name...)
	p.buf = append(p.buf, " resumed>"...)
	p.ret(r)
}

// flush writes a held line as unfinished (the trace ends in the call)
// and flushes the writer.
func (p *printer) flush() error {
	p.closeOpen(-1)
	if err := p.w.Flush(); err != nil && p.err == nil {
		p.err = err
	}
	return p.err
}

func (p *printer) write(b []byte) {
	if _, err := p.w.Write(b); err != nil && p.err == nil {
		p.err = err
	}
	p.lines++
}

// s appends text.
func (p *printer) s(text string) { p.buf = append(p.buf, text...) }

// fd appends an fd argument: with its path in FormTTTY, in hex when raw
// (the data calls in FormTrace).
func (p *printer) fd(fd int, path string, raw bool) {
	if raw && p.form == FormTrace {
		p.hex(int64(fd))
		return
	}
	p.buf = strconv.AppendInt(p.buf, int64(fd), 10)
	if p.form == FormTTTY {
		p.buf = append(p.buf, '<')
		p.buf = append(p.buf, path...)
		p.buf = append(p.buf, '>')
	}
}

// cwd appends AT_FDCWD, with the working directory in FormTTTY.
func (p *printer) cwd(dir string) {
	p.s("AT_FDCWD")
	if p.form == FormTTTY {
		p.buf = append(p.buf, '<')
		p.buf = append(p.buf, dir...)
		p.buf = append(p.buf, '>')
	}
}

func (p *printer) hex(n int64) {
	p.buf = append(p.buf, "0x"...)
	p.buf = strconv.AppendInt(p.buf, n, 16)
}

// quoted appends s as strace prints a string without -x, cut after max
// bytes (max 0: whole) with "..." after the closing quote, as -s cuts it.
func (p *printer) quoted(s string, max int) {
	p.buf = append(p.buf, '"')
	n := len(s)
	if max > 0 && n > max {
		n = max
	}
	for i := 0; i < n; i++ {
		switch c := s[i]; c {
		case '"', '\\':
			p.buf = append(p.buf, '\\', c)
		case '\n':
			p.buf = append(p.buf, '\\', 'n')
		default:
			p.buf = append(p.buf, c)
		}
	}
	p.buf = append(p.buf, '"')
	if n < len(s) {
		p.buf = append(p.buf, "..."...)
	}
}

// count renders a return value: a count, in hex for a raw call in
// FormTrace.
func (p *printer) count(n int, raw bool) string {
	if raw && p.form == FormTrace {
		return "0x" + strconv.FormatInt(int64(n), 16)
	}
	return strconv.Itoa(n)
}
