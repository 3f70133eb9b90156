package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHTMLUnlistedStates: the page of a file written 12 times and never
// synced after its creation lists at the last write's crash point the
// states a summary lists (prefixes, all writes but one, torn writes) and
// says in one line under them how many other subsets of the pending
// writes there are; the listed and the counted make the point's count.
// A point of the file with 2 writes pending lists every state and has no
// such line. The page of the whole trace stays small: listing every
// subset at every write made it 573 KB.
func TestHTMLUnlistedStates(t *testing.T) {
	const k = 12
	b := newBrowser(t)
	dir := t.TempDir()
	var tr strings.Builder
	tr.WriteString("openat(AT_FDCWD, \"/w/f\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\nfsync(3) = 0\n")
	for i := range k {
		fmt.Fprintf(&tr, "pwrite64(3, \"abcd\", 4, %d) = 4\n", 4*i)
	}
	trace := filepath.Join(dir, "writes.strace")
	if err := os.WriteFile(trace, []byte(tr.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "writes.html")
	crashsimOut(t, "states", "--format", "html", "-o", page, trace)
	if fi, err := os.Stat(page); err != nil {
		t.Fatal(err)
	} else if fi.Size() > 150_000 {
		t.Errorf("the page is %d bytes, want at most 150,000", fi.Size())
	}
	b.open(t, page)
	type picture struct {
		Listed, States int
		More           []string
		Words          string
	}
	at := func(col int) picture {
		b.click(t, fmt.Sprintf(`#timeline .gap[data-col="%d"]`, col))
		var p picture
		b.eval(t, fmt.Sprintf(`(() => {
			const pic = [...document.querySelectorAll("#point .picture")].find(p => p.dataset.path === "/w/f");
			if (!pic) return {Listed: -1};
			const choices = pic.querySelector(".choices");
			return {
				Listed: choices.querySelectorAll("label").length,
				States: JSON.parse(document.getElementById("crashsim-data").textContent).events[%d].pt.st,
				More: [...pic.querySelectorAll(".unlisted")].map(e => e.textContent),
				Words: choices.nextElementSibling.querySelector("p").textContent,
			};
		})()`, col-1), &p)
		return p
	}
	last := at(k + 2)
	if last.Listed <= 0 || len(last.More) != 1 {
		t.Fatalf("after the last write: %d states listed, lines saying more %q; want states and one line", last.Listed, last.More)
	}
	more := last.States - last.Listed
	if more < 1<<k-100 {
		t.Errorf("after the last write: %d listed of %d states; want most of them counted, not listed", last.Listed, last.States)
	}
	want := fmt.Sprintf("and %s more subsets of the file's pending changes, each a state of its own", commas(more))
	if !strings.HasPrefix(last.More[0], want) {
		t.Errorf("after the last write: %q, want it to begin %q", last.More[0], want)
	}
	if last.Words == "" {
		t.Error("after the last write: no words for the state drawn")
	}
	two := at(4) // the create, its fsync, two writes
	if len(two.More) != 0 || two.Listed != two.States {
		t.Errorf("with 2 writes pending: %d listed of %d states, lines saying more %q; want every state listed and no such line", two.Listed, two.States, two.More)
	}
	b.checkClean(t)
}

// commas writes n as the page does, with a comma between thousands.
func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
