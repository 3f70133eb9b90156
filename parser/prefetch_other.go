//go:build !amd64

package parser

import "unsafe"

// prefetch4 is a hint (see prefetch_amd64.go) that does nothing here.
func prefetch4(unsafe.Pointer) {}
