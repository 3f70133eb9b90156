package model

import (
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/parser"
)

// link adds a name for an existing inode (link, linkat).
func (m *Model) link(ev *parser.Event, row *syscalls.Row, paths []string, eff *Effect) {
	if len(paths) != 2 || paths[1] == "" {
		return
	}
	src := m.linkSource(ev, row, paths[0])
	if src == nil {
		return
	}
	m.lookup(paths[1], false)
	m.entry(ev, EntryLink, []NameChange{{Path: paths[1], New: src}}, eff)
}

// linkSource is the inode a link names again. linkat names the inode of
// an open fd when given AT_EMPTY_PATH and an empty path, or
// AT_SYMLINK_FOLLOW and /proc/self/fd/N (or /proc/PID/fd/N, /dev/fd/N):
// that is how a file made unnamed (O_TMPFILE) gets its name, and its data
// and syncs are that inode's.
func (m *Model) linkSource(ev *parser.Event, row *syscalls.Row, p string) *Inode {
	if i := row.Flags(); i >= 0 {
		flags, _ := ev.Bits(i, syscalls.AtFlags)
		old := ev.Arg(row.Path())
		switch {
		case flags&syscalls.AT_EMPTY_PATH != 0 && old.HasStr && old.Str == "":
			if h := m.fileHandle(ev, row.Dirfd()); h != nil {
				return h.Node
			}
			return nil
		case flags&syscalls.AT_SYMLINK_FOLLOW != 0:
			if pid, fd, ok := procFD(p, ev.PID); ok {
				if h := m.fdHandle(pid, fd, ev.Began()); h != nil {
					return h.Node
				}
			}
		}
	}
	if p == "" {
		return nil
	}
	return m.lookup(p, true)
}

// procFD reads a path that names an open fd through /proc (the process
// pid's fd), as the kernel follows it.
func procFD(p string, pid int) (owner, fd int, ok bool) {
	rest, found := "", false
	for _, pre := range []string{"/proc/self/fd/", "/proc/thread-self/fd/", "/dev/fd/"} {
		if rest, found = strings.CutPrefix(p, pre); found {
			break
		}
	}
	owner = pid
	if !found {
		after, ok := strings.CutPrefix(p, "/proc/")
		digits, tail, ok2 := strings.Cut(after, "/fd/")
		if !ok || !ok2 {
			return 0, 0, false
		}
		n, err := strconv.Atoi(digits)
		if err != nil {
			return 0, 0, false
		}
		owner, rest = n, tail
	}
	fd, err := strconv.Atoi(rest)
	if err != nil || fd < 0 {
		return 0, 0, false
	}
	return owner, fd, true
}

// fdHandle is the handle of fd in process pid at line, with its inode,
// when the model knows it.
func (m *Model) fdHandle(pid, fd int, line int64) *Handle {
	h := m.procs.handleAt(m.procs.Proc(pid), fd, line)
	if h == nil || h.Kind == HandlePseudo {
		return nil
	}
	if m.loadNode(h) == nil {
		return nil
	}
	return h
}

// handleAt is the handle of fd in pr as of line, nil when it has none.
func (p *Procs) handleAt(pr *Process, fd int, line int64) *Handle {
	if e, ok := pr.files.at(fd, line); ok {
		return e.h
	}
	return nil
}
