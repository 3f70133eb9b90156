package parser

// dataArgs maps a call to the argument that holds a data buffer: the bytes
// written or read, which are referenced in the trace and never decoded into
// memory while parsing. Strings in any struct or array inside that argument
// (writev's iov_base) count too.
var dataArgs = map[string]int{
	"write":        1,
	"pwrite64":     1,
	"pwrite":       1,
	"writev":       1,
	"pwritev":      1,
	"pwritev2":     1,
	"read":         1,
	"pread64":      1,
	"pread":        1,
	"readv":        1,
	"preadv":       1,
	"preadv2":      1,
	"send":         1,
	"sendto":       1,
	"sendmsg":      1,
	"recv":         1,
	"recvfrom":     1,
	"recvmsg":      1,
	"vmsplice":     1,
	"mq_timedsend": 1,
}

func dataArgOf(name string) int {
	if i, ok := dataArgs[name]; ok {
		return i
	}
	return -1
}
