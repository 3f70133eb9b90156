package check

import (
	"slices"
	"testing"

	"github.com/crashsim/crashsim/model"
)

// A syncfs makes durable what is on its fd's filesystem, and no more:
// `sync -f /dev/shm` after writing a file on the disk leaves that file's
// data and new name to a crash, and check says so; a syncfs of the
// file's own filesystem is the sync the program needed. With the mount
// table of the machine the trace was recorded on (crashsim trace), a
// syncfs of another disk is told apart too.
func TestSyncfsOfAnotherFilesystem(t *testing.T) {
	const write = `1 openat(AT_FDCWD</srv/app>, "data.txt", O_WRONLY|O_CREAT|O_EXCL, 0666) = 3</srv/app/data.txt>
1 write(3</srv/app/data.txt>, "important\n", 10) = 10
1 close(3</srv/app/data.txt>) = 0
`
	syncfs := func(dir string) string {
		return "1 openat(AT_FDCWD</srv/app>, \"" + dir + "\", O_RDONLY) = 4<" + dir + ">\n1 syncfs(4<" + dir + ">) = 0\n1 close(4<" + dir + ">) = 0\n1 exit_group(0) = ?\n"
	}
	disks := []Mount{{Dir: "/", FSType: "ext4"}, {Dir: "/mnt/usb", FSType: "vfat"}, {Dir: "/dev/shm", FSType: "tmpfs"}}
	for _, c := range []struct {
		name   string
		trace  string
		mounts []Mount
		want   []string // rule IDs of the findings, sorted
	}{
		{"/dev/shm", write + syncfs("/dev/shm"), nil, []string{"data-not-synced", "name-not-synced"}},
		{"the file's own", write + syncfs("/srv/app"), nil, nil},
		{"another disk by the mount table", write + syncfs("/mnt/usb"), disks, []string{"data-not-synced", "name-not-synced"}},
		{"the file's disk by the mount table", write + syncfs("/srv"), disks, nil},
	} {
		opt := Options{Roots: []string{"/srv/app"}, Mounts: c.mounts, Models: []model.Persistence{model.Posix, model.Ext4}}
		var got []string
		for f, err := range runText(t, c.trace, opt).Findings() {
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(got, f.Rule.ID) {
				got = append(got, f.Rule.ID)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("syncfs of %s: findings %q, want %q", c.name, got, c.want)
		}
	}
}
