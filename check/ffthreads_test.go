package check

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ffThreadsClone is the main thread's clone of its second thread, 101,
// which shares its fd table.
const ffThreadsClone = `10:00:00.000200 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f00, parent_tid=0x7f00, exit_signal=0, stack=0x7f00, stack_size=0x7fff00, tls=0x7f00} => {parent_tid=[101]}, 88) = 101
`

// writeFFSet writes the files of an strace -ff set, PREFIX.PID for each
// pid, and returns PREFIX.
func writeFFSet(t *testing.T, files map[int]string) string {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "t")
	for pid, text := range files {
		if err := os.WriteFile(prefix+"."+strconv.Itoa(pid), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return prefix
}

// TestFFSetFDAcrossThreads: in an -ff set a file's lines order only its
// own thread's calls, and each is stamped when it began. Two threads of
// one process share fd numbers: in `go build -ff -tt` one thread's
// openat began 21µs before another's close(8) of the file it held and
// returned 8, which that close had freed; the model, comparing the line
// numbers of two files, took the close for one of the new file, and the
// write through it for one to an fd the trace never opened
// (blind-unknown-fd, exit 6, for a program that had done nothing wrong).
// And a goroutine that opened a file on one thread and wrote, synced and
// closed it on another had its close taken for the previous holder's, so
// that the next file opened at that number lent its write to the first
// one: fsync-before-write on the careful file, and nothing on the one
// left unsynced.
func TestFFSetFDAcrossThreads(t *testing.T) {
	exit := "10:00:00.003000 exit_group(0) = ?\n10:00:00.003100 +++ exited with 0 +++\n"
	threadExit := "10:00:00.002900 exit(0) = ?\n10:00:00.002950 +++ exited with 0 +++\n"
	dirSync := `10:00:00.001300 openat(AT_FDCWD, "/data", O_RDONLY|O_DIRECTORY|O_CLOEXEC) = 3
10:00:00.001400 fsync(3) = 0
10:00:00.001500 close(3) = 0
`
	t.Run("close stamped after the open that reused its number", func(t *testing.T) {
		prefix := writeFFSet(t, map[int]string{
			100: `10:00:00.000100 execve("/usr/bin/prog", ["prog"], 0x7ffc /* 1 vars */) = 0
` + ffThreadsClone + `10:00:00.000300 openat(AT_FDCWD, "/data/in.txt", O_RDONLY|O_CLOEXEC) = 3
10:00:00.000400 read(3, "abc", 4096) = 3
10:00:00.000950 close(3) = 0
` + exit,
			101: `10:00:00.000900 openat(AT_FDCWD, "/data/out.txt", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0644) = 3
10:00:00.001000 write(3, "abc", 3) = 3
10:00:00.001100 fsync(3) = 0
10:00:00.001200 close(3) = 0
` + dirSync + threadExit,
		})
		blind, _, findings := blindRun(t, prefix, Options{Roots: []string{"/data"}})
		if len(blind) != 0 || len(findings) != 0 {
			t.Errorf("blind spots %v, findings %v; want none: the close freed 3 for the open", blind, findings)
		}
	})
	t.Run("file opened on one thread, written and closed on another", func(t *testing.T) {
		pad := "10:00:00.000210 getpid() = 100\n"
		prefix := writeFFSet(t, map[int]string{
			100: `10:00:00.000100 execve("/usr/bin/prog", ["prog"], 0x7ffc /* 1 vars */) = 0
` + ffThreadsClone + pad + pad + pad + pad + pad + `10:00:00.000300 openat(AT_FDCWD, "/data/a.txt", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0644) = 3
10:00:00.001000 openat(AT_FDCWD, "/data/b.txt", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0644) = 3
` + exit,
			101: `10:00:00.000400 write(3, "abc", 3) = 3
10:00:00.000500 fsync(3) = 0
10:00:00.000600 close(3) = 0
10:00:00.001100 write(3, "xyz", 3) = 3
10:00:00.001200 close(3) = 0
` + dirSync + threadExit,
		})
		blind, _, findings := blindRun(t, prefix, Options{Roots: []string{"/data"}})
		want := []string{"data-not-synced /data/b.txt", "dir-sync-before-data /data/b.txt"}
		if len(blind) != 0 {
			t.Errorf("blind spots %v, want none", blind)
		}
		if diff := cmp.Diff(want, findings); diff != "" {
			t.Errorf("findings (-want +got):\n%s", diff)
		}
	})
}
