package check

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// genTrace writes a random trace made of the model's own operations on a
// small tree below /w: mkdir, create (O_CREAT, O_EXCL or O_TRUNC), write,
// pwrite, ftruncate, fallocate, fsync and fdatasync of files, fsync of
// directories, rename of files and directories, link, unlink, rmdir and
// sync. It keeps a little tree of its own so that every call succeeds,
// and annotates fds and AT_FDCWD as strace -y does. next supplies the
// random choices (a rand source, or a fuzzer's bytes).
func genTrace(next func(n int) int, steps int) string {
	type node struct {
		dir  bool
		size int64
	}
	tree := map[string]*node{"/w": {dir: true}}
	fds := map[int]string{}
	var b strings.Builder
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, "1 "+format+"\n", args...)
	}
	paths := func(dir bool) []string {
		var out []string
		for p, n := range tree {
			if n.dir == dir && p != "/w" {
				out = append(out, p)
			}
		}
		sort.Strings(out)
		return out
	}
	dirs := func() []string { return append([]string{"/w"}, paths(true)...) }
	pick := func(list []string) string { return list[next(len(list))] }
	names := []string{"a", "b", "c"}
	fresh := func() (string, bool) {
		d := pick(dirs())
		p := d + "/" + names[next(len(names))]
		_, taken := tree[p]
		return p, !taken
	}
	openFD := func(p string) int {
		for fd := 3; ; fd++ {
			if _, used := fds[fd]; !used {
				fds[fd] = p
				return fd
			}
		}
	}
	// Names below a moved or removed directory go with it.
	move := func(from, to string) {
		for p, n := range tree {
			if p == from || strings.HasPrefix(p, from+"/") {
				delete(tree, p)
				tree[to+strings.TrimPrefix(p, from)] = n
			}
		}
		for fd, p := range fds {
			if p == from || strings.HasPrefix(p, from+"/") {
				fds[fd] = to + strings.TrimPrefix(p, from)
			}
		}
	}
	empty := func(d string) bool {
		for p := range tree {
			if strings.HasPrefix(p, d+"/") {
				return false
			}
		}
		return true
	}
	openFile := func() (int, string, bool) {
		var open []int
		for fd, p := range fds {
			if n := tree[p]; n != nil && !n.dir {
				open = append(open, fd)
			}
		}
		if len(open) == 0 {
			return 0, "", false
		}
		sort.Ints(open)
		fd := open[next(len(open))]
		return fd, fds[fd], true
	}
	for range steps {
		switch next(14) {
		case 0: // mkdir
			if p, ok := fresh(); ok {
				line(`mkdir("%s", 0777) = 0`, p)
				tree[p] = &node{dir: true}
			}
		case 1, 2: // create or truncate-open
			p, ok := fresh()
			flags := "O_WRONLY|O_CREAT|O_EXCL"
			if !ok {
				if tree[p].dir {
					continue
				}
				flags = "O_WRONLY|O_CREAT|O_TRUNC"
			} else if next(2) == 0 {
				flags = "O_WRONLY|O_CREAT|O_TRUNC"
			}
			fd := openFD(p)
			line(`openat(AT_FDCWD</w>, "%s", %s, 0644) = %d<%s>`, p, flags, fd, p)
			if ok {
				tree[p] = &node{}
			}
			tree[p].size = 0
		case 3, 4: // write at the offset (fresh fds start at 0)
			if fd, p, ok := openFile(); ok {
				n := int64(1 + next(3)*4096)
				line(`pwrite64(%d<%s>, "%s", %d, %d) = %d`, fd, p, strings.Repeat("x", 8), n, tree[p].size, n)
				tree[p].size += n
			}
		case 5: // ftruncate or fallocate
			if fd, p, ok := openFile(); ok {
				n := int64(next(3) * 4096)
				if next(2) == 0 {
					line(`ftruncate(%d<%s>, %d) = 0`, fd, p, n)
					tree[p].size = n
				} else {
					line(`fallocate(%d<%s>, 0, 0, %d) = 0`, fd, p, n+4096)
					tree[p].size = max(tree[p].size, n+4096)
				}
			}
		case 6: // fsync or fdatasync of a file
			if fd, p, ok := openFile(); ok {
				call := "fsync"
				if next(2) == 0 {
					call = "fdatasync"
				}
				line(`%s(%d<%s>) = 0`, call, fd, p)
			}
		case 7: // fsync of a directory
			d := pick(dirs())
			fd := openFD(d)
			line(`openat(AT_FDCWD</w>, "%s", O_RDONLY|O_DIRECTORY) = %d<%s>`, d, fd, d)
			line(`fsync(%d<%s>) = 0`, fd, d)
			line(`close(%d<%s>) = 0`, fd, d)
			delete(fds, fd)
		case 8: // rename a file over a new or existing file
			files := paths(false)
			if len(files) == 0 {
				continue
			}
			from := pick(files)
			to, ok := fresh()
			if !ok && (tree[to].dir || to == from) {
				continue
			}
			line(`rename("%s", "%s") = 0`, from, to)
			delete(tree, to)
			move(from, to)
		case 9: // rename a directory to a new name or over an empty one
			ds := paths(true)
			if len(ds) == 0 {
				continue
			}
			from := pick(ds)
			to, ok := fresh()
			if to == from || strings.HasPrefix(to, from+"/") || !ok && (!tree[to].dir || !empty(to)) {
				continue
			}
			line(`rename("%s", "%s") = 0`, from, to)
			delete(tree, to)
			move(from, to)
		case 10: // link
			files := paths(false)
			if to, ok := fresh(); ok && len(files) > 0 {
				from := pick(files)
				line(`link("%s", "%s") = 0`, from, to)
				tree[to] = tree[from]
			}
		case 11: // unlink
			if files := paths(false); len(files) > 0 {
				p := pick(files)
				line(`unlink("%s") = 0`, p)
				delete(tree, p)
			}
		case 12: // rmdir
			if ds := paths(true); len(ds) > 0 {
				if d := pick(ds); empty(d) {
					line(`rmdir("%s") = 0`, d)
					delete(tree, d)
				}
			}
		case 13: // sync, rarely
			if next(4) == 0 {
				line(`sync() = 0`)
			}
		}
	}
	return b.String()
}

func readEventsFrom(t testing.TB, trace string) []*parser.Event {
	if trace == "" {
		return nil
	}
	evs, err := eventsOf(parser.NewReader(strings.NewReader(trace), "random.strace", parser.Options{}))
	if err != nil {
		t.Fatalf("%v\n%s", err, trace)
	}
	return evs
}

var randomOpts = Options{Roots: []string{"/w"}}

// minimise drops lines from a failing trace while it still fails.
func minimise(t testing.TB, trace string) string {
	lines := strings.SplitAfter(strings.TrimSuffix(trace, "\n"), "\n")
	fails := func(ls []string) bool {
		return len(refinementErrors(readEventsFrom(t, strings.Join(ls, "")), randomOpts)) > 0
	}
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(lines); i++ {
			try := append(append([]string{}, lines[:i]...), lines[i+1:]...)
			if fails(try) {
				lines, changed = try, true
				i--
			}
		}
	}
	return strings.Join(lines, "")
}

func checkRandom(t testing.TB, trace string) {
	if errs := refinementErrors(readEventsFrom(t, trace), randomOpts); len(errs) > 0 {
		small := minimise(t, trace)
		t.Fatalf("a model does not refine posix:\n%s\nminimal trace (keep it in testdata/refine/):\n%s", strings.Join(refinementErrors(readEventsFrom(t, small), randomOpts), "\n"), small)
	}
}

// TestRandomTracesRefinePosix is the bounded version of FuzzRefinement.
func TestRandomTracesRefinePosix(t *testing.T) {
	seededTraces(300, 50, 20, func(_ int, trace string) { checkRandom(t, trace) })
}

// seededTraces calls f with genTrace's traces of seeds 0 to n-1 (short
// with -short), each of 4 steps plus up to extra-1 more, the seed
// choosing.
func seededTraces(n, short, extra int, f func(seed int, trace string)) {
	if testing.Short() {
		n = short
	}
	for seed := range n {
		rng := rand.New(rand.NewSource(int64(seed)))
		f(seed, genTrace(rng.Intn, 4+rng.Intn(extra)))
	}
}

// TestRefinementCounterexamples replays the minimal traces the property
// tests found, kept in testdata/refine.
func TestRefinementCounterexamples(t *testing.T) {
	files, _ := filepath.Glob("testdata/refine/*.strace")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(f), func(t *testing.T) { checkRandom(t, string(b)) })
	}
}

// FuzzRefinement checks the refinement property on traces the fuzzer's
// bytes choose: go test ./check -fuzz FuzzRefinement.
func FuzzRefinement(f *testing.F) {
	f.Add([]byte{0, 1, 3, 7, 8, 6, 9, 11})
	f.Add([]byte{0, 0, 1, 4, 9, 1, 7, 2, 10, 11, 12})
	f.Fuzz(func(t *testing.T, b []byte) {
		if trace, ok := traceOfBytes(b); ok {
			checkRandom(t, trace)
		}
	})
}

// traceOfBytes is genTrace with the fuzzer's bytes for its choices, one
// step per two bytes; false past 120 bytes (a longer trace finds nothing
// a shorter one does not, slower).
func traceOfBytes(b []byte) (string, bool) {
	if len(b) > 120 {
		return "", false
	}
	i := 0
	next := func(n int) int {
		if i >= len(b) {
			return 0
		}
		i++
		return int(b[i-1]) % n
	}
	return genTrace(next, len(b)/2), true
}
