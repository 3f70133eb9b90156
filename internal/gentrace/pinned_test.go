package gentrace_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/crashsim/crashsim/internal/gentrace"
)

// TestShapesPinned pins the bytes of the shapes that measurements were
// published on (real, files, long): the same seed and options must give
// the same trace, or old and new figures stop being comparable. The real
// shape is pinned on three fixtures copied aside, so that a fixture added
// later does not move it.
//
// The hashes were taken with the gentrace command before the file-set
// shapes were added:
//
//	gentrace -shape real -fixtures DIR -s 32 -size 2M -seed 7 -o real32
//	gentrace -shape files -files 2500 -per-dir 1000 -seed 1 -o files
//	...
//
// A change that moves them on purpose says so, and why, in its commit.
func TestShapesPinned(t *testing.T) {
	fixtures := t.TempDir()
	for _, name := range []string{"cp", "go-threads", "sqlite3-wal"} {
		data, err := os.ReadFile(filepath.Join("../../fixtures/traces", name, "f-ttt-y-xx.strace"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(fixtures, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fixtures, name, "f-ttt-y-xx.strace"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	realShape := func(strsize int) func(io.Writer) error {
		return func(w io.Writer) error {
			ts, err := gentrace.LoadTemplates(fixtures, strsize)
			if err == nil {
				_, err = gentrace.WriteReal(w, ts, gentrace.RealOptions{Bytes: 2 << 20, Seed: 7})
			}
			return err
		}
	}
	for _, c := range []struct {
		name  string
		write func(io.Writer) error
		want  string
	}{
		{"real -s 32", realShape(32), "57fb42669628a882a94901cf10a7b0a7d2680dc351ff6e80901a47d170cb880b"},
		{"real -s 0", realShape(0), "a104a87a0c8ef3db0c081c03f71b11594c00f62e4065cc3d417971d732e9a737"},
		{"files", func(w io.Writer) error {
			_, err := gentrace.WriteFiles(w, gentrace.FilesOptions{Files: 2500, PerDir: 1000, Seed: 1})
			return err
		}, "7733a2aefb67481ff765c71a4a4556d625e5bd4afa60317a1c1cd40bf5a2c74d"},
		{"files seed 9", func(w io.Writer) error {
			_, err := gentrace.WriteFiles(w, gentrace.FilesOptions{Files: 3000, PerDir: 700, Seed: 9})
			return err
		}, "b87492cb06a4db3010bf543a3b686b1c6980144fb31d74badc9968f63fbf91e3"},
		{"long", func(w io.Writer) error {
			_, err := gentrace.Write(w, gentrace.Options{Bytes: 1 << 20, Seed: 3, MaxData: 4096})
			return err
		}, "d5b3d7a3a0bf323c4e46dac925ea392cd87556963b2885a52d6ef0de4eb223d3"},
		{"long unsynced", func(w io.Writer) error {
			_, err := gentrace.Write(w, gentrace.Options{Bytes: 1 << 62, Events: 5000, Seed: 3, Unsynced: true, Others: 3})
			return err
		}, "8a0e8e33ab3b6047913b9e9a90ec7fd27234caaade5842cb91671677cd0d716d"},
	} {
		h := sha256.New()
		if err := c.write(h); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != c.want {
			t.Errorf("%s: the trace changed: sha256 %s, want %s", c.name, got, c.want)
		}
	}
}
