package parser

import (
	"math/rand"
	"reflect"
	"testing"
)

// TestPlainTermAsTerm checks plainTerm, value's shortcut for the
// commonest terms, against term and value's steps after it (comment,
// verboseName, the expression check) on the same text: where it reads a
// term it must give the same Value and end, and where it declines the
// full reading decides. The texts are the shapes it takes, their near
// misses, and random strings over the bytes that matter.
func TestPlainTermAsTerm(t *testing.T) {
	texts := []string{
		"832,", "0)", "-1, 0", "0644,", "0x7f,", "00)", "-0]", "-,", "-x)", "1234567890123456789,",
		"12345678901234567890,", "3</etc/passwd>,", "3</etc/passwd>(deleted))", "3</a b (deleted)>}",
		"AT_FDCWD</home>, ", "NULL)", "O_RDONLY|O_CLOEXEC)", "PROT_READ|PROT_WRITE,", "a==b,", "x /* c */,",
		"3<pipe:[12]>,", "3</dev/null<char 1:3>>,", "3<TCP:[1.2.3.4:5->6.7.8.9:10]>)", "3<", "3</x", "3</x>",
		"makedev(1, 3),", "SIGINT|SIGTERM]", "3 ,", "3<unfinished ...>)", "17 /* SIGCHLD */)", "0x1|17,",
		"st_size=3,", "A|,", "_x)", "3</a\\>b>,", "3</x>y,",
	}
	alpha := []byte("0123456789-xaAZ_|<>/ ,)]}(\\\"=*.:[")
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 200000; n++ {
		b := make([]byte, 1+rng.Intn(12))
		for i := range b {
			b[i] = alpha[rng.Intn(len(alpha))]
		}
		texts = append(texts, string(b))
	}
	read := 0
	for _, text := range texts {
		if text == "" {
			continue
		}
		quick := lineParser{file: "t", line: 1, names: map[string]string{}, text: []byte(text)}
		var qv Value
		qj := quick.plainTerm(&qv, 0)
		if qj == 0 {
			if !reflect.DeepEqual(qv, Value{}) {
				t.Fatalf("%q: plainTerm declined but changed the value: %+v", text, qv)
			}
			continue
		}
		read++
		full := lineParser{file: "t", line: 1, names: map[string]string{}, text: []byte(text)}
		var fv Value
		fj, err := full.value(&fv, 0, 0, false)
		if err != nil {
			t.Fatalf("%q: plainTerm read it, value fails: %v", text, err)
		}
		// value takes the shortcut itself: read the same text with term
		// and value's steps after it, as before plainTerm.
		var tv Value
		tj, err := full.term(&tv, 0)
		if err != nil {
			t.Fatalf("%q: plainTerm read it, term fails: %v", text, err)
		}
		verboseName(&tv)
		if k := skipSpaces(full.text, tj); k < len(full.text) && !isDelim(full.text, k) {
			t.Fatalf("%q: plainTerm read it, value would read an expression", text)
		}
		if qj != tj || fj != tj || !reflect.DeepEqual(qv, tv) || !reflect.DeepEqual(fv, tv) {
			t.Fatalf("%q: plainTerm %d %+v, value %d %+v, term %d %+v", text, qj, qv, fj, fv, tj, tv)
		}
	}
	if read < 1000 {
		t.Fatalf("plainTerm read only %d of the texts: the test tests little", read)
	}
}
