package crashsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/report"
)

// unsyncedWritesTrace is a file created and synced empty, then written
// k times at distinct offsets and never synced again: under posix every
// subset of its k pending writes is a crash state of its own.
func unsyncedWritesTrace(k int) string {
	var b strings.Builder
	b.WriteString("openat(AT_FDCWD</w>, \"/w/f\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3</w/f>\nfsync(3</w/f>) = 0\n")
	for i := range k {
		fmt.Fprintf(&b, "pwrite64(3</w/f>, \"abcd\", 4, %d) = 4\n", 4*i)
	}
	return b.String()
}

// statesPage draws the page crashsim states --format html draws of
// trace (its default budget of 65,536 states a path) and returns it
// with its events.
func statesPage(t *testing.T, trace string) (string, []report.HTMLEvent) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "t.strace")
	if err := os.WriteFile(name, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	rp := Replay{Inputs: Inputs{Traces: []string{name}}, Persistence: model.Posix, MaxStates: 1 << 16}
	meta := report.HTMLMeta{Command: "states", Trace: name, Model: "posix", Models: []string{"posix"}}
	var page bytes.Buffer
	if err := rp.HTML(&page, meta, &check.Result{}); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="crashsim-data">(.*?)</script>`).FindSubmatch(page.Bytes())
	if m == nil {
		t.Fatal("no data element")
	}
	var data struct {
		Events []report.HTMLEvent `json:"events"`
	}
	if err := json.Unmarshal(m[1], &data); err != nil {
		t.Fatal(err)
	}
	return page.String(), data.Events
}

// TestHTMLSummarizesSubsets: the page lists of a file with 12 unsynced
// writes its prefixes, the states missing one write and the like, and
// counts the other subsets of its pending writes (the "m" of the point)
// instead of listing each of the 4,096: together they are every state,
// and the page stays small. It listed them all, one state record each,
// up to 65,536 at every point (147 MB for a 6.6 MB trace of Chromium).
func TestHTMLSummarizesSubsets(t *testing.T) {
	const k = 12
	page, evs := statesPage(t, unsyncedWritesTrace(k))
	if len(evs) != k+2 {
		t.Fatalf("%d crash points, want %d (the create, its fsync and each write)", len(evs), k+2)
	}
	// Listing every subset made it 573 KB.
	t.Logf("page: %d bytes", len(page))
	if len(page) > 150_000 {
		t.Errorf("the page of %d unsynced writes is %d bytes, want at most 150,000", k, len(page))
	}
	f := evs[k+1].Lanes[0] // the file's lane
	last := evs[k+1].Point
	listed, more := len(last.Detail[f]), last.Unlisted[f]
	if listed == 0 || more == 0 {
		t.Fatalf("after the last write: %d states listed and %d more counted, want some of each", listed, more)
	}
	// Every subset of the 12 writes is a state, and so is each write
	// torn; the point's count is the file's, the only path that changes.
	if got := int64(listed) + more; got != last.States || last.States < 1<<k || more < 1<<k-100 {
		t.Errorf("after the last write: %d listed + %d counted = %d, point of %d states; want them equal, and at least %d", listed, more, got, last.States, 1<<k)
	}
	for _, e := range evs[2:] {
		if e.Point.Detail == nil {
			t.Fatalf("line %d: no detail kept", e.Line)
		}
		if n := int64(len(e.Point.Detail[f])) + e.Point.Unlisted[f]; n != e.Point.States {
			t.Errorf("line %d: %d listed + %d counted, point of %d states", e.Line, len(e.Point.Detail[f]), e.Point.Unlisted[f], e.Point.States)
		}
	}
}

// TestHTMLListsSmallFileInFull: a file with too few pending writes for
// any subset to be left out has every state listed and none counted.
func TestHTMLListsSmallFileInFull(t *testing.T) {
	_, evs := statesPage(t, unsyncedWritesTrace(2))
	for _, e := range evs[2:] {
		f := e.Lanes[0]
		if len(e.Point.Unlisted) != 0 || int64(len(e.Point.Detail[f])) != e.Point.States {
			t.Errorf("line %d: %d states listed, %v counted, point of %d states", e.Line, len(e.Point.Detail[f]), e.Point.Unlisted, e.Point.States)
		}
	}
}
