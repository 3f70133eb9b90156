package parser_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/crashsim/crashsim/parser"
)

// A split call is joined back into one event, positioned at the line where
// it starts; flags decode to bits whether printed by name or as numbers.
func ExampleReader() {
	trace := `12 openat(AT_FDCWD</srv>, "db.tmp", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</srv/db.tmp>
12 fsync(3</srv/db.tmp> <unfinished ...>
13 close(7) = 0
12 <... fsync resumed>) = 0
`
	r := parser.NewReader(strings.NewReader(trace), "trace", parser.Options{})
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("line %d-%d pid %d %s(%s) = %s\n", ev.Pos.Line, ev.EndLine, ev.PID, ev.Name, ev.FormatArgs(nil), ev.FormatRet())
		if ev.Name == "openat" {
			flags, _ := ev.Bits(2, parser.OpenFlags)
			fmt.Printf("  flags %#x, fd %d is %s\n", flags, ev.Ret, ev.RetAnno)
		}
	}
	// Output:
	// line 1-1 pid 12 openat(AT_FDCWD</srv>, "db.tmp", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3
	//   flags 0x241, fd 3 is /srv/db.tmp
	// line 3-3 pid 13 close(7) = 0
	// line 2-4 pid 12 fsync(3</srv/db.tmp>) = 0
}
