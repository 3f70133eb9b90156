// Package doctor works out, for the machine crashsim runs on, what works
// and what does not: strace and the features of it crashsim uses,
// privileges, loop devices, FUSE, the mkfs tools, and what the tests use
// (Go, a C compiler, Python, a headless Chromium). Each Item says what it
// enables and how to get it, so that a first run does not end in a
// surprise halfway through.
//
// It only looks: it runs `strace -V` and `python3 --version`, reads
// /proc/self/status and stats device files, and changes nothing.
package doctor

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Item is one thing crashsim or its tests can use.
type Item struct {
	Name    string // what it is: "strace", "strace -k (stacks)"
	OK      bool   // whether this machine has it
	Have    string // what was found: a version, a path; "" when nothing
	Enables string // what it is needed for
	Fix     string // how to get it, when missing
}

// Env is how the machine is looked at; the zero value of a field is the
// real machine's (see System).
type Env struct {
	LookPath func(name string) (string, error)
	// Output runs a program and returns its stdout.
	Output func(name string, args ...string) (string, error)
	// Exists says whether a path exists.
	Exists func(path string) bool
	// Status is the text of /proc/self/status.
	Status func() (string, error)
	// Memory is the limit crashsim gave Go's collector, nil when
	// nothing says (a test's machine leaves it out).
	Memory func() MemoryLimit
	// Leftovers lists what crashsim runs killed with their watchdog left
	// (a directory or cgroup, and the pid of the run), nil when nothing
	// says.
	Leftovers func() []string
}

// MemoryLimit is the heap limit crashsim set for Go's collector and where
// it came from.
type MemoryLimit struct {
	Limit int64  // bytes; 0 when no limit is set
	Of    int64  // the memory the limit is a share of; 0 when From names no share
	From  string // "the cgroup's limit", "the machine's memory", "GOMEMLIMIT", "AUTOMEMLIMIT=off"
}

// Check looks at the machine through env.
func Check(env Env) []Item {
	var items []Item
	add := func(it Item) { items = append(items, it) }

	strace, err := env.LookPath("strace")
	straceV := ""
	if err == nil {
		straceV, _ = env.Output(strace, "-V")
	}
	version, vok := straceVersion(straceV)
	switch {
	case err != nil:
		add(Item{Name: "strace", Enables: "crashsim trace, explore -- PROGRAM and the oracle run programs under it (check, states and explore of a saved trace need nothing)", Fix: "apt-get install strace (any 4.17 or later; 5.3 or later for the best recordings)"})
	default:
		have := strace
		if vok {
			have = fmt.Sprintf("%s, version %d.%d", strace, version[0], version[1])
		}
		add(Item{Name: "strace", OK: true, Have: have, Enables: "crashsim trace, explore -- PROGRAM and the oracle run programs under it"})
		stack := regexp.MustCompile(`stack-trace=(\S+)`).FindStringSubmatch(straceV)
		it := Item{Name: "strace -k (stacks)", Enables: "trace --stack: findings name the line of your program that made the call", Fix: "an strace built with libunwind or libdw (Debian's and Ubuntu's are)"}
		if stack != nil {
			it.OK, it.Have = true, stack[1]
		}
		add(it)
		add(since(version, vok, 5, 3, Item{Name: "strace --seccomp-bpf", Enables: "explore -- PROGRAM and the oracle stop the program only at the calls they record: faster", Fix: "strace 5.3 or later"}))
		add(since(version, vok, 6, 6, Item{Name: "strace --kill-on-exit", Enables: "the traced program dies with strace even if crashsim's own keeper cannot act (the keeper ends it either way)", Fix: "strace 6.6 or later"}))
	}

	admin, why := capSysAdmin(env)
	add(Item{Name: "CAP_SYS_ADMIN (root)", OK: admin, Have: why, Enables: "explore jails each checker (read-only mounts, no capabilities); the oracle mounts filesystem images, and as root go test ./... runs its tests, which attach loop devices and mount images (and undo both). trace and check never need it", Fix: "run as root (sudo), or in a container with CAP_SYS_ADMIN"})
	loop := env.Exists("/dev/loop-control")
	add(Item{Name: "loop devices", OK: loop, Have: have(loop, "/dev/loop-control"), Enables: "crashsim oracle: a filesystem image on a loop device", Fix: "modprobe loop, or give the container /dev/loop-control and /dev/loop*"})
	fuse := env.Exists("/dev/fuse")
	add(Item{Name: "FUSE", OK: fuse, Have: have(fuse, "/dev/fuse"), Enables: "crashsim oracle --blocks: the block writes of each crash point", Fix: "modprobe fuse, or give the container /dev/fuse"})
	for _, fs := range []struct{ name, pkg string }{{"ext4", "e2fsprogs"}, {"xfs", "xfsprogs"}, {"btrfs", "btrfs-progs"}} {
		add(program(env, "mkfs."+fs.name, Item{Name: "mkfs." + fs.name, Enables: "crashsim oracle --fs " + fs.name, Fix: "apt-get install " + fs.pkg}))
	}

	add(program(env, "go", Item{Name: "go", Enables: "building crashsim and go test ./...", Fix: "Go 1.26 or later from https://go.dev/dl/"}))
	add(program(env, "cc", Item{Name: "cc", Enables: "tests of trace --stack on C programs", Fix: "apt-get install gcc"}))
	py := program(env, "python3", Item{Name: "python3", Enables: "the Python fixtures and tests, and trace --stack of Python programs (the f.write line from Python 3.12)", Fix: "apt-get install python3"})
	if py.OK {
		if out, err := env.Output(py.Have, "--version"); err == nil {
			py.Have += ", " + strings.TrimSpace(out)
		}
	}
	add(py)
	browser := Item{Name: "headless Chromium", Enables: "the HTML report's browser tests (go test ./cmd/crashsim -run TestHTML); the report itself needs no browser to be written", Fix: "apt-get install chromium-headless-shell (or chromium)"}
	for _, name := range []string{"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := env.LookPath(name); err == nil {
			browser.OK, browser.Have = true, p
			break
		}
	}
	add(browser)
	if env.Memory != nil {
		add(memoryItem(env.Memory()))
	}
	if env.Leftovers != nil {
		left := env.Leftovers()
		it := Item{Name: "nothing left by killed crashsim runs", OK: len(left) == 0, Have: strings.Join(left, ", "),
			Enables: "a run killed together with its watchdog (kill -9 of every crashsim process, the OOM killer) leaves its directories, the oracle's mounts and loop devices in them, and its cgroups; this user's are listed here",
			Fix:     "the next crashsim explore, or crashsim oracle for the oracle's, removes them and says so"}
		if it.OK {
			it.Have = "none found"
		}
		add(it)
	}
	return items
}

// memoryItem says how much heap the collector aims to keep under.
func memoryItem(m MemoryLimit) Item {
	it := Item{Name: "a memory limit for Go's collector", Enables: "a trace whose state is mostly live (millions of unsynced files) gets the memory it needs instead of the kernel killing crashsim at half of it (docs/ci.md)",
		Fix: "unset AUTOMEMLIMIT (crashsim then takes 80% of its cgroup's limit, else of the machine's memory), or set GOMEMLIMIT"}
	switch {
	case m.Limit <= 0:
		it.Have = m.From
	case m.Of > 0:
		it.OK, it.Have = true, fmt.Sprintf("%s, %.0f%% of %s (%s)", gib(m.Limit), 100*float64(m.Limit)/float64(m.Of), m.From, gib(m.Of))
	default:
		it.OK, it.Have = true, fmt.Sprintf("%s, from %s", gib(m.Limit), m.From)
	}
	return it
}

// gib writes n bytes in GiB (MiB below one).
func gib(n int64) string {
	if n < 1<<30 {
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// since marks it OK when the strace version is at least major.minor.
func since(v [2]int, known bool, major, minor int, it Item) Item {
	if !known {
		it.Have = "strace's version is unknown"
		return it
	}
	it.OK = v[0] > major || v[0] == major && v[1] >= minor
	it.Have = fmt.Sprintf("strace %d.%d", v[0], v[1])
	return it
}

// program marks it OK when name is in $PATH.
func program(env Env, name string, it Item) Item {
	if p, err := env.LookPath(name); err == nil {
		it.OK, it.Have = true, p
	}
	return it
}

func have(ok bool, what string) string {
	if ok {
		return what
	}
	return ""
}

var versionRx = regexp.MustCompile(`(?m)^strace -- version (\d+)\.(\d+)`)

// straceVersion reads the first line of `strace -V`.
func straceVersion(out string) ([2]int, bool) {
	m := versionRx.FindStringSubmatch(out)
	if m == nil {
		return [2]int{}, false
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	return [2]int{major, minor}, true
}

// capSysAdminBit is CAP_SYS_ADMIN's bit in /proc/PID/status's CapEff.
const capSysAdminBit = 21

// capSysAdmin says whether this process holds CAP_SYS_ADMIN.
func capSysAdmin(env Env) (bool, string) {
	status, err := env.Status()
	if err != nil {
		return false, ""
	}
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err == nil && caps&(1<<capSysAdminBit) != 0 {
				return true, "held"
			}
			return false, ""
		}
	}
	return false, ""
}

// Write prints items as crashsim doctor shows them: a heading, then per
// item yes or no, what was found, what it is for and, when missing, how
// to get it.
func Write(w io.Writer, items []Item) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "crashsim doctor: what this machine has, and what each thing is for")
	for _, it := range items {
		mark := "no "
		if it.OK {
			mark = "yes"
		}
		fmt.Fprintf(bw, "\n%s  %s", mark, it.Name)
		if it.Have != "" {
			fmt.Fprintf(bw, ": %s", it.Have)
		}
		fmt.Fprintf(bw, "\n     for: %s\n", it.Enables)
		if !it.OK && it.Fix != "" {
			fmt.Fprintf(bw, "     to get it: %s\n", it.Fix)
		}
	}
	return bw.Flush()
}
