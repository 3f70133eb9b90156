package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
)

// BenchmarkRenameOverUnsynced: a program that saves by writing a file and
// renaming it over the same target, again and again, and never syncs.
// Every rename is rename-before-sync, with a crash state to show; the
// target then has a candidate inode for each save. Before its
// demonstration stopped at the first state it could pick, this was cubic
// in the saves (4,000 saves: 47 s). go test ./check -run '^$' -bench
// RenameOverUnsynced.
func BenchmarkRenameOverUnsynced(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		var t strings.Builder
		t.WriteString("execve(\"/bin/p\", [\"p\"], 0x7f /* 1 var */) = 0\n")
		for range n {
			t.WriteString("openat(AT_FDCWD, \"/d/f\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\nwrite(3, \"x\", 1) = 1\nclose(3) = 0\nrename(\"/d/f\", \"/d/g\") = 0\n")
		}
		t.WriteString("exit_group(0) = ?\n+++ exited with 0 +++\n")
		text := t.String()
		b.Run(fmt.Sprintf("saves=%d", n), func(b *testing.B) {
			for b.Loop() {
				res := runText(b, text, Options{Models: model.Persistences})
				res.Close()
			}
		})
	}
}
