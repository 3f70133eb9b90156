package syscalls

// io_uring: the operations a program submits through the ring never
// appear in a trace; setting one up is what a trace shows, and what the
// blind spot blind-io-uring says.

var ioUringRows = []Row{
	{Name: "io_uring_setup", Effect: IOUringSetup, Arches: AllArches, Traced: true, Optional: true, Why: "io_uring writes are invisible",
		Args: args(argOther("entries"), argOther("params"))},
	{Name: "io_uring_enter", Effect: IOUringEnter, Arches: AllArches, Traced: true, Optional: true, Why: "io_uring writes are invisible",
		Args: args(argFDOther("fd"), argOther("to_submit"), argOther("min_complete"), argOther("flags"), argOther("sig"), argSize("sz"))},
	{Name: "io_uring_register", Arches: AllArches, Traced: true, Optional: true, Why: "io_uring files and buffers",
		Args: args(argFDOther("fd"), argOther("opcode"), argOther("arg"), argOther("nr_args"))},
	// Linux AIO (libaio; InnoDB's default on Linux): strace prints the
	// writes and fsyncs io_submit queues, but they happen when the
	// kernel completes them, which the model does not follow: a blind
	// spot too, blind-linux-aio.
	{Name: "io_submit", Effect: AIOSubmit, Arches: AllArches, Traced: true, Optional: true, Why: "Linux AIO writes and fsyncs are not modelled",
		Args: args(argOther("ctx_id"), argOther("nr"), argOther("iocbpp"))},
}
