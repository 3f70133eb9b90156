// Package model replays trace events through a model of processes, open
// files, inodes and directory entries, each with a page-cache layer (what
// programs see) and a durable layer (what survives a power cut).
//
// Terms:
//
//   - A Process has an fd table (shared by threads with CLONE_FILES) and a
//     cwd (shared with CLONE_FS). An fd names a Handle, the open file
//     description that dup and fork share, with its offset and flags.
//   - An Inode is a file or directory; a rename moves a name, never the
//     inode. Its data and size exist twice: in the page cache and on disk.
//   - A barrier (fsync, fdatasync, a directory fsync, sync, O_SYNC writes)
//     makes pending operations durable.
//
// The model prints nothing; check, states and the CLI read it.
package model
