package reap

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// SetSubreaper makes the calling process a child subreaper: a process
// below it whose parent ends becomes its child, not init's, so every
// descendant stays in its tree whatever it does to its session or its
// environment.
func SetSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return &os.SyscallError{Syscall: "prctl(PR_SET_CHILD_SUBREAPER)", Err: err}
	}
	return nil
}

// Descendants lists the live descendants of pid (not pid itself),
// parents before their children. Zombies are left out: they have ended.
func Descendants(pid int) []Proc {
	var out []Proc
	seen := map[int]bool{pid: true}
	kids := children(pid)
	for len(kids) > 0 {
		var next []int
		for _, k := range kids {
			if seen[k] {
				continue
			}
			seen[k] = true
			if p, ok := live(k); ok {
				out = append(out, p)
			}
			// A zombie has no children left: they went to a subreaper.
			next = append(next, children(k)...)
		}
		kids = next
	}
	return out
}

// KillTree sends SIGKILL to every descendant of root but the pids in
// except (whose own descendants it does kill), again and again until none
// is left or five seconds have passed, and returns all it found, in pid
// order, but those already being killed when it found them (by another
// KillTree, say). root must be a child subreaper, so that the children of
// a killed process stay in its tree.
//
// A children file read while the list changes can skip a child (the
// kernel's documentation says so), so the tree must look empty twice;
// and it returns only once each process it killed has exited.
func KillTree(root int, except ...int) []Proc {
	found := map[int]Proc{}
	var out []Proc
	deadline := time.Now().Add(5 * time.Second)
	for empty := 0; empty < 2 && time.Now().Before(deadline); {
		left := 0
		for _, p := range Descendants(root) {
			if slices.Contains(except, p.PID) {
				continue
			}
			left++
			if _, ok := found[p.PID]; !ok {
				found[p.PID] = p
				if !killPending(p.PID) {
					out = append(out, p)
				}
			}
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
		if left == 0 {
			empty++
		} else {
			empty = 0
		}
		// Orphans move to root as their parents die: look again.
		time.Sleep(time.Millisecond)
	}
	for pid := range found {
		for time.Now().Before(deadline) {
			if _, ok := live(pid); !ok {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	slices.SortFunc(out, func(a, b Proc) int { return a.PID - b.PID })
	return out
}

// killPending reports whether pid has been sent SIGKILL.
func killPending(pid int) bool {
	var buf [2048]byte
	b, err := readProc(pid, "status", buf[:])
	if err != nil {
		return true // gone
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		k, v, _ := bytes.Cut(line, []byte(":"))
		if string(k) == "SigPnd" || string(k) == "ShdPnd" {
			if m, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 16, 64); err == nil && m&(1<<(9-1)) != 0 {
				return true // SIGKILL is signal 9, bit 8
			}
		}
	}
	return false
}

// TracedCommand returns the command strace (process strace) runs: its
// first child that runs another program than strace. strace also forks
// children of its own at its start, to probe what the kernel's ptrace can
// do, which never exec; and the command's process runs strace's program
// until it execs.
func TracedCommand(strace int) (int, error) {
	own, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", strace))
	if err != nil {
		return 0, err
	}
	for _, k := range children(strace) {
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", k)); err == nil && exe != own {
			return k, nil
		}
	}
	return 0, ErrNoProc
}

// children lists the children of pid, from the children file of each of
// its threads, or, on a kernel without those files, from the parent of
// every process.
func children(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil // gone
	}
	var out []int
	var buf [4096]byte
	for _, t := range tasks {
		tid, _ := strconv.Atoi(t.Name())
		b, err := readProc(pid, "task/"+strconv.Itoa(tid)+"/children", buf[:])
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Stat(dir); serr == nil {
				return childrenByParent(pid) // no children files
			}
			return out
		}
		if len(b) == len(buf) {
			b, _ = os.ReadFile(dir + "/" + t.Name() + "/children")
		}
		for _, f := range bytes.Fields(b) {
			if k, err := strconv.Atoi(string(f)); err == nil {
				out = append(out, k)
			}
		}
	}
	return out
}

// childrenByParent lists the processes whose parent is pid.
func childrenByParent(pid int) []int {
	dirs, _ := os.ReadDir("/proc")
	var out []int
	var buf [1024]byte
	for _, d := range dirs {
		k, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := readProc(k, "stat", buf[:])
		if err != nil {
			continue
		}
		// "PID (COMM) STATE PPID ...": COMM may hold spaces and ')'.
		i := bytes.LastIndexByte(b, ')')
		if f := bytes.Fields(b[i+1:]); i >= 0 && len(f) > 1 && string(f[1]) == strconv.Itoa(pid) {
			out = append(out, k)
		}
	}
	return out
}

// live returns pid's name when it is a process that has not exited and
// is not exiting.
func live(pid int) (Proc, bool) {
	var buf [1024]byte
	b, err := readProc(pid, "stat", buf[:])
	if err != nil {
		return Proc{}, false
	}
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open || end+2 >= len(b) || b[end+2] == 'Z' || b[end+2] == 'X' {
		return Proc{}, false
	}
	// After "STATE": ppid pgrp session tty_nr tpgid flags.
	const pfExiting = 0x4
	if f := bytes.Fields(b[end+1:]); len(f) > 6 {
		if flags, err := strconv.ParseUint(string(f[6]), 10, 64); err == nil && flags&pfExiting != 0 {
			return Proc{}, false
		}
	}
	return Proc{PID: pid, Comm: string(b[open+1 : end])}, true
}
