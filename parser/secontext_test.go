package parser

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// A trace recorded with --secontext reads as the same trace without the
// SELinux contexts: the paths, fds and returned fds they follow, and the
// places of written data.
func TestSecontext(t *testing.T) {
	with := `100 [unconfined_t] openat(AT_FDCWD, "/data/a" [user_home_t], O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3 [user_home_t]
100 [unconfined_t] write(3 [user_home_t], "a [b] c", 7) = 7
100 [unconfined_t] fsync(3</data/a> [user_home_t:s0]) = 0
100 [unconfined_u:unconfined_r:unconfined_t:s0-s0:c0,c1023] rename("/data/a" [user_home_t], "/data/b" [system_u:object_r:user_home_t:s0!!unconfined_u:object_r:tmp_t:s0]) = 0
100 [unconfined_t] openat(AT_FDCWD, "/data" [user_home_t], O_RDONLY|O_DIRECTORY) = 4</data> [user_home_t]
100 [unconfined_t] 12:00:01.000001 fsync(4 [user_home_t]) = 0
100 [unconfined_t] close(3 [user_home_t] <unfinished ...>
101 [unconfined_t] openat(AT_FDCWD, "/nope" [user_home_t], O_RDONLY) = -1 ENOENT (No such file or directory)
100 [unconfined_t] <... close resumed>) = 0
100 [unconfined_t] exit_group(0) = ?
100 +++ exited with 0 +++
`
	// A context follows a string, an annotation or a number (the data
	// written, "a [b] c", keeps its brackets).
	ctx := regexp.MustCompile(`(["0-9>]) \[[a-z_:0-9!,.-]+\]`)
	without := ctx.ReplaceAllString(with, "$1")
	if strings.Contains(without, "user_home_t") {
		t.Fatalf("the test's contexts were not all removed:\n%s", without)
	}
	read := func(trace string) []string {
		r := NewReader(strings.NewReader(trace), "t", Options{})
		var out []string
		for {
			ev, err := r.Next()
			if err != nil {
				if err.Error() != "EOF" {
					t.Fatalf("%v", err)
				}
				return out
			}
			s := fmt.Sprintf("%d %s %q", ev.PID, ev.Brief(1000, nil), ev.RetAnno)
			for _, a := range ev.Args {
				s += fmt.Sprintf(" [%v %q %q %q]", a.Kind, a.Text, a.Str, a.Anno)
				if a.Data.Valid() {
					// The offset is into the trace as written: compare the
					// bytes there, not the offset, which the contexts move.
					s += " " + trace[a.Data.Off:a.Data.Off+int64(a.Data.Len)]
				}
			}
			out = append(out, s)
		}
	}
	got, want := read(with), read(without)
	if len(got) != len(want) || len(want) != 10 {
		t.Fatalf("%d events with contexts, %d without (want 10)", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d:\n with contexts: %s\n without:       %s", i, got[i], want[i])
		}
	}
}
