package main

import (
	"errors"

	"github.com/crashsim/crashsim/oracle"
	"github.com/crashsim/crashsim/report"
)

// blockFlags are oracle's --blocks flags: replay every crash state the
// device could hold, from a log of its writes, instead of one copy.
type blockFlags struct {
	Blocks           bool   `help:"Log every block write and flush (a loop device over a FUSE-served image) and replay, at each crash point, every state a power cut can leave: the image as of the last flush plus prefixes, one-dropped, torn and subsets of the writes in flight. Needs /dev/fuse too." group:"blocks"`
	BlocksExhaustive int    `name:"blocks-exhaustive" default:"6" placeholder:"N" help:"With --blocks: replay every subset of the writes in flight at a point with at most N of them (2^N mounts); beyond, sample." group:"blocks"`
	BlocksSamples    int    `name:"blocks-samples" default:"24" placeholder:"N" help:"With --blocks: random subsets replayed at a point with more writes in flight than --blocks-exhaustive." group:"blocks"`
	BlocksSeed       uint64 `name:"blocks-seed" default:"1" placeholder:"N" help:"With --blocks: seed of the sampled subsets." group:"blocks"`
}

// blocks checks oracle's --blocks flags and sets opt to replay the
// block log with them.
func (c *oracleCmd) blocks(opt *oracle.Options) error {
	if c.BlocksExhaustive < 0 || c.BlocksExhaustive > 16 || c.BlocksSamples < 0 {
		return withCode(exitUsage, errors.New("--blocks-exhaustive must be 0..16 and --blocks-samples positive"))
	}
	opt.Blocks = &report.OracleEnumeration{Exhaustive: c.BlocksExhaustive, Samples: c.BlocksSamples, Seed: c.BlocksSeed}
	return nil
}
