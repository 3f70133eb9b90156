package browsertest

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// openCheck writes the check report of a fixture trace and opens it.
func openCheck(t *testing.T, b *browser, fixture string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "fixtures", "traces", fixture)
	page := filepath.Join(t.TempDir(), fixture+".html")
	crashsimOut(t, "check", "--format", "html", "-o", page, "--initial-list", filepath.Join(dir, "initial.list"), filepath.Join(dir, "f-ttt-y-xx.strace"))
	b.open(t, page)
	return page
}

// TestHTMLCleanInBrowser: a program that saves durably looks clean. The
// page opens with a green verdict saying no problem was found, and at
// the end of the trace every lane's durable row is safe: the temp file
// renamed over the target (its data synced first, the directory after)
// is gone as the program left it, not a file that can lose data. A
// report with problems says so in red instead.
func TestHTMLCleanInBrowser(t *testing.T) {
	b := newBrowser(t)
	for _, fx := range []string{"python-flush", "go-atomic"} {
		t.Run(fx, func(t *testing.T) {
			openCheck(t, b, fx)
			var v struct {
				Verdict, Text, Background string
			}
			b.eval(t, `(() => { const v = document.getElementById("verdict"); return v ? {Verdict: v.dataset.verdict, Text: v.textContent, Background: getComputedStyle(v).backgroundColor} : {}; })()`, &v)
			if v.Verdict != "clean" || !strings.Contains(v.Text, "No problem found") {
				t.Errorf("verdict %q (%q), want clean, saying no problem found", v.Verdict, v.Text)
			}
			var r, g, bl int
			if _, err := fmt.Sscanf(v.Background, "rgb(%d, %d, %d)", &r, &g, &bl); err != nil || g <= r || g <= bl {
				t.Errorf("verdict background %q is not green", v.Background)
			}
			var last int
			b.eval(t, `document.querySelectorAll("#timeline .gap").length - 1`, &last)
			b.click(t, fmt.Sprintf(`#timeline .gap[data-col="%d"]`, last))
			var rows struct {
				Lanes, Safe int
				Risk, Loss  []string
			}
			b.eval(t, fmt.Sprintf(`(() => ({
				Lanes: document.querySelectorAll("#outcomes tbody tr").length,
				Safe: document.querySelectorAll('#timeline rect.safe[data-col="%d"]').length,
				Risk: [...document.querySelectorAll('#timeline rect.risk[data-col="%d"]')].map(r => String(r.dataset.lane)),
				Loss: [...document.querySelectorAll("#outcomes .out.loss")].map(s => s.closest("tr").dataset.path + ": " + s.dataset.outcome)}))()`, last, last), &rows)
			if rows.Lanes == 0 || rows.Safe != rows.Lanes || len(rows.Risk) != 0 || len(rows.Loss) != 0 {
				t.Errorf("at the end of the trace: %d paths, %d durable rows drawn safe, lanes drawn at risk %v, outcomes marked as loss %v; want every path safe", rows.Lanes, rows.Safe, rows.Risk, rows.Loss)
			}
			b.checkClean(t)
		})
	}
	t.Run("python-noflush", func(t *testing.T) {
		openCheck(t, b, "python-noflush")
		var v string
		b.eval(t, `(document.getElementById("verdict") || {dataset: {}}).dataset.verdict || ""`, &v)
		if v != "problems" {
			t.Errorf("verdict %q for the no-flush save, want problems", v)
		}
		b.checkClean(t)
	})
}

// TestHTMLStateChoices: a picture's list of crash states never shows
// two choices alike (two torn writes are told apart by what persisted),
// and picking a finding shows the crash state it describes, chosen in
// the picture of its path, whatever state comes first in the list.
func TestHTMLStateChoices(t *testing.T) {
	b := newBrowser(t)
	for _, fx := range []string{"python-noflush", "overwrite-in-place"} {
		t.Run(fx, func(t *testing.T) {
			openCheck(t, b, fx)
			var cols int
			b.eval(t, `document.querySelectorAll("#timeline .gap").length`, &cols)
			for col := 0; col < cols; col++ {
				b.click(t, fmt.Sprintf(`#timeline .gap[data-col="%d"]`, col))
				var dups []string
				b.eval(t, `(() => { const out = []; for (const pic of document.querySelectorAll("#point .picture")) { const seen = new Set(); for (const l of pic.querySelectorAll(".choices label")) { const s = l.textContent.trim(); if (seen.has(s)) out.push(pic.dataset.path + ": " + s); seen.add(s); } } return out; })()`, &dups)
				if len(dups) != 0 {
					t.Errorf("crash point %d: state choices listed twice: %q", col, dups)
				}
			}
			var fs []struct {
				Rule, Path, Outcome, Persisted string
				Line                           int
			}
			b.eval(t, `JSON.parse(document.getElementById("crashsim-data").textContent).findings.map(f => f.state ? {Rule: f.rule, Path: f.state.path, Outcome: f.state.outcome, Persisted: f.state.persisted, Line: f.state.line} : {})`, &fs)
			seen := 0
			for i, f := range fs {
				if f.Outcome == "" {
					continue
				}
				seen++
				b.click(t, fmt.Sprintf(`#findings .finding[data-index="%d"]`, i))
				// The picture's words under its choices name the state drawn.
				var got string
				b.eval(t, fmt.Sprintf(`(() => { const pic = [...document.querySelectorAll("#point .picture")].find(p => p.dataset.path === %q); return pic ? pic.querySelector(".choices").nextElementSibling.querySelector("p").textContent : "no picture of the path"; })()`, f.Path), &got)
				if want := f.Outcome + ": " + f.Persisted + " persisted"; !strings.HasPrefix(got, want) {
					t.Errorf("finding %d (%s): a crash after line %d leaves %s %s, %s persisted; the picture shows %q", i, f.Rule, f.Line, f.Path, f.Outcome, f.Persisted, got)
				}
			}
			if seen == 0 {
				t.Errorf("no finding of %s has a crash state to show", fx)
			}
			b.checkClean(t)
		})
	}
}

// TestHTMLLongText: long names and messages stay inside their boxes. A
// path of a few hundred characters with no space in it wraps in its card
// and in the crash point panel (table, pictures, trace lines), and is cut
// with an ellipsis where a line of its own has a fixed room (the
// timeline's labels, which must not run over the row names beside them
// or past the drawing). The page never scrolls sideways.
func TestHTMLLongText(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	long := "/tmp/" + strings.Repeat("a_very_long_directory_name_without_any_spaces_", 3) + "/settings-" + strings.Repeat("x", 180) + ".json"
	lines := strings.Join([]string{
		fmt.Sprintf("openat(AT_FDCWD, %q, O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3", long),
		fmt.Sprintf("write(3, %q, 4000) = 4000", strings.Repeat("y", 40)),
		"fsync(3) = 0",
		`write(3, "zz", 2) = 2`,
		"close(3) = 0",
	}, "\n") + "\n"
	trace := filepath.Join(dir, "long.strace")
	if err := os.WriteFile(trace, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "long.html")
	crashsimOut(t, "check", "--format", "html", "-o", page, trace)
	b.open(t, page)
	// overflow lists the elements that stick out of the findings or the
	// crash point section, or out of the page.
	const overflow = `(() => {
		const out = [];
		if (document.documentElement.scrollWidth > document.documentElement.clientWidth + 1) out.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " > " + document.documentElement.clientWidth);
		for (const id of ["findings-section", "point-section"]) {
			const box = document.getElementById(id).getBoundingClientRect();
			for (const e of document.getElementById(id).querySelectorAll("*")) {
				const r = e.getBoundingClientRect();
				if (r.width > 0 && r.right > box.right + 1) out.push(id + " " + e.tagName + "." + e.className + " ends at " + Math.round(r.right) + ", past " + Math.round(box.right) + ": " + e.textContent.slice(0, 60));
			}
		}
		const svg = document.querySelector("#timeline svg"), sr = svg.getBoundingClientRect();
		const layer = [...svg.querySelectorAll(".layer-label")].filter(e => e.textContent === "page cache" || e.textContent === "durable").map(e => e.getBoundingClientRect());
		for (const e of svg.querySelectorAll(".lane-label, .group-label")) {
			const r = e.getBoundingClientRect();
			if (r.right > sr.right + 1) out.push("timeline label runs past the drawing: " + e.textContent.slice(0, 60));
			for (const l of layer) if (e.classList.contains("lane-label") && r.right > l.left && r.left < l.right && r.top < l.bottom && r.bottom > l.top) out.push("timeline label runs over the row names: " + e.textContent.slice(-40));
		}
		return out;
	})()`
	var bad []string
	b.eval(t, overflow, &bad)
	for _, s := range bad {
		t.Errorf("findings listed: %s", s)
	}
	var n int
	b.eval(t, `document.querySelectorAll("#findings .finding").length`, &n)
	if n == 0 {
		t.Fatal("no findings listed")
	}
	for i := 0; i < n; i++ {
		b.click(t, fmt.Sprintf(`#findings .finding[data-index="%d"]`, i))
		bad = nil
		b.eval(t, overflow, &bad)
		for _, s := range bad {
			t.Errorf("finding %d picked: %s", i, s)
		}
	}
	b.checkClean(t)
}

// TestHTMLScreenshot opens the report of the README's Python example
// recorded with --stack (testdata/html-python-stack: f.flush() missing
// before os.fsync) and checks its one problem card: headed by the
// os.fsync line, with the code around it and that line marked. Its
// screenshot is the README's picture (-update-screenshot writes
// docs/html-report.png). The trace names its source file by the absolute
// path it was recorded at; the test copies the file into a temp directory,
// names it there as save.py and works from there, so that the card reads
// as a user's own would.
func TestHTMLScreenshot(t *testing.T) {
	b := newBrowser(t)
	src, err := filepath.Abs(filepath.Join("testdata", "html-python-stack"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const recorded = "/tmp/crashsim-fixtures/python-noflush-stack/save.py" // see RECORD
	trace, err := os.ReadFile(filepath.Join(src, "trace.strace"))
	if err != nil {
		t.Fatal(err)
	}
	from, to := "00"+hex.EncodeToString([]byte(recorded))+"00", "00"+hex.EncodeToString([]byte("save.py"))+"00"
	if !bytes.Contains(trace, []byte(from)) {
		t.Fatalf("the trace has no source mark naming %s", recorded)
	}
	for name, data := range map[string][]byte{"trace.strace": bytes.ReplaceAll(trace, []byte(from), []byte(to))} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"save.py", "trace.strace.initial"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	crashsimBin(t) // built from the module beside this one, before the test leaves its directory
	t.Chdir(dir)
	page := filepath.Join(outDir(t), "python-stack.html")
	crashsimOut(t, "check", "--format", "html", "-o", page, "trace.strace")
	b.open(t, page)
	var cards []struct{ Rule, Where, Bad string }
	b.eval(t, `[...document.querySelectorAll("#findings .problem")].map(p => ({
		Rule: p.querySelector(".phead .rule").textContent,
		Where: (p.querySelector(".where") || {}).textContent || "",
		Bad: (p.querySelector("pre.code .bad") || {}).textContent || ""}))`, &cards)
	if len(cards) != 1 || cards[0].Rule != "fsync-before-write" || cards[0].Where != "save.py:10 in save" || !strings.Contains(cards[0].Bad, "10 |         os.fsync(f.fileno())") {
		t.Fatalf("problem cards %+v; want one, fsync-before-write at save.py:10 in save with that line marked", cards)
	}
	b.click(t, `#findings .finding[data-index="0"]`)
	shot := filepath.Join(outDir(t), "python-stack.png")
	screenshot(t, b, shot)
	if *updateScreenshot {
		data, err := os.ReadFile(shot)
		if err == nil {
			err = os.WriteFile(filepath.Join(src, "..", "..", "..", "..", "docs", "html-report.png"), data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	b.checkClean(t)
}
