package oracle

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/crashsim/crashsim/model"
)

// Entry is one path of a recorded tree.
type Entry struct {
	Kind  string `json:"kind"` // file, dir, symlink, other
	Size  int64  `json:"size"`
	Sum   string `json:"sha256,omitempty"` // of a file's bytes, or a symlink's target
	Zeros bool   `json:"zeros,omitempty"`  // a file of size > 0 whose bytes are all zero
}

// Tree is a recorded directory: relative slash paths to entries (the
// directory itself is not in it).
type Tree map[string]Entry

// ReadTree records root and everything below it.
func ReadTree(root string) (Tree, error) {
	t := Tree{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type().IsRegular():
			e, err := fileEntry(p)
			if err != nil {
				return err
			}
			t[rel] = e
		case d.IsDir():
			t[rel] = Entry{Kind: "dir"}
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			h := sha256.Sum256([]byte(target))
			t[rel] = Entry{Kind: "symlink", Size: int64(len(target)), Sum: hex.EncodeToString(h[:])}
		default:
			t[rel] = Entry{Kind: "other"}
		}
		return nil
	})
	return t, err
}

func fileEntry(p string) (Entry, error) {
	f, err := os.Open(p)
	if err != nil {
		return Entry{}, err
	}
	defer f.Close()
	h := sha256.New()
	buf := make([]byte, 64<<10)
	var n int64
	zeros := true
	for {
		k, err := f.Read(buf)
		if k > 0 {
			h.Write(buf[:k])
			n += int64(k)
			if zeros {
				for _, c := range buf[:k] {
					if c != 0 {
						zeros = false
						break
					}
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return Entry{}, err
		}
	}
	return Entry{Kind: "file", Size: n, Sum: hex.EncodeToString(h.Sum(nil)), Zeros: zeros && n > 0}, nil
}

// same reports whether two entries hold the same thing.
func same(a, b Entry) bool {
	return a.Kind == b.Kind && a.Size == b.Size && a.Sum == b.Sum
}

// Paths lists the tree's paths, sorted.
func (t Tree) Paths() []string {
	out := make([]string, 0, len(t))
	for p := range t {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// history is what the classification compares an observed path with.
type history struct {
	initial Tree
	latest  Tree
	earlier map[string]bool // kind+sum of every entry seen live at an earlier point
	// linked are, for a path the model predicts an initial file at
	// though the path held nothing before the run (a link the trace
	// made to a file that existed), the paths that file had before.
	linked map[string][]string
}

func key(e Entry) string { return e.Kind + ":" + e.Sum }

// classify returns every outcome an observed path matches, in print order.
func classify(rel string, obs Tree, h history) []model.Outcome {
	e, ok := obs[rel]
	if !ok {
		return []model.Outcome{model.Missing}
	}
	var out []model.Outcome
	init, inInit := h.initial[rel]
	late, inLate := h.latest[rel]
	if e.Kind == "dir" {
		if inInit && init.Kind == "dir" {
			out = append(out, model.Initial)
		}
		if inLate && late.Kind == "dir" {
			out = append(out, model.Latest)
		}
		if len(out) == 0 {
			out = append(out, model.Earlier)
		}
		return out
	}
	if inInit && same(e, init) {
		out = append(out, model.Initial)
	} else {
		for _, q := range h.linked[rel] {
			if was, ok := h.initial[q]; ok && same(e, was) {
				out = append(out, model.Initial)
				break
			}
		}
	}
	if h.earlier[key(e)] {
		out = append(out, model.Earlier)
	}
	if inLate && same(e, late) {
		out = append(out, model.Latest)
	}
	if e.Kind == "file" && e.Size == 0 || e.Kind == "other" {
		// A socket, fifo or device node holds no data: the model calls
		// the one the run made "empty" (a server's Unix socket).
		out = append(out, model.Empty)
	}
	if e.Zeros {
		out = append(out, model.Zeros)
	}
	if len(out) == 0 {
		out = append(out, model.Torn)
	}
	return out
}
