package explore

import (
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dirWatcher tells what changed in the state directories' own
// directories (the base's directories and the state's root), so that a
// checked state is known unchanged outside its placed paths without a
// look at each directory before and after its checker (seal): one
// inotify instance for all state directories, a watch on each of their
// directories, and the names that changed since the last look, per state
// directory. A private copy written through a mapping shows no event:
// seal still compares those files' stamps.
type dirWatcher struct {
	mu    sync.Mutex
	fd    int
	byWd  map[int32]watchedDir
	state map[string]*dirEvents // state directory → what happened in it
	buf   []byte
}

type watchedDir struct {
	state string // the state directory
	rel   string // the watched directory in it ("." for itself)
}

// dirEvents is what happened in one state directory since the last take.
type dirEvents struct {
	wds  map[int32]bool
	rels []string // entries changed (names made, removed, renamed, written, chmodded)
	lost bool     // events were lost: anything may have changed
}

// dirEventMask: what a checker can do to a directory's entries, and to
// the directory itself.
const dirEventMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_DONT_FOLLOW | unix.IN_ONLYDIR

// newDirWatcher returns a watcher, or nil when inotify is not there (seal
// then looks at every directory).
func newDirWatcher() *dirWatcher {
	if !useInotify {
		return nil
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &dirWatcher{fd: fd, byWd: map[int32]watchedDir{}, state: map[string]*dirEvents{}, buf: make([]byte, 64<<10)}
}

func (w *dirWatcher) close() {
	if w != nil {
		unix.Close(w.fd)
	}
}

// watch adds watches on the directories rels of state directory dir. On
// an error (out of watches) the state directory is not watched at all.
func (w *dirWatcher) watch(dir string, rels ...string) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.state[dir]
	if d == nil {
		d = &dirEvents{wds: map[int32]bool{}}
		w.state[dir] = d
	}
	for _, rel := range rels {
		wd, err := unix.InotifyAddWatch(w.fd, filepath.Join(dir, rel), dirEventMask)
		if err != nil {
			w.forgetLocked(dir)
			return false
		}
		w.byWd[int32(wd)] = watchedDir{dir, rel}
		d.wds[int32(wd)] = true
	}
	return true
}

// watched reports whether dir's directories are watched.
func (w *dirWatcher) watched(dir string) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state[dir] != nil
}

// forget removes dir's watches (before dir is removed).
func (w *dirWatcher) forget(dir string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.forgetLocked(dir)
}

func (w *dirWatcher) forgetLocked(dir string) {
	d := w.state[dir]
	if d == nil {
		return
	}
	for wd := range d.wds {
		unix.InotifyRmWatch(w.fd, uint32(wd))
		delete(w.byWd, wd)
	}
	delete(w.state, dir)
}

// take returns what changed in dir since the last take: the entries, as
// names relative to dir, and whether events were lost (then anything may
// have). The kernel queues an event when the change is made, so once the
// processes that made changes are gone, take sees all of them.
func (w *dirWatcher) take(dir string) (rels []string, lost bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		n, err := unix.Read(w.fd, w.buf)
		if err != nil || n <= 0 {
			break // EAGAIN: nothing more
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			name := w.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				for _, d := range w.state {
					d.lost = true
				}
				continue
			}
			wd, ok := w.byWd[ev.Wd]
			if !ok {
				continue
			}
			d := w.state[wd.state]
			rel := wd.rel
			if i := indexNUL(name); i > 0 {
				rel = filepath.Join(wd.rel, string(name[:i]))
			}
			if ev.Mask&unix.IN_IGNORED != 0 {
				// The directory is gone (or the watch removed): what
				// removed it shows as an event in its parent.
				delete(w.byWd, ev.Wd)
				delete(d.wds, ev.Wd)
				continue
			}
			d.rels = append(d.rels, rel)
		}
	}
	d := w.state[dir]
	if d == nil {
		return nil, true
	}
	rels, lost = d.rels, d.lost
	d.rels, d.lost = nil, false
	return rels, lost
}

// indexNUL is where an inotify name's padding starts.
func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return len(b)
}
