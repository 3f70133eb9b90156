package gentrace

import (
	"bufio"
	"fmt"
	"io"
)

// WriteSaves writes the saves shape, at least events events long: one
// program saving 16 files over and over under /data/app (a temp file
// created, written in six pieces, fsynced, closed and renamed over the
// real name; the directory fsynced after every tenth save), every event
// in scope and a crash point. No pids, times or fd paths: the HTML
// report's benchmarks draw it.
func WriteSaves(w io.Writer, events int) error {
	bw := bufio.NewWriter(w)
	n := 0
	for i := 0; n < events; i++ {
		p := fmt.Sprintf("/data/app/f%d", i%16)
		fmt.Fprintf(bw, "openat(AT_FDCWD, \"%s.tmp\", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3\n", p)
		for j := 0; j < 6; j++ {
			fmt.Fprintf(bw, "write(3, \"record %d of save %d\\n\", 20) = 20\n", j, i%10)
		}
		fmt.Fprintf(bw, "fsync(3) = 0\nclose(3) = 0\nrename(\"%s.tmp\", \"%s\") = 0\n", p, p)
		n += 10
		if i%10 == 9 {
			fmt.Fprintf(bw, "openat(AT_FDCWD, \"/data/app\", O_RDONLY|O_DIRECTORY) = 4\nfsync(4) = 0\nclose(4) = 0\n")
			n += 3
		}
	}
	return bw.Flush()
}
