package syscalls

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// The kernel's uapi headers of each architecture, as Debian ships them
// (linux-libc-dev for the host's, linux-libc-dev-ARCH-cross for others),
// and the compiler flags that read them as that architecture would.
var headerSets = []struct {
	arch  Arch
	flags []string
	dir   string // must exist
}{
	{AMD64, []string{"-m64", "-I/usr/include/x86_64-linux-gnu", "-I/usr/include"}, "/usr/include/x86_64-linux-gnu/asm"},
	{I386, []string{"-m32", "-I/usr/i686-linux-gnu/include"}, "/usr/i686-linux-gnu/include/asm"},
	{ARM64, []string{"-I/usr/aarch64-linux-gnu/include"}, "/usr/aarch64-linux-gnu/include/asm"},
}

// headerFiles define every name in the flag tables.
var headerFiles = []string{"linux/fcntl.h", "linux/fs.h", "linux/falloc.h", "asm/mman.h", "linux/mman.h", "linux/sched.h", "linux/close_range.h", "asm/signal.h"}

// notInHeaders are names of the tables that strace or glibc use but the
// kernel's uapi headers do not define.
var notInHeaders = map[string]bool{
	"O_RSYNC":  true, // glibc's, = O_SYNC
	"O_ASYNC":  true, // glibc's name for FASYNC
	"MAP_ANON": true, // glibc's alias of MAP_ANONYMOUS
}

// TestTablesMatchKernelHeaders reads every name of every flag table out
// of the kernel's uapi headers of amd64, i386 and arm64 with the C
// preprocessor, and compares it with the table's value on that
// architecture: a name the headers leave out must be Absent there.
func TestTablesMatchKernelHeaders(t *testing.T) {
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc is not installed: it reads the kernel headers")
	}
	var names []string
	for _, tab := range flagTables {
		for _, f := range tab.Flags() {
			names = append(names, f.Name)
		}
	}
	names = append(names, "AT_FDCWD")
	for _, hs := range headerSets {
		if _, err := os.Stat(hs.dir); err != nil {
			t.Skipf("no %s: apt-get install linux-libc-dev linux-libc-dev-i386-cross linux-libc-dev-arm64-cross", hs.dir)
		}
		vals, err := preprocess(cc, hs.flags, headerFiles, names)
		if err != nil {
			t.Fatalf("%s: %v", hs.arch, err)
		}
		checked := 0
		for _, tab := range flagTables {
			for _, f := range tab.Flags() {
				want := f.on(hs.arch)
				got, defined := vals[f.Name]
				switch {
				case !defined && want != Absent && !notInHeaders[f.Name]:
					t.Errorf("%s: %s %s = %#x in the table, but the headers do not define it", hs.arch, tab.Name(), f.Name, want)
				case defined && want == Absent:
					t.Errorf("%s: %s %s is Absent in the table, but the headers define it as %#x", hs.arch, tab.Name(), f.Name, got)
				case defined && got != want:
					t.Errorf("%s: %s %s = %#x in the table, %#x in the headers", hs.arch, tab.Name(), f.Name, want, got)
				case defined:
					checked++
				}
			}
		}
		if v := vals["AT_FDCWD"]; int64(v) != AT_FDCWD {
			t.Errorf("%s: AT_FDCWD = %d in the headers", hs.arch, int64(v))
		}
		if checked < 100 {
			t.Errorf("%s: only %d names checked against the headers", hs.arch, checked)
		}
	}
}

// TestNumbersMatchKernelHeaders reads the number of every call whose
// effect a verdict needs out of asm/unistd.h of amd64, i386 and arm64,
// and compares the number tables with it both ways: each number there is
// the call's, and each such call the architecture has is there.
func TestNumbersMatchKernelHeaders(t *testing.T) {
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc is not installed: it reads the kernel headers")
	}
	var names []string
	for _, c := range Calls() {
		if c.Effect().NeedsEffect() {
			names = append(names, "__NR_"+c.Name())
		}
	}
	for _, hs := range headerSets {
		if _, err := os.Stat(hs.dir); err != nil {
			t.Skipf("no %s: apt-get install linux-libc-dev linux-libc-dev-i386-cross linux-libc-dev-arm64-cross", hs.dir)
		}
		vals, err := preprocess(cc, hs.flags, []string{"asm/unistd.h"}, names)
		if err != nil {
			t.Fatalf("%s: %v", hs.arch, err)
		}
		for _, n := range names {
			name := strings.TrimPrefix(n, "__NR_")
			nr, defined := vals[n]
			if !defined {
				for k, v := range numbers[hs.arch] {
					if v == name {
						t.Errorf("%s: %s is number %d in the table, but the headers do not define it", hs.arch, name, k)
					}
				}
				continue
			}
			if got := numbers[hs.arch][nr]; got != name {
				t.Errorf("%s: %s is number %d in the headers, the table has %q there", hs.arch, name, nr, got)
			}
			for _, form := range []string{fmt.Sprintf("syscall_%d", nr), fmt.Sprintf("syscall_%#x", nr)} {
				if c, ok := ByNumber(form, hs.arch); !ok || c.Name() != name {
					t.Errorf("%s: ByNumber(%q) = %v, %v; want %s", hs.arch, form, c.Name(), ok, name)
				}
			}
		}
		if len(vals) < 20 {
			t.Errorf("%s: only %d numbers found in the headers", hs.arch, len(vals))
		}
	}
}

// preprocess expands each name with the C preprocessor after including
// headers, and evaluates what it expands to. A name that expands to
// itself is not defined.
func preprocess(cc string, flags, headers, names []string) (map[string]uint64, error) {
	var src bytes.Buffer
	for _, h := range headers {
		fmt.Fprintf(&src, "#include <%s>\n", h)
	}
	for _, n := range names {
		fmt.Fprintf(&src, "@@ %q @@ %s @@\n", n, n) // the quoted name is not expanded
	}
	args := append([]string{"-E", "-P", "-nostdinc", "-x", "c"}, flags...)
	cmd := exec.Command(cc, append(args, "-")...)
	cmd.Stdin = &src
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v: %s", cc, strings.Join(args, " "), err, stderr.String())
	}
	vals := map[string]uint64{}
	for _, line := range strings.Split(string(out), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "@@ ")
		if !ok {
			continue
		}
		quoted, expr, ok := strings.Cut(rest, " @@ ")
		if !ok {
			continue
		}
		name, err := strconv.Unquote(quoted)
		if err != nil {
			continue
		}
		expr = strings.TrimSuffix(strings.TrimSpace(expr), "@@")
		expr = strings.TrimSpace(expr)
		if expr == name {
			continue
		}
		v, err := evalC(expr)
		if err != nil {
			return nil, fmt.Errorf("%s expands to %q: %v", name, expr, err)
		}
		vals[name] = v
	}
	return vals, nil
}

// evalC evaluates the integer constant expressions the uapi headers use:
// numbers with U and L suffixes, casts to a type name, unary - and ~, and
// binary +, -, <<, >>, &, ^, |.
func evalC(s string) (uint64, error) {
	p := &cParser{toks: cTokens(s)}
	v, err := p.binary(0)
	if err == nil && p.i < len(p.toks) {
		err = fmt.Errorf("unexpected %q", p.toks[p.i])
	}
	return v, err
}

type cParser struct {
	toks []string
	i    int
}

func cTokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '<' || c == '>':
			out = append(out, s[i:i+2])
			i += 2
		case isCWord(c):
			j := i
			for j < len(s) && isCWord(s[j]) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		default:
			out = append(out, s[i:i+1])
			i++
		}
	}
	return out
}

func isCWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

var cPrec = map[string]int{"|": 1, "^": 2, "&": 3, "<<": 4, ">>": 4, "+": 5, "-": 5}

func (p *cParser) binary(min int) (uint64, error) {
	l, err := p.unary()
	if err != nil {
		return 0, err
	}
	for p.i < len(p.toks) {
		op := p.toks[p.i]
		prec, ok := cPrec[op]
		if !ok || prec <= min {
			break
		}
		p.i++
		r, err := p.binary(prec)
		if err != nil {
			return 0, err
		}
		switch op {
		case "|":
			l |= r
		case "^":
			l ^= r
		case "&":
			l &= r
		case "<<":
			l <<= r
		case ">>":
			l >>= r
		case "+":
			l += r
		case "-":
			l -= r
		}
	}
	return l, nil
}

func (p *cParser) unary() (uint64, error) {
	if p.i >= len(p.toks) {
		return 0, fmt.Errorf("expression ends early")
	}
	switch t := p.toks[p.i]; {
	case t == "-":
		p.i++
		v, err := p.unary()
		return -v, err
	case t == "~":
		p.i++
		v, err := p.unary()
		return ^v, err
	case t == "(":
		// A cast, "(__force __kernel_rwf_t)", is a list of type words.
		j := p.i + 1
		for j < len(p.toks) && isCWord(p.toks[j][0]) && (p.toks[j][0] < '0' || p.toks[j][0] > '9') {
			j++
		}
		if j > p.i+1 && j < len(p.toks) && p.toks[j] == ")" {
			p.i = j + 1
			return p.unary()
		}
		p.i++
		v, err := p.binary(0)
		if err != nil {
			return 0, err
		}
		if p.i >= len(p.toks) || p.toks[p.i] != ")" {
			return 0, fmt.Errorf("no closing parenthesis")
		}
		p.i++
		return v, nil
	case t[0] >= '0' && t[0] <= '9':
		p.i++
		num := strings.TrimRight(t, "uUlL")
		if len(num) > 1 && num[0] == '0' && num[1] != 'x' && num[1] != 'X' {
			num = "0o" + num[1:]
		}
		v, err := strconv.ParseUint(num, 0, 64)
		return v, err
	default:
		return 0, fmt.Errorf("%q is not a number", t)
	}
}
