package oracle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/crashsim/crashsim/internal/reap"
	"github.com/crashsim/crashsim/tracer"
)

// EnvError says the machine cannot run the oracle: not root, no loop
// devices, a missing mkfs or strace. The command maps it to exit status 3.
type EnvError struct{ Msg string }

func (e *EnvError) Error() string { return e.Msg }

// ProgramError is the program under test failing in its first run: the
// program's fault, not the oracle's or the machine's.
type ProgramError struct{ Err error }

func (e *ProgramError) Error() string {
	return fmt.Sprintf("the program failed in its first run (%v); run it with -v to see its output", e.Err)
}

func (e *ProgramError) Unwrap() error { return e.Err }

// fsSpec is what the oracle needs to know about one filesystem.
type fsSpec struct {
	name      string
	sizeMB    int      // default image size
	minMB     int      // the smallest image its mkfs makes a filesystem the oracle can mount
	small     string   // what goes wrong below minMB
	mkfs      []string // mkfs program and options; the image is appended
	liveOpts  string   // mount options of the filesystem the program runs on
	crashOpts string   // mount options of a crash copy
	pkg       string   // Debian package with its mkfs
}

var filesystems = map[string]fsSpec{
	// The minimums were measured with mkfs.ext4 1.47.0 (2,048 blocks of
	// 4 KiB for a journal, without which commit=600 does not mount),
	// mkfs.xfs 6.1.0 (300 MiB since xfsprogs 5.19) and mkfs.btrfs 6.2
	// (114294784 bytes a device).
	"ext4":  {name: "ext4", sizeMB: 64, minMB: 8, small: "mkfs.ext4 makes it without a journal, and it does not mount with commit=600", mkfs: []string{"mkfs.ext4", "-q", "-F", "-b", "4096"}, liveOpts: "commit=600,noatime", crashOpts: "noatime", pkg: "e2fsprogs"},
	"xfs":   {name: "xfs", sizeMB: 320, minMB: 300, small: "mkfs.xfs refuses it", mkfs: []string{"mkfs.xfs", "-q", "-f"}, liveOpts: "noatime", crashOpts: "noatime,nouuid", pkg: "xfsprogs"},
	"btrfs": {name: "btrfs", sizeMB: 128, minMB: 109, small: "mkfs.btrfs refuses it", mkfs: []string{"mkfs.btrfs", "-q", "-f"}, liveOpts: "commit=600,noatime", crashOpts: "noatime", pkg: "btrfs-progs"},
}

// MaxSizeMB bounds Options.SizeMB. The image is sparse, but a size past
// what the filesystem of TMPDIR allows in one file (16 TiB on ext4)
// failed only once the image was made ("truncate .../initial.img: file
// too large"), and one past 8 EiB overflowed into a negative size.
const MaxSizeMB = 1 << 20

// CheckSize says when Options.SizeMB cannot make an image of fs that
// mounts: below the filesystem's minimum, where mkfs fails or makes one
// that does not mount, or past MaxSizeMB; 0 (the default size) is good.
// Asked first, a bad size is found before anything is made.
func CheckSize(fs string, sizeMB int) error {
	spec, ok := filesystems[fs]
	if !ok || sizeMB == 0 {
		return nil
	}
	if sizeMB > 0 && sizeMB < spec.minMB {
		return fmt.Errorf("--size-mb %d: %s needs an image of at least %d MiB (smaller, %s); give %d to %d (1 TiB), or leave it out for %s's default (%d)",
			sizeMB, fs, spec.minMB, spec.small, spec.minMB, MaxSizeMB, fs, spec.sizeMB)
	}
	if sizeMB < 0 || sizeMB > MaxSizeMB {
		return fmt.Errorf("--size-mb %d: give %d to %d (1 TiB) for %s, or leave it out for its default (%d)", sizeMB, spec.minMB, MaxSizeMB, fs, spec.sizeMB)
	}
	return nil
}

// Filesystems lists the filesystems the oracle can use.
func Filesystems() []string { return []string{"ext4", "xfs", "btrfs"} }

// Preflight checks that the oracle can run on fs here: root, loop devices,
// mkfs.FS, losetup, mount and strace. The error is an *EnvError.
func Preflight(fs string) error {
	spec, ok := filesystems[fs]
	if !ok {
		return &EnvError{fmt.Sprintf("unknown filesystem %q (ext4, xfs or btrfs)", fs)}
	}
	if ok, err := hasCapSysAdmin(); !ok {
		why := "crashsim lacks CAP_SYS_ADMIN"
		if err != nil {
			why = fmt.Sprintf("cannot read crashsim's capabilities: %v", err)
		} else if os.Geteuid() == 0 {
			why = "crashsim runs as root but without CAP_SYS_ADMIN (a container that dropped it?)"
		}
		return &EnvError{"the oracle needs CAP_SYS_ADMIN: it makes loop devices and mounts filesystems, and " + why + " (run it with sudo, or in a container with CAP_SYS_ADMIN and /dev/loop-control)"}
	}
	if _, err := os.Stat("/dev/loop-control"); err != nil {
		return &EnvError{fmt.Sprintf("no loop device support: %v (load the loop module, or give the container /dev/loop-control and /dev/loop*)", err)}
	}
	for _, p := range []string{spec.mkfs[0], "losetup", "mount", "umount", "cp", "strace"} {
		if _, err := exec.LookPath(p); err != nil {
			hint := ""
			switch p {
			case spec.mkfs[0]:
				hint = fmt.Sprintf(" (apt-get install %s)", spec.pkg)
			case "strace":
				hint = " (apt-get install strace)"
			case "losetup", "mount", "umount":
				hint = " (apt-get install mount)"
			}
			return &EnvError{fmt.Sprintf("%s not found%s", p, hint)}
		}
	}
	return nil
}

// capSysAdmin is CAP_SYS_ADMIN's bit in /proc/PID/status's Cap* masks.
const capSysAdmin = 21

// hasCapSysAdmin reports whether crashsim holds CAP_SYS_ADMIN in its
// effective set: what mount(2) and the loop ioctls check, not the uid (a
// root in a container may lack it, a non-root may hold it).
func hasCapSysAdmin() (bool, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false, err
	}
	return capEffHas(string(b), capSysAdmin)
}

// capEffHas reads the CapEff line of a /proc/PID/status text.
func capEffHas(status string, bit uint) (bool, error) {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				return false, fmt.Errorf("CapEff %q: %w", strings.TrimSpace(v), err)
			}
			return mask&(1<<bit) != 0, nil
		}
	}
	return false, errors.New("no CapEff line in /proc/self/status")
}

// system runs the commands that change the machine and remembers every loop
// device and mount it made, so that cleanup undoes exactly those.
type system struct {
	log    io.Writer
	start  time.Time
	mu     sync.Mutex
	loops  []string          // attached by us, not yet detached
	images map[string]string // loop device -> the image attached to it
	mounts []string          // mounted by us, not yet unmounted

	// token marks every process the oracle starts (see package reap),
	// group holds the programs it runs where crashsim may make a cgroup,
	// and the watchdog undoes the oracle's work if crashsim is killed.
	token    string
	group    *reap.Group
	watchdog *reap.Watchdog
}

// guard starts the watchdog: if crashsim dies (SIGKILL included), it
// kills what the oracle started, detaches what is mounted on the mount
// points, detaches the loop devices backed by files below dir, and
// removes dir unless keep.
func (s *system) guard(dir string, keep bool, mountPoints ...string) {
	s.token = reap.NewToken()
	s.newGroup()
	remove := dir
	if keep {
		remove = ""
	}
	wd, err := reap.StartMountWatchdog(s.token, mountPoints, dir, remove, s.group)
	if err != nil {
		s.logf("no watchdog (%v): if crashsim is killed, its mounts and loop devices stay", err)
		return
	}
	s.watchdog = wd
}

// newGroup makes the cgroup the programs run in, where crashsim may.
func (s *system) newGroup() {
	g, err := reap.NewGroup()
	if err != nil {
		s.logf("no cgroup for the programs (%v): their keepers alone hold them", err)
		return
	}
	s.group = g
}

// unguard stops the watchdog, once everything is undone.
func (s *system) unguard() {
	s.watchdog.Stop()
	if err := s.group.Close(); err != nil {
		s.logf("remove the cgroup %s: %v", s.group.Dir, err)
	}
}

// env is the environment of a process the oracle starts: env (nil is
// crashsim's) with the token.
func (s *system) env(env []string) []string {
	if s.token == "" {
		return env
	}
	return reap.Env(env, s.token)
}

// killAll kills every process the oracle started that is still running,
// and returns them.
func (s *system) killAll(except ...int) []reap.Proc {
	if s.token == "" {
		return nil
	}
	return reap.Kill(s.token, except...)
}

func (s *system) logf(format string, args ...any) {
	if s.log != nil {
		if s.start.IsZero() {
			s.start = time.Now()
		}
		fmt.Fprintf(s.log, "oracle: %6.2fs "+format+"\n", append([]any{time.Since(s.start).Seconds()}, args...)...)
	}
}

// run runs a helper program and returns its stdout; its stderr is in the
// error.
func (s *system) run(ctx context.Context, name string, args ...string) (string, error) {
	c := exec.CommandContext(ctx, name, args...)
	c.Env = s.env(nil) // the watchdog kills a mkfs or cp left running too
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		return "", fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, msg)
	}
	return out.String(), nil
}

// attach attaches img to a free loop device.
func (s *system) attach(ctx context.Context, img string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Not ctx: a device attached must be recorded, never left half made.
	out, err := s.run(context.WithoutCancel(ctx), "losetup", "--find", "--show", img)
	if err != nil {
		return "", err
	}
	dev := strings.TrimSpace(out)
	if !strings.HasPrefix(dev, "/dev/loop") {
		return "", fmt.Errorf("losetup --find --show %s: unexpected output %q", img, out)
	}
	s.loops = append(s.loops, dev)
	if s.images == nil {
		s.images = map[string]string{}
	}
	s.images[dev] = img
	s.logf("attached %s to %s", img, dev)
	return dev, nil
}

// detach detaches a loop device this system attached.
func (s *system) detach(dev string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.detachLocked(dev)
}

func (s *system) detachLocked(dev string) error {
	i := index(s.loops, dev)
	if i < 0 {
		return fmt.Errorf("detach %s: not attached by the oracle", dev)
	}
	var err error
	for try := 0; try < 20; try++ {
		if !bound(dev, s.images[dev]) {
			err = nil // detached already (LOOP_CLR_FD on a busy device defers)
			break
		}
		if _, err = s.run(context.Background(), "losetup", "-d", dev); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	// losetup -d on a device still in use only marks it to detach when
	// its last user goes: a filesystem unmounted here can live on in
	// another mount namespace's copy of the mount table (a jailed
	// checker's, any container's started meanwhile), and it writes its
	// last blocks to the image when that copy goes. The image must not be
	// reused before.
	for wait := 0; bound(dev, s.images[dev]); wait++ {
		if wait == 200 {
			return fmt.Errorf("detach %s: still in use 10s after losetup -d (another mount namespace holds its filesystem?)", dev)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.loops = append(s.loops[:i], s.loops[i+1:]...)
	delete(s.images, dev)
	s.logf("detached %s", dev)
	return nil
}

// mount mounts dev on dir.
func (s *system) mount(ctx context.Context, dev, dir, fstype, opts string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	args := []string{"-t", fstype}
	if opts != "" {
		args = append(args, "-o", opts)
	}
	args = append(args, dev, dir)
	if _, err := s.run(context.WithoutCancel(ctx), "mount", args...); err != nil {
		// A mount that failed may still have happened (a timeout): check.
		if mounted(dir) {
			s.mounts = append(s.mounts, dir)
		}
		return err
	}
	s.mounts = append(s.mounts, dir)
	s.logf("mounted %s on %s (%s %s)", dev, dir, fstype, opts)
	return nil
}

// bound reports whether loop device dev still has img as its backing
// file: one the watchdog of an earlier run freed may since have been
// attached by someone else, whose device it is.
func bound(dev, img string) bool {
	b, err := os.ReadFile("/sys/block/" + filepath.Base(dev) + "/loop/backing_file")
	if err != nil {
		return false
	}
	abs, _ := filepath.Abs(img)
	got := strings.TrimSuffix(string(b), "\n")
	return got == img || got == abs || strings.TrimSuffix(got, " (deleted)") == abs
}

// unmount unmounts dir, retrying while it is busy, and lazily as a last
// resort.
func (s *system) unmount(dir string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unmountLocked(dir)
}

func (s *system) unmountLocked(dir string) error {
	i := index(s.mounts, dir)
	if i < 0 {
		return fmt.Errorf("unmount %s: not mounted by the oracle", dir)
	}
	var err error
	for try := 0; try < 40; try++ {
		if _, err = s.run(context.Background(), "umount", dir); err == nil || !mounted(dir) {
			err = nil
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		s.logf("umount %s failed (%v): unmounting lazily", dir, err)
		if _, lerr := s.run(context.Background(), "umount", "-l", dir); lerr != nil && mounted(dir) {
			return fmt.Errorf("%v; umount -l: %v", err, lerr)
		}
	}
	s.mounts = append(s.mounts[:i], s.mounts[i+1:]...)
	s.logf("unmounted %s", dir)
	return nil
}

// cleanup unmounts every mount and detaches every loop device the system
// made and has not undone, newest first.
func (s *system) cleanup() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for len(s.mounts) > 0 {
		dir := s.mounts[len(s.mounts)-1]
		if err := s.unmountLocked(dir); err != nil {
			errs = append(errs, err)
			s.mounts = s.mounts[:len(s.mounts)-1] // tried our best; go on
		}
	}
	for len(s.loops) > 0 {
		dev := s.loops[len(s.loops)-1]
		if err := s.detachLocked(dev); err != nil {
			errs = append(errs, err)
			s.loops = s.loops[:len(s.loops)-1]
		}
	}
	return errors.Join(errs...)
}

// mounted reports whether dir is a mount point in /proc/self/mounts.
func mounted(dir string) bool {
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && tracer.UnescapeMount(f[1]) == dir {
			return true
		}
	}
	return false
}

func index(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
