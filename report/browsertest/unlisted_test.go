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

// TestHTMLUnlistedAtFile: in an -ff set every file numbers its own lines,
// and `states --at LINE` matches that line in each of them. The page of
// such a set names the line it tells the reader to ask about with its
// file, as --at takes it (trace.101:14), and so does the heading of the
// crash point.
func TestHTMLUnlistedAtFile(t *testing.T) {
	const k = 12
	b := newBrowser(t)
	dir := t.TempDir()
	prefix := filepath.Join(dir, "set")
	parent := "1700000000.000001 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD) = 101\n" +
		"1700000009.000000 wait4(101, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 101\n" +
		"1700000009.000001 exit_group(0) = ?\n1700000009.000002 +++ exited with 0 +++\n"
	var child strings.Builder
	child.WriteString("1700000001.000000 openat(AT_FDCWD, \"/w/f\", O_WRONLY|O_CREAT|O_EXCL, 0644) = 3\n1700000001.000001 fsync(3) = 0\n")
	for i := range k {
		fmt.Fprintf(&child, "1700000002.%06d pwrite64(3, \"abcd\", 4, %d) = 4\n", i, 4*i)
	}
	child.WriteString("1700000003.000000 exit_group(0) = ?\n1700000003.000001 +++ exited with 0 +++\n")
	for name, text := range map[string]string{prefix + ".100": parent, prefix + ".101": child.String()} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	page := filepath.Join(dir, "set.html")
	crashsimOut(t, "states", "--format", "html", "-o", page, prefix)
	b.open(t, page)
	var got struct{ More []string }
	var heading string
	var col int
	b.eval(t, `JSON.parse(document.getElementById("crashsim-data").textContent).events.findIndex(e => e.l === 14) + 1`, &col)
	if col <= 0 {
		t.Fatal("no event on line 14 of the child's file")
	}
	b.click(t, fmt.Sprintf(`#timeline .gap[data-col="%d"]`, col))
	b.eval(t, `({More: [...document.querySelectorAll("#point .unlisted")].map(e => e.textContent)})`, &got)
	b.eval(t, `document.querySelector("#point strong").textContent`, &heading)
	if len(got.More) != 1 || !strings.Contains(got.More[0], "crashsim states --at set.101:14 lists them") {
		t.Errorf("the line under the listed states: %q; want it to name set.101:14", got.More)
	}
	if !strings.HasPrefix(heading, "A crash right after trace line set.101:14 (pid 101)") {
		t.Errorf("heading %q; want it to name set.101:14", heading)
	}
	// And --at takes the line as the page gives it.
	out := string(crashsimOut(t, "states", "--at", "set.101:14", prefix))
	if !strings.Contains(out, "after set.101:14: pwrite64(3, ") {
		t.Errorf("states --at set.101:14:\n%s", out)
	}
	b.checkClean(t)
}
