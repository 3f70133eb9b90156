package model

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/parser"
)

// Listing is what existed before a trace began: a listing of the files and
// directories below some roots, taken before the program ran. Within a
// root, a path not listed did not exist; outside every root, the listing
// says nothing.
//
// The text form is line based: "root DIR" lines, "scope DIR" lines (the
// roots crashsim trace checked the run with, so that a later check of the
// trace has the same scope), an optional "cwd DIR"
// line (where the traced command started), an optional "arch ARCH" line
// (the machine's architecture: amd64, arm64 or 386), "fd N OFFSET FLAGS
// PATH" lines (files the command was started with open, FLAGS in octal
// as in /proc/PID/fdinfo, which are that architecture's values), then one
// path per line (Go-quoted when it holds a newline or starts with a
// quote), or "size N PATH" for a regular file of N bytes (crashsim trace
// writes its files so, which tells the model their sizes as a stat
// would); '#' starts a comment. `find DIR` output after a "root DIR" line
// is a valid listing.
type Listing struct {
	roots []string
	paths map[string]bool
	sizes map[string]int64 // of the regular files listed with "size" lines
	// Scope are the roots the run was checked with when it was recorded,
	// from "scope DIR" lines (crashsim trace writes one per root): a
	// check given no roots of its own uses them. Unlike the "root" lines
	// they say nothing of what existed (a root too large to list has a
	// scope line and no root line).
	Scope []string
	// Cwd is the directory the traced command started in, from a
	// "cwd DIR" line (crashsim trace writes one), or "".
	Cwd string
	// Arch is the architecture of the machine the trace was recorded on,
	// from an "arch ARCH" line (crashsim trace writes one), or Unknown.
	Arch parser.Arch
	// FDs are the regular files the traced command was started with open
	// (its stdout redirected to a file, say), from "fd" lines; their flags
	// are in crashsim's bits (the listing's Arch read).
	FDs []InitialFD
}

// InitialFD is a file the first traced process holds open when the trace
// begins. A trace recorded with -y names it at every use; one recorded
// without -y (crashsim trace) shows only its number.
type InitialFD struct {
	FD     int
	Offset int64
	Flags  uint64 // open flags: O_APPEND, O_DIRECT, O_SYNC, ... matter
	Path   string // absolute
}

// WriteFD writes the "fd" line of a listing for f.
func WriteFD(w io.Writer, f InitialFD) error {
	_, err := fmt.Fprintf(w, "fd %d %d %#o %s\n", f.FD, f.Offset, f.Flags, quotePath(filepath.Clean(f.Path)))
	return err
}

// parseFD reads what follows "fd " in a listing line.
func parseFD(t string) (InitialFD, error) {
	var f InitialFD
	fields := strings.SplitN(t, " ", 4)
	if len(fields) != 4 {
		return f, errors.New(`expected "fd N OFFSET FLAGS PATH"`)
	}
	fd, err1 := strconv.Atoi(fields[0])
	off, err2 := strconv.ParseInt(fields[1], 10, 64)
	flags, err3 := strconv.ParseUint(fields[2], 0, 64)
	if errors.Join(err1, err2, err3) != nil || fd < 0 || off < 0 {
		return f, errors.New(`expected "fd N OFFSET FLAGS PATH" with numbers for N, OFFSET and FLAGS`)
	}
	p, err := listedPath(fields[3])
	if err != nil {
		return f, err
	}
	return InitialFD{FD: fd, Offset: off, Flags: flags, Path: p}, nil
}

// listedPath reads a path as a listing writes it (see quotePath): absolute,
// Go-quoted when it must be.
func listedPath(t string) (string, error) {
	if strings.HasPrefix(t, `"`) {
		u, err := strconv.Unquote(t)
		if err != nil {
			return "", errors.New("expected a path or a quoted path")
		}
		t = u
	}
	if !strings.HasPrefix(t, "/") {
		return "", fmt.Errorf("expected an absolute path, found %s", excerpt(t))
	}
	return path.Clean(t), nil
}

// Size answers Options.InitialSize from the listing: the size of regular
// file p before the trace, when a "size" line gave it.
func (in *Listing) Size(p string) (int64, bool) {
	if in == nil {
		return 0, false
	}
	n, ok := in.sizes[path.Clean(p)]
	return n, ok
}

// Existed answers Options.Existed from the listing.
func (in *Listing) Existed(p string) (existed, known bool) {
	if in == nil {
		return false, false
	}
	p = path.Clean(p)
	if in.paths[p] {
		return true, true
	}
	for _, r := range in.roots {
		if p == r || strings.HasPrefix(p, r+"/") {
			return false, true
		}
	}
	return false, false
}

// maxListingLine bounds a listing's line: a path is at most PATH_MAX
// (4096) bytes, four times that when quoted; a longer line means the file
// is not a listing, and reading it whole could take any amount of memory.
const maxListingLine = 64 << 10

// ReadInitial parses a listing. name is used in error messages, which
// give name:line:column and never more than a short excerpt of the line.
func ReadInitial(r io.Reader, name string) (*Listing, error) {
	in := &Listing{paths: map[string]bool{}}
	br := bufio.NewReaderSize(r, maxListingLine)
	line := 0
	for {
		b, err := br.ReadSlice('\n')
		if len(b) == 0 && errors.Is(err, io.EOF) {
			break
		}
		line++
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%s:%d:1: line longer than %d bytes: not a listing of paths (crashsim trace writes TRACE.initial; --initial-list names another)", name, line, maxListingLine)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if i := bytes.IndexByte(b, 0); i >= 0 {
			return nil, fmt.Errorf("%s:%d:%d: a NUL byte: not a listing of paths, which is text (is this the right file?)", name, line, i+1)
		}
		t := strings.TrimSuffix(string(b), "\n")
		if err := in.readLine(t); err != nil {
			return nil, fmt.Errorf("%s:%d:1: %v", name, line, err)
		}
	}
	for i := range in.FDs {
		in.FDs[i].Flags = syscalls.OpenFlags.FromArch(in.FDs[i].Flags, in.Arch)
	}
	return in, nil
}

// readLine reads one line of a listing, without its newline.
func (in *Listing) readLine(t string) error {
	if t == "" || strings.HasPrefix(t, "#") {
		return nil
	}
	if rest, ok := strings.CutPrefix(t, "arch "); ok {
		a, err := syscalls.ParseArch(rest)
		if err != nil {
			return err
		}
		in.Arch = a
		return nil
	}
	if rest, ok := strings.CutPrefix(t, "fd "); ok {
		f, err := parseFD(rest)
		if err != nil {
			return err
		}
		in.FDs = append(in.FDs, f)
		return nil
	}
	if rest, ok := strings.CutPrefix(t, "size "); ok {
		num, p, found := strings.Cut(rest, " ")
		n, err := strconv.ParseInt(num, 10, 64)
		if !found || err != nil || n < 0 {
			return errors.New(`expected "size N PATH", N a size in bytes`)
		}
		p, err = listedPath(p)
		if err != nil {
			return err
		}
		if in.sizes == nil {
			in.sizes = map[string]int64{}
		}
		in.paths[p], in.sizes[p] = true, n
		return nil
	}
	if rest, ok := strings.CutPrefix(t, "scope "); ok {
		dir, err := listedPath(rest)
		if err != nil {
			return err
		}
		in.Scope = append(in.Scope, dir)
		return nil
	}
	isRoot := strings.HasPrefix(t, "root ")
	isCwd := strings.HasPrefix(t, "cwd ")
	if isRoot {
		t = strings.TrimPrefix(t, "root ")
	}
	if isCwd {
		t = strings.TrimPrefix(t, "cwd ")
	}
	t, err := listedPath(t)
	if err != nil {
		return err
	}
	if isCwd {
		in.Cwd = t
		return nil
	}
	if isRoot {
		in.roots = append(in.roots, t)
	}
	in.paths[t] = true
	return nil
}

// excerpt shows the start of a bad line, escaped, in a message.
func excerpt(t string) string {
	const max = 40
	if len(t) > max {
		return strconv.QuoteToASCII(t[:max]) + "..."
	}
	return strconv.QuoteToASCII(t)
}

// WriteCwd writes the "cwd DIR" line of a listing: where the traced
// command started, which a trace recorded without -y does not say.
func WriteCwd(w io.Writer, dir string) error {
	_, err := fmt.Fprintf(w, "cwd %s\n", quotePath(filepath.Clean(dir)))
	return err
}

// WriteScope writes the "scope DIR" line of a listing: a root the run is
// checked with, for a later check of its trace.
func WriteScope(w io.Writer, dir string) error {
	_, err := fmt.Fprintf(w, "scope %s\n", quotePath(filepath.Clean(dir)))
	return err
}

// WriteArch writes the "arch ARCH" line of a listing: the architecture of
// the machine that records the trace, which says what the flags of its
// "fd" lines and any flag the trace prints as a number mean.
func WriteArch(w io.Writer, a parser.Arch) error {
	_, err := fmt.Fprintf(w, "arch %s\n", a)
	return err
}

// WriteInitial lists root (which must be absolute) and everything below
// it, for ReadInitial.
func WriteInitial(w io.Writer, root string) error {
	_, err := WriteInitialLimit(w, root, 0)
	return err
}

// ErrTooManyEntries is returned by WriteInitialLimit for a tree larger
// than its limit.
var ErrTooManyEntries = errors.New("too many entries to list")

// WriteInitialLimit is WriteInitial in one walk that gives up past limit
// entries (root included; 0 is no limit), returning ErrTooManyEntries and
// how many it saw. What it wrote by then is to be thrown away.
func WriteInitialLimit(w io.Writer, root string, limit int) (int, error) {
	root = filepath.Clean(root)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# crashsim: what existed before the trace (see crashsim check --help)\nroot %s\n", quotePath(root))
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		n++
		if limit > 0 && n > limit {
			return ErrTooManyEntries
		}
		if err != nil {
			return nil // an unreadable corner is left out, not fatal
		}
		if p == root {
			return nil
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				fmt.Fprintf(bw, "size %d %s\n", fi.Size(), quotePath(p))
				return nil
			}
		}
		fmt.Fprintln(bw, quotePath(p))
		return nil
	})
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}

func quotePath(p string) string {
	if strings.ContainsAny(p, "\n\r") || strings.HasPrefix(p, `"`) {
		return strconv.Quote(p)
	}
	return p
}
