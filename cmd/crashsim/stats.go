package main

import (
	"bufio"
	"errors"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/parser"
	"github.com/crashsim/crashsim/report"
)

// fileStats is report.FileStats, under the name the tests know.
type fileStats = report.FileStats

type statsCmd struct {
	Format string   `enum:"text,json" default:"text" help:"Output format: text (a table) or json."`
	Root   []string `placeholder:"DIR" help:"Only files below DIR are counted (repeatable). Default: every file but /proc, /sys, /dev, pipes and sockets."`
	Trace  string   `arg:"" help:"strace log, or the PREFIX of an strace -ff set (PREFIX.PID files)."`
}

func (c *statsCmd) Run(g *Globals) error {
	procs := startProcs(g, c.Trace)
	stream, err := openTrace(c.Trace, g)
	if err != nil {
		return err
	}
	defer stream.Close()
	var roots []string
	for _, r := range c.Root {
		roots = append(roots, filepath.Clean(r))
		if abs, err := filepath.Abs(r); err == nil && abs != filepath.Clean(r) {
			roots = append(roots, abs)
		}
	}
	files := map[string]*fileStats{}
	row := func(p string) *fileStats {
		if !statsInScope(p, roots) {
			return nil
		}
		s := files[p]
		if s == nil {
			s = &fileStats{Path: p}
			files[p] = s
		}
		return s
	}
	for {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return inputError(err)
		}
		paths := procs.Paths(ev)
		procs.Apply(ev, paths)
		if ev.Kind != parser.KindSyscall || len(paths) == 0 {
			continue
		}
		countEvent(ev, paths, row)
	}

	list := make([]fileStats, 0, len(files))
	for _, s := range files {
		list = append(list, *s)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
	w := bufio.NewWriter(g.stdout)
	if c.Format == "json" {
		if err := report.StatsJSON(w, list); err != nil {
			return err
		}
	} else {
		report.StatsTable(w, list)
	}
	return w.Flush()
}

// countEvent adds one completed call to the rows of the paths it acts on.
// row returns nil for a path out of scope.
func countEvent(ev *parser.Event, paths []string, row func(string) *fileStats) {
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

// pseudoRx matches the -y names of what is not a file: pipe:[123],
// socket:[456], anon_inode:[eventfd], TCP:[...].
var pseudoRx = regexp.MustCompile(`^[A-Za-z0-9_]+:\[|^anon_inode:`)

// statsInScope is check's scope: no pseudo files, and below a root when
// roots are given.
func statsInScope(p string, roots []string) bool {
	if p == "" || pseudoRx.MatchString(p) {
		return false
	}
	for _, pseudo := range []string{"/proc", "/sys", "/dev"} {
		if p == pseudo || strings.HasPrefix(p, pseudo+"/") {
			return false
		}
	}
	if len(roots) == 0 {
		return true
	}
	for _, r := range roots {
		switch {
		case r == "/" && strings.HasPrefix(p, "/"),
			p == r, strings.HasPrefix(p, r+"/"),
			r == "." && !strings.HasPrefix(p, "/"):
			return true
		}
	}
	return false
}
