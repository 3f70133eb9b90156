//go:build unix

package phases

import (
	"testing"
	"time"
)

// TestProcessCPU: the process's CPU time moves on while it works, and
// never back.
func TestProcessCPU(t *testing.T) {
	a := processCPU()
	deadline := time.Now().Add(10 * time.Second)
	x := 0
	for b := processCPU(); b == a; b = processCPU() {
		if b < a || time.Now().After(deadline) {
			t.Fatalf("CPU time went from %v to %v after 10 s of work", a, b)
		}
		for i := range 1 << 16 {
			x += i
		}
	}
	if b := processCPU(); b < a {
		t.Errorf("CPU time went back from %v to %v (%d)", a, b, x)
	}
}

// TestPeakRSS: the peak grows past memory the process touched.
func TestPeakRSS(t *testing.T) {
	before := peakRSS()
	if before <= 0 {
		t.Fatalf("peak RSS %d", before)
	}
	b := make([]byte, before+64<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	if after := peakRSS(); after < int64(len(b)) {
		t.Errorf("peak RSS %d after touching %d bytes", after, len(b))
	}
}
