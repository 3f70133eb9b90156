package iobench

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// run runs cfg in a fresh directory and returns stdout and the warnings.
func run(t *testing.T, cfg Config) (string, []string, error) {
	t.Helper()
	var out bytes.Buffer
	var warns []string
	err := Run(cfg, &out, func(msg string) { warns = append(warns, msg) })
	return out.String(), warns, err
}

func inTemp(t *testing.T, mutate func(*Config)) Config {
	t.Helper()
	c := DefaultConfig()
	c.Path = filepath.Join(t.TempDir(), "bench.bin")
	c.SizeMB = 1
	c.Count = 5
	mutate(&c)
	return c
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func matchLines(t *testing.T, out string, want ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, rx := range want {
		if !regexp.MustCompile(`^` + rx + `$`).MatchString(lines[i]) {
			t.Errorf("line %d = %q, want match for %q", i+1, lines[i], rx)
		}
	}
}

const (
	num  = `[0-9]+`
	rate = `[0-9]+\.[0-9]`
)

func TestStreamModes(t *testing.T) {
	for _, tc := range []struct {
		mode  Mode
		lines []string
	}{
		{Buffered, []string{`mode=buffered bytes=2097152 ms=` + num + ` MiB/s=` + rate, `fsync_ms=` + num}},
		{FsyncEvery, []string{`mode=fsync-every bytes=2097152 ms=` + num + ` MiB/s=` + rate}},
		{Direct, []string{`mode=direct bytes=2097152 ms=` + num + ` MiB/s=` + rate}},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			c := inTemp(t, func(c *Config) { c.Mode, c.SizeMB = tc.mode, 2 })
			out, _, err := run(t, c)
			if errors.Is(err, ErrDirectUnsupported) {
				t.Skip("the filesystem of t.TempDir refuses O_DIRECT")
			}
			if err != nil {
				t.Fatal(err)
			}
			matchLines(t, out, tc.lines...)
			if got := fileSize(t, c.Path); got != 2<<20 {
				t.Errorf("size = %d, want %d", got, 2<<20)
			}
		})
	}
}

func TestPatternFillIsTheSeedBlock(t *testing.T) {
	c := inTemp(t, func(c *Config) {})
	if _, _, err := run(t, c); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range data {
		if b != byte(i) {
			t.Fatalf("byte %d = %#x, want %#x", i, b, byte(i))
		}
	}
}

func TestRandomFillRepeatsWithItsSeed(t *testing.T) {
	contents := func(seed uint64) []byte {
		c := inTemp(t, func(c *Config) { c.Fill, c.Seed = FillRandom, seed })
		out, _, err := run(t, c)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "\nfill=random seed="+strconv.FormatUint(seed, 10)+"\n") {
			t.Errorf("output does not record the seed:\n%s", out)
		}
		data, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	a, b, other := contents(7), contents(7), contents(8)
	if !bytes.Equal(a, b) {
		t.Error("two runs with seed 7 wrote different bytes")
	}
	if bytes.Equal(a, other) {
		t.Error("seeds 7 and 8 wrote the same bytes")
	}
	if bytes.Equal(a[:DefaultBlockSize], a[DefaultBlockSize:2*DefaultBlockSize]) {
		t.Error("random fill repeats its first block, so a deduplicating filesystem could skip it")
	}
}

func TestGeometry(t *testing.T) {
	for _, tc := range []struct {
		name      string
		blockSize int64
		offset    int64
		overwrite bool
	}{
		{"block size not dividing the total", 4000, 0, false},
		{"unaligned offset", 4096, 512, false},
		{"overwrite unaligned", 4096, 100, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := inTemp(t, func(c *Config) {
				c.BlockSize, c.Offset, c.Overwrite = tc.blockSize, tc.offset, tc.overwrite
			})
			out, _, err := run(t, c)
			if err != nil {
				t.Fatal(err)
			}
			matchLines(t, out,
				`mode=buffered bytes=1048576 ms=`+num+` MiB/s=`+rate,
				`fsync_ms=`+num,
				`block_size=`+strconv.FormatInt(tc.blockSize, 10)+` offset=`+strconv.FormatInt(tc.offset, 10)+` overwrite=`+strconv.FormatBool(tc.overwrite))
			if got, want := fileSize(t, c.Path), tc.offset+1<<20; got != want {
				t.Errorf("size = %d, want %d", got, want)
			}
		})
	}
}

func TestReplaceModes(t *testing.T) {
	for _, m := range []Mode{ReplacePlain, ReplaceFsync, ReplaceAtomic} {
		t.Run(string(m), func(t *testing.T) {
			c := inTemp(t, func(c *Config) { c.Mode = m })
			out, _, err := run(t, c)
			if err != nil {
				t.Fatal(err)
			}
			matchLines(t, out, `mode=`+string(m)+` saves=5 bytes=20480 ms=`+num+` ms/save=[0-9]+\.[0-9]{3}`)
			if got := fileSize(t, c.Path); got != SmallFileSize {
				t.Errorf("size = %d, want %d", got, SmallFileSize)
			}
			entries, _ := os.ReadDir(filepath.Dir(c.Path))
			if len(entries) != 1 {
				t.Errorf("directory holds %d entries, want only the target (temporary file left behind?)", len(entries))
			}
		})
	}
}

func TestCreateModes(t *testing.T) {
	file := `fsync=file p50_us=[0-9.]+ p99_us=[0-9.]+`
	dir := `fsync=dir p50_us=[0-9.]+ p99_us=[0-9.]+`
	for _, tc := range []struct {
		mode  Mode
		syncs []string
	}{
		{CreateFile, []string{file}},
		{CreateFileDir, []string{file, dir}},
		{CreateDir, []string{dir}},
		{CreateRename, []string{file, dir}},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			c := inTemp(t, func(c *Config) { c.Mode = tc.mode })
			for range 2 { // the second run clears the first one's directory
				out, _, err := run(t, c)
				if err != nil {
					t.Fatal(err)
				}
				matchLines(t, out, append([]string{`mode=` + string(tc.mode) + ` files=5 bytes=20480 ms=` + num + ` files/s=` + rate}, tc.syncs...)...)
			}
			entries, err := os.ReadDir(c.Path + ".d")
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 5 {
				t.Fatalf("%d files, want 5", len(entries))
			}
			for _, e := range entries {
				if got := fileSize(t, filepath.Join(c.Path+".d", e.Name())); got != SmallFileSize || strings.HasSuffix(e.Name(), ".tmp") {
					t.Errorf("%s: %d bytes, want a %d-byte final file", e.Name(), got, SmallFileSize)
				}
			}
			if _, err := os.Stat(c.Path); !os.IsNotExist(err) {
				t.Errorf("FILE itself was created (stat: %v)", err)
			}
		})
	}
}

func TestCreateLeavesForeignDirectoryAlone(t *testing.T) {
	c := inTemp(t, func(c *Config) { c.Mode = CreateFile })
	keep := filepath.Join(c.Path+".d", "notes.txt")
	if err := os.Mkdir(c.Path+".d", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, c)
	if err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("err = %v, want one naming notes.txt", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("the user's file is gone: %v", err)
	}
}

func TestObserve(t *testing.T) {
	obs := func(when string) string {
		return `observe=` + when + ` dirty_kb=` + num + ` wchar=` + num + ` write_bytes=` + num
	}
	c := inTemp(t, func(c *Config) { c.Observe = true })
	out, _, err := run(t, c)
	if err != nil {
		t.Fatal(err)
	}
	matchLines(t, out, `mode=buffered .*`, `fsync_ms=`+num, obs("before"), obs("written"), obs("after"))

	c = inTemp(t, func(c *Config) { c.Mode, c.Observe = ReplaceAtomic, true })
	out, _, err = run(t, c)
	if err != nil {
		t.Fatal(err)
	}
	matchLines(t, out, `mode=replace-atomic .*`, obs("before"), obs("after"))
}

func TestUsageErrorsTouchNothing(t *testing.T) {
	for name, mutate := range map[string]func(*Config){
		"unknown mode":      func(c *Config) { c.Mode = "sync-sometimes" },
		"size 0":            func(c *Config) { c.SizeMB = 0 },
		"size too large":    func(c *Config) { c.SizeMB = maxSizeMB + 1 },
		"every 0":           func(c *Config) { c.Mode, c.Every = FsyncEvery, 0 },
		"count 0":           func(c *Config) { c.Mode, c.Count = CreateRename, 0 },
		"block size 0":      func(c *Config) { c.BlockSize = 0 },
		"negative offset":   func(c *Config) { c.Offset = -1 },
		"unknown fill":      func(c *Config) { c.Fill = "zeros" },
		"empty path":        func(c *Config) { c.Path = "" },
		"create, count -1":  func(c *Config) { c.Mode, c.Count = CreateFile, -1 },
		"overwrite, size 0": func(c *Config) { c.Overwrite, c.SizeMB = true, 0 },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			c := DefaultConfig()
			c.Path = filepath.Join(dir, "bench.bin")
			mutate(&c)
			_, _, err := run(t, c)
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v, want a *UsageError", err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("a usage error left %d entries on disk", len(entries))
			}
		})
	}
}

func TestIOErrorsNamePathAndErrno(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode Mode
		path string
		want string
	}{
		{Buffered, filepath.Join(file, "f"), "open " + filepath.Join(file, "f") + ": not a directory"},
		{Direct, filepath.Join(file, "f"), "open " + filepath.Join(file, "f") + ": not a directory"},
		{ReplaceFsync, filepath.Join(file, "f"), "open " + filepath.Join(file, "f") + ": not a directory"},
		{FsyncEvery, filepath.Join(dir, "missing", "f"), "open " + filepath.Join(dir, "missing", "f") + ": no such file or directory"},
		{CreateFile, filepath.Join(dir, "missing", "f"), "mkdir " + filepath.Join(dir, "missing", "f.d") + ": no such file or directory"},
	} {
		c := DefaultConfig()
		c.Mode, c.Path, c.SizeMB = tc.mode, tc.path, 1
		_, _, err := run(t, c)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s %s: err = %v, want %q", tc.mode, tc.path, err, tc.want)
		}
		var ue *UsageError
		if errors.As(err, &ue) || errors.Is(err, ErrDirectUnsupported) {
			t.Errorf("%s %s: an I/O error classified as %T", tc.mode, tc.path, err)
		}
	}
}

// TestDirectRefusalIsClassified uses an open that fails the way a
// filesystem without O_DIRECT support does; only EINVAL on an O_DIRECT
// open is that refusal.
func TestDirectRefusalIsClassified(t *testing.T) {
	refuse := func(errno unix.Errno) openFunc {
		return func(path string, flags int, perm uint32) (int, error) {
			if flags&unix.O_DIRECT != 0 {
				return -1, errno
			}
			return -1, unix.EINVAL
		}
	}
	for _, tc := range []struct {
		mode        Mode
		errno       unix.Errno
		unsupported bool
	}{
		{Direct, unix.EINVAL, true},
		{Direct, unix.EACCES, false},
		{Buffered, unix.EINVAL, false},
		{FsyncEvery, unix.EINVAL, false},
	} {
		dir := t.TempDir()
		c := DefaultConfig()
		c.Mode, c.Path, c.SizeMB = tc.mode, filepath.Join(dir, "f"), 1
		r := &runner{cfg: c, out: new(bytes.Buffer), open: refuse(tc.errno)}
		err := r.run()
		if got := errors.Is(err, ErrDirectUnsupported); got != tc.unsupported {
			t.Errorf("%s with %v: err = %v, unsupported = %t, want %t", tc.mode, tc.errno, err, got, tc.unsupported)
		}
		if !tc.unsupported && (err == nil || !strings.HasPrefix(err.Error(), "open "+c.Path+": ")) {
			t.Errorf("%s with %v: err = %v, want an open error naming the path", tc.mode, tc.errno, err)
		}
	}
}

func TestWriteFullShortWritesAndEINTR(t *testing.T) {
	var got []byte
	calls := 0
	write := func(p []byte) (int, error) {
		calls++
		switch calls {
		case 1:
			return 0, unix.EINTR
		case 2, 3:
			n := min(len(p), 3) // short writes
			got = append(got, p[:n]...)
			return n, nil
		}
		got = append(got, p...)
		return len(p), nil
	}
	want := []byte("0123456789abcdef")
	if err := writeFull(write, want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("wrote %q, want %q", got, want)
	}
	if calls != 4 {
		t.Errorf("%d write calls, want 4", calls)
	}

	stuck := func(p []byte) (int, error) { return 0, nil }
	if err := writeFull(stuck, want); err == nil {
		t.Error("a write that makes no progress did not fail")
	}
	eio := func(p []byte) (int, error) { return 0, unix.EIO }
	if err := writeFull(eio, want); !errors.Is(err, unix.EIO) {
		t.Errorf("err = %v, want EIO", err)
	}
}

func TestAlignedBuffer(t *testing.T) {
	for _, n := range []int{1, 4000, 4096, 65536} {
		b := alignedBuffer(n)
		if len(b) != n || cap(b) != n {
			t.Errorf("alignedBuffer(%d): len %d cap %d", n, len(b), cap(b))
		}
		if addr := uintptr(unsafe.Pointer(&b[0])); addr%pageSize != 0 {
			t.Errorf("alignedBuffer(%d) starts at %#x, not 4096-aligned", n, addr)
		}
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i))
	}
	if got := percentile(d, 50); got != 50 {
		t.Errorf("p50 = %d, want 50", got)
	}
	if got := percentile(d, 99); got != 99 {
		t.Errorf("p99 = %d, want 99", got)
	}
	if got := percentile(d[:1], 99); got != 100 {
		t.Errorf("p99 of one = %d, want 100", got)
	}
}

func TestClampNeverZero(t *testing.T) {
	if got := clamp(0); got != time.Nanosecond {
		t.Errorf("clamp(0) = %v", got)
	}
	if got := clamp(-time.Second); got != time.Nanosecond {
		t.Errorf("clamp(-1s) = %v", got)
	}
}

func TestWarnings(t *testing.T) {
	r := &runner{}
	var warns []string
	r.warn = func(m string) { warns = append(warns, m) }
	r.checkRate("mode=buffered", 16<<10)
	r.checkSyncs("fdatasync", []time.Duration{time.Millisecond, 5 * time.Microsecond, time.Millisecond})
	if len(warns) != 0 {
		t.Fatalf("figures at the thresholds warned: %q", warns)
	}
	r.checkRate("mode=buffered", 20<<10)
	r.checkSyncs("fdatasync", []time.Duration{time.Microsecond, 500 * time.Nanosecond, time.Millisecond})
	if len(warns) != 2 {
		t.Fatalf("got %d warnings, want 2: %q", len(warns), warns)
	}
}

func TestTmpfsWarning(t *testing.T) {
	dir, err := os.MkdirTemp("/dev/shm", "iobench-test-")
	if err != nil || memoryFS(dir) != "tmpfs" {
		t.Skip("no tmpfs at /dev/shm")
	}
	defer os.RemoveAll(dir)
	c := DefaultConfig()
	c.Mode, c.Path, c.SizeMB = FsyncEvery, filepath.Join(dir, "bench.bin"), 1
	_, warns, err := run(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) == 0 || !strings.Contains(warns[0], "is on tmpfs") {
		t.Errorf("warnings = %q, want one saying the target is on tmpfs", warns)
	}
	if memoryFS(t.TempDir()) != "" {
		t.Log("t.TempDir is itself on a memory filesystem")
	}
}

func TestEveryModeIsDocumentedAndValid(t *testing.T) {
	for _, m := range Modes() {
		if m.Doc() == "" {
			t.Errorf("mode %s has no doc line", m)
		}
		c := DefaultConfig()
		c.Mode = m
		if err := c.Validate(); err != nil {
			t.Errorf("mode %s: %v", m, err)
		}
	}
}
