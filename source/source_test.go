package source

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseFrame(t *testing.T) {
	tests := []struct {
		in   string
		want Frame
	}{
		{" > /usr/lib/x86_64-linux-gnu/libc.so.6(__write+0x10) [0xf8350]", Frame{"/usr/lib/x86_64-linux-gnu/libc.so.6", "__write", 0x10, 0xf8350}},
		{"/tmp/kg/kg(internal/poll.(*FD).Write+0x23f) [0x88d5f]", Frame{"/tmp/kg/kg", "internal/poll.(*FD).Write", 0x23f, 0x88d5f}},
		{"/tmp/a b/save(+0x1169) [0x1169]", Frame{"/tmp/a b/save", "", 0x1169, 0x1169}},
		{"/tmp/save() [0x1169]", Frame{"/tmp/save", "", 0, 0x1169}},
	}
	for _, tt := range tests {
		got, err := ParseFrame(tt.in)
		if err != nil {
			t.Errorf("ParseFrame(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseFrame(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
	for _, bad := range []string{"", "> /x", "/x(main+0x1) [0xzz]", "/x main [0x1]", "(main) [0x1]"} {
		if _, err := ParseFrame(bad); err == nil {
			t.Errorf("ParseFrame(%q) = nil error, want one", bad)
		}
	}
}

func TestMachinery(t *testing.T) {
	for sym, want := range map[string]bool{
		"runtime.main": true, "syscall.Syscall6": true, "internal/poll.(*FD).Write": true,
		"internal/runtime/syscall/linux.Syscall6": true, "os.(*File).Write": true,
		"main.save": false, "main.main.func1": false, "example.com/app/store.(*DB).Save": false,
		"type:.eq.main.T": true,
	} {
		if got := goMachinery(sym); got != want {
			t.Errorf("goMachinery(%q) = %v, want %v", sym, got, want)
		}
	}
	for m, want := range map[string]bool{
		"/usr/lib/x86_64-linux-gnu/libc.so.6": true, "/lib64/ld-linux-x86-64.so.2": true,
		"/opt/glibc/libc.so.6": true, "/home/u/app/save": false, "/usr/bin/sed": false,
	} {
		if got := systemModule(m); got != want {
			t.Errorf("systemModule(%q) = %v, want %v", m, got, want)
		}
	}
}

// wantLine is the line of src marked "want write".
func wantLine(t *testing.T, src string) int {
	t.Helper()
	return markedLine(t, src, "want write")
}

// markedLine is the first line of src that holds mark.
func markedLine(t *testing.T, src, mark string) int {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, mark) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line holding %q", src, mark)
	return 0
}

// buildC compiles testdata/save.c with -g and the given extra flags.
func buildC(t *testing.T, flags ...string) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (cc) in $PATH")
	}
	src, _ := filepath.Abs("testdata/save.c")
	bin := filepath.Join(t.TempDir(), "save")
	args := append([]string{"-g", "-O0", "-o", bin, src}, flags...)
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("cc %v: %v\n%s", args, err, out)
	}
	return bin
}

// buildGo builds testdata/gosave as go build does by default.
func buildGo(t *testing.T, flags ...string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go in $PATH")
	}
	bin := filepath.Join(t.TempDir(), "gosave")
	cmd := exec.Command(goTool, append(append([]string{"build"}, flags...), "-o", bin, ".")...)
	cmd.Dir = "testdata/gosave"
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// frameAt makes the frame strace would print for the start of symbol sym:
// its address turned back into a file offset, the way strace reports it.
func frameAt(t *testing.T, bin, sym string) string {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name != sym {
			continue
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD && s.Value >= p.Vaddr && s.Value < p.Vaddr+p.Filesz {
				off := s.Value - p.Vaddr + p.Off
				return bin + "(" + sym + "+0x0) [0x" + strconvHex(off) + "]"
			}
		}
	}
	t.Fatalf("%s: no symbol %s in a loaded segment", bin, sym)
	return ""
}

func strconvHex(v uint64) string {
	const digits = "0123456789abcdef"
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v >>= 4 {
		b = append([]byte{digits[v&15]}, b...)
	}
	return string(b)
}

// TestSymbolStart resolves the first instruction of a function, which
// needs only the offset arithmetic, not strace: PIE and non-PIE C, and Go.
func TestSymbolStart(t *testing.T) {
	for _, tt := range []struct {
		name, sym, file string
		line            int
		bin             func(t *testing.T) string
	}{
		{"c-pie", "main", "save.c", 14, func(t *testing.T) string { return buildC(t, "-pie", "-fPIE") }},
		{"c-no-pie", "main", "save.c", 14, func(t *testing.T) string { return buildC(t, "-no-pie", "-fno-PIE") }},
		{"go", "main.save", "main.go", 8, func(t *testing.T) string { return buildGo(t) }},
		{"go-no-dwarf", "main.save", "main.go", 8, func(t *testing.T) string { return buildGo(t, "-ldflags=-w") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bin := tt.bin(t)
			frame := frameAt(t, bin, tt.sym)
			loc, ok, err := NewResolver().Locate([]string{frame})
			if err != nil || !ok {
				t.Fatalf("Locate(%q) = %v, %v, %v", frame, loc, ok, err)
			}
			if filepath.Base(loc.File) != tt.file || loc.Line != tt.line {
				t.Errorf("Locate(%q) = %s:%d, want %s:%d", frame, loc.File, loc.Line, tt.file, tt.line)
			}
		})
	}
}

// TestStraceStack records the program with strace -k and finds the line
// of the write in the user's code, past libc or the Go runtime.
func TestStraceStack(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs strace")
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace not in $PATH")
	}
	for _, tt := range []struct {
		name, src, fn string
		bin           func(t *testing.T) string
	}{
		{"c-pie", "testdata/save.c", "save", func(t *testing.T) string { return buildC(t, "-pie", "-fPIE") }},
		{"c-no-pie", "testdata/save.c", "save", func(t *testing.T) string { return buildC(t, "-no-pie", "-fno-PIE") }},
		{"go", "testdata/gosave/main.go", "main.save", func(t *testing.T) string { return buildGo(t) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bin := tt.bin(t)
			dir := t.TempDir()
			trace := filepath.Join(dir, "t.strace")
			out, err := exec.Command(strace, "-f", "-k", "-e", "trace=write", "-o", trace, bin, filepath.Join(dir, "out.txt")).CombinedOutput()
			if err != nil {
				t.Fatalf("strace: %v\n%s", err, out)
			}
			stack := writeStack(t, trace, `"hello\n"`)
			if len(stack) == 0 {
				t.Skipf("strace -k printed no stack (built without unwinding support?):\n%s", readAll(t, trace))
			}
			loc, ok, err := NewResolver().Locate(stack)
			if err != nil || !ok {
				t.Fatalf("Locate = %v, %v, %v\nstack:\n%s", loc, ok, err, strings.Join(stack, "\n"))
			}
			want := wantLine(t, tt.src)
			if filepath.Base(loc.File) != filepath.Base(tt.src) || loc.Line != want || loc.Function != tt.fn {
				t.Errorf("Locate = %s:%d in %s, want %s:%d in %s\nstack:\n%s", loc.File, loc.Line, loc.Function, filepath.Base(tt.src), want, tt.fn, strings.Join(stack, "\n"))
			}
		})
	}
}

// writeStack returns the stack under the call in trace that wrote data,
// read the way strace -k lays it out: frames on the lines after the call.
func writeStack(t *testing.T, trace, data string) []string {
	t.Helper()
	return stackOf(t, trace, func(l string) bool { return strings.Contains(l, data) && strings.Contains(l, "= 6") })
}

// stackOf returns the stack under the first line of trace that match says
// is the call.
func stackOf(t *testing.T, trace string, match func(string) bool) []string {
	t.Helper()
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stack []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, " > ") {
			if in {
				stack = append(stack, l)
			}
			continue
		}
		if in {
			break
		}
		in = match(l)
	}
	return stack
}

func readAll(t *testing.T, name string) string {
	b, _ := os.ReadFile(name)
	return string(b)
}

// TestInlinedCall finds the line of the user's call to a function the
// compiler inlined: os.Create inlined into main.save names os/file.go in
// the line table, and the user's line only as the inlined call's site.
func TestInlinedCall(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs strace")
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace not in $PATH")
	}
	bin := buildGo(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.strace")
	if out, err := exec.Command(strace, "-f", "-k", "-e", "trace=openat", "-o", trace, bin, filepath.Join(dir, "out.txt")).CombinedOutput(); err != nil {
		t.Fatalf("strace: %v\n%s", err, out)
	}
	stack := stackOf(t, trace, func(l string) bool { return strings.Contains(l, "out.txt") && !strings.Contains(l, "unfinished") })
	if len(stack) == 0 {
		t.Skipf("strace -k printed no stack:\n%s", readAll(t, trace))
	}
	loc, ok, err := NewResolver().Locate(stack)
	if err != nil || !ok {
		t.Fatalf("Locate = %v, %v, %v", loc, ok, err)
	}
	want := markedLine(t, "testdata/gosave/main.go", "os.Create")
	if filepath.Base(loc.File) != "main.go" || loc.Line != want || loc.Function != "main.save" {
		t.Errorf("Locate = %s:%d in %s, want main.go:%d in main.save\nstack:\n%s", loc.File, loc.Line, loc.Function, want, strings.Join(stack, "\n"))
	}
}

// TestUnwindErrorFrame: strace -k ends a stack it could not unwind with
// a note in place of a frame. Under a release Chromium 9,887 of the
// stacks of a run end so (strace 6.1 with libunwind); check warned
// "no source line ... expected "(SYMBOL+0xOFF)" after the module" for
// each finding whose stack did, 33 times in one run. Such a stack has
// no frame of the program's own: no location, and no error.
func TestUnwindErrorFrame(t *testing.T) {
	// Cut from strace -f -k -y of chromium-headless-shell (a write of
	// LevelDB's LOG, in a thread of the browser process).
	stack := []string{
		" > /usr/lib/x86_64-linux-gnu/libc.so.6(__write+0x4f) [0xfc4ff]",
		" > /usr/lib/chromium/chromium-headless-shell(v8::base::OS::GetLastError()+0x81eba) [0x748782a]",
		" > /usr/lib/x86_64-linux-gnu/libc.so.6(pthread_condattr_setpshared+0x515) [0x891f5]",
		" > unexpected_backtracing_error [0x12f80005c0b0]",
	}
	loc, ok, err := NewResolver().Locate(stack)
	if err != nil || ok {
		t.Errorf("Locate = %v, %v, %v; want no location and no error", loc, ok, err)
	}
	for _, s := range []string{" > unexpected_backtracing_error [0xffffffff]", "> backtracing_error [0x2]", "unexpected_backtracing_error"} {
		if !unwindError(s) {
			t.Errorf("unwindError(%q) = false, want true", s)
		}
	}
	for _, s := range []string{" > /tmp/save(main+0x1) [0x1169]", " > my_error [0x1]x", " > /tmp/io_error() [0x1]", ""} {
		if unwindError(s) {
			t.Errorf("unwindError(%q) = true, want false", s)
		}
	}
	// The vDSO as strace's libunwind names it is the kernel's, not the
	// program's: passed over like libc, not opened as a file.
	loc, ok, err = NewResolver().Locate([]string{" > [vdso]() [0xc01]", " > unexpected_backtracing_error [0x7]"})
	if err != nil || ok {
		t.Errorf("Locate past [vdso] = %v, %v, %v; want no location and no error", loc, ok, err)
	}
}
