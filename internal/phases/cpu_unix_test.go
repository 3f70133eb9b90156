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
