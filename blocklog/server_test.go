package blocklog

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needsFUSE skips a test that needs root, /dev/fuse, loop devices and
// mkfs.ext4, saying which is missing.
func needsFUSE(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: needs root, /dev/fuse and loop devices")
	}
	if err := Preflight(); err != nil {
		t.Skip("needs root and /dev/fuse: ", err)
	}
	if _, err := os.Stat("/dev/loop-control"); err != nil {
		t.Skip("needs loop devices: ", err)
	}
	for _, p := range []string{"mkfs.ext4", "losetup", "mount"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip("needs ", p)
		}
	}
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// A filesystem on a loop device over the served image sends its writes and
// its flushes through the server, and the log holds them in order: an
// fsync of a file on it logs the file's bytes and then a flush.
func TestServeLogsFilesystemWrites(t *testing.T) {
	needsFUSE(t)
	dir := t.TempDir()
	img := filepath.Join(dir, "back.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 64<<20); err != nil {
		t.Fatal(err)
	}
	run(t, "mkfs.ext4", "-q", "-F", img)
	fuseDir, mnt := filepath.Join(dir, "fuse"), filepath.Join(dir, "mnt")
	os.Mkdir(fuseDir, 0o755)
	os.Mkdir(mnt, 0o755)
	s, err := Serve(fuseDir, img, filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dev := run(t, "losetup", "--find", "--show", s.Image())
	defer exec.Command("losetup", "-d", dev).Run()
	run(t, "mount", "-t", "ext4", "-o", "commit=600", dev, mnt)
	defer exec.Command("umount", mnt).Run()
	if err := s.Mark(1); err != nil {
		t.Fatal(err)
	}
	payload := bytes.Repeat([]byte("crashsim-blocklog-payload\n"), 400)
	f, err := os.Create(filepath.Join(mnt, "f"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(payload); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := s.Mark(2); err != nil {
		t.Fatal(err)
	}
	run(t, "umount", mnt)
	run(t, "losetup", "-d", dev)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := OpenLog(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var seq []string
	sawPayload, flushAfterPayload := false, false
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seq = append(seq, rec.Kind.String())
		switch rec.Kind {
		case Write:
			b := make([]byte, rec.Len)
			if _, err := r.Data().ReadAt(b, rec.Data); err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, payload[:len(payload)/2]) {
				sawPayload = true
			}
		case Flush:
			if sawPayload {
				flushAfterPayload = true
			}
		case Mark:
			if rec.ID == 2 && !flushAfterPayload {
				t.Errorf("mark 2 (after the fsync): the file's bytes then a flush were not logged before it")
			}
		}
	}
	t.Logf("%d records", len(seq))
	if !sawPayload {
		t.Errorf("the file's bytes never reached the log")
	}
}

func TestPreflightSaysWhatIsMissing(t *testing.T) {
	for _, c := range []struct {
		euid int
		dev  string
		want string
	}{
		{1000, "/dev/null", "needs root"},
		{0, filepath.Join(t.TempDir(), "fuse"), "no such file"},
	} {
		err := preflight(c.euid, c.dev)
		if !errors.Is(err, ErrNoFUSE) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("preflight(%d, %s) = %v, want ErrNoFUSE saying %q", c.euid, c.dev, err, c.want)
		}
	}
}

// A program started while the server runs does not hold the FUSE
// connection: if the server's process dies, the kernel can abort it.
func TestServeKeepsFUSEFromChildren(t *testing.T) {
	needsFUSE(t)
	dir := t.TempDir()
	img := filepath.Join(dir, "back.img")
	if err := os.WriteFile(img, make([]byte, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "fuse"), 0o755)
	s, err := Serve(filepath.Join(dir, "fuse"), img, filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := run(t, "sh", "-c", "for f in /proc/$$/fd/*; do readlink $f; done; true")
	if strings.Contains(out, "/dev/fuse") {
		t.Errorf("a child holds /dev/fuse:\n%s", out)
	}
}
