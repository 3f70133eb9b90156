// Package blocklog records the block writes a filesystem sends to its
// device, and replays them into the crash states a power cut can leave.
//
// There is no device-mapper here (no dm-log-writes), so the device is a
// loop device over an image file that a FUSE server in this package
// serves. The loop device turns every block write into a write of the
// image file and every cache flush (REQ_PREFLUSH, and FUA, which a loop
// device does not offer and the block layer turns into write + flush) into
// an fsync of it; both reach the server, which logs them in the order it
// handles them, one at a time, before it answers.
//
// # Terms
//
//   - Record: one entry of the log: a write (device offset, length, and
//     where its bytes are in the data file), a discard (a range that reads
//     back as zeros: the loop device's punch hole or zero range), a flush,
//     or a mark.
//   - Mark: a crash point of the program, written by the caller while the
//     program is frozen there (the oracle stops it with strace).
//   - Durable image: the initial image plus every write logged before the
//     last flush before a mark. Writes after that flush and before the mark
//     are in flight: a power cut can keep any subset of them, and a write
//     of several sectors in part.
//   - State: one choice of in-flight writes (a prefix, all but one, a torn
//     write, or a subset) applied over the durable image.
//
// The log is two files: NAME holds fixed-size records, NAME.data the
// written bytes, appended; a record refers to its bytes by offset, so no
// written byte is held in memory.
//
// Writes logged before a flush are taken as covered by it. A write the
// server had received but not yet answered when the flush was sent is
// not, strictly; since the server handles one request at a time, such a
// write can only be one the filesystem issued concurrently with the flush,
// which it does not rely on. The states are therefore those of a device
// that completes writes in the order they arrive; a device that reorders
// completed writes before a flush can leave more.
package blocklog
