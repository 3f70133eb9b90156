// Command tracerun runs tracer.Run on a command, for scripts that need the
// tracer's exact strace invocation before `crashsim trace` exists or without
// its checks (scripts/trace-overhead.sh).
//
//	go run ./tracer/internal/tracerun [-o TRACE] [-v] -- CMD ARGS...
//
// It exits with the command's status, 128 when a signal killed it, 3 when
// strace or the command is missing.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/crashsim/crashsim/tracer"
)

func main() {
	out := flag.String("o", "", "trace file (default: a temp file, printed on stderr)")
	verbose := flag.Bool("v", false, "print the strace command line and dropped features")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: tracerun [-o TRACE] [-v] -- CMD ARGS...")
		os.Exit(2)
	}
	opt := tracer.Options{Out: *out, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if *verbose {
		opt.Log = os.Stderr
	}
	res, err := tracer.Run(context.Background(), flag.Args(), opt)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracerun:", err)
		var cnf *tracer.CommandNotFoundError
		if errors.As(err, &cnf) || errors.Is(err, tracer.ErrStraceNotFound) {
			os.Exit(3)
		}
		if res == nil {
			os.Exit(3)
		}
	}
	if *out == "" {
		fmt.Fprintln(os.Stderr, "tracerun: trace in", res.Trace)
	}
	if res.Signal != "" {
		fmt.Fprintln(os.Stderr, "tracerun: the command was killed by", res.Signal)
		os.Exit(128)
	}
	os.Exit(res.ExitCode)
}
