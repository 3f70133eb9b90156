package crashsim

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/internal/reap"
	"github.com/crashsim/crashsim/internal/replacefile"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"golang.org/x/sys/unix"
)

// MaxListed bounds the entries a listing holds: a directory larger than
// this (a home directory, /) is not listed, and a check then cannot tell a
// file the program created there from one it replaced.
const MaxListed = 100_000

// A Listing is what existed before a program ran, in the format
// model.ReadInitial reads (TRACE.initial): taken before the run, so that a
// check tells the files the program creates from those it replaces
// (strace shows O_CREAT|O_TRUNC either way), and where it started.
type Listing struct {
	Text []byte
	// Listed are the directories listed, TooLarge those left out because
	// they held more than the limit of entries.
	Listed, TooLarge []string
}

// TakeListing lists what exists below dirs, after a "cwd" line when cwd
// is not "", an "arch" line naming this machine's architecture (the
// trace taken with the listing is this machine's: its flags printed as
// numbers are this architecture's), a "scope" line for each of dirs (the
// roots the run is checked with) and an "fd" line for each file the
// program starts with open.
// The directories together hold at most limit entries (0 is no limit):
// one past what is left is not listed.
func TakeListing(dirs []string, cwd string, fds []model.InitialFD, limit int) Listing {
	var buf bytes.Buffer
	var l Listing
	if cwd != "" {
		model.WriteCwd(&buf, cwd)
	}
	if a, err := parser.ParseArch(runtime.GOARCH); err == nil {
		model.WriteArch(&buf, a)
	}
	for _, r := range dirs {
		// The scope of the run, listed or not: a check of the trace
		// given no roots uses it, and agrees with crashsim trace.
		model.WriteScope(&buf, realDir(r))
	}
	for _, f := range fds {
		model.WriteFD(&buf, f)
	}
	budget := limit
	for _, r := range dirs {
		abs := realDir(r)
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			continue
		}
		if limit > 0 && budget <= 0 {
			l.TooLarge = append(l.TooLarge, abs)
			continue
		}
		mark := buf.Len()
		n, err := model.WriteInitialLimit(&buf, abs, budget)
		if err != nil {
			buf.Truncate(mark)
			if errors.Is(err, model.ErrTooManyEntries) {
				l.TooLarge = append(l.TooLarge, abs)
			}
			continue
		}
		if limit > 0 {
			budget -= n
		}
		l.Listed = append(l.Listed, abs)
	}
	// Always kept, even with no directory listed: it also says where the
	// program started, which a trace recorded without -y does not.
	l.Text = buf.Bytes()
	return l
}

// Write writes the listing to name with mode perm: whole or not at all
// (a temp file renamed over the name), but without fsync. It is as
// durable as the trace beside it, which strace does not fsync either, and
// an fsync here would be paid on every run.
func (l Listing) Write(name string, perm fs.FileMode) error {
	return replacefile.Write(name, func(f *os.File) error {
		_, err := f.Write(l.Text)
		return err
	}, replacefile.Options{Perm: perm})
}

// InheritedFiles says which of a program's standard files (in, out, err,
// as fds 0, 1, 2) are regular files, and where and how they are open:
// `crashsim trace -- prog > out.json` has prog write out.json through
// fd 1, which a trace recorded without -y shows only as a number. Pipes,
// terminals and /dev/null are left out.
func InheritedFiles(std ...any) []model.InitialFD {
	var fds []model.InitialFD
	for i, x := range std {
		f, ok := x.(*os.File)
		if !ok {
			continue
		}
		if fd, ok := openFile(i, int(f.Fd())); ok {
			fds = append(fds, fd)
		}
	}
	return fds
}

// PassedFiles is InheritedFiles for the fds above 2 that crashsim's
// caller gave it (`crashsim trace -- prog 3>>app.log`): package tracer
// passes each on to the program at its number, so the program writes
// app.log through fd 3.
func PassedFiles() []model.InitialFD {
	var fds []model.InitialFD
	for _, n := range reap.Inherited() {
		if fd, ok := openFile(n, n); ok {
			fds = append(fds, fd)
		}
	}
	return fds
}

// openFile says where and how crashsim's fd n, the program's fd as, is
// open, when it is a regular file with a name.
func openFile(as, n int) (model.InitialFD, bool) {
	var st unix.Stat_t
	if err := unix.Fstat(n, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return model.InitialFD{}, false
	}
	num := strconv.Itoa(n)
	p, err := os.Readlink("/proc/self/fd/" + num)
	if err != nil || !filepath.IsAbs(p) || strings.HasSuffix(p, " (deleted)") {
		return model.InitialFD{}, false
	}
	info, err := os.ReadFile("/proc/self/fdinfo/" + num)
	if err != nil {
		return model.InitialFD{}, false
	}
	fd := model.InitialFD{FD: as, Path: p}
	for _, line := range strings.Split(string(info), "\n") {
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch k {
		case "pos":
			fd.Offset, _ = strconv.ParseInt(v, 10, 64)
		case "flags":
			fd.Flags, _ = strconv.ParseUint(v, 8, 64)
		}
	}
	return fd, true
}

// CountEntries counts the entries below root (root included), giving up
// past limit: whether a directory is small enough to list or copy.
func CountEntries(root string, limit int) (int, bool) {
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		n++
		if n > limit {
			return fs.SkipAll
		}
		return nil
	})
	return n, err == nil && n <= limit
}
