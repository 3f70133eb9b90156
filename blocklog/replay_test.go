package blocklog

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStatesExhaustiveAndSampled(t *testing.T) {
	p := &Point{InFlight: []Record{
		{Kind: Write, Off: 0, Len: 512},
		{Kind: Write, Off: 4096, Len: 4 * SectorSize},
		{Kind: Discard, Off: 8192, Len: 4096},
	}}
	states, total := p.States(Enumeration{Exhaustive: 3})
	if total != 8 {
		t.Errorf("total = %d, want 8", total)
	}
	kinds := map[string]int{}
	for _, s := range states {
		kinds[s.Kind]++
	}
	// 4 prefixes; dropping #1 and #2 (dropping #3 is a prefix); 2 torn
	// variants of the 4-sector write; the 2 subsets left: {#2} and {#1,#3}.
	want := map[string]int{"prefix": 4, "drop": 2, "torn": 2, "subset": 2}
	if d := cmp.Diff(want, kinds); d != "" {
		t.Errorf("kinds (-want +got):\n%s", d)
	}
	if s := states[3]; !strings.Contains(s.Desc, "single snapshot") || len(s.Pieces) != 3 {
		t.Errorf("the full prefix is %+v", s)
	}
	sampled, _ := p.States(Enumeration{Exhaustive: 2, Samples: 50, Seed: 7})
	if len(sampled) > 10 || len(sampled) < 8 {
		t.Errorf("sampled %d states, want the 8 fixed ones and at most the 2 subsets left", len(sampled))
	}
	again, _ := p.States(Enumeration{Exhaustive: 2, Samples: 50, Seed: 7})
	if d := cmp.Diff(sampled, again); d != "" {
		t.Errorf("the same seed gave other states (-first +second):\n%s", d)
	}
}

// Walk builds the durable image from the writes before the last flush,
// leaves the later ones in flight, and Build applies a torn write by
// sectors.
func TestWalkAndBuild(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.img")
	if err := os.WriteFile(base, bytes.Repeat([]byte{'.'}, 4*SectorSize), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := Create(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Append(Record{Kind: Write, Off: 0, Len: 3}, []byte("abc")))
	must(w.Append(Record{Kind: Flush}, nil))
	must(w.Append(Record{Kind: Mark, ID: 1}, nil))
	must(w.Append(Record{Kind: Write, Off: SectorSize, Len: 2 * SectorSize}, bytes.Repeat([]byte{'x'}, 2*SectorSize)))
	must(w.Append(Record{Kind: Discard, Off: 0, Len: 2}, nil))
	must(w.Append(Record{Kind: Mark, ID: 2}, nil))
	must(w.Close())
	var got []string
	err = Walk(context.Background(), filepath.Join(dir, "log"), base, dir, func(p *Point) error {
		states, _ := p.States(Enumeration{Exhaustive: 8})
		for _, st := range states {
			dst := filepath.Join(dir, "state.img")
			if _, err := p.Build(context.Background(), st, dst); err != nil {
				return err
			}
			b, err := os.ReadFile(dst)
			if err != nil {
				return err
			}
			os.Remove(dst)
			// A compact picture: bytes 0-3, and the first byte of sectors 1 and 2.
			got = append(got, strings.ReplaceAll(string(b[:4])+string(b[SectorSize])+string(b[2*SectorSize]), "\x00", "0"))
		}
		return nil
	})
	must(err)
	want := []string{
		"....", "abc.", // in flight while the first flush was sent
		"abc.",                                 // point 1: the flushed write only
		"abc...", "abc.xx", "00c.xx", "00c...", // point 2: prefixes 0..2, then dropping #1
		"abc.x.", // #1 torn after 1 of 2 sectors
	}
	// Before point 2 only the first 4 bytes matter.
	for i := 0; i < 3 && i < len(got); i++ {
		got[i] = got[i][:4]
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("states (-want +got):\n%s", d)
	}
}
