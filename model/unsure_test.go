package model_test

import (
	"testing"

	"github.com/crashsim/crashsim/model"
)

// Without a listing, what the trace does not say existed is unknown: its
// crash outcome is initial (which may be no file at all), not missing.
// What the trace does tell settles it.
func TestUnknownPriorExistence(t *testing.T) {
	tests := []struct {
		name, trace, path, want string
		unsure                  bool
	}{
		{"O_CREAT may have opened an existing file",
			`1 openat(AT_FDCWD</w>, "/w/config.txt", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</w/config.txt>
1 write(3</w/config.txt>, "v=2\n", 4) = 4
`, "/w/config.txt", "initial latest empty torn zeros", true},
		{"O_EXCL proves it was new",
			`1 openat(AT_FDCWD</w>, "/w/config.txt", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</w/config.txt>
1 write(3</w/config.txt>, "v=2\n", 4) = 4
`, "/w/config.txt", "missing latest empty zeros", false},
		{"an earlier stat proves it existed",
			`1 newfstatat(AT_FDCWD</w>, "/w/config.txt", {st_mode=S_IFREG|0644, st_size=4, ...}, 0) = 0
1 openat(AT_FDCWD</w>, "/w/config.txt", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</w/config.txt>
1 write(3</w/config.txt>, "v=2\n", 4) = 4
`, "/w/config.txt", "initial latest empty torn zeros", false},
		{"a file in a directory made in the trace was new",
			`1 mkdir("/w/d", 0777) = 0
1 openat(AT_FDCWD</w>, "/w/d/f", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</w/d/f>
`, "/w/d/f", "missing latest", false},
		{"a rename onto a name the trace never showed",
			`1 openat(AT_FDCWD</w>, "/w/t", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</w/t>
1 rename("/w/t", "/w/config.txt") = 0
`, "/w/config.txt", "initial latest", true},
		{"an O_APPEND log that a read found data in existed",
			`1 openat(AT_FDCWD</w>, "/w/log", O_RDWR|O_CREAT|O_APPEND, 0644) = 3</w/log>
1 read(3</w/log>, "entry 1\n", 4096) = 8
1 write(3</w/log>, "entry 2\n", 8) = 8
`, "/w/log", "initial latest torn", false},
		{"an fstat size settles it",
			`1 openat(AT_FDCWD</w>, "/w/log", O_WRONLY|O_CREAT|O_APPEND, 0644) = 3</w/log>
1 fstat(3</w/log>, {st_mode=S_IFREG|0644, st_size=118, ...}) = 0
1 write(3</w/log>, "entry 2\n", 8) = 8
`, "/w/log", "initial latest torn", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pt := lastPoint(t, tc.trace, model.Posix)
			if got := join(pt.All()[tc.path].Outcomes); got != tc.want {
				t.Errorf("outcomes %q, want %q", got, tc.want)
			}
			unsure := false
			for _, s := range pt.All()[tc.path].States {
				if s.Outcome == model.Initial {
					unsure = unsure || lastModel(t, tc.trace).Inode(s.Inode).Unsure
				}
			}
			if unsure != tc.unsure {
				t.Errorf("initial state unsure = %v, want %v", unsure, tc.unsure)
			}
		})
	}
}

func lastModel(t *testing.T, trace string) *model.Model {
	m := model.New(model.Options{})
	for _, ev := range parseTrace(t, trace) {
		m.Apply(ev)
	}
	return m
}
