package source

import (
	"fmt"
	"strconv"
	"strings"
)

// Frame is one parsed stack line.
type Frame struct {
	Module string // the mapped file: "/usr/lib/x86_64-linux-gnu/libc.so.6"
	Symbol string // the nearest symbol strace found, "" when none
	SymOff uint64 // the offset from Symbol
	Offset uint64 // the file offset of the instruction in Module
}

// ParseFrame reads one frame as strace -k prints it, with or without the
// leading " > ":
//
//	/usr/lib/x86_64-linux-gnu/libc.so.6(__write+0x10) [0xf8350]
//	/tmp/save(+0x1169) [0x1169]
//	/tmp/save() [0x1169]
func ParseFrame(s string) (Frame, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(t, "> ")
	var f Frame
	br := strings.LastIndex(t, " [0x")
	if br < 0 || !strings.HasSuffix(t, "]") {
		return f, fmt.Errorf("stack frame %q: expected \"MODULE(SYMBOL+0xOFF) [0xADDR]\"", s)
	}
	addr, err := strconv.ParseUint(t[br+4:len(t)-1], 16, 64)
	if err != nil {
		return f, fmt.Errorf("stack frame %q: bad address: %w", s, err)
	}
	f.Offset = addr
	head := t[:br]
	if !strings.HasSuffix(head, ")") {
		return f, fmt.Errorf("stack frame %q: expected \"(SYMBOL+0xOFF)\" after the module", s)
	}
	// Go symbols hold parentheses ("os.(*File).Write"): the module ends
	// at the parenthesis that balances the last one.
	open, depth := -1, 0
	for i := len(head) - 1; i >= 0 && open < 0; i-- {
		switch head[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				open = i
			}
		}
	}
	if open < 0 {
		return f, fmt.Errorf("stack frame %q: expected \"(\" after the module", s)
	}
	f.Module = head[:open]
	sym := head[open+1 : len(head)-1]
	if plus := strings.LastIndex(sym, "+0x"); plus >= 0 {
		off, err := strconv.ParseUint(sym[plus+3:], 16, 64)
		if err != nil {
			return f, fmt.Errorf("stack frame %q: bad symbol offset: %w", s, err)
		}
		f.SymOff = off
		sym = sym[:plus]
	}
	f.Symbol = sym
	if f.Module == "" {
		return f, fmt.Errorf("stack frame %q: no module", s)
	}
	return f, nil
}

// unwindError reports whether a stack line is not a frame but strace's
// note that it could not unwind further: with libunwind it ends such a
// stack with " > unexpected_backtracing_error [0xADDR]" (or
// "backtracing_error"), as it does for most calls of a binary built
// without frame information (a release Chromium).
func unwindError(s string) bool {
	t := strings.TrimPrefix(strings.TrimSpace(s), "> ")
	if br := strings.LastIndex(t, " [0x"); br >= 0 && strings.HasSuffix(t, "]") {
		t = t[:br]
	}
	if !strings.HasSuffix(t, "_error") {
		return false
	}
	for _, r := range t {
		if r != '_' && (r < 'a' || r > 'z') {
			return false
		}
	}
	return true
}

// systemDirs hold libraries the system installed: never the user's code.
var systemDirs = []string{"/lib/", "/lib32/", "/lib64/", "/usr/lib/", "/usr/lib32/", "/usr/lib64/", "/usr/libexec/"}

// systemModule reports whether a frame's module is a library the system
// installed (libc, ld.so, libstdc++, libpython, ...).
func systemModule(m string) bool {
	for _, d := range systemDirs {
		if strings.HasPrefix(m, d) {
			return true
		}
	}
	base := m[strings.LastIndex(m, "/")+1:]
	// An interpreter's own C code is machinery too: for Python the user's
	// line comes from crashsim's shim (see PythonShim), not from frames.
	// The kernel's own mappings have no file: strace -k names the vDSO
	// "[vdso]" (and "linux-vdso.so.1" under some unwinders).
	return strings.HasPrefix(base, "ld-linux") || strings.HasPrefix(base, "libc.so") || base == "linux-vdso.so.1" ||
		strings.HasPrefix(m, "[") ||
		strings.HasPrefix(base, "python") || strings.HasPrefix(base, "libpython")
}

// goPackage returns the package path of a Go symbol name:
// "internal/poll.(*FD).Write" → "internal/poll", "main.save" → "main".
func goPackage(sym string) string {
	slash := strings.LastIndex(sym, "/")
	dot := strings.Index(sym[slash+1:], ".")
	if dot < 0 {
		return sym
	}
	return sym[:slash+1+dot]
}

// goMachinery reports whether a symbol in a Go binary belongs to the
// runtime or the standard library (or is compiler-generated): a package
// path whose first element has no dot, other than main.
func goMachinery(sym string) bool {
	if sym == "" || strings.HasPrefix(sym, "go:") || strings.HasPrefix(sym, "type:") {
		return true
	}
	pkg := goPackage(sym)
	if pkg == "main" || strings.HasPrefix(pkg, "main.") {
		return false
	}
	first, _, _ := strings.Cut(pkg, "/")
	return !strings.Contains(first, ".")
}
