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

// iovecArgs are the calls whose argument 1 is an array of struct iovec.
// strace 4.x printed each as {"data", 4}; strace 5 and later name the
// fields, {iov_base="data", iov_len=4}, and the model reads them by name.
var iovecArgs = map[string]bool{
	"writev": true, "pwritev": true, "pwritev2": true,
	"readv": true, "preadv": true, "preadv2": true, "vmsplice": true,
}

// nameIovecs names the fields of old unnamed iovecs.
func nameIovecs(ev *Event) {
	if len(ev.Args) < 2 || ev.Args[1].Kind != ValArray || !iovecArgs[ev.Name] {
		return
	}
	for i := range ev.Args[1].Elems {
		iov := &ev.Args[1].Elems[i]
		if iov.Kind == ValStruct && len(iov.Elems) == 2 && iov.Elems[0].Name == "" && iov.Elems[1].Name == "" {
			iov.Elems[0].Name, iov.Elems[1].Name = "iov_base", "iov_len"
		}
	}
}
