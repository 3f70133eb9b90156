package report

import (
	"bufio"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// Bounds on what codeAround reads of a source file: it is the program's
// own code, but a path from a trace may name anything.
const (
	maxCodeFile = 16 << 20 // bytes read before giving up on the line
	maxCodeLine = 240      // bytes of a line shown
)

// codeAround returns lines line-k to line+k of the source file name, as
// a compiler shows the code around an error; nil when the file is not a
// readable regular file or has no such line. A line longer than
// maxCodeLine is cut with "…".
func codeAround(name string, line, k int) []HTMLCode {
	if line < 1 {
		return nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	r := bufio.NewReader(io.LimitReader(f, maxCodeFile))
	var out []HTMLCode
	for n := 1; n <= line+k; n++ {
		text, err := r.ReadString('\n')
		if text == "" && err != nil {
			break
		}
		if n < line-k {
			continue
		}
		text = strings.TrimRight(text, "\r\n")
		if len(text) > maxCodeLine {
			cut := maxCodeLine
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
			text = text[:cut] + "…"
		}
		out = append(out, HTMLCode{N: n, Text: strings.ToValidUTF8(text, "\uFFFD")})
	}
	for _, c := range out {
		if c.N == line {
			return out
		}
	}
	return nil
}
