package check

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMknodNames: mknod and mknodat make a name as an open with O_CREAT
// does: a fifo (mkfifo, cp -a of one), a socket, a device node or a
// regular file. The model did not read them, so mkfifo into a directory
// that was never fsynced checked clean (exit 0). A directory fsync after
// it makes it durable.
func TestMknodNames(t *testing.T) {
	mk := `100 execve("/usr/bin/mkfifo", ["mkfifo", "/data/q"], 0x7ffd /* 3 vars */) = 0
100 mknodat(AT_FDCWD, "/data/q", S_IFIFO|0666) = 0
100 mknod("/data/r", S_IFREG|0644) = 0
`
	dirSync := `100 openat(AT_FDCWD, "/data", O_RDONLY|O_DIRECTORY) = 3
100 fsync(3) = 0
100 close(3) = 0
`
	end := "100 exit_group(0) = ?\n100 +++ exited with 0 +++\n"
	for _, c := range []struct {
		name, trace string
		want        []string
	}{
		{"never synced", mk + end, []string{"name-not-synced /data/q", "name-not-synced /data/r"}},
		{"directory synced after", mk + dirSync + end, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := runText(t, c.trace, Options{Roots: []string{"/data"}})
			var got []string
			for f, err := range res.Findings() {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, f.Rule.ID+" "+f.Path)
			}
			slices.Sort(got)
			got = slices.Compact(got)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}
