package model

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Listing is what existed before a trace began: a listing of the files and
// directories below some roots, taken before the program ran. Within a
// root, a path not listed did not exist; outside every root, the listing
// says nothing.
//
// The text form is line based: "root DIR" lines, an optional "cwd DIR"
// line (where the traced command started), then one path per line
// (Go-quoted when it holds a newline or starts with a quote); '#' starts a
// comment. `find DIR` output after a "root DIR" line is a valid listing.
type Listing struct {
	roots []string
	paths map[string]bool
	// Cwd is the directory the traced command started in, from a
	// "cwd DIR" line (crashsim trace writes one), or "".
	Cwd string
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

// ReadInitial parses a listing. name is used in error messages.
func ReadInitial(r io.Reader, name string) (*Listing, error) {
	in := &Listing{paths: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	line := 0
	for sc.Scan() {
		line++
		t := sc.Text()
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		isRoot := strings.HasPrefix(t, "root ")
		isCwd := strings.HasPrefix(t, "cwd ")
		if isRoot {
			t = strings.TrimPrefix(t, "root ")
		}
		if isCwd {
			t = strings.TrimPrefix(t, "cwd ")
		}
		if strings.HasPrefix(t, `"`) {
			u, err := strconv.Unquote(t)
			if err != nil {
				return nil, fmt.Errorf("%s:%d:1: expected a path or a quoted path", name, line)
			}
			t = u
		}
		if !strings.HasPrefix(t, "/") {
			return nil, fmt.Errorf("%s:%d:1: expected an absolute path, found %q", name, line, t)
		}
		t = path.Clean(t)
		if isCwd {
			in.Cwd = t
			continue
		}
		if isRoot {
			in.roots = append(in.roots, t)
		}
		in.paths[t] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return in, nil
}

// WriteCwd writes the "cwd DIR" line of a listing: where the traced
// command started, which a trace recorded without -y does not say.
func WriteCwd(w io.Writer, dir string) error {
	_, err := fmt.Fprintf(w, "cwd %s\n", quotePath(filepath.Clean(dir)))
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
		if p != root {
			fmt.Fprintln(bw, quotePath(p))
		}
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
