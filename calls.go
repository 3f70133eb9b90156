package crashsim

import (
	"errors"
	"io"
	"sort"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/syscalls"
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
	stream, err := in.open(trace, forAll, st.Arch)
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
	stream, err := in.open(trace, forCount, in.Arch)
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
	switch e := ev.Call.Effect(); e {
	case syscalls.WriteFD, syscalls.WriteAt, syscalls.CopyInto:
		// Data into the file named by the (output) fd.
		if !ev.OK() {
			return
		}
		if s := row(paths[0]); s != nil {
			s.Writes++
			s.Bytes += ev.Ret
		}
	case syscalls.Fsync, syscalls.Fdatasync, syscalls.SyncFileRange:
		s := row(paths[0])
		if s == nil || !ev.RetKnown {
			return
		}
		if ev.Failed() {
			s.FailedSyncs++
			return
		}
		switch e {
		case syscalls.Fsync:
			s.Fsync++
		case syscalls.Fdatasync:
			s.Fdatasync++
		default:
			s.SyncFileRange++
		}
	case syscalls.Rename:
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
