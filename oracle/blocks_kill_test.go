package oracle

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crashsim/crashsim/blocklog"
	"github.com/crashsim/crashsim/internal/reap"
	"github.com/crashsim/crashsim/tracer"
)

// The helper process of TestBlocksKilledLeavesNothing: a --blocks run
// whose progress notes go to stderr. With a stop word, the note holding
// it is the last: the run hangs there (as if killed right after it), with
// whatever that step made still in place.
func TestBlocksKillHelper(t *testing.T) {
	stage := os.Getenv("CRASHSIM_BLOCKS_KILL_HELPER")
	if stage == "" {
		t.Skip("the helper process of TestBlocksKilledLeavesNothing")
	}
	sh := "printf x > f; sleep 2"
	if c := os.Getenv("CRASHSIM_BLOCKS_KILL_CMD"); c != "" {
		sh = c
	}
	cmd := []string{"/bin/sh", "-c", sh}
	if stage == "replay" {
		cmd = []string{python(), "-c", safeSave}
	}
	_, err := RunBlocks(context.Background(), BlockOptions{Options: Options{FS: "ext4", Cmd: cmd,
		Log: hangOn{os.Getenv("CRASHSIM_BLOCKS_KILL_STOP")}}})
	t.Fatalf("the run ended before it was killed: %v", err)
}

// hangOn writes progress notes to stderr, and hangs after one that holds
// word (none when word is empty).
type hangOn struct{ word string }

func (h hangOn) Write(p []byte) (int, error) {
	os.Stderr.Write(p)
	if h.word != "" && bytes.Contains(p, []byte(h.word)) {
		for {
			time.Sleep(time.Hour)
		}
	}
	return len(p), nil
}

// Killed with SIGKILL while the program runs on the logged device, and
// while a replayed state is mounted, a --blocks run leaves nothing: its
// watchdog unmounts the live filesystem and the state's, detaches their
// loop devices, then unmounts the FUSE mount that served the image, ends
// every process and removes the temporary directory.
func TestBlocksKilledLeavesNothing(t *testing.T) {
	needsBlocks(t)
	for _, stage := range []string{"run", "replay"} {
		t.Run(stage, func(t *testing.T) {
			dir := t.TempDir()
			var devs []string // the loop devices over its files before the kill
			t.Cleanup(func() { undoBelow(t, dir, devs) })
			h := exec.Command(os.Args[0], "-test.run=^TestBlocksKillHelper$", "-test.timeout=5m")
			h.Env = append(os.Environ(), "TMPDIR="+dir, "CRASHSIM_ORACLE_TEST_TMP="+dir,
				"CRASHSIM_BLOCKS_KILL_HELPER="+stage, "CRASHSIM_BLOCKS_KILL_MARK="+dir)
			stop := ""
			if stage == "replay" {
				stop = "/crash/mnt ("
			}
			h.Env = append(h.Env, "CRASHSIM_BLOCKS_KILL_STOP="+stop)
			stderr, err := h.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := h.Start(); err != nil {
				t.Fatal(err)
			}
			lines := make(chan string)
			var log strings.Builder
			go func() {
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			// Wait for the stage: the FUSE server runs and the program
			// sleeps on the filesystem it serves; or a state is mounted.
			served := false
			deadline := time.After(2 * time.Minute)
		wait:
			for {
				select {
				case l, ok := <-lines:
					if !ok {
						h.Wait()
						t.Fatalf("the helper ended before the %s stage:\n%s", stage, log.String())
					}
					log.WriteString(l + "\n")
					served = served || strings.Contains(l, "through FUSE")
					if served && stage == "replay" && strings.Contains(l, stop) {
						break wait
					}
				case <-time.After(20 * time.Millisecond):
					if served && stage == "run" && len(procsBelow(dir, "sleep")) > 0 {
						break wait
					}
				case <-deadline:
					h.Process.Kill()
					h.Wait()
					t.Fatalf("the %s stage never came:\n%s", stage, log.String())
				}
			}
			go func() {
				for range lines {
				}
			}()
			// What the kill must take away is there.
			before := strings.Join(mountsBelow(t, dir), "\n")
			want := []string{dir + "/", "/dev/loop"}
			if stage == "run" {
				want = append(want, "fuse.crashsim", "/live ", "/fuse/image")
			} else {
				want = append(want, "/crash/mnt ", "/states/state-")
			}
			for _, w := range want {
				if !strings.Contains(before, w) {
					t.Fatalf("before the kill, no %q among\n%s\nlog:\n%s", w, before, log.String())
				}
			}
			// A loop device whose backing file's mount was lazily
			// unmounted names it by its path from that mount's root
			// (/image), not below dir: keep the devices to look at them
			// again.
			for _, l := range strings.Split(loops(), "\n") {
				if dev, rest, ok := strings.Cut(l, ": "); ok && strings.Contains(rest, dir+"/") {
					devs = append(devs, dev)
				}
			}
			if err := h.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			h.Wait()
			// The watchdog works on after crashsim is gone: give it time.
			var left []string
			for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
				left = leftBelow(t, dir)
				for _, d := range devs {
					b, err := os.ReadFile("/sys/block/" + filepath.Base(d) + "/loop/backing_file")
					if err == nil && strings.TrimSpace(string(b)) == "/"+blocklog.ImageName {
						left = append(left, fmt.Sprintf("loop: %s still on %s, the FUSE image, its mount detached", d, strings.TrimSpace(string(b))))
					}
				}
				if len(left) == 0 {
					break
				}
			}
			for _, l := range left {
				t.Errorf("left behind after kill -9 (%s stage): %s", stage, l)
			}
			if t.Failed() {
				t.Logf("before the kill:\n%s\nlog:\n%s", before, log.String())
			}
		})
	}
}

// leftBelow lists the mounts (from /proc/self/mountinfo), loop devices
// (losetup -a), processes and oracle directories of runs below dir.
func leftBelow(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, dir+"/") {
			out = append(out, "mount: "+l)
		}
	}
	lo, err := exec.Command("losetup", "-a").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(lo), "\n") {
		if strings.Contains(l, dir+"/") {
			out = append(out, "loop: "+l)
		}
	}
	for _, p := range procsBelow(dir, "") {
		out = append(out, "process: "+p)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "crashsim-oracle-*")); len(m) > 0 {
		out = append(out, "directory: "+strings.Join(m, " "))
	}
	return out
}

// procsBelow lists the processes (but this one) whose environment holds
// the helper's mark for dir, whose name is comm when comm is not empty:
// the helper, what it started, its watchdog.
func procsBelow(dir, comm string) []string {
	mark := []byte("\x00CRASHSIM_BLOCKS_KILL_MARK=" + dir + "\x00")
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil || pid == os.Getpid() || !reap.Alive(pid) {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append(append([]byte{0}, env...), 0), mark) {
			continue
		}
		c, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		name := strings.TrimSpace(string(c))
		if comm == "" || name == comm {
			out = append(out, fmt.Sprintf("%d (%s)", pid, name))
		}
	}
	return out
}

// undoBelow undoes what a failed test left below dir, so that a failure
// leaves no mount on the machine: kills the processes, aborts the FUSE
// connections, unmounts the filesystems, detaches the loop devices, and
// unmounts the FUSE mounts last.
func undoBelow(t *testing.T, dir string, devs []string) {
	for _, p := range procsBelow(dir, "") {
		var pid int
		fmt.Sscan(p, &pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	b, _ := os.ReadFile("/proc/self/mountinfo")
	var fuse, other []string
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 5 || !strings.HasPrefix(tracer.UnescapeMount(f[4]), dir+"/") {
			continue
		}
		if strings.Contains(l, " - fuse") {
			fuse = append(fuse, tracer.UnescapeMount(f[4]))
		} else {
			other = append(other, tracer.UnescapeMount(f[4]))
		}
	}
	if len(fuse)+len(other) == 0 && !strings.Contains(loops(), dir+"/") {
		detachImages(t, devs)
		return
	}
	t.Logf("undoing what was left below %s: %v %v", dir, fuse, other)
	for _, m := range fuse {
		syscall.Unmount(m, syscall.MNT_FORCE)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(other)))
	for _, m := range other {
		syscall.Unmount(m, syscall.MNT_DETACH)
	}
	for i := 0; i < 50 && strings.Contains(loops(), dir+"/"); i++ {
		for _, l := range strings.Split(loops(), "\n") {
			if dev, _, ok := strings.Cut(l, ":"); ok && strings.Contains(l, dir+"/") {
				exec.Command("losetup", "-d", dev).Run()
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, m := range fuse {
		syscall.Unmount(m, syscall.MNT_DETACH)
	}
	detachImages(t, devs)
}

// detachImages detaches those of devs still over the FUSE image of a
// detached mount (see TestBlocksKilledLeavesNothing).
func detachImages(t *testing.T, devs []string) {
	for _, d := range devs {
		b, err := os.ReadFile("/sys/block/" + filepath.Base(d) + "/loop/backing_file")
		if err == nil && strings.TrimSpace(string(b)) == "/"+blocklog.ImageName {
			t.Logf("detaching %s, left over the FUSE image", d)
			exec.Command("losetup", "-d", d).Run()
		}
	}
}

func loops() string {
	out, _ := exec.Command("losetup", "-a").Output()
	return string(out)
}
