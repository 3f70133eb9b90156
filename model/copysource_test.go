package model_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/google/go-cmp/cmp"
)

// TestCopySource pins what a copy made in the kernel records of where its
// bytes came from: explore rebuilds them from the initial snapshot, so
// the source, its offset and whether the trace had changed it before the
// copy must be right, and a copy through an fd's own offset moves it.
func TestCopySource(t *testing.T) {
	trace := strings.Join([]string{
		// src.bin and other.bin existed before the trace (opened without
		// O_CREAT); old.bin is written before it is copied.
		`openat(AT_FDCWD, "/t/src.bin", O_RDONLY) = 3`,
		`openat(AT_FDCWD, "/t/dst.bin", O_WRONLY|O_CREAT|O_EXCL, 0644) = 4`,
		// The fd's own offsets, twice: the second copy reads on from 100.
		`copy_file_range(3, NULL, 4, NULL, 100, 0) = 100`,
		`copy_file_range(3, NULL, 4, NULL, 100, 0) = 50`,
		// off_in given: the fd's offset (150) neither used nor moved.
		`copy_file_range(3, [7], 4, [0], 10, 0) = 10`,
		`copy_file_range(3, NULL, 4, NULL, 10, 0) = 10`,
		// sendfile with an offset (strace shows where it ended too), then
		// through the fd's offset, moved to 5 by lseek.
		`sendfile(4, 3, [20] => [30], 10) = 10`,
		`lseek(3, 5, SEEK_SET) = 5`,
		`sendfile(4, 3, NULL, 8) = 8`,
		`sendfile(4, 3, NULL, 8) = 8`,
		// A source written before the copy: its bytes are not the
		// snapshot's any more.
		`openat(AT_FDCWD, "/t/old.bin", O_RDWR) = 5`,
		`pwrite64(5, "x", 1, 0) = 1`,
		`copy_file_range(5, [0], 4, NULL, 4, 0) = 4`,
		// One renamed before the copy: changed too.
		`openat(AT_FDCWD, "/t/other.bin", O_RDONLY) = 6`,
		`rename("/t/other.bin", "/t/moved.bin") = 0`,
		`copy_file_range(6, [0], 4, NULL, 4, 0) = 4`,
		// A pipe: nothing the model can name.
		`pipe2([7, 8], 0) = 0`,
		`splice(7, NULL, 4, NULL, 3, 0) = 3`,
		// sendfile into a socket copies into no file, but moves the
		// source fd's offset all the same: the write after it lands at 5.
		`socket(AF_INET, SOCK_STREAM, IPPROTO_TCP) = 9`,
		`openat(AT_FDCWD, "/t/rw.bin", O_RDWR) = 10`,
		`sendfile(9, 10, NULL, 5) = 5`,
		`write(10, "X", 1) = 1`,
	}, "\n") + "\n"
	name := filepath.Join(t.TempDir(), "c.strace")
	if err := os.WriteFile(name, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	// Each model alone, then the four sharing one process model, where
	// the first to apply a copy moves two offsets the others must see as
	// they were.
	for _, shared := range []*model.Shared{nil, {}} {
		var ms []*model.Model
		got := make([][]string, len(model.Persistences))
		for i, p := range model.Persistences {
			ms = append(ms, model.New(model.Options{Persistence: p, Shared: shared, Observe: func(m *model.Model, e *model.Effect) {
				if e.Data == nil || e.Kind != model.EffWrite {
					return
				}
				s := fmt.Sprintf("%s@%d: ", e.Event.Name, e.Data.Off)
				if c := e.Data.Copy(); c != nil {
					s += fmt.Sprintf("%s at %d unchanged=%v", c.Path, c.Off, c.Unchanged)
				} else {
					s += "no source"
				}
				got[i] = append(got[i], s)
			}}))
		}
		for _, ev := range readEvents(t, trace, name) {
			for _, m := range ms {
				m.Apply(ev)
			}
		}
		want := []string{
			`copy_file_range@0: /t/src.bin at 0 unchanged=true`,
			`copy_file_range@100: /t/src.bin at 100 unchanged=true`,
			`copy_file_range@0: /t/src.bin at 7 unchanged=true`,
			`copy_file_range@150: /t/src.bin at 150 unchanged=true`,
			`sendfile@160: /t/src.bin at 20 unchanged=true`,
			`sendfile@170: /t/src.bin at 5 unchanged=true`,
			`sendfile@178: /t/src.bin at 13 unchanged=true`,
			`pwrite64@0: no source`,
			`copy_file_range@186: /t/old.bin at 0 unchanged=false`,
			`copy_file_range@190: /t/moved.bin at 0 unchanged=false`,
			`splice@194: no source`,
			`write@5: no source`,
		}
		for i, p := range model.Persistences {
			if d := cmp.Diff(want, got[i]); d != "" {
				t.Errorf("%s (shared %v): copies (-want +got):\n%s", p, shared != nil, d)
			}
		}
	}
}
