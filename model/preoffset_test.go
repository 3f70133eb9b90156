package model

import (
	"fmt"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestPreTraceFDOffset: an fd the trace never opened (named by -y, or not
// named) was opened before the trace began, at an offset the trace never
// showed: a daemon's log, attached to with strace -p, is written far past
// 0. Its writes are at an unknown offset, not at 0 (which made appends
// to a log look like overwrites of its head, torn by a crash), until an
// lseek says where the offset is. An fd the trace opened keeps counting
// from where its open put it.
func TestPreTraceFDOffset(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       string // the offsets of /srv/log's writes
	}{
		{"named by -y",
			"7 fstat(8</srv/log>, {st_mode=S_IFREG|0644, st_size=90000, ...}) = 0\n" +
				"7 write(8</srv/log>, \"line one\\n\", 9) = 9\n" +
				"7 write(8</srv/log>, \"line two\\n\", 9) = 9\n",
			"[-1 -1]"},
		{"named by -y, then sought",
			"7 write(8</srv/log>, \"line one\\n\", 9) = 9\n" +
				"7 lseek(8</srv/log>, 0, SEEK_END) = 4096\n" +
				"7 write(8</srv/log>, \"line two\\n\", 9) = 9\n",
			"[-1 4096]"},
		{"opened in the trace",
			"7 openat(AT_FDCWD, \"/srv/log\", O_WRONLY|O_CREAT, 0644) = 8\n" +
				"7 write(8, \"line one\\n\", 9) = 9\n" +
				"7 write(8, \"line two\\n\", 9) = 9\n",
			"[0 9]"},
	} {
		m := replayTextWith(t, c.text, parser.Options{}, Options{})
		n := m.nameOf("/srv/log")
		if n == nil || n.Cache == nil {
			t.Fatalf("%s: no file /srv/log", c.name)
		}
		ops := n.Cache.ops()
		var offs []int64
		for i := range ops.len() {
			if op := ops.at(i); op.Kind == DataWrite {
				offs = append(offs, op.Off)
			}
		}
		if got := fmt.Sprint(offs); got != c.want {
			t.Errorf("%s: write offsets %s, want %s", c.name, got, c.want)
		}
	}
}
