package syscalls

// Barriers, and sync_file_range, which is none.

var syncRows = []Row{
	{Name: "fsync", Effect: Fsync, Arches: AllArches, Traced: true, Why: "barrier", Args: args(argFD("fd"))},
	{Name: "fdatasync", Effect: Fdatasync, Arches: AllArches, Traced: true, Why: "barrier", Args: args(argFD("fd"))},
	{Name: "sync", Effect: Sync, Arches: AllArches, Traced: true, Why: "barrier: everything"},
	{Name: "syncfs", Effect: Syncfs, Arches: AllArches, Traced: true, Why: "barrier: one filesystem", Args: args(argFD("fd"))},
	{Name: "sync_file_range", Effect: SyncFileRange, Arches: AllArches, Traced: true, Optional: true,
		Why:  "no barrier, and rule sync-file-range-not-durable says so",
		Args: args(argFD("fd"), argOffset("offset"), argSize("nbytes"), argFlags("flags", SyncFileRangeFlags))},
	{Name: "sync_file_range2", Effect: SyncFileRange, Arches: none, Traced: true, Optional: true,
		Why:  "sync_file_range on arm and powerpc",
		Args: args(argFD("fd"), argFlags("flags", SyncFileRangeFlags), argOffset("offset"), argSize("nbytes"))},
	{Name: "msync", Effect: Msync, Arches: AllArches, Traced: true, Why: "barrier for a mapped range",
		Args: args(argAddr("addr"), argSize("length"), argFlags("flags", MsyncFlags))},
}
