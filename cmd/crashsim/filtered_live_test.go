package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilteredNeverClean records programs whose only findings are a
// name, an unlink or a cut never made durable, once in full and once
// under each of the syscall filters that checked them clean before the
// filter's signs were read (a list of writes and syncs without opens,
// one without mmap, one that names rename and unlink where the programs
// call renameat2 and unlinkat, -e trace=!%file, %desc,%process, !%desc,
// the syncs alone, !write). The programs are shell commands, sqlite3
// when it is here, and a static, multi-threaded Go program built for the
// test. The full recording has findings (exit 1); each filtered one has
// findings or a blind spot, never exit 0.
func TestFilteredNeverClean(t *testing.T) {
	needStrace(t)
	programs := map[string]string{
		"mv after a sync":     "echo hi > a.txt; sync; mv a.txt b.txt",
		"mkdir after a sync":  "mkdir -p d; sync; mkdir d/e",
		"sed -i after a sync": "printf a > f; sync; sed -i s/a/b/ f",
		// dd writes and syncs its output through fd 1, where it put the
		// file it opened.
		"dd, then mv": "dd if=/dev/zero of=f bs=1k count=1 conv=fsync status=none; mv f g",
		// Under !write the model takes f for empty, and the cut for none.
		"truncate after a sync": "echo x > f; sync; truncate -s 0 f",
	}
	if _, err := exec.LookPath("sqlite3"); err == nil {
		// A commit in rollback mode unlinks its journal and never
		// fsyncs the directory after.
		programs["sqlite3 commit"] = "sqlite3 t.db 'create table t(x); insert into t values(1);'"
	}
	const named = "mmap,execve,exit_group,close,read,newfstatat,lseek,openat,write,fsync,fdatasync,sync"
	filters := []string{
		"trace=write,pwrite64,fsync,fdatasync,exit_group",
		"trace=openat,write,pwrite64,fsync,fdatasync,close,lseek,fstat,read,exit_group,execve",
		"trace=rename,unlink,link,mkdir," + named,
		"trace=!%file",
		"trace=%desc,%process",
		"trace=fsync,fdatasync,exit_group",
		"trace=fsync,fdatasync,sync,exit_group",
		"trace=!%desc",
		"trace=!write",
	}
	// argv runs a program in dir: a shell's script, or a binary given
	// dir as its argument (no shell around it, whose own start would
	// show a filter's signs).
	argv := map[string]func(dir string) []string{}
	for name, script := range programs {
		argv[name] = func(dir string) []string { return []string{"sh", "-c", "cd " + dir + " && " + script} }
	}
	if bin := goSaver(t); bin != "" {
		argv["a static Go program"] = func(dir string) []string { return []string{bin, dir} }
	}
	for name, run := range argv {
		for _, f := range append([]string{""}, filters...) {
			dir := t.TempDir()
			trace := filepath.Join(dir, "t.strace")
			args := []string{"-f", "-y", "-o", trace}
			if f != "" {
				args = append(args, "-e", f)
			}
			args = append(args, run(dir)...)
			if out, err := exec.Command("strace", args...).CombinedOutput(); err != nil {
				t.Fatalf("strace %v: %v\n%s", args, err, out)
			}
			_, errs, code := runCLI(t, "check", "--cwd", dir, "--root", dir, trace)
			switch {
			case f == "" && code != exitFindings:
				t.Errorf("%s, recorded in full: exit %d, want %d (findings):\n%s", name, code, exitFindings, errs)
			case f != "" && code == exitOK:
				t.Errorf("%s, recorded with -e %s: exit 0, a clean check of a trace that hides what a crash undoes:\n%s", name, f, errs)
			case f != "" && code == exitBlind && !strings.Contains(errs, "warning: blind-"):
				t.Errorf("%s, recorded with -e %s: exit %d without a blind spot said:\n%s", name, f, code, errs)
			}
		}
	}
}

// saverSource is a Go program whose four goroutines each create, write,
// fsync and close a file and rename it into place, and which never
// fsyncs the directory: name-not-synced, in full.
const saverSource = `package main

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

func main() {
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tmp := filepath.Join(os.Args[1], "f"+strconv.Itoa(i)+".tmp")
			f, err := os.Create(tmp)
			if err != nil {
				panic(err)
			}
			f.WriteString("data")
			f.Sync()
			f.Close()
			os.Rename(tmp, filepath.Join(os.Args[1], "f"+strconv.Itoa(i)))
		}()
	}
	wg.Wait()
}
`

// goSaver builds saverSource as a static binary and returns its path,
// or "" when no go command is here (the test then records the shell's
// programs alone, and says so).
func goSaver(t *testing.T) string {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Log("no go command: the static Go program is left out")
		return ""
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(saverSource), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "saver")
	cmd := exec.Command(goBin, "build", "-o", bin, src)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of the Go program: %v\n%s", err, out)
	}
	return bin
}
