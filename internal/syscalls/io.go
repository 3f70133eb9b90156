package syscalls

// Data: reads (which only move offsets), writes, copies made in the
// kernel, seeks, and the other calls whose buffers hold data the parser
// references instead of decoding.

var (
	rwArgs    = args(argFD("fd"), argData("buf"), argSize("count"))
	rwAtArgs  = args(argFD("fd"), argData("buf"), argSize("count"), argOffset("offset"))
	rwvArgs   = args(argFD("fd"), argIovec("iov"), argOther("iovcnt"))
	rwvAtArgs = args(argFD("fd"), argIovec("iov"), argOther("iovcnt"), argOffset("offset"))
	rwv2Args  = args(argFD("fd"), argIovec("iov"), argOther("iovcnt"), argOffset("offset"), argFlags("flags", RWFFlags))
	sendArgs  = args(argFDOther("sockfd"), argData("buf"), argSize("len"), argOther("flags"))
	recvArgs  = sendArgs
	dentArgs  = args(argFD("fd"), argOther("dirp"), argSize("count"))
)

// whySocket is why socket and message-queue calls are in the table at
// all: their buffers are data, which the parser never decodes.
const whySocket = "not traced: not a file; its buffer is data, referenced in the trace and never decoded"

var ioRows = []Row{
	{Name: "read", Effect: ReadFD, Arches: AllArches, Traced: true, Raw: RawAlways, Why: "moves the fd offset", Args: rwArgs},
	{Name: "readv", Effect: ReadFD, Arches: AllArches, Traced: true, Raw: RawAlways, Why: "moves the fd offset", Args: rwvArgs},
	{Name: "pread64", Effect: ReadAt, Arches: AllArches, Why: "not traced: it moves no offset", Args: rwAtArgs},
	{Name: "pread", Effect: ReadAt, Arches: none, Why: "not traced: it moves no offset", Args: rwAtArgs},
	{Name: "preadv", Effect: ReadAt, Arches: AllArches, Why: "not traced: it moves no offset", Args: rwvAtArgs},
	{Name: "preadv2", Effect: ReadAt, Arches: AllArches, Traced: true, Optional: true, Raw: RawAlways,
		Why: "moves the offset when given offset -1", Args: rwv2Args},
	{Name: "lseek", Effect: Seek, Arches: AllArches, Traced: true, Why: "sets the fd offset",
		Args: args(argFD("fd"), argOffset("offset"), argWhence("whence"))},
	// strace joins _llseek's two halves of the offset into one.
	{Name: "_llseek", Effect: Seek, Arches: on386, Traced: true, Optional: true, Why: "lseek on 32-bit architectures",
		Args: args(argFD("fd"), argOffset("offset"), argOffsetOut("result"), argWhence("whence"))},

	{Name: "write", Effect: WriteFD, Arches: AllArches, Traced: true, Raw: RawNoData, Why: "data", Args: rwArgs},
	{Name: "writev", Effect: WriteFD, Arches: AllArches, Traced: true, Raw: RawNoData, Why: "data", Args: rwvArgs},
	{Name: "pwrite64", Effect: WriteAt, Arches: AllArches, Traced: true, Raw: RawNoData, Why: "data", Args: rwAtArgs},
	{Name: "pwrite", Effect: WriteAt, Arches: none, Why: "not traced: pwrite64 under the name older straces gave it", Args: rwAtArgs},
	{Name: "pwritev", Effect: WriteAt, Arches: AllArches, Traced: true, Raw: RawNoData, Why: "data", Args: rwvAtArgs},
	{Name: "pwritev2", Effect: WriteAt, Arches: AllArches, Traced: true, Optional: true, Why: "data; RWF_DSYNC/RWF_SYNC make it durable", Args: rwv2Args},
	{Name: "copy_file_range", Effect: CopyInto, Arches: AllArches, Traced: true, Optional: true, Why: "data copied in the kernel",
		Args: args(argFDOther("fd_in"), argOffsetPtr("off_in"), argFD("fd_out"), argOffsetPtr("off_out"), argSize("len"), argOther("flags"))},
	{Name: "sendfile", Effect: CopyInto, Arches: AllArches, Traced: true, Why: "data copied in the kernel",
		Args: args(argFD("out_fd"), argFDOther("in_fd"), argOffsetPtr("offset"), argSize("count"))},
	{Name: "sendfile64", Effect: CopyInto, Arches: on386, Traced: true, Optional: true, Why: "sendfile on 32-bit architectures",
		Args: args(argFD("out_fd"), argFDOther("in_fd"), argOffsetPtr("offset"), argSize("count"))},
	{Name: "splice", Effect: CopyInto, Arches: AllArches, Traced: true, Why: "data from a pipe into a file",
		Args: args(argFDOther("fd_in"), argOffsetPtr("off_in"), argFD("fd_out"), argOffsetPtr("off_out"), argSize("len"), argOther("flags"))},
	{Name: "tee", Arches: AllArches, Why: "not traced: pipe to pipe",
		Args: args(argFDOther("fd_in"), argFD("fd_out"), argSize("len"), argOther("flags"))},
	{Name: "vmsplice", Arches: AllArches, Why: "not traced: memory into a pipe; its iovecs are data",
		Args: args(argFDOther("fd"), argIovec("iov"), argOther("nr_segs"), argOther("flags"))},
	{Name: "send", Arches: none, Why: whySocket, Args: sendArgs},
	{Name: "sendto", Arches: AllArches, Why: whySocket,
		Args: args(argFDOther("sockfd"), argData("buf"), argSize("len"), argOther("flags"), argOther("dest_addr"), argOther("addrlen"))},
	{Name: "sendmsg", Arches: AllArches, Why: whySocket, Args: args(argFDOther("sockfd"), argMsg("msg"), argOther("flags"))},
	{Name: "recv", Arches: none, Why: whySocket, Args: recvArgs},
	{Name: "recvfrom", Arches: AllArches, Why: whySocket,
		Args: args(argFDOther("sockfd"), argData("buf"), argSize("len"), argOther("flags"), argOther("src_addr"), argOther("addrlen"))},
	// A program gets fds from another process over a Unix socket with
	// recvmsg (SCM_RIGHTS; recvmmsg is for batches of datagrams):
	// Erlang's erl_child_setup gets the pipes of the programs it starts
	// so, and Python's socket.recv_fds, systemd, Wayland and Chromium
	// use it. Without the call, a write to such an fd is to one the
	// trace cannot tell from an fd open before it began. A recording
	// with data names the fd at every write (-y), and would copy every
	// byte received: only one without data traces it.
	{Name: "recvmsg", Effect: Receive, Arches: AllArches, Traced: true, NoDataOnly: true,
		Why:  "fd table: the fds another process sent (SCM_RIGHTS), named when -y names them in cmsg_data",
		Args: args(argFDOther("sockfd"), argMsg("msg"), argOther("flags"))},
	{Name: "mq_timedsend", Arches: AllArches, Why: whySocket,
		Args: args(argFDOther("mqdes"), argData("msg_ptr"), argSize("msg_len"), argOther("msg_prio"), argOther("abs_timeout"))},
	{Name: "getdents", Arches: x86, Why: "not traced: a directory's entries, read", Args: dentArgs},
	{Name: "getdents64", Arches: AllArches, Why: "not traced: a directory's entries, read", Args: dentArgs},
}
