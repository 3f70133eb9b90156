package parser

import "bytes"

// stackMark starts each frame line strace -k prints after a call: " > "
// then the frame, e.g. "/lib/x86_64-linux-gnu/libc.so.6(__write+0x14)
// [0x10f1e4]", "unexpected_backtracing_error [0x7f1c]", or with -kk
// (--stack-trace=source) the same followed by " FILE:LINE".
const stackMark = " > "

// maxStack bounds the frames kept for one event; deeper ones are counted
// by a last "..." frame. Recursion in a program can print thousands.
const maxStack = 256

// readStack takes the -k frame lines that follow the line that completed
// ev. strace prints a call's stack when the call returns, so under -f the
// frames follow the resumed half of a split call, and nothing else can come
// between them and that line. The frame text is kept as printed; package
// source resolves it.
func (r *Reader) readStack(ev *Event) error {
	for {
		b, _ := r.br.Peek(len(stackMark))
		if string(b) != stackMark {
			return nil
		}
		text, _, _, err := r.readLine()
		if err != nil {
			return err
		}
		r.line++
		if k := bytes.IndexByte(text, 0); k >= 0 {
			return &Error{Pos: Pos{File: r.name, Line: r.line, Col: k + 1}, Msg: "NUL byte in the line: this is not an strace text log (a binary file?)"}
		}
		frame := bytes.TrimRight(text[len(stackMark):], " \r")
		m := r.lp.extra(ev)
		switch {
		case len(m.Stack) < maxStack:
			m.Stack = append(m.Stack, r.lp.intern(frame))
		case len(m.Stack) == maxStack:
			m.Stack = append(m.Stack, "...")
		}
	}
}
