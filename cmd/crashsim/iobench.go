package main

// iobenchCmd is filled in by the iobench work (issue 5).
type iobenchCmd struct{}

func (c *iobenchCmd) Run(g *Globals) error { return withCode(exitUsage, nil) }
