package gentrace

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

// FilesOptions shape a many-files trace.
type FilesOptions struct {
	Files   int    // distinct files saved
	PerDir  int    // files per directory (default 1000)
	Seed    uint64 // the same seed gives the same trace
	Threads int    // pids that take turns (default 4)
}

// WriteFiles writes a -f -ttt -T -y trace that saves opt.Files distinct
// files, PerDir to a directory below /tmp/bench: each is created as a temp
// file, written once, fsynced or not (one in two), closed and renamed to
// its final name, with a stat and a read between, as a program's other
// work would put there. Each directory is fsynced after its last rename,
// except one in four. It returns the number of lines written.
func WriteFiles(w io.Writer, opt FilesOptions) (int64, error) {
	if opt.PerDir <= 0 {
		opt.PerDir = 1000
	}
	if opt.Threads <= 0 {
		opt.Threads = 4
	}
	g := &filesGen{w: bufio.NewWriterSize(w, 1<<20), rng: rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15)), ts: 1_795_000_000_000_000}
	g.line(1000, `mkdir("/tmp/bench", 0755) = 0 <0.000020>`)
	for i := 0; i < opt.Files && g.err == nil; i++ {
		pid := 1000 + i%opt.Threads
		d := i / opt.PerDir
		dir := "/tmp/bench/d" + strconv.Itoa(d)
		if i%opt.PerDir == 0 {
			g.line(pid, fmt.Sprintf(`mkdir("%s", 0755) = 0 <0.000011>`, dir))
		}
		tmp := fmt.Sprintf("%s/f%d.tmp", dir, i)
		final := fmt.Sprintf("%s/f%d.json", dir, i)
		fd := 3 + i%opt.Threads
		anno := fmt.Sprintf("%d<%s>", fd, tmp)
		body := fmt.Sprintf("{\"id\": %d, \"pad\": \"%s\"}\n", i, pad[:g.rng.IntN(len(pad))])
		g.line(pid, fmt.Sprintf(`openat(AT_FDCWD</tmp/bench>, "%s", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = %s <0.000016>`, tmp, anno))
		g.line(pid, fmt.Sprintf(`write(%s, %s, %d) = %d <0.000009>`, anno, quote(body), len(body), len(body)))
		g.line(pid, `newfstatat(AT_FDCWD</tmp/bench>, "config.toml", {st_mode=S_IFREG|0644, st_size=812, ...}, 0) = 0 <0.000007>`)
		if i%2 == 0 {
			g.line(pid, fmt.Sprintf(`fsync(%s) = 0 <0.000412>`, anno))
		}
		g.line(pid, fmt.Sprintf(`close(%s) = 0 <0.000006>`, anno))
		g.line(pid, fmt.Sprintf(`rename("%s", "%s") = 0 <0.000014>`, tmp, final))
		g.line(pid, `read(7</usr/share/zoneinfo/UTC>, "TZif2\0\0\0", 8) = 8 <0.000005>`)
		if (i+1)%opt.PerDir == 0 || i+1 == opt.Files {
			if d%4 != 3 {
				g.line(pid, fmt.Sprintf(`openat(AT_FDCWD</tmp/bench>, "%s", O_RDONLY|O_DIRECTORY|O_CLOEXEC) = 9<%s>`, dir, dir))
				g.line(pid, fmt.Sprintf(`fsync(9<%s>) = 0 <0.000380>`, dir))
				g.line(pid, fmt.Sprintf(`close(9<%s>) = 0 <0.000005>`, dir))
			}
		}
	}
	g.line(1000, "exit_group(0) = ?")
	g.line(1000, "+++ exited with 0 +++")
	if err := g.w.Flush(); err != nil && g.err == nil {
		g.err = err
	}
	return g.lines, g.err
}

// quote prints s as strace does without -x: escapes for the quote, the
// backslash and the newline.
func quote(s string) string {
	b := []byte{'"'}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}

var pad = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"

type filesGen struct {
	w     *bufio.Writer
	rng   *rand.Rand
	ts    int64
	lines int64
	err   error
}

func (g *filesGen) line(pid int, text string) {
	g.ts += int64(1 + g.rng.IntN(40))
	if _, err := fmt.Fprintf(g.w, "%d %d.%06d %s\n", pid, g.ts/1e6, g.ts%1e6, text); err != nil && g.err == nil {
		g.err = err
	}
	g.lines++
}
