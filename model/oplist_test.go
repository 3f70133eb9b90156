package model_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
)

// TestManyPendingOps follows a file through more pending ops than fit in
// one of the blocks the model keeps them in, a failed sync that loses
// them and a sync of what came after: every list of ops the model hands
// out holds each op once, in program order.
func TestManyPendingOps(t *testing.T) {
	const lost, pending = 2500, 1500
	var tr strings.Builder
	tr.WriteString(`openat(AT_FDCWD, "/t/f", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3` + "\n")
	for range lost {
		tr.WriteString(`write(3, "ab", 2) = 2` + "\n")
	}
	tr.WriteString("fsync(3) = -1 EIO (Input/output error)\n")
	for range pending {
		tr.WriteString(`write(3, "ab", 2) = 2` + "\n")
	}
	tr.WriteString("fsync(3) = 0\n")
	evs := parseTrace(t, tr.String())
	evs, sync := evs[:len(evs)-1], evs[len(evs)-1]

	var durable [][]model.DataOp
	var before []model.DataOp
	m := model.New(model.Options{
		Durable: func(ino *model.Inode, ops []model.DataOp) {
			durable = append(durable, append([]model.DataOp(nil), ops...))
		},
		Observe: func(m *model.Model, e *model.Effect) {
			if e.Kind == model.EffFileSync {
				before = e.PendingBefore()
			}
		},
	})
	for _, ev := range evs {
		m.Apply(ev)
	}
	ino := m.Inodes()[len(m.Inodes())-1]
	if err := inOrder(ino.MaybeOps(), 0, lost+pending); err != nil {
		t.Errorf("MaybeOps before the sync: %v", err)
	}
	if err := inOrder(ino.PendingWrites(), 0, lost+pending); err != nil {
		t.Errorf("PendingWrites before the sync: %v", err)
	}
	w := ino.PendingWrites()
	if first, last, ok := ino.PendingWriteEnds(); !ok || first.Hist != w[0].Hist || last.Hist != w[len(w)-1].Hist {
		t.Errorf("PendingWriteEnds = ops %d..%d (%v), want %d..%d", first.Hist, last.Hist, ok, w[0].Hist, w[len(w)-1].Hist)
	}
	m.Apply(sync)
	// Only the writes the failed sync lost are left.
	if w := ino.PendingWrites(); len(w) != lost {
		t.Errorf("PendingWrites after the sync: %d, want the %d lost", len(w), lost)
	} else if first, last, ok := ino.PendingWriteEnds(); !ok || first.Hist != w[0].Hist || last.Hist != w[lost-1].Hist {
		t.Errorf("PendingWriteEnds after the sync = ops %d..%d (%v), want %d..%d", first.Hist, last.Hist, ok, w[0].Hist, w[lost-1].Hist)
	}
	if len(durable) != 1 {
		t.Fatalf("Durable called %d times, want once", len(durable))
	}
	if err := inOrder(durable[0], lost, pending); err != nil {
		t.Errorf("Durable: %v", err)
	}
	if err := inOrder(before, lost, pending); err != nil {
		t.Errorf("PendingBefore: %v", err)
	}
	if err := inOrder(ino.MaybeOps(), 0, lost); err != nil {
		t.Errorf("MaybeOps after the sync: %v", err)
	}
}

// inOrder checks that ops are n ops numbered from first.
func inOrder(ops []model.DataOp, first, n int) error {
	if len(ops) != n {
		return fmt.Errorf("%d ops, want %d", len(ops), n)
	}
	for i, op := range ops {
		if op.Hist != first+i {
			return fmt.Errorf("op %d is op %d of the file, want %d", i, op.Hist, first+i)
		}
	}
	return nil
}
