package parser

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/gentrace"
)

// BenchmarkParseRealShaped reads the committed -f -tt -T -y fixture
// traces (python, go, sed, sh, cp, rsync; about 120 bytes a line, mostly
// newfstatat, rt_sigaction, openat, mmap, close and read, as in real
// recordings) concatenated and repeated to 32 MiB. It is the headline
// figure: `go test -bench ParseRealShaped -count 5 ./parser`.
func BenchmarkParseRealShaped(b *testing.B) {
	files, _ := filepath.Glob("../fixtures/traces/*/f-tt-T-y.strace")
	if len(files) == 0 {
		b.Fatal("no fixture traces")
	}
	var one bytes.Buffer
	for _, f := range files {
		t, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		one.Write(t)
	}
	name := filepath.Join(b.TempDir(), "real.strace")
	var all bytes.Buffer
	for all.Len() < 32<<20 {
		all.Write(one.Bytes())
	}
	if err := os.WriteFile(name, all.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("all-args", func(b *testing.B) { benchParse(b, name, Options{}) })
	b.Run("model-calls", func(b *testing.B) {
		benchParse(b, name, Options{DecodeArgs: func(n string) bool { return modelCalls[n] }})
	})
	b.Run("no-args", func(b *testing.B) { benchParse(b, name, Options{DecodeArgs: noCall}) })
}

// modelCalls approximates the calls whose arguments package model reads
// today (its shapes table and the cases of its switches), for the
// model-calls benchmark only: the parser knows nothing of durability.
var modelCalls = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`access chdir clone clone3 close close_range copy_file_range creat dup dup2 dup3
		execve execveat faccessat faccessat2 fallocate fchdir fcntl fcntl64 fdatasync fork fstat fstatat64 fsync
		ftruncate getcwd io_uring_enter ioctl link linkat lseek lstat mkdir mkdirat mmap msync newfstatat open
		openat openat2 pipe pipe2 pread64 preadv preadv2 pwrite pwrite64 pwritev pwritev2 read readlink
		readlinkat readv rename renameat renameat2 rmdir sendfile socketpair splice stat statx symlink symlinkat
		sync sync_file_range sync_file_range2 syncfs truncate unlink unlinkat vfork write writev
		_llseek fstatfs fchmod fchown flock getdents64 getdents fadvise64 fsetxattr tee chmod chown lchown
		statfs utime utimes setxattr lsetxattr open_tree fchmodat fchownat utimensat mknodat futimesat
		name_to_handle_at`) {
		modelCalls[n] = true
	}
}

// BenchmarkParse reads a generated 64 MiB -f -ttt -y -xx trace whose lines
// carry long write data (about 1.3 KB a line, where parsing is cheap per
// byte). scripts/parse-bench.sh compares the same path with grep on a 1 GB
// trace.
func BenchmarkParse(b *testing.B) {
	name := filepath.Join(b.TempDir(), "big.strace")
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := gentrace.Write(f, gentrace.Options{Bytes: 64 << 20, Seed: 1, MaxData: 4096}); err != nil {
		b.Fatal(err)
	}
	f.Close()
	benchParse(b, name, Options{})
}

func benchParse(b *testing.B, name string, opt Options) {
	fi, _ := os.Stat(name)
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	b.ResetTimer()
	events := 0
	for i := 0; i < b.N; i++ {
		s, err := Open(name, opt)
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := s.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			events++
		}
		s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}
