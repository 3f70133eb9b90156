package main

import (
	"bufio"
	"fmt"

	"github.com/crashsim/crashsim/internal/inputfile"
	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/report/wire"
)

// readBaseline reads the fingerprints of an earlier report: crashsim's
// JSON, or its SARIF. The report streams: one of a million findings is
// never whole in memory. It is a regular file or a pipe named on the
// command line (inputfile), and an error says where the reading failed,
// never what the file holds (wire's reader words it so): a baseline that
// is a link to a secret must not print it.
func readBaseline(name string) (*wire.Fingerprints, error) {
	file, err := inputfile.Open(name, inputfile.Named)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	defer file.Close()
	fps, err := wire.ReadFingerprints(bufio.NewReaderSize(file, 256<<10))
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", textesc.Escape(name), err)
	}
	return fps, nil
}
