package syscalls

// Mappings: stores through a shared writable mapping of a file change it
// without a call a trace can show. mmap is traced so that the blind spot
// blind-shared-mmap can say so.

// mmapArgs are mmap's arguments; strace 5 and later print i386's
// one-argument old_mmap this way too, under the name mmap.
var mmapArgs = args(argAddr("addr"), argSize("length"), argFlags("prot", ProtFlags), argFlags("flags", MmapFlags), argFD("fd"), argOffset("offset"))

var memoryRows = []Row{
	{Name: "mmap", Effect: Mmap, Arches: AllArches, Traced: true, Why: "MAP_SHARED|PROT_WRITE of a file: stores are invisible", Args: mmapArgs},
	{Name: "mmap2", Effect: Mmap, Arches: on386, Traced: true, Optional: true, Why: "mmap on 32-bit architectures", Args: mmapArgs},
	{Name: "mprotect", Effect: Mprotect, Arches: AllArches, Traced: true, Why: "PROT_WRITE added to a MAP_SHARED mapping of a file: stores are invisible from then on",
		Args: args(argAddr("addr"), argSize("length"), argFlags("prot", ProtFlags))},
	{Name: "pkey_mprotect", Effect: Mprotect, Arches: AllArches, Traced: true, Optional: true, Why: "mprotect with a protection key",
		Args: args(argAddr("addr"), argSize("length"), argFlags("prot", ProtFlags), argOther("pkey"))},
	{Name: "munmap", Arches: AllArches, Traced: true, Why: "ends a mapping (the model keeps it: a later msync of its address still names the file; a later mmap over it replaces it)",
		Args: args(argAddr("addr"), argSize("length"))},
}
