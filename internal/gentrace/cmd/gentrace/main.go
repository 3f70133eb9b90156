// Command gentrace writes a large strace log for benchmarks, in one of the
// shapes package gentrace describes:
//
//	gentrace -shape real -size 200M -o /var/tmp/real.strace    # copies of the fixture traces
//	gentrace -shape files-unsynced -files 200000 -o /var/tmp/unsynced.strace
//	gentrace -shape files-settled -files 1000000 -o /var/tmp/settled.strace
//	gentrace -shape files -files 1000000 -o /var/tmp/files.strace
//	gentrace -shape long -size 1G -max-data 4096 -o /var/tmp/long.strace
//
// real copies fixtures/traces/*/f-ttt-y-xx.strace (run it from the
// repository, or pass -fixtures DIR) until -size; long writes its save
// loop until -size (or -events). The file shapes write -files files,
// -per-dir to a directory, and ignore -size: files-unsynced syncs
// nothing, files-settled syncs every file and its directory (a check
// finds nothing), files saves through temp files and syncs about half.
// -form picks the strace flags files-unsynced and files-settled imitate:
// trace (crashsim trace's recording, the default) or ttt-y (strace -f
// -ttt -y).
//
// The same -seed and options give the same bytes. gentrace prints the
// number of lines written.
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
	size := flag.String("size", "1G", "with -shape real or long: at least this many bytes (suffix K, M or G)")
	out := flag.String("o", "", "output file (required)")
	seed := flag.Uint64("seed", 1, "PRNG seed")
	maxData := flag.Int("max-data", 16384, "with -shape long: largest write in bytes")
	unsynced := flag.Bool("unsynced", false, "with -shape long: one file, every write unsynced")
	others := flag.Int("others", 0, "with -shape long -unsynced: other events after each write")
	events := flag.Int64("events", 0, "with -shape long: stop after about this many events instead of -size")
	shape := flag.String("shape", "long", "real, files, files-unsynced, files-settled or long (see go doc ./internal/gentrace)")
	fixtures := flag.String("fixtures", "fixtures/traces", "with -shape real: the fixture traces to copy")
	strsize := flag.Int("s", 32, "with -shape real: cut strings to N bytes, as strace -s N (0: keep them whole)")
	files := flag.Int("files", 1000, "with the file shapes: how many distinct files")
	perDir := flag.Int("per-dir", 1000, "with the file shapes: files per directory")
	threads := flag.Int("threads", 4, "with the file shapes: threads that write them")
	formName := flag.String("form", "trace", "with -shape files-unsynced or files-settled: trace (crashsim trace's strace flags) or ttt-y (strace -f -ttt -y)")
	flag.Parse()
	n, err := parseSize(*size)
	if *events > 0 {
		n = 1 << 62
	}
	if err != nil || *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gentrace -shape SHAPE -o FILE [-size 1G | -files N] [-seed N] (gentrace -help lists every flag)")
		os.Exit(2)
	}
	form, err := gentrace.ParseForm(*formName)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gentrace: -"+err.Error())
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var written int64
	switch *shape {
	case "long":
		written, err = gentrace.Write(f, gentrace.Options{Bytes: n, Events: *events, Seed: *seed, MaxData: *maxData, Unsynced: *unsynced, Others: *others})
	case "real":
		var ts []*gentrace.Template
		if ts, err = gentrace.LoadTemplates(*fixtures, *strsize); err == nil {
			written, err = gentrace.WriteReal(f, ts, gentrace.RealOptions{Bytes: n, Seed: *seed})
		}
	case "files":
		written, err = gentrace.WriteFiles(f, gentrace.FilesOptions{Files: *files, PerDir: *perDir, Seed: *seed, Threads: *threads})
	case "files-unsynced", "files-settled":
		written, err = gentrace.WriteFileSet(f, gentrace.FileSetOptions{Files: *files, PerDir: *perDir, Threads: *threads, Seed: *seed, Form: form, Settled: *shape == "files-settled"})
	default:
		err = fmt.Errorf("-shape %q: want real, files, files-unsynced, files-settled or long", *shape)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d lines\n", *out, written)
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
