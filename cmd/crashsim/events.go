package main

type eventsCmd struct {
	Trace string `arg:"" help:"strace log, or the PREFIX of an strace -ff set."`
}

func (c *eventsCmd) Run(g *Globals) error { return nil }
