package tracer

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMounts(t *testing.T) {
	in := `22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24683584k
30 27 0:26 / /run rw,nosuid,nodev shared:5 master:1 - tmpfs tmpfs rw,mode=755
31 30 0:27 / /run/with\040space rw - ramfs none rw
32 27 0:28 / /mnt rw - tmpfs tmpfs rw
33 32 8:1 / /mnt rw - xfs /dev/sdb1 rw
`
	got, err := parseMounts(strings.NewReader(in), "mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	want := []Mount{
		{"/proc", "proc"}, {"/", "ext4"}, {"/dev/shm", "tmpfs"}, {"/run", "tmpfs"},
		{"/run/with space", "ramfs"},
		{"/mnt", "xfs"}, // mounted over the tmpfs: the later line wins
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mounts (-want +got):\n%s", diff)
	}

	_, err = parseMounts(strings.NewReader("22 27 0:21 / /proc rw\n"), "mountinfo")
	if err == nil || !strings.Contains(err.Error(), "mountinfo:1: not a mountinfo line") {
		t.Errorf("a line without the separator: err %v", err)
	}
}

func TestReadMountsHere(t *testing.T) {
	ms, err := ReadMounts(MountinfoPath)
	if err != nil {
		t.Skipf("no %s here: %v", MountinfoPath, err)
	}
	for _, m := range ms {
		if m.Dir == "/" {
			return
		}
	}
	t.Errorf("%s lists no / mount: %v", MountinfoPath, ms)
}
