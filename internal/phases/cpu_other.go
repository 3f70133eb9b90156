//go:build !unix

package phases

import "time"

// processCPU is not known here: phases print 0 s of CPU.
func processCPU() time.Duration { return 0 }

// peakRSS is not known here: phases print 0 MB.
func peakRSS() int64 { return 0 }
