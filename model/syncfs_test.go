package model

import (
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// syncfs syncs the filesystem that holds its fd's file, and no other: a
// syncfs of /dev/shm (coreutils' sync -f /dev/shm) leaves a file written
// on the disk as fragile as it was, while one of the file's own
// directory makes its data and its name durable. A mount table
// (Options.FSOf) tells disk filesystems apart as well.
func TestSyncfsSyncsItsFilesystem(t *testing.T) {
	const write = `1 openat(AT_FDCWD</srv/app>, "data.txt", O_WRONLY|O_CREAT|O_EXCL, 0666) = 3</srv/app/data.txt>
1 write(3</srv/app/data.txt>, "important\n", 10) = 10
1 close(3</srv/app/data.txt>) = 0
`
	syncfs := func(dir string) string {
		return "1 openat(AT_FDCWD</srv/app>, \"" + dir + "\", O_RDONLY) = 4<" + dir + ">\n1 syncfs(4<" + dir + ">) = 0\n1 close(4<" + dir + ">) = 0\n"
	}
	mounts := func(p string) string {
		if strings.HasPrefix(p, "/mnt/usb") {
			return "/mnt/usb"
		}
		return "/"
	}
	for _, c := range []struct {
		name  string
		trace string
		fsOf  func(string) string
		want  string // the outcomes of data.txt at the end, "lost" for any with missing
	}{
		{"syncfs of /dev/shm", write + syncfs("/dev/shm"), nil, "lost"},
		{"syncfs of /run", write + syncfs("/run/lock"), nil, "lost"},
		// /var/run and /var/lock are links into /run: the trace names
		// the link, the kernel syncs the tmpfs it leads to.
		{"syncfs of /var/lock", write + syncfs("/var/lock"), nil, "lost"},
		{"syncfs of /var/run", write + syncfs("/var/run"), nil, "lost"},
		{"syncfs of /var/lock by the mount table", write + syncfs("/var/lock"), func(p string) string {
			if strings.HasPrefix(p, "/run") {
				return "/run"
			}
			return "/"
		}, "lost"},
		{"syncfs of the file's directory", write + syncfs("/srv/app"), nil, "latest"},
		{"sync", write + "1 sync() = 0\n", nil, "latest"},
		{"syncfs of another disk, no mount table", write + syncfs("/mnt/usb"), nil, "latest"},
		{"syncfs of another disk by the mount table", write + syncfs("/mnt/usb"), mounts, "lost"},
		{"syncfs of the file's disk by the mount table", write + syncfs("/srv"), mounts, "latest"},
	} {
		for _, p := range Persistences {
			m := replayTextWith(t, c.trace, parser.Options{}, Options{Persistence: p, FSOf: c.fsOf})
			var got []string
			for _, o := range m.Crash("/srv/app/data.txt", 256).Outcomes {
				got = append(got, string(o))
			}
			g := strings.Join(got, " ")
			if strings.HasPrefix(g, "missing ") {
				g = "lost"
			}
			if g != c.want {
				t.Errorf("%s, under %s: data.txt can be %q after it, want %q", c.name, p, got, c.want)
			}
		}
	}
}
