package explore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// copySave is a save by a copy made in the kernel: src.bin, a file of the
// snapshot, is copied into conf.tmp with copy_file_range through the fds'
// own offsets (6 bytes, then the rest from offset 6), its first 5 bytes
// appended with sendfile from an offset of its own, and conf.tmp is
// fsynced and renamed over conf.bin, whose directory is fsynced.
func copySave(t *testing.T, root string, before ...string) string {
	lines := append(before,
		`openat(AT_FDCWD, "/R/src.bin", O_RDONLY) = 3`,
		`openat(AT_FDCWD, "/R/conf.tmp", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4`,
		`copy_file_range(3, NULL, 4, NULL, 6, 0) = 6`,
		`copy_file_range(3, NULL, 4, NULL, 1048576, 0) = 9994`,
		`copy_file_range(3, NULL, 4, NULL, 1048576, 0) = 0`,
		`sendfile(4, 3, [0] => [5], 5) = 5`,
		`fsync(4) = 0`,
		`close(4) = 0`,
		`rename("/R/conf.tmp", "/R/conf.bin") = 0`,
		`openat(AT_FDCWD, "/R", O_RDONLY|O_DIRECTORY) = 5`,
		`fsync(5) = 0`,
	)
	return writeTrace(t, root, lines...)
}

// srcBytes is src.bin's content: 10000 bytes, none of them zero, no two
// 4096-byte pages alike.
func srcBytes() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 10000; i++ {
		fmt.Fprintf(&b, "%05d\n", i)
	}
	return b.Bytes()[:10000]
}

// TestCopyFromSnapshot: the states of a save by copy_file_range and
// sendfile are built, the copied bytes taken from the initial snapshot's
// source at the offsets the copies read; a torn copy keeps its first
// bytes, as a torn write does.
func TestCopyFromSnapshot(t *testing.T) {
	src := srcBytes()
	want := append(append([]byte{}, src...), src[:5]...)
	for _, p := range []model.Persistence{model.Posix, model.Ext4} {
		t.Run(p.String(), func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			trace := copySave(t, root)
			initial := writeTree(t, map[string]string{"src.bin": string(src), "conf.bin": "old\n"})
			res := runTrace(t, trace, Options{Trace: trace, Root: root, Initial: initial, Persistence: p, Checker: "true", Keep: true, WorkDir: t.TempDir()})
			states, _ := filepath.Glob(filepath.Join(res.WorkDir, "states", "*"))
			if len(states) != res.Distinct || res.Distinct < 4 {
				t.Fatalf("%d state directories, %d distinct states", len(states), res.Distinct)
			}
			var full, torn, renamed bool
			for _, d := range states {
				if b, err := os.ReadFile(filepath.Join(d, "src.bin")); err != nil || !bytes.Equal(b, src) {
					t.Errorf("%s: src.bin is not the snapshot's (%v)", d, err)
				}
				conf, err := os.ReadFile(filepath.Join(d, "conf.bin"))
				switch {
				case err != nil:
					t.Errorf("%s: conf.bin: %v", d, err)
				case bytes.Equal(conf, want):
					renamed = true
				case string(conf) != "old\n":
					t.Errorf("%s: conf.bin holds %d bytes, neither the old ones nor the copy", d, len(conf))
				}
				tmp, err := os.ReadFile(filepath.Join(d, "conf.tmp"))
				if err != nil {
					continue
				}
				// Every byte is the copy's or a zero (a size without its
				// data); a torn copy is the copy's first bytes.
				if len(tmp) > len(want) {
					t.Errorf("%s: conf.tmp holds %d bytes, more than the %d copied", d, len(tmp), len(want))
					continue
				}
				for i, c := range tmp {
					if c != want[i] && c != 0 {
						t.Errorf("%s: conf.tmp byte %d is %q, not the copy's %q", d, i, c, want[i])
						break
					}
				}
				full = full || bytes.Equal(tmp, want)
				// Torn: the copy's bytes end inside a call, at a page.
				k := 0
				for k < len(tmp) && tmp[k] != 0 {
					k++
				}
				torn = torn || k%4096 == 0 && k > 0
			}
			if !full || !renamed {
				t.Errorf("no state holds the whole copy (in conf.tmp: %v, renamed to conf.bin: %v)", full, renamed)
			}
			if p == model.Posix && !torn {
				t.Errorf("no state holds a torn copy: its first page without the rest")
			}
		})
	}
}

// TestCopyWithoutSnapshotBytes: a copy whose bytes the snapshot cannot
// give (its source written before the copy, or not in the snapshot, or
// shorter there) still stops the exploration naming its line.
func TestCopyWithoutSnapshotBytes(t *testing.T) {
	src := srcBytes()
	for _, c := range []struct {
		name    string
		before  []string
		initial map[string]string
		want    string
	}{
		{"written before", []string{
			`openat(AT_FDCWD, "/R/src.bin", O_WRONLY) = 3`,
			`pwrite64(3, "x", 1, 0) = 1`,
			`close(3) = 0`,
		}, map[string]string{"src.bin": string(src)}, "line 6: the trace does not show the bytes this copy_file_range wrote, and the trace had changed"},
		{"not in the snapshot", nil, map[string]string{"other.bin": "x"}, "line 3: the trace does not show the bytes this copy_file_range wrote, and the initial snapshot does not hold"},
		{"shorter in the snapshot", nil, map[string]string{"src.bin": string(src[:5000])}, "line 4: the trace does not show the bytes this copy_file_range wrote, and the initial snapshot does not hold"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			trace := copySave(t, root, c.before...)
			s, err := parser.Open(trace, parser.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_, err = Run(context.Background(), s, Options{Trace: trace, Root: root, Initial: writeTree(t, c.initial), Checker: "true", WorkDir: t.TempDir()})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got error %v, want %q", err, c.want)
			}
		})
	}
}

// TestRealCopySaves explores saves recorded from real programs that copy
// in the kernel (testdata/copies, recorded by its record.sh): coreutils'
// cp over an existing file (copy_file_range), and Python's
// shutil.copyfile into a temp name (sendfile) renamed over it. Neither
// syncs anything. The checker compares the config with the staged one
// and the old one: every state is built now, the copy's bytes from the
// snapshot (a state holds the whole new config), and those where the
// copy's data was lost (empty, torn at a page, zeros) are rejected.
func TestRealCopySaves(t *testing.T) {
	var staged, old strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintln(&staged, i)
		if i <= 1000 {
			fmt.Fprintln(&old, i)
		}
	}
	const checker = "cmp -s app.conf staged.conf || cmp -s app.conf app.conf.orig"
	for _, c := range []string{"cp-over", "shutil-replace"} {
		for _, p := range []model.Persistence{model.Posix, model.Ext4} {
			t.Run(c+"/"+p.String(), func(t *testing.T) {
				dir := filepath.Join("testdata", "copies", c)
				trace, root := filepath.Join(dir, "trace.strace"), "/tmp/crashsim-copies/"+c
				initial := writeTree(t, map[string]string{"staged.conf": staged.String(), "app.conf": old.String(), "app.conf.orig": old.String()})
				before := lstatString(root)
				res := runTrace(t, trace, Options{
					Trace: trace, Root: root, Initial: initial, Persistence: p, Checker: checker, Keep: true,
					Timeout: 20 * time.Second, WorkDir: t.TempDir(), Predict: predictWith(t, trace, filepath.Join(dir, "initial.list"), root),
				})
				if after := lstatString(root); after != before {
					t.Errorf("%s changed during the exploration: %s, then %s", root, before, after)
				}
				t.Logf("%d states built, %d distinct, checked %d, rejected %d:%s", res.Candidates, res.Distinct, res.Checked, res.Failed, describe(res))
				if res.Checked < 4 || res.Failed == 0 {
					t.Fatalf("checked %d states, rejected %d", res.Checked, res.Failed)
				}
				lost := map[string]bool{}
				for _, f := range res.Findings {
					if f.Rule.ID != check.CheckerFailed || f.State == nil || f.State.Path != root+"/app.conf" {
						t.Errorf("unexpected finding %s %s: %s", f.Rule.ID, f.Path, f.Message)
						continue
					}
					lost[f.State.Outcome] = true
				}
				for _, o := range []string{"empty", "torn", "zeros"} {
					if !lost[o] {
						t.Errorf("no rejected state with app.conf %s (rejected: %v)", o, lost)
					}
				}
				// The copy's bytes were built: some state holds the new
				// config whole (the checker accepts it).
				states, _ := filepath.Glob(filepath.Join(res.WorkDir, "states", "*"))
				whole := false
				for _, d := range states {
					b, err := os.ReadFile(filepath.Join(d, "app.conf"))
					whole = whole || err == nil && string(b) == staged.String()
				}
				if !whole {
					t.Errorf("no state of %d holds app.conf as the copy left it", len(states))
				}
			})
		}
	}
}
