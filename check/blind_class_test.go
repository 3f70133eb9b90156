package check

import (
	"slices"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/google/go-cmp/cmp"
)

// TestClassFilter: a run whose every call is of one strace class that
// holds no call on files (-e trace=%memory, %signal), or is one call
// (-e trace=mmap, -e trace=write), shows no execve and no exit_group
// though its processes exit. The warning names that filter, whatever
// the count of calls, not -z (nothing failed because nearly nothing is
// shown) nor -P (which a lone write could also be, said second).
func TestClassFilter(t *testing.T) {
	const memory = "70 brk(NULL) = 0x559b14e7f000\n" +
		"70 mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f39cadb5000\n" +
		"70 mmap(NULL, 35795, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7f39cadac000\n" +
		"70 mprotect(0x7f39cad99000, 16384, PROT_READ) = 0\n" +
		"71 shmat(65538, NULL, 0) = 0x7f39cab00000\n" +
		"71 madvise(0x7f39cab00000, 4096, MADV_DONTNEED) = 0\n" +
		"71 shmdt(0x7f39cab00000) = 0\n" +
		"71 +++ exited with 0 +++\n" +
		"70 munmap(0x7f39cadac000, 35795) = 0\n" +
		"70 +++ exited with 0 +++\n"
	const mmaps = "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f881d707000\n" +
		"mmap(NULL, 107492, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7f881d6ec000\n" +
		"mmap(0x108000, 360448, PROT_READ|PROT_EXEC, MAP_PRIVATE|MAP_FIXED, 3, 0) = 0x108000\n" +
		"+++ exited with 1 +++\n"
	const signals = "80 rt_sigaction(SIGINT, NULL, {sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}, 8) = 0\n" +
		"80 rt_sigprocmask(SIG_SETMASK, ~[RTMIN RT_1], [], 8) = 0\n" +
		"80 rt_sigsuspend([], 8 <unfinished ...>\n" +
		"81 rt_sigaction(SIGQUIT, {sa_handler=SIG_IGN, sa_mask=[QUIT], sa_flags=SA_RESTORER|SA_RESTART, sa_restorer=0x7fdde8c56050}, NULL, 8) = 0\n" +
		"81 +++ exited with 0 +++\n" +
		"80 <... rt_sigsuspend resumed>) = ? ERESTARTNOHAND (To be restarted if no handler)\n" +
		"80 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=81, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---\n" +
		"80 rt_sigreturn({mask=~[KILL STOP RTMIN RT_1]}) = -1 EINTR (Interrupted system call)\n" +
		"80 +++ exited with 0 +++\n"
	const writes = "write(1, \"$ \", 2) = 2\nwrite(1, \"ls\", 2) = 2\nwrite(1, \"\\n\", 1) = 1\n" +
		"--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=9301, si_uid=1000, si_status=0, si_utime=0, si_stime=0} ---\n" +
		"write(1, \"$ \", 2) = 2\nwrite(1, \"exit\\n\", 5) = 5\n+++ exited with 0 +++\n"
	for _, c := range []struct {
		name, trace string
		also        []string // blind spots besides blind-syscall-filter
		says        []string // in the warning, in this order
	}{
		{"%memory", memory, nil, []string{"%memory class", "-e trace=%memory"}},
		{"-e trace=mmap", mmaps, nil, []string{"are all mmap", "-e trace=mmap", "-e trace=%memory"}},
		{"%signal", signals, nil, []string{"%signal class", "-e trace=%signal"}},
		{"a failed call too", strings.Replace(memory, "= 0x7f39cab00000\n", "= -1 EINVAL (Invalid argument)\n", 1), nil, []string{"-e trace=%memory"}},
		{"-e trace=write", writes, []string{BlindUnfollowedChildren}, []string{"are all write", "-e trace=write", "-P PATH", "one thread"}},
		{"-e trace=mmap, with pids", strings.ReplaceAll(strings.ReplaceAll(mmaps, "mmap(", "7 mmap("), "+++ exited", "7 +++ exited"), nil, []string{"-e trace=mmap"}},
	} {
		want := append([]string{BlindSyscallFilter}, c.also...)
		got := blindOfText(t, "t.strace", c.trace, Options{})
		slices.Sort(want)
		slices.Sort(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: blind spots (-want +got):\n%s", c.name, diff)
			continue
		}
		msgs := blindMessages(t, "t.strace", c.trace, Options{}, BlindSyscallFilter)
		at := 0
		for _, s := range c.says {
			i := strings.Index(msgs[0][at:], s)
			if i < 0 {
				t.Errorf("%s: %q does not say %q after byte %d", c.name, msgs[0], s, at)
				break
			}
			at += i + len(s)
		}
	}
}

// TestClassFilterFullTrace: a full trace of a tiny program (strace -f
// /bin/true) has calls of many classes, its execve and its exit_group,
// and no blind spot; the same program under -e trace=%memory is filtered.
func TestClassFilterFullTrace(t *testing.T) {
	const full = `26200 execve("/bin/true", ["/bin/true"], 0x7ffd1d3aae58 /* 35 vars */) = 0
26200 brk(NULL)                         = 0x55b5a8c19000
26200 mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7fde7f365000
26200 access("/etc/ld.so.preload", R_OK) = -1 ENOENT (No such file or directory)
26200 openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3
26200 newfstatat(3, "", {st_mode=S_IFREG|0644, st_size=35795, ...}, AT_EMPTY_PATH) = 0
26200 mmap(NULL, 35795, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7fde7f35c000
26200 close(3)                          = 0
26200 openat(AT_FDCWD, "/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY|O_CLOEXEC) = 3
26200 read(3, "\177ELF\2\1\1\3\0\0\0\0\0\0\0\0\3\0>\0\1\0\0\0\20t\2\0\0\0\0\0"..., 832) = 832
26200 pread64(3, "\6\0\0\0\4\0\0\0@\0\0\0\0\0\0\0@\0\0\0\0\0\0\0@\0\0\0\0\0\0\0"..., 784, 64) = 784
26200 newfstatat(3, "", {st_mode=S_IFREG|0755, st_size=1926232, ...}, AT_EMPTY_PATH) = 0
26200 mmap(NULL, 1974096, PROT_READ, MAP_PRIVATE|MAP_DENYWRITE, 3, 0) = 0x7fde7f17a000
26200 mmap(0x7fde7f1a0000, 1400832, PROT_READ|PROT_EXEC, MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE, 3, 0x26000) = 0x7fde7f1a0000
26200 mmap(0x7fde7f34f000, 53072, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS, -1, 0) = 0x7fde7f34f000
26200 close(3)                          = 0
26200 arch_prctl(ARCH_SET_FS, 0x7fde7f177740) = 0
26200 set_tid_address(0x7fde7f177a10)   = 26200
26200 set_robust_list(0x7fde7f177a20, 24) = 0
26200 rseq(0x7fde7f178060, 0x20, 0, 0x53053053) = 0
26200 mprotect(0x7fde7f349000, 16384, PROT_READ) = 0
26200 prlimit64(0, RLIMIT_STACK, NULL, {rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}) = 0
26200 munmap(0x7fde7f35c000, 35795)     = 0
26200 exit_group(0)                     = ?
26200 +++ exited with 0 +++
`
	if got := blindOfText(t, "true.strace", full, Options{}); len(got) != 0 {
		t.Errorf("strace -f /bin/true: blind spots %v, want none", got)
	}
	var memory []string
	for _, l := range strings.SplitAfter(full, "\n") {
		if name, _, _ := strings.Cut(strings.TrimPrefix(l, "26200 "), "("); syscalls.ClassOf(name)&syscalls.ClassMemory != 0 || strings.Contains(l, "+++") {
			memory = append(memory, l)
		}
	}
	if diff := cmp.Diff([]string{BlindSyscallFilter}, blindOfText(t, "m.strace", strings.Join(memory, ""), Options{})); diff != "" {
		t.Errorf("/bin/true under -e trace=%%memory: blind spots (-want +got):\n%s", diff)
	}
}
