package oracle

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCheckSize: a size below a filesystem's minimum, or past 1 TiB, is
// refused with the minimum; 0 (the default), the minimum and the default
// are taken.
func TestCheckSize(t *testing.T) {
	for _, fs := range Filesystems() {
		spec := filesystems[fs]
		for _, good := range []int{0, spec.minMB, spec.sizeMB, MaxSizeMB} {
			if err := CheckSize(fs, good); err != nil {
				t.Errorf("%s, %d MiB: %v", fs, good, err)
			}
		}
		for _, bad := range []int{-1, 1, spec.minMB - 1, MaxSizeMB + 1} {
			err := CheckSize(fs, bad)
			if err == nil {
				t.Errorf("%s, %d MiB: no error", fs, bad)
				continue
			}
			if want := "give " + strconv.Itoa(spec.minMB) + " to "; !strings.Contains(err.Error(), want) {
				t.Errorf("%s, %d MiB: %q lacks %q", fs, bad, err, want)
			}
		}
	}
}

// TestMinSizeMeasured: each minimum is what this machine's mkfs says (it
// needs no root: mkfs writes an image file). At the minimum mkfs makes a
// filesystem the oracle can mount, one MiB below it refuses, or (ext4)
// leaves out the journal that commit=600 needs. A newer mkfs that moves
// its minimum fails this test rather than the oracle, at mount.
func TestMinSizeMeasured(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs mkfs of each filesystem")
	}
	for _, fs := range Filesystems() {
		spec := filesystems[fs]
		t.Run(fs, func(t *testing.T) {
			if _, err := exec.LookPath(spec.mkfs[0]); err != nil {
				t.Skipf("needs %s (%s): %v", spec.mkfs[0], spec.pkg, err)
			}
			mkfs := func(mb int) (string, error) {
				img := filepath.Join(t.TempDir(), "img")
				f, err := os.Create(img)
				if err != nil {
					t.Fatal(err)
				}
				if err := f.Truncate(int64(mb) << 20); err != nil {
					t.Fatal(err)
				}
				f.Close()
				var out bytes.Buffer
				cmd := exec.Command(spec.mkfs[0], append(spec.mkfs[1:], img)...)
				cmd.Stdout, cmd.Stderr = &out, &out
				err = cmd.Run()
				return out.String(), err
			}
			const noJournal = "too small for a journal"
			if out, err := mkfs(spec.minMB); err != nil || strings.Contains(out, noJournal) {
				t.Errorf("%d MiB, the minimum: %v: %s", spec.minMB, err, out)
			}
			if out, err := mkfs(spec.minMB - 1); err == nil && !strings.Contains(out, noJournal) {
				t.Errorf("%d MiB, below the minimum: mkfs made a filesystem the oracle could mount: %s", spec.minMB-1, out)
			}
		})
	}
}
