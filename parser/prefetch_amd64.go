package parser

import "unsafe"

// prefetch4 asks the CPU to bring the four cache lines from p on into its
// cache, and returns without waiting for them (PREFETCHT0). It is a hint:
// it never faults, and changes nothing a program can see but its speed.
//
//go:noescape
func prefetch4(p unsafe.Pointer)
