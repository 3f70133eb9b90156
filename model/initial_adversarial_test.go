package model

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAdversarialInitial: a listing that is not one gives a short error
// with name:line:column, and reading it takes bounded memory (issue 14,
// point 7).
func TestAdversarialInitial(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	binary := make([]byte, 1024)
	for i := range binary {
		binary[i] = byte(rng.UintN(256))
	}
	binary[5] = 0
	for _, tc := range []struct {
		name, in, want string
	}{
		{"over-long line", "root /w\n/w/a\n/" + strings.Repeat("a", 1<<20) + "\n", "t.initial:3:1: line longer than 65536 bytes: not a listing"},
		{"binary", "root /w\n" + string(binary), "t.initial:2:"},
		{"text garbage", "root /w\n" + strings.Repeat("garbage ", 200) + "\n", `t.initial:2:1: expected an absolute path, found "garbage garbage garbage garbage garbage "...`},
		{"escape bytes", "root /w\n\x1b[2Jrelative\n", `t.initial:2:1: expected an absolute path, found "\x1b[2Jrelative"`},
	} {
		_, err := ReadInitial(strings.NewReader(tc.in), "t.initial")
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, tc.want) {
			t.Errorf("%s: error %q, want it to start with %q", tc.name, msg, tc.want)
		}
		if len(msg) > 200 || strings.ContainsAny(msg, "\x00\x1b\n") {
			t.Errorf("%s: error of %d bytes, or with raw control bytes: %q", tc.name, len(msg), msg)
		}
	}
	// A long but valid path is read.
	long := "/w/" + strings.Repeat("d/", 2000) + "f"
	in, err := ReadInitial(bytes.NewReader([]byte("root /w\n"+long+"\n")), "t.initial")
	if err != nil {
		t.Fatal(err)
	}
	if ok, known := in.Existed(long); !ok || !known {
		t.Errorf("long path: existed %v known %v", ok, known)
	}
	// A last line without a newline is read too.
	in, err = ReadInitial(strings.NewReader("root /w\n/w/last"), "t.initial")
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := in.Existed("/w/last"); !ok {
		t.Error("last line without a newline was not read")
	}
}
