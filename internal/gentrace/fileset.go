package gentrace

import (
	"bufio"
	"io"
	"math/rand/v2"
	"strconv"
)

// FileSetOptions shape the files-unsynced and files-settled traces.
type FileSetOptions struct {
	Files   int    // files created
	PerDir  int    // files per directory (default 1000)
	Threads int    // threads that write them (default 4)
	Seed    uint64 // the same seed gives the same trace
	Form    Form
	// Settled makes every file durable: each is fsynced after its write
	// and its directory after that, and each new directory's parent is
	// fsynced after the mkdir, so a check finds nothing. Without it
	// nothing is synced.
	Settled bool
}

// FileSetRoot is the directory the file-set traces work in. It exists
// before the trace starts; the directories below it are created.
const FileSetRoot = "/srv/bench"

// WriteFileSet writes the trace of a Go program that creates opt.Files
// files, PerDir to a directory d0, d1, ... below FileSetRoot, as
// os.WriteFile would (with f.Sync() and a sync of the directory after it
// when Settled), each open followed by the two fcntl calls of Go's poller.
// Each of its threads fills directories of its own, so that in the
// settled trace no directory fsync makes another thread's unsynced file
// durable by the way; their lines interleave at random, and an fsync
// that another thread's line interrupts is split into its
// "<unfinished ...>" and "<... fsync resumed>" halves. No other work
// shows between the files. It returns the number of lines written.
func WriteFileSet(w io.Writer, opt FileSetOptions) (int64, error) {
	if opt.PerDir <= 0 {
		opt.PerDir = 1000
	}
	if opt.Threads <= 0 {
		opt.Threads = 4
	}
	rng := rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15))
	p := &printer{w: bufio.NewWriterSize(w, 1<<20), form: opt.Form, rng: rng, ts: 1_795_000_000_000_000}
	const main = 1000
	p.start(main)
	p.s(`execve("/usr/local/bin/filebench", `)
	if opt.Form == FormTrace {
		p.s(`[...]`) // -s 0 prints no argument strings
	} else {
		p.s(`["filebench", "-n", "`)
		p.s(strconv.Itoa(opt.Files))
		p.s(`"]`)
	}
	p.s(`, 0x7ffd2c41e6a8 /* 12 vars */`)
	p.ret("0")
	dirs := (opt.Files + opt.PerDir - 1) / opt.PerDir
	var ws []*fileWriter
	for k := range opt.Threads {
		if k >= dirs {
			break
		}
		pid := main + 1 + k
		p.start(main)
		p.s("clone(child_stack=0xc0000")
		p.buf = strconv.AppendInt(p.buf, int64(0x60000+0x10000*k), 16)
		p.s(", flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS, tls=0xc0000")
		p.buf = strconv.AppendInt(p.buf, int64(0x70090+0x10000*k), 16)
		p.ret(strconv.Itoa(pid))
		ws = append(ws, &fileWriter{opt: &opt, p: p, pid: pid, fd: 5 + k, dir: k})
	}
	active := append([]*fileWriter(nil), ws...)
	cur := 0
	for len(active) > 0 && p.err == nil {
		// A thread runs on for a while, or the scheduler switches.
		if rng.IntN(2) == 0 {
			cur = rng.IntN(len(active))
		}
		if !active[cur].step() {
			active = append(active[:cur], active[cur+1:]...)
			cur = 0
		}
	}
	p.start(main)
	p.s("exit_group(0")
	p.ret("?")
	for _, w := range ws {
		p.start(w.pid)
		p.buf = append(p.buf[:len(p.buf)-1], " +++ exited with 0 +++\n"...)
		p.write(p.buf)
	}
	p.start(main)
	p.buf = append(p.buf[:len(p.buf)-1], " +++ exited with 0 +++\n"...)
	p.write(p.buf)
	return p.lines, p.flush()
}

// A fileWriter is one thread of WriteFileSet: it fills directories dir,
// dir+Threads, ... one file after another, one call per step.
type fileWriter struct {
	opt  *FileSetOptions
	p    *printer
	pid  int
	fd   int // the fd it opens each file and directory as
	dir  int // the directory it fills
	file int // the file it writes, counted from the first of dir
	at   int // the next call of the file's (or directory's) sequence
	// pending names the call whose line is held, to finish next step.
	pending string
}

// The calls of one directory and one file, in order; settled only where
// marked.
const (
	callMkdir = iota
	callOpenParent
	callSyncParent
	callCloseParent
	callOpen
	callGetFlags
	callSetFlags
	callWrite
	callSync
	callClose
	callOpenDir
	callDirGetFlags
	callDirSetFlags
	callSyncDir
	callCloseDir
	callDone
)

var settledOnly = [callDone]bool{
	callOpenParent: true, callSyncParent: true, callCloseParent: true,
	callSync: true, callOpenDir: true, callDirGetFlags: true,
	callDirSetFlags: true, callSyncDir: true, callCloseDir: true,
}

// step prints the thread's next call, or the end of its held one. It
// says false when the thread has no more files.
func (fw *fileWriter) step() bool {
	p, opt := fw.p, fw.opt
	if fw.pending != "" {
		p.finish(fw.pid, fw.pending, "0")
		fw.pending = ""
		return true
	}
	for fw.at < callDone && settledOnly[fw.at] && !opt.Settled {
		fw.at++
	}
	if fw.at == callDone {
		fw.file++
		fw.at = callOpen
		if fw.file == opt.PerDir || fw.index() == opt.Files {
			fw.dir += opt.Threads
			fw.file, fw.at = 0, callMkdir
		}
		return fw.step()
	}
	if fw.dir*opt.PerDir >= opt.Files {
		return false
	}
	dir := FileSetRoot + "/d" + strconv.Itoa(fw.dir)
	call := fw.at
	fw.at++
	if call == callOpenParent || call == callSyncParent || call == callCloseParent {
		dir = FileSetRoot
	}
	p.start(fw.pid)
	switch call {
	case callMkdir:
		p.s("mkdirat(")
		p.cwd(FileSetRoot)
		p.s(", ")
		p.quoted(dir, 0)
		p.s(", 0755")
		p.ret("0")
	case callOpenParent, callOpenDir:
		p.s("openat(")
		p.cwd(FileSetRoot)
		p.s(", ")
		p.quoted(dir, 0)
		p.s(", O_RDONLY|O_CLOEXEC")
		fw.retFd(dir)
	case callOpen:
		name := fw.name()
		p.s("openat(")
		p.cwd(FileSetRoot)
		p.s(", ")
		p.quoted(name, 0)
		p.s(", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644")
		fw.retFd(name)
	case callGetFlags, callDirGetFlags:
		p.s("fcntl(")
		if call == callGetFlags {
			p.fd(fw.fd, fw.name(), false)
			p.s(", F_GETFL")
			p.ret("0x8001 (flags O_WRONLY|O_LARGEFILE)")
		} else {
			p.fd(fw.fd, dir, false)
			p.s(", F_GETFL")
			p.ret("0x8000 (flags O_RDONLY|O_LARGEFILE)")
		}
	case callSetFlags, callDirSetFlags:
		p.s("fcntl(")
		if call == callSetFlags {
			p.fd(fw.fd, fw.name(), false)
			p.s(", F_SETFL, O_WRONLY|O_NONBLOCK|O_LARGEFILE")
		} else {
			p.fd(fw.fd, dir, false)
			p.s(", F_SETFL, O_RDONLY|O_NONBLOCK|O_LARGEFILE")
		}
		p.ret("0")
	case callWrite:
		body := fileBody(fw.index(), p.rng)
		p.s("write(")
		p.fd(fw.fd, fw.name(), true)
		p.s(", ")
		if p.form == FormTrace {
			p.s("0xc0001")
			p.buf = strconv.AppendInt(p.buf, int64(0x20000+p.rng.IntN(0x8000)*8), 16)
		} else {
			p.quoted(body, 32)
		}
		p.s(", ")
		p.s(p.count(len(body), true))
		p.ret(p.count(len(body), true))
	case callSync, callSyncDir, callSyncParent:
		p.s("fsync(")
		path := dir
		if call == callSync {
			path = fw.name()
		}
		p.fd(fw.fd, path, false)
		p.hold(fw.pid)
		fw.pending = "fsync"
	case callClose, callCloseDir, callCloseParent:
		path := dir
		if call == callClose {
			path = fw.name()
		}
		p.s("close(")
		p.fd(fw.fd, path, false)
		p.ret("0")
	}
	return true
}

// index is the number of the file being written, counted over the trace.
func (fw *fileWriter) index() int { return fw.dir*fw.opt.PerDir + fw.file }

// name is the path of the file being written.
func (fw *fileWriter) name() string {
	return FileSetRoot + "/d" + strconv.Itoa(fw.dir) + "/f" + strconv.Itoa(fw.index()) + ".json"
}

// retFd ends an open with the fd it returns.
func (fw *fileWriter) retFd(path string) {
	r := strconv.Itoa(fw.fd)
	if fw.p.form == FormTTTY {
		r += "<" + path + ">"
	}
	fw.p.ret(r)
}

// fileBody is file i's contents: a small JSON record, 30 to 110 bytes.
func fileBody(i int, rng *rand.Rand) string {
	return `{"id": ` + strconv.Itoa(i) + `, "pad": "` + pad[:rng.IntN(len(pad))] + "\"}\n"
}
