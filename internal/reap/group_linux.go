package reap

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A Group is a cgroup (version 2) that crashsim made for one run, below
// its own, where it may (as root, or where its cgroup was delegated to
// it). A process started into it (Kept.Group, StartRunner's cgroup fd)
// and everything it starts stay in it: the group's members are the run's
// processes even when the keeper that would find them was killed too.
type Group struct {
	Dir string // the cgroup's directory
	fd  int    // open on Dir, for CLONE_INTO_CGROUP
}

// NewGroup makes a group, or says why it cannot.
func NewGroup() (*Group, error) {
	parent, err := ownCgroup()
	if err != nil {
		return nil, err
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	// The name says which process made it, so that a later run can
	// remove it once that process is gone (SweepGroups).
	dir := filepath.Join(parent, groupName(hex.EncodeToString(b[:])))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	// cgroup.kill (Linux 5.14) came after CLONE_INTO_CGROUP (5.7): a
	// kernel that has it can start children into the group.
	if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
		_ = os.Remove(dir)
		return nil, errors.New("the kernel has no cgroup.kill")
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		_ = os.Remove(dir)
		return nil, err
	}
	return &Group{Dir: dir, fd: fd}, nil
}

// FD is an open descriptor of the group's directory: SysProcAttr's
// CgroupFD starts a child in the group.
func (g *Group) FD() int { return g.fd }

// Procs lists the group's live members.
func (g *Group) Procs() []Proc {
	b, err := os.ReadFile(filepath.Join(g.Dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []Proc
	for _, f := range bytes.Fields(b) {
		if pid, err := strconv.Atoi(string(f)); err == nil {
			if p, ok := live(pid); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

// Kill kills every member of the group but the pids in except, until
// none is left or five seconds have passed, and returns those it found.
func (g *Group) Kill(except ...int) []Proc {
	var found []Proc
	seen := map[int]bool{}
	for deadline := time.Now().Add(5 * time.Second); ; {
		left := 0
		for _, p := range g.Procs() {
			if containsPID(except, p.PID) {
				continue
			}
			left++
			if !seen[p.PID] {
				seen[p.PID] = true
				found = append(found, p)
			}
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
		if left == 0 || time.Now().After(deadline) {
			return found
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// Close kills what is left in the group and removes it.
func (g *Group) Close() error {
	if g == nil {
		return nil
	}
	killGroup(g.Dir)
	unix.Close(g.fd)
	return removeGroup(g.Dir)
}

// killGroup kills every process of the cgroup at dir: with cgroup.kill
// (Linux 5.14) at once, else one by one.
func killGroup(dir string) {
	if err := os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0); err != nil {
		(&Group{Dir: dir}).Kill()
	}
}

// removeGroup removes the cgroup at dir once its last member is gone (a
// killed process leaves it when it has exited).
func removeGroup(dir string) error {
	var err error
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		err = os.Remove(dir)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			return err
		}
	}
}

// ownCgroup is the directory of this process's cgroup in the cgroup2
// hierarchy, when the hierarchy is mounted.
func ownCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	var path string
	found := false
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			path, found = p, true
		}
	}
	if !found {
		return "", errors.New("no cgroup2 hierarchy")
	}
	mounts, err := readMountinfo()
	if err != nil {
		return "", err
	}
	for _, m := range mounts {
		if m.fstype != "cgroup2" {
			continue
		}
		rel, ok := strings.CutPrefix(path, m.root)
		if !ok || rel != "" && m.root != "/" && rel[0] != '/' {
			continue // the mount shows another part of the hierarchy
		}
		return filepath.Join(m.dir, rel), nil
	}
	return "", errors.New("cgroup2 is not mounted")
}

// mountLine is one line of /proc/self/mountinfo: the root of the mount
// within its filesystem, where it is mounted, and the filesystem's type.
type mountLine struct{ root, dir, fstype string }

// readMountinfo reads this process's mount table, each line up to 1 MiB.
func readMountinfo() ([]mountLine, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mountLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - FSTYPE SOURCE ...
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, fl := range fields {
			if fl == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || sep+1 >= len(fields) {
			continue
		}
		out = append(out, mountLine{root: unescapeMount(fields[3]), dir: unescapeMount(fields[4]), fstype: fields[sep+1]})
	}
	return out, sc.Err()
}

// unescapeMount undoes the octal escapes of a mountinfo field (\040 is a
// space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
