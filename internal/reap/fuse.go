package reap

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// fuseEnv names the FUSE mount points of a FUSE watchdog, one a line.
const fuseEnv = "CRASHSIM_WATCHDOG_FUSE"

// StartFUSEWatchdog is StartMountWatchdog for a crashsim that serves a
// FUSE filesystem itself (oracle --blocks: a loop device over an image on
// fuse, a filesystem on that loop device, mounted on one of unmount).
// When crashsim is gone it kills what it started, aborts the FUSE
// connections of fuse (a forced unmount: a server that is gone answers
// nothing, and every write through it would wait for ever), lazily
// unmounts unmount, detaches the loop devices backed by files below
// loopsUnder and waits until they are free, and only then lazily unmounts
// fuse: a loop device must not outlive the mount its backing file is on,
// or its path no longer shows that it is crashsim's. Then it removes
// remove.
//
// It also takes crashsim for gone while the pipe is still open but
// crashsim has been sent SIGKILL: a thread of crashsim waiting for a block
// of the image (uninterruptible) never exits, because the server that
// would answer was in crashsim itself, so crashsim's files, the pipe
// among them, are never closed. Aborting the connection ends that wait.
func StartFUSEWatchdog(token string, unmount, fuse []string, loopsUnder, remove string, groups ...*Group) (*Watchdog, error) {
	env := []string{unmountEnv + "=" + strings.Join(unmount, watchdogDelim), loopsEnv + "=" + loopsUnder,
		fuseEnv + "=" + strings.Join(fuse, watchdogDelim)}
	if remove != "" {
		env = append(env, removeDirEnv+"="+remove)
	}
	return startWatchdog(0, token, env, groups)
}

// fuseMounts is the FUSE watchdog's list, nil for another watchdog.
func fuseMounts() []string {
	v := os.Getenv(fuseEnv)
	if v == "" {
		return nil
	}
	return strings.Split(v, watchdogDelim)
}

// waitEnd returns when the pipe on f ends or, for a FUSE watchdog, when
// process pid (crashsim) is dying.
func waitEnd(f *os.File, pid int, poll bool) {
	ended := make(chan struct{})
	go func() {
		buf := make([]byte, 64)
		for {
			if _, err := f.Read(buf); err != nil {
				close(ended) // crashsim is gone (Stop kills this process first)
				return
			}
		}
	}()
	if !poll {
		<-ended
		return
	}
	since, err := startTime(pid)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ended:
			return
		case <-tick.C:
			if err == nil && dying(pid, since) {
				return
			}
		}
	}
}

// dying reports whether process pid (started at since) is gone, or has
// been sent SIGKILL that one of its threads has not acted on yet, or its
// leader has exited: in each case it will never run again.
func dying(pid int, since uint64) bool {
	if t, err := startTime(pid); err != nil || t != since {
		return true
	}
	tasks, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/status")
	if err != nil || len(tasks) == 0 {
		return true
	}
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // that thread ended meanwhile
		}
		for _, line := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimSpace(v)
			switch k {
			case "State":
				if strings.HasPrefix(v, "Z") || strings.HasPrefix(v, "X") {
					if filepath.Base(filepath.Dir(f)) == strconv.Itoa(pid) {
						return true // the leader has exited
					}
				}
			case "SigPnd", "ShdPnd":
				if m, err := strconv.ParseUint(v, 16, 64); err == nil && m&(1<<(9-1)) != 0 {
					return true // SIGKILL (signal 9 is bit 8)
				}
			}
		}
	}
	return false
}

// loopsLeft reports whether a loop device is still backed by a file below
// dir.
func loopsLeft(dir string) bool {
	files, _ := filepath.Glob("/sys/block/loop*/loop/backing_file")
	for _, f := range files {
		b, err := os.ReadFile(f)
		backing := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), " (deleted)")
		if err == nil && strings.HasPrefix(backing, dir+"/") {
			return true
		}
	}
	return false
}

// undoFUSE is the FUSE watchdog's work after the kills; it reports whether
// every mount point is free.
func undoFUSE(fuse, unmount []string, loopsUnder string) bool {
	for _, dir := range fuse {
		abortFUSE(dir)
	}
	ok := true
	for _, dir := range unmount {
		ok = unmountAll(dir) && ok
	}
	if loopsUnder != "" {
		// A device in use (a filesystem still shutting down) detaches
		// when its last user goes: wait for that, up to 10 s, before the
		// FUSE mount under it goes.
		for i := 0; i < 100; i++ {
			detachLoops(loopsUnder)
			if !loopsLeft(loopsUnder) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for _, dir := range fuse {
		ok = unmountAll(dir) && ok
	}
	return ok
}
