package model

import (
	"strings"
	"testing"

	"github.com/crashsim/crashsim/parser"
)

// TestReflink: an ioctl that makes a file share another's blocks is a
// change the trace cannot show, however strace printed its request. strace
// 6.1 prints FICLONE under the name btrfs gave the same number first
// ("BTRFS_IOC_CLONE or FICLONE"), which a reflinking cp on btrfs or xfs
// shows, and the model took for some other ioctl: the copy looked empty.
func TestReflink(t *testing.T) {
	for _, tc := range []struct {
		req  string
		want string // the request named, "" for none
	}{
		{"BTRFS_IOC_CLONE or FICLONE", "FICLONE"},
		{"0x40049409 /* BTRFS_IOC_CLONE or FICLONE */", "FICLONE"},
		{"0x40049409", "FICLONE"},
		{"FICLONE", "FICLONE"},
		{"BTRFS_IOC_CLONE_RANGE or FICLONERANGE", "FICLONERANGE"},
		{"0x4020940d", "FICLONERANGE"},
		{"BTRFS_IOC_FILE_EXTENT_SAME or FIDEDUPERANGE", "FIDEDUPERANGE"},
		{"0xc0189436 /* BTRFS_IOC_FILE_EXTENT_SAME or FIDEDUPERANGE */", "FIDEDUPERANGE"},
		{"FIONREAD", ""},
		{"0x541b", ""},
		{"BTRFS_IOC_SYNC", ""},
		{"FICLONEX", ""},
	} {
		text := `1 openat(AT_FDCWD, "/w/copy.img", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4` + "\n" +
			`1 ioctl(4, ` + tc.req + `, 3) = 0` + "\n"
		var got string
		replayTextWith(t, text, parser.Options{}, Options{Observe: func(_ *Model, e *Effect) {
			if e.Kind == EffUnmodeled {
				got = e.What
			}
		}})
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, " "+tc.want+" ") {
			t.Errorf("ioctl(4, %s, 3): unmodeled %q, want the change by %q", tc.req, got, tc.want)
		}
	}
}
