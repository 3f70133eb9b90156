package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeCheckExample runs the check example shown in README.md and
// compares its output with what the README prints, so the first thing a
// new user reads stays true.
func TestReadmeCheckExample(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)```console\n\\$ go run \\./cmd/crashsim (check [^\n]+)\n(.*?)```")
	m := re.FindSubmatch(b)
	if m == nil {
		t.Fatal("README.md has no ```console block starting with $ go run ./cmd/crashsim check")
	}
	args := strings.Fields(string(m[1]))
	for i, a := range args {
		if strings.HasPrefix(a, "fixtures/") {
			args[i] = "../../" + a
		}
	}
	out, _, _ := runCLI(t, args...)
	out = strings.ReplaceAll(out, "../../fixtures/", "fixtures/")
	if out != string(m[2]) {
		t.Errorf("README.md shows:\n%s\ncrashsim check prints:\n%s", m[2], out)
	}
}
