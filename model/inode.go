package model

import (
	"math"
	"slices"
	"unsafe"

	"github.com/crashsim/crashsim/parser"
)

// Ref points at the event that did something: what a finding shows as a
// related line.
type Ref struct {
	Seq     int // index of the event in the trace (0, 1, ...)
	File    string
	Line    int
	EndLine int
	PID     int
	Syscall string
}

// Completed is the line that completes the event, where a crash right
// after it comes: the resumed half of a call strace split over two lines
// (under -f, other threads' lines between), else its only line. In the
// order events complete it only grows; Line need not.
func (r Ref) Completed() int { return max(r.Line, r.EndLine) }

func refOf(ev *parser.Event) Ref {
	return Ref{Seq: ev.Seq, File: ev.Pos.File, Line: ev.Pos.Line, EndLine: ev.EndLine, PID: ev.PID, Syscall: ev.Name}
}

// DataKind says what a data operation changed.
type DataKind uint8

const (
	DataWrite    DataKind = iota // bytes written at Off
	DataTruncate                 // size set to Size (O_TRUNC, ftruncate, truncate)
	DataExtend                   // size grown to Size without data (fallocate)
	DataZero                     // a range zeroed (punch hole, zero range)
)

// Chunk is a piece of written data and where the trace holds its bytes.
type Chunk struct {
	Ref parser.DataRef // invalid when the trace cannot show the bytes (copy_file_range)
	Len int64
}

// DataOp is one change to a file's data or size, pending until a barrier
// makes it durable.
type DataOp struct {
	Kind   DataKind
	Direct bool // O_DIRECT: past the page cache, still in the device cache
	// Where a write's bytes are (see Chunks). A program writing a file in
	// small pieces leaves one DataOp per write pending (and a check of
	// many files one per file and model), so the common write in one
	// piece keeps its place inline in the padding after Kind and Direct
	// and in dataOff, without an allocation or a copy of the trace's file
	// name: dataOK says it is there, dataLen is its length. more holds
	// the pieces of any other.
	dataOK, dataTruncated bool
	dataLen               uint32
	Off                   int64 // -1 when the offset is unknown (O_APPEND to a file of unknown size)
	Len                   int64
	Size                  int64 // the size after the op, -1 when unknown
	// SizeBefore is the size just before a write, -1 when unknown.
	SizeBefore int64
	// Hist numbers the inode's data ops from 0 in program order: after op
	// Hist the program saw version Hist+1 of the file.
	Hist    int
	event   opRef // see Event
	dataOff int64
	// more holds what few ops have: the pieces of a write not in one
	// piece (see Chunks), where a copy's bytes came from (see Copy).
	more *opMore
}

// A check of a million unsynced files keeps one DataOp a file and model:
// what few ops have stays behind DataOp.more.
var _ [80 - unsafe.Sizeof(DataOp{})]struct{}

// opMore is what few data ops have.
type opMore struct {
	chunks []Chunk
	copied bool // from is set
	from   CopySource
}

// CopySource says where a copy made in the kernel (copy_file_range,
// sendfile) read the bytes it wrote, which the trace never shows.
type CopySource struct {
	// Path is the source file's name when the copy read it.
	Path string
	// Off is where in the source the copy began to read, -1 when unknown;
	// it read the op's Len bytes from there.
	Off int64
	// Unchanged says the source is a file from before the trace that the
	// trace had not changed when the copy completed (no write,
	// truncation, copy into it, rename, link or unlink, nothing the model
	// cannot follow) and whose existence the trace settles: the bytes
	// copied are those the file held before the trace, at Off.
	Unchanged bool
}

// Copy returns where the bytes of a copy made in the kernel came from,
// nil for any other op, and for a copy whose source the trace cannot
// name (a pipe, a socket, an fd it never opened).
func (op *DataOp) Copy() *CopySource {
	if op.more == nil || !op.more.copied {
		return nil
	}
	return &op.more.from
}

// Event is the event that made the op.
func (op *DataOp) Event() Ref { return op.event.ref() }

// seq is Event().Seq, without building the Ref.
func (op *DataOp) seq() int { return op.event.seqOf() }

// setChunks records where the trace holds a write's bytes.
func (op *DataOp) setChunks(cs []Chunk) {
	if len(cs) == 1 && cs[0].Len == op.Len && op.setData(cs[0].Ref) {
		return
	}
	op.more = nil
	if cs != nil {
		op.more = &opMore{chunks: cs}
	}
}

// setData records the bytes of a write in one piece, reporting false when
// they are in another file than the event (they never are in a trace
// strace wrote) or longer than dataLen holds: the caller then keeps them
// as a chunk.
func (op *DataOp) setData(r parser.DataRef) bool {
	switch {
	case r == parser.DataRef{}:
		op.dataOK, op.dataTruncated, op.dataOff, op.dataLen = false, false, 0, 0
	case r.File == op.Event().File && r.Len >= 0 && r.Len <= math.MaxUint32:
		op.dataOK, op.dataTruncated, op.dataOff, op.dataLen = true, r.Truncated, r.Off, uint32(r.Len)
	default:
		return false
	}
	return true
}

// Chunks lists where the trace holds the bytes of a write, in order, their
// lengths adding up to Len; nil for other ops.
func (op *DataOp) Chunks() []Chunk {
	if op.more != nil && op.more.chunks != nil {
		return op.more.chunks
	}
	if op.Kind != DataWrite {
		return nil
	}
	var r parser.DataRef
	if op.dataOK {
		r = parser.DataRef{File: op.Event().File, Off: op.dataOff, Len: int(op.dataLen), Truncated: op.dataTruncated}
	}
	return []Chunk{{Ref: r, Len: op.Len}}
}

// Inode is a file or directory the trace touched. Its data and size exist
// twice: Size and the pending data ops are what programs see (page cache),
// DurableSize what survives a crash.
//
// A check keeps one Inode per model for every file with something
// pending, so the fields most files never set (a failed sync, a lost
// write, a name history other than the one name the file has) sit in
// inodeMore, allocated when one is set: see LastPath, Paths, Lost,
// FailedSync, SyncRange and Unmodeled.
type Inode struct {
	ID   int
	Path string
	// name1 is the inode's one name (see Names) while it has one and
	// never had another: an array no one writes, which the models of a
	// check share (Model.oneName). Else Names are inodeMore.names.
	name1 *[1]string

	Size        int64 // -1: unknown (a file from before the trace, never stat'ed)
	DurableSize int64
	pending     []DataOp // data ops not yet durable, in program order: the last block (see opList)
	LastSync    *Ref     // last successful fsync/fdatasync/sync covering it
	hist        int      // data ops so far (see DataOp.Hist)
	more        *inodeMore

	// Dir: known to be a directory (mkdir, O_DIRECTORY, a stat's mode,
	// entries made in it). An inode from before the trace may be one
	// without the trace saying so: see mayBeDir.
	Dir     bool
	Initial bool // existed before the trace
	// Unsure: an initial inode whose existence the trace does not settle
	// (see Name.Unsure): "initial" may mean no file at all.
	Unsure     bool
	Written    bool // some data op in the trace
	Modified   bool // written, truncated, created, renamed or unlinked in the trace
	HadContent bool // known to hold data before the first truncation in the trace
	// retired: the model keeps only a record of the inode (retire.go);
	// queued: it waits for a retirement pass. opRefs counts the changes
	// of pending entry operations that name it (Old or New): while one
	// does, a crash can show it, and it is not retired.
	retired, queued bool
	// syncedWrite: a sync made some write of the trace to it durable
	// (see SyncedWrite).
	syncedWrite bool
	// sizeLoose: Size is not what a stat of the file shows, or may not
	// be: a write at an offset the trace does not give (an fd from
	// before the trace) left it a lower bound; a symlink's is not its
	// target's, which a stat that follows it shows; a revived inode's
	// record does not say. A stat's size is compared with Size only
	// where it is exact (see Model.sizeSeen).
	sizeLoose bool
	// node is what a symlink, mknod or bind made, when it is no regular
	// file: its crash states hold no data, and their words name it.
	node   nodeKind
	opRefs int32
}

// nodeKind is what kind of node an inode is when it is no regular file
// or directory: one that holds no data a crash can lose.
type nodeKind uint8

const (
	nodeFile nodeKind = iota // a regular file or a directory
	nodeSymlink
	nodeFifo
	nodeSocket
	nodeDevice
)

var nodeNames = [...]string{nodeSymlink: "symlink", nodeFifo: "fifo", nodeSocket: "socket", nodeDevice: "device node"}

// Socket reports whether the inode is a Unix socket's node (bind, or
// mknod of S_IFSOCK): a name that holds no data.
func (i *Inode) Socket() bool { return i.node == nodeSocket }

// nodeOfMode is the kind of node mknod makes with mode: a regular file
// for type S_IFREG or none (permission bits alone, or an octal number
// with no type bits). mknod makes nothing of another type.
func nodeOfMode(mode string) nodeKind {
	switch t, _ := modeType(mode); t {
	case modeFifo:
		return nodeFifo
	case modeSock:
		return nodeSocket
	case modeChr, modeBlk:
		return nodeDevice
	}
	return nodeFile
}

// inodeMore holds what few inodes have.
type inodeMore struct {
	// named: lastPath and paths are the inode's (see Inode.LastPath and
	// Inode.Paths); else the inode has one name or none, and they follow
	// from Path and Names.
	named    bool
	lastPath string
	paths    []string
	// linked: names are the inode's Names, name1 is nil (a second name
	// came, or the one name went).
	linked  bool
	names   []string
	lost    []DataOp   // dropped by a failed sync: never durable, whatever follows
	fullOps [][]DataOp // the full blocks of pending ops before Inode.pending (opList)
	// failedSync is the first sync that failed on the inode, syncRange
	// the last sync_file_range on it, unmodeled a change the trace cannot
	// show (shared mmap, io_uring, reflink).
	failedSync, syncRange, unmodeled *Ref
	// writeback is set when ext4's auto_da_alloc started writeback of the
	// pending data without waiting for it (a rename over a file).
	writeback   bool
	syncedEmpty bool
	// zeros says the file, as the program sees it, holds only zeros from
	// zerosFrom to its end: space a fallocate or a truncation up gave it
	// and no write filled since. durableZeros and durableZerosFrom say
	// the same of the version on disk. Set from the first such growth
	// (see Inode.grewZeros), so a file never grown so allocates nothing.
	zeros, durableZeros         bool
	zerosFrom, durableZerosFrom int64
	// atLeast is how many bytes reads showed the file held, on disk as
	// in the page cache, while its size was unknown (see
	// Inode.DurableAtLeast).
	atLeast int64
}

// extra returns the inode's inodeMore, making it.
func (n *Inode) extra() *inodeMore {
	if n.more == nil {
		n.more = new(inodeMore)
	}
	return n.more
}

// A check of many unsynced files keeps one Inode a file and model: it
// fits the 112-byte size class.
var _ [112 - unsafe.Sizeof(Inode{})]struct{}

// Names are the paths that name the inode now (hard links). The caller
// must not change it.
func (n *Inode) Names() []string {
	if n.more != nil && n.more.linked {
		return n.more.names
	}
	if n.name1 == nil {
		return nil
	}
	return n.name1[:]
}

// setNames makes ns the inode's Names, kept in its inodeMore.
func (n *Inode) setNames(ns []string) {
	x := n.extra()
	x.linked, x.names = true, ns
	n.name1 = nil
}

// LastPath is the last name the inode had: its current one, or the one
// it had when it was deleted.
func (n *Inode) LastPath() string {
	if n.more != nil && n.more.named {
		return n.more.lastPath
	}
	return n.Path
}

// Paths lists every name the inode had, in order (for related lines).
// The caller must not change it.
func (n *Inode) Paths() []string {
	if n.more != nil && n.more.named {
		return n.more.paths
	}
	ns := n.Names()
	if len(ns) == 0 {
		return nil
	}
	// One name, its only one: Names and Paths share its array.
	return ns[:1:1]
}

// history returns the inode's inodeMore holding its LastPath and Paths,
// moving them there from Path and Names the first time.
func (n *Inode) history() *inodeMore {
	if n.more != nil && n.more.named {
		return n.more
	}
	last, paths := n.LastPath(), n.Paths()
	x := n.extra()
	x.named, x.lastPath, x.paths = true, last, paths
	return x
}

// setHistory makes last and paths the inode's LastPath and Paths, after
// Path and Names are set.
func (n *Inode) setHistory(last string, paths []string) {
	if ns := n.Names(); (n.more == nil || !n.more.named) && last == n.Path && len(ns) == 1 && ns[0] == last && len(paths) == 1 && paths[0] == last {
		return // what Paths and LastPath derive
	}
	x := n.extra()
	x.named, x.lastPath, x.paths = true, last, paths
}

// noMore is what an inode without an inodeMore reads (never written).
var noMore inodeMore

// seen returns the inode's inodeMore to read, noMore if it has none.
func (n *Inode) seen() *inodeMore {
	if n.more == nil {
		return &noMore
	}
	return n.more
}

// Lost lists the data ops a failed sync dropped: never durable, whatever
// follows.
func (n *Inode) Lost() []DataOp { return n.seen().lost }

// FailedSync is the first sync that failed on the inode, nil if none.
func (n *Inode) FailedSync() *Ref { return n.seen().failedSync }

// SyncRange is the last sync_file_range on the inode, nil if none.
func (n *Inode) SyncRange() *Ref { return n.seen().syncRange }

// Unmodeled is a change to the inode the trace cannot show (shared mmap,
// io_uring, reflink), nil if none.
func (n *Inode) Unmodeled() *Ref { return n.seen().unmodeled }

// DurableAtLeast returns how many bytes the file's version on disk is
// known to hold at least while the model does not know its size (Size
// is -1): the end of the bytes a read returned when the trace had none
// of the file's data pending, so that the disk held what the read saw.
// The trace's later writes do not shrink it, and a truncation makes the
// size known. It is 0 when no read showed any, when the size is known
// (Size and DurableSize say more), and after a change the model cannot
// follow, which may have cut the file. It is a lower bound, not a size.
func (n *Inode) DurableAtLeast() int64 {
	if n.Size >= 0 || n.more == nil || n.more.unmodeled != nil {
		return 0
	}
	return n.more.atLeast
}

// writeback reports whether ext4's auto_da_alloc started writeback of
// the pending data (see inodeMore.writeback).
func (n *Inode) writeback() bool { return n.seen().writeback }

func (n *Inode) syncedEmpty() bool { return n.seen().syncedEmpty }

// addData appends a pending data op, numbering it in the inode's history.
func (n *Inode) addData(op DataOp) *DataOp {
	op.Hist = n.hist
	n.hist++
	return n.appendOp(op)
}

// pendingList returns the pending ops for Effect.PendingBefore at a sync,
// nil when there are none. It shares their blocks: the sync drops them
// from the inode, and nothing changes them after.
func (n *Inode) pendingList() *opList {
	if len(n.pending) == 0 {
		return nil
	}
	l := n.ops()
	return &l
}

// pendingOf is n.pendingList() in a list of the model's, kept for the
// effect (valid during the observers' call only, as the Effect is)
// rather than allocated at each sync; Apply lets it go.
func (m *Model) pendingOf(n *Inode) *opList {
	if len(n.pending) == 0 {
		return nil
	}
	m.pendingBefore = n.ops()
	return &m.pendingBefore
}

// Versions is how many data ops the inode has had: version 0 is what it
// held before the trace (or empty, for a file the trace created), version
// Versions() what the program sees now.
func (n *Inode) Versions() int { return n.hist }

// DataPending reports whether some data or size change is not durable.
func (n *Inode) DataPending() bool { return len(n.pending) > 0 || len(n.Lost()) > 0 }

// PendingWrites lists the pending (and lost) writes, in order: the
// writes of bytes, and of zeros (a punched hole, a zeroed range), which a
// crash can undo as well.
func (n *Inode) PendingWrites() []DataOp { return n.AppendPendingWrites(nil) }

// AppendPendingWrites appends what PendingWrites returns to out: a caller
// asking of every file reuses one slice.
func (n *Inode) AppendPendingWrites(out []DataOp) []DataOp {
	for _, op := range n.Lost() {
		if op.writes() {
			out = append(out, op)
		}
	}
	ops := n.ops()
	for i := range ops.len() {
		if op := ops.at(i); op.writes() {
			out = append(out, *op)
		}
	}
	return out
}

// writes reports whether the op changes bytes of the file: a write, or
// a range zeroed.
func (op *DataOp) writes() bool { return op.Kind == DataWrite || op.Kind == DataZero }

// PendingWriteEnds returns the first and last pending (or lost) write, and
// false when there is none. Unlike PendingWrites it copies nothing and looks
// in from both ends, so rules may ask it at every rename.
func (n *Inode) PendingWriteEnds() (first, last DataOp, ok bool) {
	return n.PendingWriteEndsAfter(-1)
}

// PendingWriteEndsAfter is PendingWriteEnds of the pending writes made
// at or after event seq (a copy in the kernel reads and writes in one).
func (n *Inode) PendingWriteEndsAfter(seq int) (first, last DataOp, ok bool) {
	ops := n.maybeOps()
	k := ops.len()
	i := 0
	for i < k && (!ops.at(i).writes() || ops.at(i).seq() < seq) {
		i++
	}
	if i == k {
		return first, last, false
	}
	j := k - 1
	for !ops.at(j).writes() {
		j--
	}
	return *ops.at(i), *ops.at(j), true
}

// grewZeros notes that the file grew from size before to its Size with
// zeros (fallocate, a truncation up): from before on it holds only zeros,
// unless it did from further down already.
func (n *Inode) grewZeros(before int64) {
	if before < 0 {
		n.noZeros()
		return
	}
	x := n.extra()
	if !x.zeros || x.zerosFrom > before {
		x.zeros, x.zerosFrom = true, before
	}
}

// wroteAt notes bytes written at off up to end: the zeros after the
// data begin past them. An offset the trace does not give (off < 0)
// leaves the zeros unknown.
func (n *Inode) wroteAt(off, end int64) {
	if n.more == nil || !n.more.zeros {
		return
	}
	if off < 0 {
		n.more.zeros = false
	} else if end > n.more.zerosFrom {
		n.more.zerosFrom = end
	}
}

// cutZeros notes a truncation down to size: what zeros the file had end
// there.
func (n *Inode) cutZeros(size int64) {
	if n.more == nil || !n.more.zeros {
		return
	}
	if size < 0 {
		n.more.zeros = false
	} else if size < n.more.zerosFrom {
		n.more.zerosFrom = size
	}
}

func (n *Inode) noZeros() {
	if n.more != nil {
		n.more.zeros = false
	}
}

// DurableZerosFrom returns the offset from which the file's version on
// disk holds only zeros up to DurableSize (space allocated and never
// written, which a crash leaves as zeros), and false when the model
// cannot say: the file was never grown so, a write landed where the
// trace does not say, or it changed in a way the trace cannot show.
func (n *Inode) DurableZerosFrom() (int64, bool) {
	if n.more == nil || !n.more.durableZeros || n.more.unmodeled != nil || n.DurableSize < 0 {
		return 0, false
	}
	return min(n.more.durableZerosFrom, n.DurableSize), true
}

// PendingTruncate returns the last pending truncation that shrank the
// file, and false when there is none: a crash can undo it.
func (n *Inode) PendingTruncate() (DataOp, bool) {
	ops := n.maybeOps()
	for j := ops.len() - 1; j >= 0; j-- {
		if op := ops.at(j); op.Kind == DataTruncate && (op.SizeBefore < 0 || op.Size < op.SizeBefore) {
			return *op, true
		}
	}
	return DataOp{}, false
}

// HasName reports whether p names the inode now.
func (n *Inode) HasName(p string) bool {
	for _, q := range n.Names() {
		if q == p {
			return true
		}
	}
	return false
}

// Name returns the path a user knows the inode by: its current name, or
// its last one if it was deleted.
func (n *Inode) Name() string {
	if n.Path != "" {
		return n.Path
	}
	return n.LastPath()
}

// persist makes the inode's pending data durable (a barrier covered it),
// telling Options.Durable first; lost data stays lost.
func (m *Model) persist(n *Inode, r *Ref) {
	if m.opt.Durable != nil && len(n.pending) > 0 {
		ops := n.ops()
		m.opt.Durable(n, ops.slice())
	}
	n.persistData(r)
	m.queueInode(n)
}

// persistUpTo is persist for a sync that covers the data ops up to event
// upTo (syncCut): those that completed after it, while the sync ran, stay
// pending, and the durable size is the file's before the first of them.
func (m *Model) persistUpTo(n *Inode, r *Ref, upTo int) {
	ops := n.ops()
	k := ops.len()
	for k > 0 && ops.at(k-1).seq() > upTo {
		k--
	}
	if k == ops.len() {
		m.persist(n, r)
		return
	}
	all := ops.slice()
	if m.opt.Durable != nil && k > 0 {
		m.opt.Durable(n, all[:k])
	}
	n.noteSyncedWrite(&ops, k)
	rest := slices.Clone(all[k:])
	durable := n.DurableSize
	if k > 0 {
		durable = all[k-1].Size
		if b := rest[0].SizeBefore; b >= 0 {
			durable = b
		}
	}
	n.dropPending()
	if n.more != nil {
		n.more.writeback = false
		if k > 0 {
			n.more.durableZeros = false // a version between: its zeros are not kept
		}
	}
	for _, op := range rest {
		n.appendOp(op)
	}
	n.DurableSize = durable
	n.LastSync = r
	m.queueInode(n)
}

func (n *Inode) persistData(r *Ref) {
	ops := n.ops()
	n.noteSyncedWrite(&ops, ops.len())
	n.dropPending() // a file written once must not keep its ops' blocks
	if n.more != nil {
		n.more.writeback = false
	}
	n.DurableSize = n.Size
	n.LastSync = r
	if n.more != nil {
		n.more.durableZeros, n.more.durableZerosFrom = n.more.zeros, n.more.zerosFrom
	}
}

// noteSyncedWrite sets syncedWrite when one of the first k of ops, which
// a sync makes durable, is a write; once set, it looks no more.
func (n *Inode) noteSyncedWrite(ops *opList, k int) {
	for i := 0; i < k && !n.syncedWrite; i++ {
		n.syncedWrite = ops.at(i).Kind == DataWrite
	}
}

// SyncedWrite reports whether a sync in the trace made one of its writes
// durable: a sync before its unsynced writes then covered some data, and
// not nothing (Python's missing flush before fsync).
func (n *Inode) SyncedWrite() bool { return n.syncedWrite }

// NamesPending reports whether an entry operation that names the inode
// (gives it a name or takes one) is not durable yet: false once every
// name change of it a crash could undo is on disk.
func (n *Inode) NamesPending() bool { return n.opRefs > 0 }

// inodeBlock is how many inodes (and retired records, retire.go) a block
// of the tables by ID holds.
const inodeBlock = 1024

// inodeTable holds the model's inodes by ID, in blocks of inodeBlock: a
// block whose inodes are all retired is let go, so that a settled file
// keeps no pointer in every model, and a sync of every file does not
// walk the retired ones.
type inodeTable struct {
	blocks [][]*Inode
	live   []int32 // inodes not retired in each block
	n      int     // IDs given out: 1..n
	// spare holds the last few blocks let go, all nil: inodes that come
	// back and retire again, over and over (a directory fsynced after
	// each file made in it, its parents), would otherwise make a block
	// each time.
	spare [][]*Inode
}

// spareBlocks is how many blocks let go a table keeps for reuse.
const spareBlocks = 8

// get returns inode id, nil when it is retired.
func (t *inodeTable) get(id int) *Inode {
	b := t.blocks[(id-1)/inodeBlock]
	if b == nil {
		return nil
	}
	return b[(id-1)%inodeBlock]
}

// set makes ino inode id (nil: retired).
func (t *inodeTable) set(id int, ino *Inode) {
	i := (id - 1) / inodeBlock
	b := t.blocks[i]
	if b == nil {
		if ino == nil {
			return
		}
		if k := len(t.spare); k > 0 {
			b, t.spare = t.spare[k-1], t.spare[:k-1]
		} else {
			b = make([]*Inode, inodeBlock)
		}
		t.blocks[i] = b
	}
	was := b[(id-1)%inodeBlock]
	b[(id-1)%inodeBlock] = ino
	switch {
	case was == nil && ino != nil:
		t.live[i]++
	case was != nil && ino == nil:
		t.live[i]--
		t.free(i)
	}
}

// free lets block i go once none of its inodes is live, unless add still
// fills it.
func (t *inodeTable) free(i int) {
	if t.live[i] == 0 && (i+1)*inodeBlock <= t.n && t.blocks[i] != nil {
		if len(t.spare) < spareBlocks {
			t.spare = append(t.spare, t.blocks[i])
		}
		t.blocks[i] = nil
	}
}

// add gives ino the next ID.
func (t *inodeTable) add(ino *Inode) {
	t.n++
	ino.ID = t.n
	if (t.n-1)/inodeBlock == len(t.blocks) {
		if len(t.blocks) > 0 {
			t.free(len(t.blocks) - 1)
		}
		t.blocks = append(t.blocks, nil)
		t.live = append(t.live, 0)
	}
	t.set(t.n, ino)
}

// each calls f with every inode not retired, in order of ID.
func (t *inodeTable) each(f func(*Inode)) {
	for _, b := range t.blocks {
		for _, ino := range b {
			if ino != nil {
				f(ino)
			}
		}
	}
}

// mayBeDir reports whether the inode can be a directory: known to be one,
// or one from before the trace that nothing showed to be a file (a stat
// the trace printed without its mode, as -e verbose=none and -X raw do,
// still found a path that had names below it). Whether a name below it is
// reachable asks this, not Dir: a directory taken for a file made every
// name below it gone, and its findings with it.
func (ino *Inode) mayBeDir() bool { return ino.Dir || ino.Initial && !ino.Written }
