//go:build ignore

// A program that writes a file, then replaces itself with /bin/true from
// a thread other than the main one, as a Go program calling syscall.Exec
// does from whichever thread its goroutine runs on. Under strace -f the
// thread's execve starts under its own pid and ends under the leader's
// ("+++ superseded by execve in pid N +++"). TestThreadExec records it.
package main

import (
	"os"
	"runtime"
	"syscall"
)

// The main goroutine keeps the main thread, so the one below runs on
// another.
func init() { runtime.LockOSThread() }

func main() {
	if err := os.WriteFile(os.Args[1], []byte("before exec\n"), 0o644); err != nil {
		panic(err)
	}
	done := make(chan error)
	go func() {
		runtime.LockOSThread()
		done <- syscall.Exec("/bin/true", []string{"true"}, nil)
	}()
	panic(<-done)
}
