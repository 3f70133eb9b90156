package parser

import (
	"bytes"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Lines that come along with a trace copied by hand, out of an issue, a
// chat, a terminal or grep's output, and that no strace prints. They are
// looked for only on the error path: for a line that already failed to
// parse (Reader.explain), and for a last line that did, which is refused
// with its hint rather than passed over as cut short (Reader.stepLine).

// pastedHint names what such a line is and what to do about it, or is
// empty: a markdown code fence, a mark of lines left out, the command line
// that ran strace, the file name grep puts before each line it found.
func pastedHint(text []byte) string {
	t := bytes.TrimSpace(text)
	if len(t) == 0 {
		return ""
	}
	if isFence(t) {
		return "this line is a markdown code fence (``` or ~~~), left from a trace copied out of an issue or a chat: remove the fence lines"
	}
	if elisionAt(text) >= 0 {
		return "this line marks lines left out: the trace is an excerpt, and crashsim cannot tell what the calls left out did to the files; check the whole recording"
	}
	if ok, strace, toFile := shellCommand(t); ok {
		switch {
		case strace && toFile:
			return "this looks like the command line that ran strace (a prompt, then the command), pasted with its output: remove it"
		case strace:
			return "this looks like the command line that ran strace (a prompt, then the command), pasted with its output: remove it; without -o, strace wrote where the program writes, and the program's own output may be mixed in: record with strace -o FILE"
		}
		return "this looks like a shell command line (a prompt, then a command), pasted with the trace: remove it"
	}
	if handNote(t) {
		return "this line is a note or a separator written by hand, which strace never prints: remove it, and check the recording as strace wrote it"
	}
	if name := grepPrefix(t); name != nil {
		return fmt.Sprintf("the line starts with a file name (%s), as grep -r or grep -n prints the lines it found in trace files: this is grep's output, a few lines of the traces; check the trace files themselves", quoteName(name))
	}
	return ""
}

// handNote reports whether t, a trimmed line, is a note someone put in a
// trace they were reading: a rule of dashes or equals signs ("-----"), a
// comment ("# the save starts here", "// here"), marks pointing at the
// line above ("^^^^ write ^^^^"). A signal line of strace's ("--- SIG")
// that failed to read is none.
func handNote(t []byte) bool {
	if len(t) > 0 && bytes.Trim(t, "#") == nil {
		return true // a comment left empty, as between the lines of a header
	}
	if len(t) < 2 {
		return false
	}
	if bytes.Trim(t, "-=*^~_#+ ") == nil && len(t) >= 3 {
		return true
	}
	switch {
	case hasPrefix(t, "# "), hasPrefix(t, "// "), hasPrefix(t, "^^^"), hasPrefix(t, "<--"), hasPrefix(t, "==>"):
		return true // "# strace -f ./prog" is taken first, for a command line
	}
	return false
}

// quoteName quotes a file name for a message, cut to a readable length.
func quoteName(name []byte) string {
	if len(name) > 60 {
		return fmt.Sprintf("%q...", name[:60])
	}
	return fmt.Sprintf("%q", name)
}

// isFence reports whether t, a trimmed line, is a markdown code fence:
// three or more backticks or tildes, then maybe the name of a language
// ("```", "```text", "~~~strace").
func isFence(t []byte) bool {
	if !hasPrefix(t, "```") && !hasPrefix(t, "~~~") {
		return false
	}
	info := bytes.TrimSpace(bytes.TrimLeft(t, string(t[:1])))
	return len(info) <= 40 && !bytes.ContainsAny(info, "`(")
}

// elisionAt returns where a mark of lines left out starts in text, a line
// that holds nothing else ("...", "…", "[...]", "<snip>", "[snip]", "(...
// 40 lines ...)"), or -1.
func elisionAt(text []byte) int {
	t := bytes.TrimSpace(text)
	if len(t) < 3 || len(t) > 60 {
		return -1
	}
	inner := t
	switch string(t[:1]) + string(t[len(t)-1:]) {
	case "[]", "<>", "()", "{}":
		inner = bytes.TrimSpace(t[1 : len(t)-1])
	}
	switch {
	case bytes.EqualFold(inner, []byte("snip")), bytes.EqualFold(inner, []byte("snipped")),
		dotted(inner):
		return bytes.Index(text, t)
	}
	return -1
}

// dotted reports whether t starts and ends with "..." (or "…") and holds
// no part of a call: "...", "......", "... 40 lines ...".
func dotted(t []byte) bool {
	dots := func(b []byte, at func([]byte, []byte) bool) bool {
		return at(b, []byte("...")) || at(b, []byte("…"))
	}
	return dots(t, bytes.HasPrefix) && dots(t, bytes.HasSuffix) && !bytes.ContainsAny(t, "()[]<>{}=\"")
}

// shellCommand reports whether t, a trimmed line, is a shell's prompt and
// a command typed after it, whether the command runs strace ("$ strace -f
// ./prog", "# strace ...", "% strace ...", "user@host:~$ sudo strace
// ..."), and whether it gives strace -o. A line that starts with a bare
// '$' or '%' and a word is a command whatever the word; after any other
// prompt ('#' starts comments too) only strace is taken for one.
func shellCommand(t []byte) (ok, strace, toFile bool) {
	f := bytes.Fields(t)
	if len(f) > 0 && len(f[0]) > 1 && bytes.IndexByte([]byte("$#%"), f[0][0]) >= 0 && isStrace(f[0][1:]) {
		// The prompt and strace with no space between ("$strace -o
		// out.txt ./prog"): read as the prompt, then the command.
		f = append([][]byte{f[0][:1], f[0][1:]}, f[1:]...)
	}
	for i := 0; i < len(f)-1 && i < 3; i++ {
		w := f[i]
		if !promptEnd(w) {
			continue
		}
		cmd := f[i+1:]
		for len(cmd) > 1 && commandPrefix(cmd[0]) {
			cmd = cmd[1:]
		}
		if isStrace(cmd[0]) {
			for _, a := range cmd[1:] {
				if hasPrefix(a, "-o") || hasPrefix(a, "--output") {
					toFile = true
				}
			}
			return true, true, toFile
		}
		return i == 0 && (string(w) == "$" || string(w) == "%"), false, false
	}
	return false, false, false
}

// promptEnd reports whether the word w ends as a shell's prompt does: with
// '$', '#', '%' or '>', or with a symbol or a mark outside ASCII that
// themes put there ("❯", "➜", "→", "»"); not "…", which marks lines left
// out.
func promptEnd(w []byte) bool {
	switch w[len(w)-1] {
	case '$', '#', '%', '>':
		return true
	}
	r, _ := utf8.DecodeLastRune(w)
	return r >= utf8.RuneSelf && r != utf8.RuneError && r != '…' && (unicode.IsSymbol(r) || unicode.IsPunct(r))
}

// isStrace reports whether the command word c runs strace.
func isStrace(c []byte) bool {
	return string(c) == "strace" || bytes.HasSuffix(c, []byte("/strace"))
}

// commandPrefix reports whether w comes before the command in a command
// line: sudo and the like, an option of theirs, a variable set for it.
func commandPrefix(w []byte) bool {
	switch string(w) {
	case "sudo", "doas", "env", "time", "nohup", "command", "exec":
		return true
	}
	return w[0] == '-' || bytes.IndexByte(w, '=') > 0
}

// grepPrefix returns the file name grep puts before each line it found
// when it searched more than one file or was asked for line numbers, if t
// (a trimmed line) has one and reads as a line of strace output after it:
// "app.strace.4242:openat(...) = 3", "trace.log:17:openat(...) = 3", and
// "trace.log-18-close(3) = 0" for a line of context (-A, -B, -C). A name
// of digits alone is a timestamp's, not a file's.
func grepPrefix(t []byte) []byte {
	end := len(t)
	if k := bytes.IndexAny(t, " (\"\t"); k >= 0 {
		end = k
	}
	tok := t[:end]
	colon := bytes.IndexByte(tok, ':')
	// A line of context: NAME-N-REST, its '-' before any ':'.
	for k := 1; k < len(tok) && (colon < 0 || k < colon); k++ {
		if tok[k-1] != '-' {
			continue
		}
		n := k
		for n < len(tok) && isDigit(tok[n]) {
			n++
		}
		if n > k && n < len(tok) && tok[n] == '-' {
			if grepRest(t, k-1, '-') {
				return t[:k-1]
			}
			break
		}
	}
	if colon > 0 && grepRest(t, colon, ':') {
		return t[:colon]
	}
	return nil
}

// grepRest reports whether t[p] ends a file name that grep put before a
// line of strace output: what follows reads as one, maybe after a line
// number and sep.
func grepRest(t []byte, p int, sep byte) bool {
	if p <= 0 || !hasNonDigit(t[:p]) {
		return false
	}
	rest := t[p+1:]
	if readsAsLine(rest) {
		return true
	}
	n := 0
	for n < len(rest) && isDigit(rest[n]) {
		n++
	}
	return n > 0 && n < len(rest) && rest[n] == sep && readsAsLine(rest[n+1:])
}

func hasNonDigit(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return true
		}
	}
	return false
}

// readsAsLine reports whether b reads as a line of strace output, on a
// line parser of its own.
func readsAsLine(b []byte) bool {
	if isBlank(b) {
		return false
	}
	lp := lineParser{file: "", line: 1, names: map[string]string{}}
	lp.text, lp.ev, lp.splitAt = b, &Event{}, len(b)+1
	_, _, err := lp.parse()
	return err == nil
}
