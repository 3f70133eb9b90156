package parser

import "github.com/crashsim/crashsim/internal/syscalls"

// nameIovecs names the fields of old unnamed iovecs. strace 4.x printed
// each as {"data", 4}; strace 5 and later name the fields,
// {iov_base="data", iov_len=4}, and the model reads them by name.
func nameIovecs(ev *Event) {
	if len(ev.Args) < 2 || ev.Args[1].Kind != ValArray {
		return
	}
	if r := ev.Call.Row(); len(r.Args) < 2 || r.Args[1].Kind != syscalls.ArgIovec {
		return
	}
	for i := range ev.Args[1].Elems {
		iov := &ev.Args[1].Elems[i]
		if iov.Kind == ValStruct && len(iov.Elems) == 2 && iov.Elems[0].Name == "" && iov.Elems[1].Name == "" {
			iov.Elems[0].Name, iov.Elems[1].Name = "iov_base", "iov_len"
		}
	}
}
