package parser

// The quick lane: Reader.Skip passes a line that holds one whole call of
// the usual shape without building an Event for it. quickCall reads the
// line as parse, call, skipArgs and ret read it with no argument decoded,
// but keeps nothing and stops short at the first thing that is not plain:
// it says true only for a line that the full reading completes as one call
// with a known return value, with no error, no warning and no note of an
// old strace. Anything else (a line it says false for) is read again by
// the full reading, so every error, warning and hint stays what it was.

// quickCall reports whether b is a line the full reading (with no argument
// decoded) completes as one call with a known return value, and nothing
// else to note, or whose resumed half it is. The shape it takes:
// [PID ]TIMESTAMP NAME(ARGS) = RET... or [PID ]TIMESTAMP <... NAME
// resumed>ARGS) = RET..., the pid and timestamp optional. For a resumed
// half it returns its pid (-1 when the line has none) and the name: the
// line completes a call only if that pid's unfinished call has that name,
// which the caller checks.
func (l *lineParser) quickCall(b []byte) (ok, resumed bool, pid int, name []byte) {
	pid = -1
	if hasSuffix(b, unfinishedText) {
		// The first half of a split call, read in full at once: it is
		// kept until its second half comes.
		return
	}
	i := 0
	// The pid: digits and one space (pidPrefix). Digits and anything else
	// are the timestamp's, read below.
	k := 0
	for k < len(b) && b[k]-'0' <= 9 {
		k++
	}
	pidEnd := 0
	if k > 0 && k < len(b) && b[k] == ' ' {
		pidEnd = k
		i = skipSpaces(b, k)
	} else if k > 0 && k < len(b) && b[k] == '<' {
		return // pid<comm> (-Y)
	}
	if i < len(b) && isDigit(b[i]) {
		if i = quickTimestamp(b, i); i < 0 {
			return
		}
		i = skipSpaces(b, i)
	}
	if len(b)-i > 5 && string(b[i:i+5]) == "<... " {
		resumed = true
		i += 5
	}
	// A letter or '_' starts the name: what else can stand here (a
	// bracket prefix, "-r" after a clock, ---, +++) is the full
	// reading's.
	if i >= len(b) || !isNameByte(b[i]) || isDigit(b[i]) {
		return
	}
	j := i
	for j < len(b) && nameByte[b[j]] {
		j++
	}
	name = b[i:j]
	start := j + 1
	switch {
	case resumed:
		if len(b)-j < len(" resumed>") || string(b[j:j+len(" resumed>")]) != " resumed>" {
			return
		}
		// The first half may have ended after a value (resumed).
		start = j + len(" resumed>")
		if p := skipSpaces(b, start); p < len(b) && b[p] == ',' {
			start = p + 1
		} else if hasPrefix(b[p:], "=>") {
			// The exit value of the argument its first half ended
			// with, read joined to it (openCut).
			return
		}
	// "Process 12 attached" and "strace: ..." are no calls: neither has
	// '(' after its first word.
	case j >= len(b) || b[j] != '(' || string(name) == "old_mmap":
		return
	}
	l.text = b
	end, kind, scanned := l.scanArgs(start)
	if !scanned || kind != lineCall || end < 0 || !quickRet(b, end) {
		return
	}
	if resumed && pidEnd > 0 {
		pid = atoi(b[:pidEnd])
	}
	return true, resumed, pid, name
}

// quickTimestamp returns the index just past the timestamp at b[i] when
// timestamp reads it without an error and a space follows, or -1.
func quickTimestamp(b []byte, i int) int {
	clock := false
	for {
		j := i
		for j < len(b) && b[j]-'0' <= 9 {
			j++
		}
		if j == i || j-i > 18 {
			return -1
		}
		i = j
		if i < len(b) && b[i] == ':' {
			clock = true
			i++
			continue
		}
		break
	}
	if i < len(b) && b[i] == '.' {
		i++
		j := i
		for j < len(b) && b[j]-'0' <= 9 {
			j++
		}
		if j == i {
			return -1
		}
		i = j
	} else if !clock {
		return -1
	}
	if i >= len(b) || b[i] != ' ' {
		return -1
	}
	return i
}

// quickRet reports whether ret reads the return value at b[i] without an
// error, as a known value (not "= ?").
func quickRet(b []byte, i int) bool {
	i = skipSpaces(b, i)
	if i >= len(b) || b[i] != '=' {
		return false
	}
	i = skipSpaces(b, i+1)
	end, _ := retEnd(b, i)
	if i >= end || b[i] == '?' {
		return false
	}
	j := i
	if b[j] == '-' {
		j++
	}
	for j < end && nameByte[b[j]] {
		j++
	}
	if _, ok := parseInt(b[i:j]); !ok {
		return false
	}
	// A returned fd's annotation: one without '<' or escapes inside
	// cannot fail; any other is left to annotation. What follows (an
	// errno, its text) reads whatever it is.
	return j >= end || b[j] != '<' || plainAnnotation(b, j) != 0
}

// Skip passes the next event of s without returning it: through s's own
// Skip method when it has one (a Reader does), by Next otherwise. It
// returns io.EOF at the end and the error Next would give.
func Skip(s Stream) error {
	if k, ok := s.(interface{ Skip() error }); ok {
		return k.Skip()
	}
	_, err := s.Next()
	return err
}
