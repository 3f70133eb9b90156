package blocklog

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
)

// SectorSize is the unit a torn write keeps or loses: the 4096-byte
// physical sector of current drives, which they write whole (the loop
// device's 512-byte logical sectors are not torn apart by any drive that
// matters, and a torn 1024-byte ext4 superblock only shows an unmountable
// image no filesystem claims to survive). It matches the posix model's
// 4096-byte pieces.
const SectorSize = 4096

// Point is one window of the log: the durable image as of a flush, and
// the writes logged after it up to a mark (the log as it stood at that
// crash point) or up to the next flush (the writes in flight while that
// flush was on its way: the states of a power cut in the middle of
// whatever sent them).
type Point struct {
	// ID is the mark the window ends at, when AtMark; else the last
	// mark before it (-1 before the first).
	ID     int
	AtMark bool
	// Durable is an image file holding the base image plus every write
	// logged before the window's flush. It is valid only during the
	// callback of Walk; Build copies it.
	Durable string
	// InFlight are the writes and discards of the window, in log order.
	InFlight []Record
	Flushes  int // flushes logged before the window
	Writes   int // writes logged before the window's end
	data     io.ReaderAt
	durable  *os.File
}

// Walk reads the log at logName and calls f with every window, in log
// order: at each mark, and before each flush that had writes in flight
// (and at the end, if writes were never flushed). The durable image is
// built over a copy of base in tmp (a directory).
func Walk(ctx context.Context, logName, base, tmp string, f func(*Point) error) error {
	r, err := OpenLog(logName)
	if err != nil {
		return err
	}
	defer r.Close()
	durable := tmp + "/durable.img"
	if err := Copy(ctx, base, durable); err != nil {
		return err
	}
	defer os.Remove(durable)
	img, err := os.OpenFile(durable, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer img.Close()
	var pending []Record
	flushes, writes, mark := 0, 0, -1
	emitted := -1 // len(pending) at the last window: a flush or the end adds one only with more
	emit := func(atMark bool) error {
		emitted = len(pending)
		if err := ctx.Err(); err != nil {
			return err
		}
		return f(&Point{ID: mark, AtMark: atMark, Durable: durable, InFlight: append([]Record(nil), pending...),
			Flushes: flushes, Writes: writes, data: r.Data(), durable: img})
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			if len(pending) > 0 && len(pending) != emitted {
				return emit(false)
			}
			return nil
		}
		if err != nil {
			return err
		}
		switch rec.Kind {
		case Write, Discard:
			pending = append(pending, rec)
			if rec.Kind == Write {
				writes++
			}
		case Flush:
			if len(pending) > 0 && len(pending) != emitted {
				if err := emit(false); err != nil {
					return err
				}
			}
			for _, p := range pending {
				if err := apply(img, p, r.Data(), 0); err != nil {
					return err
				}
			}
			pending = pending[:0]
			emitted = -1
			flushes++
		case Mark:
			mark = int(rec.ID)
			if err := emit(true); err != nil {
				return err
			}
		}
	}
}

// Copy copies an image file, keeping it sparse (and sharing blocks where
// the filesystem can).
func Copy(ctx context.Context, src, dst string) error {
	out, err := exec.CommandContext(ctx, "cp", "--sparse=always", "--reflink=auto", src, dst).CombinedOutput()
	if err != nil {
		return fmt.Errorf("cp %s %s: %v: %s", src, dst, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// apply performs rec on img; sectors > 0 keeps only the first sectors of
// a write (a torn write).
func apply(img *os.File, rec Record, data io.ReaderAt, sectors int) error {
	n := rec.Len
	if sectors > 0 && int64(sectors)*SectorSize < n {
		n = int64(sectors) * SectorSize
	}
	if rec.Kind == Discard {
		buf := make([]byte, min(n, 1<<20))
		for done := int64(0); done < n; {
			k := min(int64(len(buf)), n-done)
			if _, err := img.WriteAt(buf[:k], rec.Off+done); err != nil {
				return err
			}
			done += k
		}
		return nil
	}
	buf := make([]byte, min(n, 1<<20))
	for done := int64(0); done < n; {
		k := min(int64(len(buf)), n-done)
		if _, err := data.ReadAt(buf[:k], rec.Data+done); err != nil {
			return fmt.Errorf("log data at %d: %w", rec.Data+done, err)
		}
		if _, err := img.WriteAt(buf[:k], rec.Off+done); err != nil {
			return err
		}
		done += k
	}
	return nil
}

// Piece is one in-flight record a state keeps.
type Piece struct {
	Rec     int // index into Point.InFlight
	Sectors int // 0: all of it; else the first Sectors sectors (torn)
}

// State is one crash state of a point: the durable image plus Pieces, in
// log order.
type State struct {
	Kind   string // prefix, drop, torn, subset
	Pieces []Piece
	Desc   string
}

func sectors(r Record) int { return int((r.Len + SectorSize - 1) / SectorSize) }

// Enumeration bounds the states of a point.
type Enumeration struct {
	// Exhaustive: with at most this many records in flight, every subset
	// is a state (2^n).
	Exhaustive int
	// Samples: beyond that, this many random subsets besides the
	// prefixes, the one-dropped and the torn states.
	Samples int
	Seed    uint64
}

// States lists the states of p: every prefix of the in-flight records
// (the first is the durable image alone, the last is what a device that
// lost nothing holds), every one-record-dropped, torn writes (the first
// sector, and all but the last, of each write of more than one sector,
// after the records before it), then every other subset when there are at
// most e.Exhaustive records in flight, else e.Samples random ones. Total is
// how many subsets exist (2^n, saturating), without torn variants.
func (p *Point) States(e Enumeration) (states []State, total uint64) {
	n := len(p.InFlight)
	seen := map[string]bool{}
	add := func(kind, desc string, pieces []Piece) {
		k := fmt.Sprint(pieces)
		if seen[k] {
			return
		}
		seen[k] = true
		states = append(states, State{Kind: kind, Pieces: pieces, Desc: desc})
	}
	all := func(idx ...int) []Piece {
		out := make([]Piece, len(idx))
		for i, j := range idx {
			out[i] = Piece{Rec: j}
		}
		return out
	}
	upto := func(k int) []int {
		out := make([]int, k)
		for i := range out {
			out[i] = i
		}
		return out
	}
	for k := 0; k <= n; k++ {
		desc := fmt.Sprintf("first %d of %d in flight", k, n)
		if k == 0 {
			desc = "as of the last flush"
		} else if k == n {
			desc = fmt.Sprintf("all %d in flight (the single snapshot)", n)
		}
		add("prefix", desc, all(upto(k)...))
	}
	for d := 0; d < n; d++ {
		var idx []int
		for i := 0; i < n; i++ {
			if i != d {
				idx = append(idx, i)
			}
		}
		add("drop", fmt.Sprintf("all in flight but #%d (%s)", d+1, p.describe(d)), all(idx...))
	}
	for j := 0; j < n; j++ {
		s := sectors(p.InFlight[j])
		if p.InFlight[j].Kind != Write || s < 2 {
			continue
		}
		for _, keep := range []int{1, s - 1} {
			pieces := append(all(upto(j)...), Piece{Rec: j, Sectors: keep})
			add("torn", fmt.Sprintf("first %d in flight, then #%d torn after %d of %d sectors", j, j+1, keep, s), pieces)
		}
	}
	if n < 64 {
		total = 1 << n
	} else {
		total = ^uint64(0)
	}
	subset := func(mask uint64) {
		var idx []int
		for i := 0; i < n; i++ {
			if mask&(1<<i) != 0 {
				idx = append(idx, i)
			}
		}
		add("subset", "in flight kept: "+list(idx), all(idx...))
	}
	if n <= e.Exhaustive {
		for mask := uint64(0); mask < total; mask++ {
			subset(mask)
		}
		return states, total
	}
	rng := splitmix{e.Seed}
	for i := 0; i < e.Samples; i++ {
		var idx []int
		for j := 0; j < n; j++ {
			if rng.next()&1 == 1 {
				idx = append(idx, j)
			}
		}
		add("subset", "sampled, in flight kept: "+list(idx), all(idx...))
	}
	return states, total
}

func (p *Point) describe(i int) string {
	r := p.InFlight[i]
	return fmt.Sprintf("%s of %d bytes at %d", r.Kind, r.Len, r.Off)
}

func list(idx []int) string {
	if len(idx) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, j := range idx {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "#%d", j+1)
	}
	return b.String()
}

// splitmix is a small seeded generator, so a sampled run can be repeated.
type splitmix struct{ s uint64 }

func (g *splitmix) next() uint64 {
	g.s += 0x9e3779b97f4a7c15
	z := g.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Build writes the image of state st to dst (which must not exist) and
// returns a key of its bytes: two states with the same key hold the same
// image.
func (p *Point) Build(ctx context.Context, st State, dst string) (string, error) {
	if err := Copy(ctx, p.Durable, dst); err != nil {
		return "", err
	}
	img, err := os.OpenFile(dst, os.O_RDWR, 0)
	if err != nil {
		return "", err
	}
	defer img.Close()
	for _, pc := range st.Pieces {
		if err := apply(img, p.InFlight[pc.Rec], p.data, pc.Sectors); err != nil {
			return "", err
		}
	}
	return p.key(img)
}

// key names the bytes in which img differs from the durable image, in
// the ranges a record in flight touches (outside them every state holds
// the durable image), and the flushes before the window: two states with
// the same key, in windows of the same flush, hold the same image.
func (p *Point) key(img *os.File) (string, error) {
	type span struct{ a, b int64 }
	var spans []span
	for _, r := range p.InFlight {
		spans = append(spans, span{r.Off, r.Off + r.Len})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].a < spans[j].a })
	h := sha256.New()
	const chunk = 4096
	got, was := make([]byte, chunk), make([]byte, chunk)
	read := func(f *os.File, b []byte, off int64) error {
		m, err := f.ReadAt(b, off)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		clear(b[m:])
		return nil
	}
	end := int64(-1)
	for _, s := range spans {
		for a := max(s.a, end); a < s.b; {
			k := min(chunk, s.b-a)
			if err := read(img, got[:k], a); err != nil {
				return "", err
			}
			if err := read(p.durable, was[:k], a); err != nil {
				return "", err
			}
			if !bytes.Equal(got[:k], was[:k]) {
				fmt.Fprintf(h, "%d %d\n", a, k)
				h.Write(got[:k])
			}
			a += k
		}
		end = max(end, s.b)
	}
	return fmt.Sprintf("%d:%s", p.Flushes, hex.EncodeToString(h.Sum(nil))), nil
}
