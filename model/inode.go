package model

// Inode is a file or directory the trace touched.
type Inode struct {
	ID int
}
