package syscalls

// Protections and flags of mmap and msync, and the flags of
// sync_file_range (asm-generic/mman-common.h, asm-generic/mman.h,
// arch/x86 and arch/arm64 asm/mman.h, linux/fs.h).
const (
	PROT_NONE  = 0x0
	PROT_READ  = 0x1
	PROT_WRITE = 0x2
	PROT_EXEC  = 0x4

	MAP_SHARED          = 0x01
	MAP_PRIVATE         = 0x02
	MAP_SHARED_VALIDATE = 0x03
	MAP_TYPE            = 0x0f // the mapping type: a field, not a set of flags
	MAP_FIXED           = 0x10
	MAP_ANONYMOUS       = 0x20

	MS_ASYNC      = 1
	MS_INVALIDATE = 2
	MS_SYNC       = 4

	SYNC_FILE_RANGE_WAIT_BEFORE = 1
	SYNC_FILE_RANGE_WRITE       = 2
	SYNC_FILE_RANGE_WAIT_AFTER  = 4
)

// ProtFlags decodes mmap's prot. PROT_BTI and PROT_MTE are arm64's.
var ProtFlags = newFlags("mmap protections",
	same("PROT_NONE", PROT_NONE),
	same("PROT_READ", PROT_READ),
	same("PROT_WRITE", PROT_WRITE),
	same("PROT_EXEC", PROT_EXEC),
	same("PROT_SEM", 0x8),
	Flag{"PROT_BTI", Absent, 0x10, Absent},
	Flag{"PROT_MTE", Absent, 0x20, Absent},
	same("PROT_GROWSDOWN", 0x01000000),
	same("PROT_GROWSUP", 0x02000000),
)

// MmapFlags decodes mmap's flags: a shared writable mapping of a file
// changes it without a write call. The mapping type (MAP_SHARED,
// MAP_PRIVATE, MAP_SHARED_VALIDATE) is a field, flags&MAP_TYPE.
var MmapFlags = newFlags("mmap flags",
	same("MAP_SHARED", MAP_SHARED),
	same("MAP_PRIVATE", MAP_PRIVATE),
	same("MAP_SHARED_VALIDATE", MAP_SHARED_VALIDATE),
	same("MAP_FIXED", MAP_FIXED),
	same("MAP_ANONYMOUS", MAP_ANONYMOUS),
	same("MAP_ANON", MAP_ANONYMOUS),
	Flag{"MAP_32BIT", 0x40, Absent, 0x40},
	same("MAP_GROWSDOWN", 0x0100),
	same("MAP_DENYWRITE", 0x0800),
	same("MAP_EXECUTABLE", 0x1000),
	same("MAP_LOCKED", 0x2000),
	same("MAP_NORESERVE", 0x4000),
	same("MAP_POPULATE", 0x8000),
	same("MAP_NONBLOCK", 0x10000),
	same("MAP_STACK", 0x20000),
	same("MAP_HUGETLB", 0x40000),
	same("MAP_SYNC", 0x80000),
	same("MAP_FIXED_NOREPLACE", 0x100000),
	same("MAP_UNINITIALIZED", 0x4000000),
)

// MsyncFlags decodes msync's flags.
var MsyncFlags = newFlags("msync flags",
	same("MS_ASYNC", MS_ASYNC),
	same("MS_INVALIDATE", MS_INVALIDATE),
	same("MS_SYNC", MS_SYNC),
)

// SyncFileRangeFlags decodes sync_file_range's flags.
var SyncFileRangeFlags = newFlags("sync_file_range flags",
	same("SYNC_FILE_RANGE_WAIT_BEFORE", SYNC_FILE_RANGE_WAIT_BEFORE),
	same("SYNC_FILE_RANGE_WRITE", SYNC_FILE_RANGE_WRITE),
	same("SYNC_FILE_RANGE_WAIT_AFTER", SYNC_FILE_RANGE_WAIT_AFTER),
)
