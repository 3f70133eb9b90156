package main

import (
	"io"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/inputfile"
	"github.com/crashsim/crashsim/report"
)

type mergeCmd struct {
	FailOn  string   `enum:"error,warning,info,never" default:"warning" help:"Exit 1 when a merged finding is at least this severe: error, warning, info or never."`
	Output  string   `short:"o" placeholder:"FILE" help:"Write the merged report to FILE (atomically) instead of stdout."`
	Reports []string `arg:"" name:"report" help:"The reports of every shard of one run (crashsim explore --shard I/N --format json|sarif), in any order."`
}

// Help is the detail under `crashsim merge --help`.
func (c *mergeCmd) Help() string {
	return `Reads the report of each shard of one explore run (all JSON or all SARIF) and writes the report the run would have written unsharded: findings in the order of their states, counts summed. A report that is not a shard, a shard missing or given twice, or shards of different runs are refused.

Exit status: 0 nothing at or above --fail-on, 1 findings, 2 usage error, 3 a report unreadable, not a shard or from another run.`
}

func (c *mergeCmd) Run(g *Globals) error {
	var shards []report.Shard
	for _, name := range c.Reports {
		b, err := readShard(name)
		if err != nil {
			return withCode(exitInput, err)
		}
		shards = append(shards, report.Shard{Name: name, Data: b})
	}
	threshold, err := check.ParseSeverity(c.FailOn)
	if err != nil {
		return withCode(exitUsage, err)
	}
	var merged *report.Merged
	err = writeOutput(g, c.Output, func(w io.Writer, _ bool) error {
		merged, err = report.Merge(w, shards)
		return err
	})
	if err != nil {
		return withCode(exitInput, err)
	}
	for _, sev := range merged.Severity {
		if sev >= threshold {
			return withCode(exitFindings, nil)
		}
	}
	return nil
}

// maxShard bounds a shard's report, which is read whole.
const maxShard = 512 << 20

// readShard reads a shard's report: a regular file, or a pipe named on
// the command line (inputfile), of at most maxShard bytes.
func readShard(name string) ([]byte, error) {
	f, err := inputfile.Open(name, inputfile.Named)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return inputfile.ReadAll(f, maxShard)
}
