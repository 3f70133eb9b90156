package model

import (
	"fmt"
	"testing"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/parser"
)

// TestFlagTexts: a remembered flag text decodes as the table does, for
// its own table and architecture only, however many texts came between.
func TestFlagTexts(t *testing.T) {
	var c flagTexts
	type ask struct {
		text string
		t    *parser.FlagTable
		a    parser.Arch
	}
	var asks []ask
	// The same texts under two tables and two architectures (0x4000 is
	// O_DIRECT on amd64, O_DIRECTORY on arm64), and more texts than the
	// cache holds, asked twice over.
	for _, text := range []string{"0x4000", "O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC", "AT_REMOVEDIR", "O_RDONLY", "O_BOGUS|O_RDONLY"} {
		for _, tab := range []*parser.FlagTable{syscalls.OpenFlags, syscalls.AtFlags} {
			for _, a := range []parser.Arch{syscalls.AMD64, syscalls.ARM64} {
				asks = append(asks, ask{text, tab, a})
			}
		}
	}
	for i := 0; i < 20; i++ {
		asks = append(asks, ask{fmt.Sprintf("0x%x", 1<<i), syscalls.OpenFlags, syscalls.AMD64})
	}
	for round := range 2 {
		for _, q := range asks {
			v := parser.Value{Kind: parser.ValIdent, Text: q.text}
			got, gotOK := c.bits(&v, q.t, q.a)
			want, wantOK := q.t.Bits(q.text, q.a)
			if got != want || gotOK != wantOK {
				t.Errorf("round %d: %q as %p on arch %v = %#x %v, want %#x %v", round, q.text, q.t, q.a, got, gotOK, want, wantOK)
			}
		}
	}
	if got, ok := c.bits(&parser.Value{}, syscalls.OpenFlags, syscalls.AMD64); got != 0 || ok {
		t.Errorf("no value = %#x %v, want 0 false", got, ok)
	}
}
