//go:build !linux

package inputfile

// pseudoFS: only Linux says which filesystem a file is on here.
func pseudoFS(fd int) string { return "" }

// isShellPipe cannot tell a pipe from a named pipe here: a fifo named on
// the command line is taken for one.
func isShellPipe(fd int) bool { return true }
