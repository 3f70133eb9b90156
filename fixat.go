package crashsim

import (
	"slices"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/syscalls"
)

// A finding's source line is the line of the program where its fix goes,
// which is not always the call the finding is about. fixAt says, per
// rule, which of the finding's calls that is; the -k stack or the Python
// mark of that call then names the line:
//
//   - fsync-before-write: the sync that came too early (the f.flush()
//     goes before it);
//   - rename-before-sync, cross-dir-rename: the rename (or link) that
//     publishes the file (the fsync goes before it);
//   - data-not-synced, direct-io-not-flushed, unaligned-write: the last
//     write (the fsync goes after it); for a Python file object, whose
//     write reaches the kernel at a flush or a close, the f.write line
//     when the shim could see it, else the open;
//   - fsync-error-ignored: the sync that failed (its error is what to
//     handle), not the call that went on as if it had not;
//   - name-not-synced: the last change of the name (the directory fsync
//     goes after it); dir-sync-before-data: the directory fsync (the
//     file's fsync goes before it); remove-before-sync: the removal
//     (the copy's fsync goes before it); truncate-in-place: the truncation;
//     sync-file-range-not-durable: the sync_file_range; overwrite-in-place,
//     unmodeled-write and the rest: the call the finding names.

// The calls fixAt looks for among a finding's related calls, by their
// effect class in the syscall table.
var (
	syncCalls   = effects(syscalls.Fsync, syscalls.Fdatasync, syscalls.Sync, syscalls.Syncfs, syscalls.Msync)
	renameCalls = effects(syscalls.Rename, syscalls.Link)
	writeCalls  = effects(syscalls.WriteFD, syscalls.WriteAt, syscalls.CopyInto)
)

// effects is the set of the calls of the given effect classes, by name.
func effects(es ...syscalls.Effect) func(name string) bool {
	return func(name string) bool { return slices.Contains(es, syscalls.Lookup(name).Effect()) }
}

// fixAt is the trace line and pid of the call where f's fix goes (in
// f.Trace).
func fixAt(f *check.Finding) (line, pid int) {
	var calls func(name string) bool
	last := false // the last such call, not the first
	switch f.Rule.ID {
	case check.FsyncBeforeWrite, check.FsyncErrorIgnored:
		calls = syncCalls
	case check.RenameBeforeSync, check.CrossDirRename:
		calls = renameCalls
	case check.DataNotSynced, check.DirectIONotFlushed, check.UnalignedWrite:
		calls, last = writeCalls, true
	default:
		return f.Line, f.PID
	}
	line, pid = f.Line, f.PID
	found := false
	for _, r := range f.Related {
		if r.Trace != "" && r.Trace != f.Trace || !calls(r.Syscall) {
			continue
		}
		if !found || last && r.Line > line || !last && r.Line < line {
			line, pid, found = r.Line, r.PID, true
		}
	}
	return line, pid
}
