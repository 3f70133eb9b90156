package progress

import (
	"io"
	"os"
)

// Terminal reports whether w is a terminal that wants colour and lines
// redrawn in place: not when NO_COLOR is set or TERM is dumb.
func Terminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(f)
}
