package iobench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// observation is the page cache and this process's I/O accounting at one
// moment: Dirty: from /proc/meminfo (system wide) and wchar/write_bytes
// from /proc/self/io (bytes handed to write(2), bytes sent toward storage).
type observation struct {
	when       string
	dirtyKB    int64
	wchar      int64
	writeBytes int64
}

// observe records an observation when Config.Observe asks for them. A
// kernel without these files gets one warning and no further attempts.
func (r *runner) observe(when string) {
	if !r.cfg.Observe || r.observeOff {
		return
	}
	o, err := readObservation(when)
	if err != nil {
		r.warnf("--observe: %v", err)
		r.observeOff = true
		return
	}
	r.observations = append(r.observations, o)
}

func readObservation(when string) (observation, error) {
	o := observation{when: when}
	mem, err := procFields("/proc/meminfo")
	if err != nil {
		return o, err
	}
	io, err := procFields("/proc/self/io")
	if err != nil {
		return o, err
	}
	for _, f := range []struct {
		src  map[string]int64
		file string
		key  string
		dst  *int64
	}{
		{mem, "/proc/meminfo", "Dirty", &o.dirtyKB},
		{io, "/proc/self/io", "wchar", &o.wchar},
		{io, "/proc/self/io", "write_bytes", &o.writeBytes},
	} {
		v, ok := f.src[f.key]
		if !ok {
			return o, fmt.Errorf("%s has no %s line", f.file, f.key)
		}
		*f.dst = v
	}
	return o, nil
}

// procFields reads "Name: value [kB]" lines into a map of the numbers.
func procFields(path string) (map[string]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fields := make(map[string]int64)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, rest, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		num, _, _ := bytes.Cut(bytes.TrimSpace(rest), []byte(" "))
		v, err := strconv.ParseInt(string(num), 10, 64)
		if err != nil {
			continue
		}
		fields[string(name)] = v
	}
	return fields, nil
}
