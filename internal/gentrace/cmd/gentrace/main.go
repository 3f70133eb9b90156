// Command gentrace writes a large realistic strace log for benchmarks:
//
//	go run ./internal/gentrace/cmd/gentrace -size 1G -o /tmp/big.strace
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/internal/gentrace"
)

func main() {
	size := flag.String("size", "1G", "at least this many bytes (suffix K, M or G)")
	out := flag.String("o", "", "output file (required)")
	seed := flag.Uint64("seed", 1, "PRNG seed")
	maxData := flag.Int("max-data", 16384, "largest write in bytes")
	unsynced := flag.Bool("unsynced", false, "one file, every write unsynced")
	others := flag.Int("others", 0, "with -unsynced: other events after each write")
	events := flag.Int64("events", 0, "stop after about this many events instead of -size")
	flag.Parse()
	n, err := parseSize(*size)
	if *events > 0 {
		n = 1 << 62
	}
	if err != nil || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: gentrace -size 1G -o FILE [-seed N] [-max-data N] [-unsynced]")
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	written, err := gentrace.Write(f, gentrace.Options{Bytes: n, Events: *events, Seed: *seed, MaxData: *maxData, Unsynced: *unsynced, Others: *others})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d events\n", *out, written)
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n * mult, err
}
