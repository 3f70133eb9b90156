package model_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
	"github.com/google/go-cmp/cmp"
)

// TestWriteChunks pins where a write's bytes are taken from: explore and
// the oracle rebuild files from these chunks, so each must read back as
// what the call wrote, clipped to its return value.
func TestWriteChunks(t *testing.T) {
	trace := strings.Join([]string{
		`openat(AT_FDCWD, "/t/f", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3`,
		`write(3, "hello world", 11) = 5`,
		`pwrite64(3, "xyz", 3, 100) = 3`,
		`writev(3, [{iov_base="ab", iov_len=2}, {iov_base="cde", iov_len=3}], 2) = 4`,
		`writev(3, [{iov_base="ab", iov_len=2}, {iov_base="cd", iov_len=2}, ...], 5) = 6`,
		`pwritev(3, [{iov_base="only", iov_len=4}], 1, 10) = 4`,
		`write(3, ""..., 512) = 512`,
		`copy_file_range(4, NULL, 3, NULL, 100, 0) = 100`,
		`ftruncate(3, 0) = 0`,
	}, "\n") + "\n"
	name := filepath.Join(t.TempDir(), "w.strace")
	if err := os.WriteFile(name, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	data := parser.NewDataReader()
	defer data.Close()
	var got []string
	m := model.New(model.Options{Observe: func(m *model.Model, e *model.Effect) {
		if e.Data == nil {
			return
		}
		var cs []string
		for _, c := range e.Data.Chunks() {
			if !c.Ref.Valid() {
				cs = append(cs, fmt.Sprintf("none/%d", c.Len))
				continue
			}
			b, err := data.Bytes(c.Ref, c.Len)
			if err != nil {
				t.Fatal(err)
			}
			s := fmt.Sprintf("%q/%d", b, c.Len)
			if c.Ref.Truncated {
				s += " cut"
			}
			cs = append(cs, s)
		}
		got = append(got, fmt.Sprintf("%s: %s", e.Event.Name, strings.Join(cs, " ")))
	}})
	for _, ev := range readEvents(t, trace, name) {
		m.Apply(ev)
	}
	want := []string{
		`write: "hello"/5`,
		`pwrite64: "xyz"/3`,
		`writev: "ab"/2 "cd"/2`,
		`writev: "ab"/2 "cd"/2 none/2`,
		`pwritev: "only"/4`,
		`write: ""/512 cut`,
		`copy_file_range: none/100`,
		`ftruncate: `,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("chunks (-want +got):\n%s", d)
	}
}
