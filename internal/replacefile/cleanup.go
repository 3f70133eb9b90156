package replacefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// pending are the temp names that exist now, removed if a signal ends
// crashsim. Signals are watched only while there is one: an unnamed file
// needs no help, the kernel frees it with the process.
var pending struct {
	sync.Mutex
	names   map[string]bool
	sigs    chan os.Signal
	removed map[string]bool // names a signal removed
}

// errInterrupted is why a file is not written when a signal came while
// it had a temp name (and another part of crashsim kept running).
var errInterrupted = errors.New("interrupted by a signal; the name keeps what it had")

func track(name string) {
	pending.Lock()
	defer pending.Unlock()
	if pending.names == nil {
		pending.names = map[string]bool{}
	}
	pending.names[name] = true
	if pending.sigs == nil {
		pending.sigs = make(chan os.Signal, 1)
		// A signal crashsim was started ignoring (nohup, a background job
		// of a script) stays ignored: catching it would make it end the
		// write.
		for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
			if !signal.Ignored(sig) {
				signal.Notify(pending.sigs, sig)
			}
		}
		go watch(pending.sigs)
	}
}

func untrack(name string) {
	pending.Lock()
	defer pending.Unlock()
	delete(pending.names, name)
	if len(pending.names) == 0 && pending.sigs != nil {
		signal.Stop(pending.sigs)
		close(pending.sigs)
		pending.sigs = nil
	}
}

// removedBySignal says whether a signal removed the temp name.
func removedBySignal(name string) bool {
	pending.Lock()
	defer pending.Unlock()
	return pending.removed[name]
}

// watch removes the temp names when a signal comes, and then lets the
// signal do what it would have done had it not been caught: end the
// process, or reach the part of crashsim that handles it (explore,
// iobench and the oracle stop cleanly on SIGINT).
func watch(c chan os.Signal) {
	sig, ok := <-c
	if !ok {
		return
	}
	pending.Lock()
	if pending.removed == nil {
		pending.removed = map[string]bool{}
	}
	for name := range pending.names {
		os.Remove(name)
		pending.removed[name] = true
	}
	clear(pending.names)
	signal.Stop(c)
	if pending.sigs == c {
		close(c)
		pending.sigs = nil
	}
	pending.Unlock()
	if s, ok := sig.(syscall.Signal); ok {
		syscall.Kill(os.Getpid(), s)
	}
}

// randomSuffix is 16 random hex digits for a temp name.
func randomSuffix() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
