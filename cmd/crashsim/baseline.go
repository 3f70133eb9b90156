package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/crashsim/crashsim/report/wire"
)

// readBaseline reads the fingerprints of an earlier report: crashsim's
// JSON, or its SARIF. The report streams: one of a million findings is
// never whole in memory.
func readBaseline(name string) (*wire.Fingerprints, error) {
	file, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	defer file.Close()
	fps, err := wire.ReadFingerprints(bufio.NewReaderSize(file, 256<<10))
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", name, err)
	}
	return fps, nil
}
