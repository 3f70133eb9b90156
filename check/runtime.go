package check

import (
	"path/filepath"
	"strings"
)

// A language runtime a process runs, as far as its advice on a buffer
// flushed too late differs: told from the program an execve started,
// and passed to the processes and threads it forks (the JVM syncs from a
// thread of its own).
type runtimeKind uint8

const (
	runtimeUnknown runtimeKind = iota
	runtimePython
	runtimeJava
	runtimePerl
)

// runtimeOfProgram tells the runtime from the file an execve ran.
func runtimeOfProgram(file string) runtimeKind {
	b := filepath.Base(file)
	switch {
	case strings.HasPrefix(b, "python"):
		return runtimePython
	case b == "java":
		return runtimeJava
	case strings.HasPrefix(b, "perl"):
		return runtimePerl
	}
	return runtimeUnknown
}

// flushAdvice is how a program of runtime k flushes its own buffer before
// it syncs, for fsync-before-write: the call of its language, or those of
// the common ones when the trace does not say which runs.
func flushAdvice(k runtimeKind) string {
	switch k {
	case runtimePython:
		return "in Python, call f.flush() before os.fsync(f.fileno())"
	case runtimeJava:
		return "in Java, flush the stream or writer before getFD().sync() or its channel's force(true)"
	case runtimePerl:
		return "in Perl, call $fh->flush before $fh->sync"
	}
	return "flush the program's own buffer first: f.flush() in Python, fflush(fp) in C, flush() on a Java stream, $fh->flush in Perl"
}

// noteExec records the runtime of the program pid now runs.
func (w *Watcher) noteExec(pid int, file string) {
	k := runtimeOfProgram(file)
	if k == runtimeUnknown {
		delete(w.runtimes, pid)
		return
	}
	if w.runtimes == nil {
		w.runtimes = map[int]runtimeKind{}
	}
	w.runtimes[pid] = k
}

// noteFork passes parent's runtime to child.
func (w *Watcher) noteFork(parent, child int) {
	if k, ok := w.runtimes[parent]; ok {
		w.runtimes[child] = k
	}
}

// runtimeOf is the runtime pid ran, as far as the trace showed it.
func (w *Watcher) runtimeOf(pid int) runtimeKind {
	if w == nil {
		return runtimeUnknown
	}
	return w.runtimes[pid]
}
