package crashsim

import (
	"errors"
	"io"
	"sort"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report"
)

// EachCall reads one trace through the process model alone, without the
// page cache: each event with the paths it names, resolved as the program
// saw them (model.Procs: fd tables, cwd, the listing's start). For views
// that print or count calls; f's error stops the reading.
func (in *Inputs) EachCall(trace string, f func(ev *parser.Event, paths []string) error) error {
	st, err := in.Start(trace)
	if err != nil {
		return err
	}
	procs := st.Procs()
	stream, err := in.open(trace, forAll)
	if err != nil {
		return err
	}
	defer stream.Close()
	for {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return inputError(err)
		}
		paths := procs.Paths(ev)
		procs.Apply(ev, paths)
		if err := f(ev, paths); err != nil {
			return err
		}
	}
}

// CountEvents reads a trace only to count its events: no call's arguments
// are decoded (parser.Skip), but every line is read, and a line that does
// not read is still an error. It is the parser's speed.
func (in *Inputs) CountEvents(trace string) (int, error) {
	stream, err := in.open(trace, forCount)
	if err != nil {
		return 0, err
	}
	defer stream.Close()
	n := 0
	for {
		err := parser.Skip(stream)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, inputError(err)
		}
		n++
	}
}

// writeCalls put data into the file named by their (output) fd.
var writeCalls = map[string]bool{
	"write": true, "pwrite64": true, "writev": true, "pwritev": true, "pwritev2": true,
	"copy_file_range": true, "sendfile": true,
}

// Stats counts writes, bytes, syncs and renames per file in a trace, for
// the files in scope (a cross-check of strace -c), sorted by path. The
// scope is check's, without the volatile filesystems: every file but
// pseudo files, below the roots when there are some.
func (in *Inputs) Stats(trace string, roots []string) ([]report.FileStats, error) {
	scope := check.Options{Roots: absRoots(roots)}
	files := map[string]*report.FileStats{}
	row := func(p string) *report.FileStats {
		if !scope.InScope(p) {
			return nil
		}
		s := files[p]
		if s == nil {
			s = &report.FileStats{Path: p}
			files[p] = s
		}
		return s
	}
	err := in.EachCall(trace, func(ev *parser.Event, paths []string) error {
		if ev.Kind == parser.KindSyscall && len(paths) > 0 {
			countCall(ev, paths, row)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	list := make([]report.FileStats, 0, len(files))
	for _, s := range files {
		list = append(list, *s)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
	return list, nil
}

// countCall adds one completed call to the rows of the paths it acts on.
// row returns nil for a path out of scope.
func countCall(ev *parser.Event, paths []string, row func(string) *report.FileStats) {
	name := ev.Name
	switch {
	case writeCalls[name]:
		if !ev.OK() {
			return
		}
		if s := row(paths[0]); s != nil {
			s.Writes++
			s.Bytes += ev.Ret
		}
	case name == "fsync" || name == "fdatasync" || name == "sync_file_range" || name == "sync_file_range2":
		s := row(paths[0])
		if s == nil || !ev.RetKnown {
			return
		}
		if ev.Failed() {
			s.FailedSyncs++
			return
		}
		switch name {
		case "fsync":
			s.Fsync++
		case "fdatasync":
			s.Fdatasync++
		default:
			s.SyncFileRange++
		}
	case name == "rename" || name == "renameat" || name == "renameat2":
		if !ev.OK() {
			return
		}
		for i, p := range paths {
			if i > 0 && p == paths[0] {
				continue // renamed onto itself: one rename
			}
			if s := row(p); s != nil {
				s.Renames++
			}
		}
	}
}
