package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/crashsim/crashsim/report/wire"
)

// FileStats is one row of `crashsim stats`; the JSON field names are a
// stable interface.
type FileStats struct {
	Path          string `json:"path"`
	Writes        int    `json:"writes"`
	Bytes         int64  `json:"bytes"`
	Fsync         int    `json:"fsync"`
	Fdatasync     int    `json:"fdatasync"`
	SyncFileRange int    `json:"sync_file_range"`
	Renames       int    `json:"renames"`
	FailedSyncs   int    `json:"failed_syncs"`
}

// StatsTable prints the rows of `crashsim stats` as a table: numbers right-aligned, the
// path last so that long paths do not push the columns apart.
func StatsTable(w io.Writer, list []FileStats) {
	header := []string{"writes", "bytes", "fsync", "fdatasync", "sync_file_range", "renames", "failed_syncs"}
	rows := make([][]string, len(list))
	width := make([]int, len(header))
	for i, h := range header {
		width[i] = len(h)
	}
	for i, s := range list {
		rows[i] = []string{
			strconv.Itoa(s.Writes), strconv.FormatInt(s.Bytes, 10), strconv.Itoa(s.Fsync),
			strconv.Itoa(s.Fdatasync), strconv.Itoa(s.SyncFileRange), strconv.Itoa(s.Renames),
			strconv.Itoa(s.FailedSyncs),
		}
		for j, cell := range rows[i] {
			width[j] = max(width[j], len(cell))
		}
	}
	line := func(cells []string, path string) {
		for j, cell := range cells {
			fmt.Fprintf(w, "%*s  ", width[j], cell)
		}
		fmt.Fprintln(w, path)
	}
	line(header, "path")
	for i, s := range list {
		line(rows[i], QuotePaths([]string{s.Path})[0])
	}
}

// StatsJSON writes the rows as `crashsim stats --format json`.
func StatsJSON(w io.Writer, list []FileStats) error {
	e := wire.NewEncoder(w, wire.Indented)
	if err := e.Value(struct {
		Files []FileStats `json:"files"`
	}{list}); err != nil {
		return err
	}
	e.Raw("\n")
	return e.Flush()
}
