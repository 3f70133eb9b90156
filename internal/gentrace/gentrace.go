package gentrace

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
)

// Options shape the generated trace.
type Options struct {
	Bytes   int64  // stop once at least this many bytes were written
	Events  int64  // or once this many events were written, when > 0
	Seed    uint64 // the PRNG seed; the same seed gives the same trace
	Threads int    // pids that interleave (default 4)
	MaxData int    // largest write in bytes (default 16384)
	// Unsynced, when set, leaves every write of one file unsynced (the
	// states benchmark's "100k unsynced writes" shape), with Others other
	// events (stats, reads, futex waits) after each write.
	Unsynced bool
	Others   int
}

// Write generates the long shape into w (see the package doc) and returns
// the number of events.
func Write(w io.Writer, opt Options) (int64, error) {
	if opt.Threads <= 0 {
		opt.Threads = 4
	}
	if opt.MaxData <= 0 {
		opt.MaxData = 16384
	}
	g := &gen{w: bufio.NewWriterSize(w, 1<<20), rng: rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15)), opt: opt, ts: 1_795_000_000_000_000}
	for g.n < opt.Bytes && (opt.Events <= 0 || g.events < opt.Events) && g.err == nil {
		if opt.Unsynced {
			g.unsyncedWrite()
		} else {
			g.saveCycle()
		}
	}
	if g.err == nil {
		g.line(1000, "exit_group(0) = ?")
		g.line(1000, "+++ exited with 0 +++")
	}
	if err := g.w.Flush(); err != nil && g.err == nil {
		g.err = err
	}
	return g.events, g.err
}

type gen struct {
	w      *bufio.Writer
	rng    *rand.Rand
	opt    Options
	n      int64
	ts     int64 // microseconds
	events int64
	file   int
	err    error
	hexbuf []byte
}

func (g *gen) line(pid int, text string) {
	g.ts += int64(1 + g.rng.IntN(40))
	n, err := fmt.Fprintf(g.w, "%d %d.%06d %s\n", pid, g.ts/1e6, g.ts%1e6, text)
	g.n += int64(n)
	g.events++
	if err != nil {
		g.err = err
	}
}

// hex renders s the way -xx prints strings and -y annotations.
func (g *gen) hex(s []byte) string {
	const digits = "0123456789abcdef"
	b := g.hexbuf[:0]
	for _, c := range s {
		b = append(b, '\\', 'x', digits[c>>4], digits[c&15])
	}
	g.hexbuf = b
	return string(b)
}

func (g *gen) data(n int) string {
	buf := make([]byte, n)
	for i := range buf {
		buf[i] = byte('a' + g.rng.IntN(26))
	}
	return g.hex(buf)
}

func (g *gen) saveCycle() {
	pid := 1000 + g.rng.IntN(g.opt.Threads)
	other := 1000 + (pid-1000+1)%g.opt.Threads
	g.file++
	dir := "/tmp/bench"
	tmp := fmt.Sprintf("state-%d.json.tmp", g.file)
	final := fmt.Sprintf("state-%d.json", g.file)
	fd := 3 + g.rng.IntN(5)
	anno := g.hex([]byte(dir + "/" + tmp))
	fdA := fmt.Sprintf("%d<%s>", fd, anno)
	cwd := "AT_FDCWD<" + g.hex([]byte(dir)) + ">"
	g.line(pid, fmt.Sprintf(`openat(%s, "%s", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = %s`, cwd, g.hex([]byte(tmp)), fdA))
	g.line(pid, fmt.Sprintf(`newfstatat(%s, "", {st_mode=S_IFREG|0644, st_size=0, ...}, AT_EMPTY_PATH) = 0`, fdA))
	for k := 1 + g.rng.IntN(4); k > 0; k-- {
		n := 16 + g.rng.IntN(g.opt.MaxData)
		if g.rng.IntN(3) == 0 {
			// A write that blocks while another thread runs.
			g.line(pid, fmt.Sprintf(`write(%s, "%s", %d <unfinished ...>`, fdA, g.data(n), n))
			g.line(other, "futex(0x7f3a2c0010a8, FUTEX_WAKE_PRIVATE, 1) = 1")
			g.line(pid, fmt.Sprintf(`<... write resumed>) = %d`, n))
		} else {
			g.line(pid, fmt.Sprintf(`write(%s, "%s", %d) = %d`, fdA, g.data(n), n, n))
		}
	}
	g.line(other, fmt.Sprintf(`read(%d<%s>, 0x7ffd3c1a2b40, 4096) = 4096`, 20, g.hex([]byte("/usr/share/zoneinfo/UTC"))))
	g.line(pid, fmt.Sprintf(`fsync(%s) = 0`, fdA))
	g.line(pid, fmt.Sprintf(`close(%s) = 0`, fdA))
	g.line(pid, fmt.Sprintf(`rename("%s", "%s") = 0`, g.hex([]byte(tmp)), g.hex([]byte(final))))
	g.line(other, "mmap(NULL, 262144, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f3a2bf00000")
	g.line(other, fmt.Sprintf(`futex(0x7f3a2c0010a8, FUTEX_WAIT_PRIVATE, 0, NULL <unfinished ...>`))
	g.line(pid, fmt.Sprintf(`openat(%s, "%s", O_RDONLY|O_CLOEXEC) = 9<%s>`, cwd, g.hex([]byte(".")), g.hex([]byte(dir))))
	g.line(pid, fmt.Sprintf(`fsync(9<%s>) = 0`, g.hex([]byte(dir))))
	g.line(pid, fmt.Sprintf(`close(9<%s>) = 0`, g.hex([]byte(dir))))
	g.line(other, "<... futex resumed>) = 0")
	g.line(pid, "--- SIGURG {si_signo=SIGURG, si_code=SI_TKILL, si_pid=1000, si_uid=0} ---")
}

// unsyncedWrite appends to one file and never syncs it.
func (g *gen) unsyncedWrite() {
	if g.events == 0 {
		g.line(1000, fmt.Sprintf(`openat(AT_FDCWD<%s>, "%s", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 3<%s>`, g.hex([]byte("/tmp/bench")), g.hex([]byte("log.bin")), g.hex([]byte("/tmp/bench/log.bin"))))
	}
	n := 1 + g.rng.IntN(g.opt.MaxData)
	g.line(1000, fmt.Sprintf(`write(3<%s>, "%s", %d) = %d`, g.hex([]byte("/tmp/bench/log.bin")), g.data(n), n, n))
	for k := 0; k < g.opt.Others; k++ {
		switch k % 3 {
		case 0:
			g.line(1000, fmt.Sprintf(`newfstatat(AT_FDCWD<%s>, "%s", {st_mode=S_IFREG|0644, st_size=%d, ...}, 0) = 0`, g.hex([]byte("/tmp/bench")), g.hex([]byte("other.txt")), n))
		case 1:
			g.line(1001, fmt.Sprintf(`read(4<%s>, 0x7ffd3c1a2b40, 4096) = 4096`, g.hex([]byte("/usr/share/zoneinfo/UTC"))))
		default:
			g.line(1001, "futex(0x7f3a2c0010a8, FUTEX_WAKE_PRIVATE, 1) = 1")
		}
	}
}
