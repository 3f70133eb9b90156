package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// manyArgs are n arguments for a traced program, among them the words
// a parser could take for its own: flags, "--", empty, a newline, bytes
// that are not UTF-8.
func manyArgs(n int) []string {
	odd := []string{"--", "--help", "-v", "--out", "", "a b", "x\ny", "\xff\xfe", "-", "--checker=x", "-h"}
	args := make([]string, n)
	for i := range args {
		args[i] = strconv.Itoa(i)
		if i%97 < len(odd) {
			args[i] = odd[i%97]
		}
	}
	return args
}

// argsWritten is what a shell that writes its arguments NUL-terminated
// writes for args.
func argsWritten(args []string) []byte {
	var b bytes.Buffer
	for _, a := range args {
		b.WriteString(a)
		b.WriteByte(0)
	}
	return b.Bytes()
}

// A program traced with 50,000 arguments gets every one of them, byte
// for byte: flags and "--" among them are its own.
func TestTraceManyArgs(t *testing.T) {
	needStrace(t)
	dir := t.TempDir()
	t.Chdir(dir)
	args := manyArgs(50_000)
	line := append([]string{"trace", "--out", filepath.Join(dir, "t.strace"), "--fail-on", "never", "--",
		"sh", "-c", `printf '%s\0' "$@" > args.bin`, "sh"}, args...)
	_, errs, code := runCLI(t, line...)
	if code != exitOK {
		t.Fatalf("exit %d, want 0: %s", code, errs)
	}
	got, err := os.ReadFile("args.bin")
	if err != nil {
		t.Fatal(err)
	}
	if want := argsWritten(args); !bytes.Equal(got, want) {
		t.Errorf("the program got %d bytes of arguments, want %d", len(got), len(want))
	}
}

// So does a program explore runs. Explore records the bytes of every
// string, the arguments too: 20,000 of them make an execve line of about
// 400 KiB, longer than the head the tracer reads for the program's pid
// (parser.ProbeTrace), which once cut it and took the run for one that
// traced nothing (exit 3).
func TestExploreManyArgs(t *testing.T) {
	needStrace(t)
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("TMPDIR", t.TempDir())
	args := manyArgs(20_000)
	line := append([]string{"explore", "--checker", "true", "--fail-on", "never", "--",
		"sh", "-c", `printf '%s\0' "$@" > args.bin`, "sh"}, args...)
	_, errs, code := runCLI(t, line...)
	if code != exitOK {
		t.Fatalf("exit %d, want 0: %s", code, errs)
	}
	got, err := os.ReadFile("args.bin")
	if err != nil {
		t.Fatal(err)
	}
	if want := argsWritten(args); !bytes.Equal(got, want) {
		t.Errorf("the program got %d bytes of arguments, want %d", len(got), len(want))
	}
}
