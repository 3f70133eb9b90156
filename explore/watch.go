package explore

import (
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watcher asks inotify to report writes to the base's linked files: a
// watch is on the inode, so a write through any state's link shows. Only
// IN_MODIFY (write, truncate): IN_ATTRIB also fires on every link and
// unlink explore makes, so a chmod alone goes unseen.
type watcher struct {
	mu    sync.Mutex
	fd    int
	wds   map[int32]string // watch → rel
	found string           // the first file seen changed
	buf   []byte
}

// useInotify is false in a test of verify's other way.
var useInotify = true

// newWatcher watches every linked file of entries below dir; nil when
// inotify is missing or out of watches (verify then looks at each file).
func newWatcher(dir string, entries []baseEntry) *watcher {
	if !useInotify {
		return nil
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	w := &watcher{fd: fd, wds: map[int32]string{}, buf: make([]byte, 64<<10)}
	for _, e := range entries {
		if e.kind != 'f' {
			continue
		}
		wd, err := unix.InotifyAddWatch(fd, filepath.Join(dir, e.rel), unix.IN_MODIFY|unix.IN_DONT_FOLLOW)
		if err != nil {
			unix.Close(fd)
			return nil
		}
		w.wds[int32(wd)] = e.rel
	}
	return w
}

// changed reports a watched file written since the watcher began.
func (w *watcher) changed() (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.found == "" {
		n, err := unix.Read(w.fd, w.buf)
		if err != nil || n <= 0 {
			break // EAGAIN: nothing more
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			if rel, ok := w.wds[ev.Wd]; ok && ev.Mask&unix.IN_MODIFY != 0 && w.found == "" {
				w.found = rel
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
	return w.found, w.found != ""
}

func (w *watcher) close() {
	if w != nil {
		unix.Close(w.fd)
	}
}
