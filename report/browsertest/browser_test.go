// Package browsertest opens crashsim's HTML reports in headless Chromium.
// It is a module of its own, so that chromedp and its dependencies stay
// out of crashsim's go.mod; it builds cmd/crashsim from the module beside
// it (the replace directive in go.mod) and runs it as a user does.
package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/crashsim/crashsim/internal/gentrace"
	"github.com/google/go-cmp/cmp"
)

// The browser tests open HTML reports in headless Chromium and check what
// a user sees against the JSON reports of the same trace. Screenshots are
// kept in $CRASHSIM_HTML_OUT when it is set (otherwise in each test's own
// temp directory, removed after it); -update-screenshot also writes docs/html-report.png, the picture in
// docs/states.md (see TestHTMLScreenshot).
var updateScreenshot = flag.Bool("update-screenshot", false, "write docs/html-report.png from the report of testdata/html-python-stack")

// chromium finds a headless Chromium, or says why there is none.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CRASHSIM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium found (install chromium-headless-shell or chromium, or set CRASHSIM_CHROMIUM): browser tests skipped")
	return ""
}

// browser is one headless Chromium page that records console errors,
// uncaught exceptions, dialogs and every network request.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	errors   []string
	requests []string
}

// realBinary sees through Debian's /usr/bin/chromium* wrappers, shell
// scripts that run /usr/lib/chromium/NAME as a child without exec: killing
// the wrapper would leave the browser running.
func realBinary(exe string) string {
	if b, err := os.ReadFile(exe); err == nil && bytes.HasPrefix(b, []byte("#!")) {
		if real := filepath.Join("/usr/lib/chromium", filepath.Base(exe)); fileExists(real) {
			return real
		}
	}
	return exe
}

func fileExists(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

// startChromium starts a headless browser in a process group of its own
// and returns a context to drive it and the function that ends it: the
// whole group is killed, so no browser or helper process outlives a test.
func startChromium(exe string) (context.Context, func()) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(realBinary(exe)), chromedp.NoSandbox, chromedp.WindowSize(1400, 1000),
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		}))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	return ctx, func() {
		var pgid int
		if c := chromedp.FromContext(ctx); c != nil && c.Browser != nil && c.Browser.Process() != nil {
			pgid = c.Browser.Process().Pid
		}
		cancelC()
		if pgid > 0 {
			syscall.Kill(-pgid, syscall.SIGKILL)
		}
		cancelA()
	}
}

func newBrowser(t *testing.T) *browser {
	exe := chromium(t)
	ctx, stop := startChromium(exe)
	ctx, cancelT := context.WithTimeout(ctx, 240*time.Second)
	t.Cleanup(func() { cancelT(); stop() })
	b := &browser{ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeWarning {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value))
				}
				b.errors = append(b.errors, "console."+string(e.Type)+": "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			b.errors = append(b.errors, "exception: "+e.ExceptionDetails.Error())
		case *page.EventJavascriptDialogOpening:
			b.errors = append(b.errors, "dialog: "+e.Message)
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, e.Request.URL)
		}
	})
	if err := chromedp.Run(ctx, network.Enable()); err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	return b
}

// open loads a report and waits for its script to finish drawing.
func (b *browser) open(t *testing.T, file string) {
	t.Helper()
	b.mu.Lock()
	b.errors, b.requests = nil, nil
	b.mu.Unlock()
	url := "file://" + file
	// A page that throws never gets ready: give up after a while and say
	// what it logged.
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, chromedp.Navigate(url), chromedp.WaitVisible(`body[data-ready="1"]`, chromedp.ByQuery)); err != nil {
		t.Fatalf("open %s: %v (errors: %v)", file, err, b.errors)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.requests {
		if r != url {
			t.Errorf("the report fetched %s: it must be self-contained", r)
		}
	}
}

func (b *browser) checkClean(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.errors {
		t.Errorf("browser: %s", e)
	}
	for _, r := range b.requests {
		if !strings.HasPrefix(r, "file://") || strings.Count(r, "file://") != 1 {
			t.Errorf("network request %s", r)
		}
	}
	if len(b.requests) > 1 {
		t.Errorf("the page made %d requests, want only itself: %v", len(b.requests), b.requests)
	}
}

func (b *browser) eval(t *testing.T, js string, out any) {
	t.Helper()
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(js, out)); err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
}

// click scrolls an element into view and clicks its centre with the
// mouse, as a user does.
func (b *browser) click(t *testing.T, sel string) {
	t.Helper()
	var r struct{ X, Y float64 }
	js := fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return {X: -1, Y: -1}; e.scrollIntoView({block: "center", inline: "center"}); const r = e.getBoundingClientRect(); return {X: r.x + r.width / 2, Y: r.y + r.height / 2}; })()`, sel)
	b.eval(t, js, &r)
	if r.X < 0 {
		t.Fatalf("no element %s on the page", sel)
	}
	if err := chromedp.Run(b.ctx, chromedp.MouseClickXY(r.X, r.Y)); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}

// binary is the crashsim command built once for the tests that need it.
var binary struct {
	once sync.Once
	path string
	err  error
}

// crashsimBin builds cmd/crashsim into a temp directory, once per run.
func crashsimBin(tb testing.TB) string {
	tb.Helper()
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "crashsim-browsertest-")
		if err != nil {
			binary.err = err
			return
		}
		binary.path = filepath.Join(dir, "crashsim")
		// Built in the main module, with its go.mod and go.sum.
		build := exec.Command("go", "build", "-o", binary.path, "./cmd/crashsim")
		build.Dir = filepath.Join("..", "..")
		out, err := build.CombinedOutput()
		if err != nil {
			binary.err = fmt.Errorf("go build cmd/crashsim: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		tb.Fatal(binary.err)
	}
	return binary.path
}

// TestMain removes the command built for the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if binary.path != "" {
		os.RemoveAll(filepath.Dir(binary.path))
	}
	os.Exit(code)
}

// runCrashsim runs the crashsim command and returns its stdout, stderr
// and exit status.
func runCrashsim(tb testing.TB, args ...string) (stdout, stderr []byte, code int) {
	tb.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(crashsimBin(tb), args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return out.Bytes(), errb.Bytes(), ee.ExitCode()
	} else if err != nil {
		tb.Fatalf("crashsim %v: %v", args, err)
	}
	return out.Bytes(), errb.Bytes(), 0
}

// crashsimOut runs crashsim and returns its stdout; exit statuses 0
// (clean), 1 (findings) and 6 (a blind spot) are a report.
func crashsimOut(t *testing.T, args ...string) []byte {
	t.Helper()
	out, errb, code := runCrashsim(t, args...)
	if code != 0 && code != 1 && code != 6 {
		t.Fatalf("crashsim %v: exit %d: %s", args, code, errb)
	}
	return out
}

type statesDoc struct {
	Points []struct {
		Index int                 `json:"index"`
		Line  int                 `json:"line"`
		Paths map[string][]string `json:"paths"`
	} `json:"points"`
}

type findingsDoc struct {
	Findings []struct {
		Rule    string `json:"rule"`
		Line    int    `json:"line"`
		Related []struct {
			Line int `json:"line"`
		} `json:"related"`
	} `json:"findings"`
}

// outDir is where the reports and screenshots are written: kept in
// $CRASHSIM_HTML_OUT for a person (or a CI artifact step) to look at, or
// else in the test's own temp directory, removed after it. A fixed
// default shared by every run left a directory behind in $TMPDIR, and two
// runs on one machine wrote over each other's files.
func outDir(t *testing.T) string {
	d := os.Getenv("CRASHSIM_HTML_OUT")
	if d == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("reports and screenshots in %s", d)
	return d
}

func TestHTMLReportInBrowser(t *testing.T) {
	fixtures := []struct{ name, trace, initial string }{
		{"python-noflush", "python-noflush/f-ttt-y-xx.strace", "python-noflush/initial.list"},
		{"go-threads", "go-threads/f-ttt-y-xx.strace", "go-threads/initial.list"},
		{"sqlite3-delete", "sqlite3-delete/f-ttt-y-xx.strace", "sqlite3-delete/initial.list"},
		{"direct-io", "direct-io/f-ttt-y-xx.strace", "direct-io/initial.list"},
		{"fsync-eio", "fsync-eio/f-ttt-y-xx.strace", "fsync-eio/initial.list"},
		{"shell-mv", "shell-mv/f-ttt-y-xx.strace", "shell-mv/initial.list"},
	}
	b := newBrowser(t)
	out := outDir(t)
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			trace := filepath.Join("..", "..", "fixtures", "traces", fx.trace)
			initial := filepath.Join("..", "..", "fixtures", "traces", fx.initial)
			page := filepath.Join(out, fx.name+".html")
			crashsimOut(t, "check", "--format", "html", "-o", page, "--initial-list", initial, trace)
			var fj findingsDoc
			if err := json.Unmarshal(crashsimOut(t, "check", "--format", "json", "--initial-list", initial, trace), &fj); err != nil {
				t.Fatal(err)
			}
			var sj statesDoc
			if err := json.Unmarshal(crashsimOut(t, "states", "--format", "json", "--all-paths", "--max-states", "256", "--initial-list", initial, trace), &sj); err != nil {
				t.Fatal(err)
			}
			abs, _ := filepath.Abs(page)
			b.open(t, abs)

			// Counts a user reads at the top, and the list they see.
			var nFindings, nPoints string
			var listed int
			b.eval(t, `document.getElementById("n-findings").dataset.n`, &nFindings)
			b.eval(t, `document.getElementById("n-points").dataset.n`, &nPoints)
			b.eval(t, `document.querySelectorAll("#findings .finding").length`, &listed)
			if nFindings != fmt.Sprint(len(fj.Findings)) || listed != len(fj.Findings) {
				t.Errorf("page shows %s findings and lists %d, JSON report has %d", nFindings, listed, len(fj.Findings))
			}
			if nPoints != fmt.Sprint(len(sj.Points)) {
				t.Errorf("page shows %s crash points, states --format json has %d", nPoints, len(sj.Points))
			}

			var pictures pictureCounts
			// Clicking each crash point shows the outcome sets states
			// --format json gives for it.
			for _, pt := range sj.Points {
				if pt.Index >= 120 {
					break // past the first window; the keyboard test below moves on
				}
				b.click(t, fmt.Sprintf(`#timeline .gap[data-col="%d"]`, pt.Index))
				got := shownOutcomes(t, b)
				if pt.Paths == nil {
					pt.Paths = map[string][]string{}
				}
				if diff := cmp.Diff(pt.Paths, got); diff != "" {
					t.Errorf("crash point %d (after line %d): outcome sets differ from states --format json (-json +page):\n%s", pt.Index, pt.Line, diff)
				}
				checkPictures(t, b, &pictures)
				var line string
				b.eval(t, `document.getElementById("point").dataset.line`, &line)
				if line != fmt.Sprint(pt.Line) {
					t.Errorf("crash point %d: panel is about line %s, want %d", pt.Index, line, pt.Line)
				}
			}

			if fx.name == "python-noflush" && (pictures.missing == 0 || pictures.bars == 0) {
				t.Errorf("crash point pictures: %d missing states and %d bars seen; python-noflush has both", pictures.missing, pictures.bars)
			}

			// The keyboard reaches the last crash point from the first.
			b.click(t, `#timeline .gap[data-col="0"]`)
			if err := chromedp.Run(b.ctx, chromedp.Focus("#timeline", chromedp.ByQuery), chromedp.KeyEvent(kb.End)); err != nil {
				t.Fatal(err)
			}
			var col string
			b.eval(t, `document.getElementById("point").dataset.col`, &col)
			if last := sj.Points[len(sj.Points)-1]; col != fmt.Sprint(last.Index) {
				t.Errorf("End key selected crash point %s, want the last, %d", col, last.Index)
			}
			if got := shownOutcomes(t, b); !cmp.Equal(got, orEmpty(sj.Points[len(sj.Points)-1].Paths)) {
				t.Errorf("last crash point: page %v, states json %v", got, sj.Points[len(sj.Points)-1].Paths)
			}

			// A finding's highlight lands on its trace lines.
			inReport := map[int]bool{}
			for _, pt := range sj.Points {
				inReport[pt.Line] = true
			}
			for i, f := range fj.Findings {
				b.click(t, fmt.Sprintf(`#findings .finding[data-index="%d"]`, i))
				var hl []int
				b.eval(t, `[...new Set([...document.querySelectorAll("#timeline .mark.hl")].map(e => Number(e.dataset.line)))].sort((a,b)=>a-b)`, &hl)
				want := map[int]bool{}
				for _, l := range append([]int{f.Line}, relatedLines(f.Related)...) {
					if inReport[l] {
						want[l] = true
					}
				}
				var wantList []int
				for l := range want {
					wantList = append(wantList, l)
				}
				sort.Ints(wantList)
				if len(wantList) == 0 {
					continue // a finding about lines no crash point has (none in these fixtures)
				}
				if hl == nil {
					hl = []int{}
				}
				if diff := cmp.Diff(wantList, hl); diff != "" {
					t.Errorf("finding %d (%s at line %d): highlighted lines differ from its trace lines (-want +page):\n%s", i, f.Rule, f.Line, diff)
				}
			}
			// Each filter shows exactly the findings it names.
			for i, f := range fj.Findings {
				var shown int
				b.eval(t, fmt.Sprintf(`(() => { const s = document.getElementById("f-rule"); s.value = %q; s.dispatchEvent(new Event("change")); return document.querySelectorAll("#findings .finding").length; })()`, f.Rule), &shown)
				want := 0
				for _, g := range fj.Findings {
					if g.Rule == f.Rule {
						want++
					}
				}
				if shown != want {
					t.Errorf("filter rule=%s (finding %d) shows %d findings, want %d", f.Rule, i, shown, want)
				}
			}
			var all, none int
			b.eval(t, `(() => { const s = document.getElementById("f-rule"); s.value = ""; s.dispatchEvent(new Event("change")); const p = document.getElementById("f-path"); p.value = "no such path in this trace"; p.dispatchEvent(new Event("input")); const n = document.querySelectorAll("#findings .finding").length; p.value = ""; p.dispatchEvent(new Event("input")); return n; })()`, &none)
			b.eval(t, `document.querySelectorAll("#findings .finding").length`, &all)
			if none != 0 || all != len(fj.Findings) {
				t.Errorf("path filter: %d findings for a path not in the trace, %d after clearing it; want 0 and %d", none, all, len(fj.Findings))
			}
			if len(fj.Findings) > 0 {
				b.click(t, `#findings .finding[data-index="0"]`)
			}

			shot := filepath.Join(out, fx.name+".png")
			screenshot(t, b, shot)
			t.Logf("report %s, screenshot %s", page, shot)
			b.checkClean(t)

			// states --format html draws the same crash points.
			spage := filepath.Join(out, fx.name+"-states.html")
			crashsimOut(t, "states", "--format", "html", "-o", spage, "--max-states", "256", "--initial-list", initial, trace)
			sabs, _ := filepath.Abs(spage)
			b.open(t, sabs)
			b.eval(t, `document.getElementById("n-points").dataset.n`, &nPoints)
			b.eval(t, `document.querySelectorAll("#findings .finding").length`, &listed)
			if nPoints != fmt.Sprint(len(sj.Points)) || listed != 0 {
				t.Errorf("states page: %s crash points and %d findings, want %d and none", nPoints, listed, len(sj.Points))
			}
			mid := sj.Points[len(sj.Points)/2]
			b.click(t, fmt.Sprintf(`#timeline .gap[data-col="%d"]`, mid.Index))
			if got := shownOutcomes(t, b); !cmp.Equal(got, orEmpty(mid.Paths)) {
				t.Errorf("states page, crash point %d: %v, states json %v", mid.Index, got, mid.Paths)
			}
			b.checkClean(t)
		})
	}
}

func orEmpty(m map[string][]string) map[string][]string {
	if m == nil {
		return map[string][]string{}
	}
	return m
}

func relatedLines(rs []struct {
	Line int `json:"line"`
}) []int {
	var out []int
	for _, r := range rs {
		out = append(out, r.Line)
	}
	return out
}

// pictureCounts counts the crash state pictures checkPictures looked at.
type pictureCounts struct{ missing, bars int }

// checkPictures picks every state of every picture of the crash point
// shown: a state where the path is missing must draw no bar of bytes (it
// would show a file that is not there) and say so; any other draws one.
func checkPictures(t *testing.T, b *browser, n *pictureCounts) {
	t.Helper()
	var res []struct {
		Path, Outcome string
		Bar, Says     bool
	}
	b.eval(t, `(() => { const out = []; for (const pic of document.querySelectorAll("#point .picture")) { for (const r of pic.querySelectorAll(".choices input")) { r.checked = true; r.dispatchEvent(new Event("change")); const o = r.dataset.outcome; out.push({Path: pic.dataset.path, Outcome: o, Bar: pic.querySelector("svg") !== null, Says: pic.textContent.includes("No file at " + pic.dataset.path + " in this state")}); } } return out; })()`, &res)
	for _, r := range res {
		if r.Outcome == "missing" {
			n.missing++
			if r.Bar || !r.Says {
				t.Errorf("picture of %s, state missing: bar drawn %v, says no file %v; want no bar, and the words", r.Path, r.Bar, r.Says)
			}
		} else {
			n.bars++
			if !r.Bar || r.Says {
				t.Errorf("picture of %s, state %s: bar drawn %v, says no file %v; want the bar", r.Path, r.Outcome, r.Bar, r.Says)
			}
		}
	}
}

// shownOutcomes reads the crash point panel's table: path -> outcomes.
func shownOutcomes(t *testing.T, b *browser) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	b.eval(t, `Object.fromEntries([...document.querySelectorAll("#outcomes tbody tr")].map(tr => [tr.dataset.path, [...tr.querySelectorAll(".out")].map(s => s.dataset.outcome)]))`, &got)
	return got
}

// screenshot writes a PNG of the whole page and checks it is not blank:
// the timeline area must hold the palette's colours, not one flat colour.
// Together with the DOM assertions above this guards against a page that
// loads but draws nothing; the pixels are not compared with a golden.
func screenshot(t *testing.T, b *browser, name string) {
	t.Helper()
	var buf []byte
	if err := chromedp.Run(b.ctx, chromedp.FullScreenshot(&buf, 100)); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(name, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	var rect struct{ X, Y, W, H float64 }
	b.eval(t, `(() => { const r = document.querySelector("#timeline svg").getBoundingClientRect(); return {X: r.x + scrollX, Y: r.y + scrollY, W: r.width, H: r.height}; })()`, &rect)
	area := image.Rect(int(rect.X), int(rect.Y), int(rect.X+rect.W), int(rect.Y+rect.H)).Intersect(img.Bounds())
	colours := map[uint32]int{}
	coloured := 0
	for y := area.Min.Y; y < area.Max.Y; y += 2 {
		for x := area.Min.X; x < area.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[(r>>11)<<10|(g>>11)<<5|bl>>11]++
			if max(r, g, bl)-min(r, g, bl) > 0x2000 {
				coloured++
			}
		}
	}
	if area.Empty() || len(colours) < 8 || coloured < 50 {
		t.Errorf("timeline in %s looks blank: area %v, %d colours, %d coloured pixels", name, area, len(colours), coloured)
	}
}

// TestHTMLHostilePath: a path that tries to close the data's script element
// and run its own stays text.
func TestHTMLHostilePath(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	evil := `/tmp/x</script><script>alert(1)</script><img src=x onerror=alert(2)>.txt`
	trace := filepath.Join(dir, "evil.strace")
	lines := fmt.Sprintf("openat(AT_FDCWD, %q, O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\nwrite(3, \"hi\\n\", 3) = 3\nclose(3) = 0\n", evil)
	if err := os.WriteFile(trace, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "evil.html")
	crashsimOut(t, "check", "--format", "html", "-o", page, trace)
	data, _ := os.ReadFile(page)
	if bytes.Contains(data, []byte("alert(1)</script>")) {
		t.Fatal("the path closed the script element in the page source")
	}
	b.open(t, page)
	var labels []string
	b.eval(t, `[...document.querySelectorAll("#findings .finding")].map(e => e.textContent)`, &labels)
	if len(labels) == 0 || !strings.Contains(strings.Join(labels, "\n"), evil) {
		t.Errorf("findings do not show the path as text: %q", labels)
	}
	var imgs int
	b.eval(t, `document.querySelectorAll("img").length`, &imgs)
	if imgs != 0 {
		t.Errorf("the path made %d img elements", imgs)
	}
	b.checkClean(t)
}

// BenchmarkHTMLBrowser100k opens the report of a trace with 100k crash
// points (the page's bound) in headless Chromium and reports how long the
// page takes to be ready, to show the last crash point (End key) and to
// move the window back (PageUp): what a user waits for.
func BenchmarkHTMLBrowser100k(b *testing.B) {
	exe := ""
	for _, name := range []string{"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			exe = p
			break
		}
	}
	if exe == "" {
		b.Skip("no Chromium found: browser benchmark skipped")
	}
	trace := filepath.Join(b.TempDir(), "big.strace")
	f, err := os.Create(trace)
	if err != nil {
		b.Fatal(err)
	}
	if err := gentrace.WriteSaves(f, 130_000); err != nil {
		b.Fatal(err)
	}
	f.Close()
	page := filepath.Join(b.TempDir(), "big.html")
	if _, errb, code := runCrashsim(b, "states", "--format", "html", "-o", page, trace); code != 0 {
		b.Fatalf("states: exit %d: %s", code, errb)
	}
	fi, _ := os.Stat(page)
	ctx, stop := startChromium(exe)
	defer stop()
	var mu sync.Mutex
	var pageErrors []string
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			mu.Lock()
			pageErrors = append(pageErrors, e.ExceptionDetails.Error())
			mu.Unlock()
		}
	})
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range pageErrors {
			b.Errorf("page: %s", e)
		}
	}()
	var load, end, pageUp time.Duration
	for b.Loop() {
		start := time.Now()
		if err := chromedp.Run(ctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible(`body[data-ready="1"]`, chromedp.ByQuery)); err != nil {
			b.Fatal(err)
		}
		load = time.Since(start)
		start = time.Now()
		var col string
		if err := chromedp.Run(ctx, chromedp.Focus("#timeline", chromedp.ByQuery), chromedp.KeyEvent(kb.End), chromedp.Evaluate(`document.getElementById("point").dataset.col || ""`, &col)); err != nil {
			b.Fatal(err)
		}
		end = time.Since(start)
		if col != "100000" {
			b.Fatalf("End selected crash point %s, want 100000", col)
		}
		start = time.Now()
		if err := chromedp.Run(ctx, chromedp.KeyEvent(kb.PageUp), chromedp.Evaluate(`document.getElementById("point").dataset.col`, &col)); err != nil { // PageUp
			b.Fatal(err)
		}
		pageUp = time.Since(start)
	}
	b.ReportMetric(float64(load.Milliseconds()), "load-ms")
	b.ReportMetric(float64(end.Milliseconds()), "end-key-ms")
	b.ReportMetric(float64(pageUp.Milliseconds()), "pageup-ms")
	b.ReportMetric(float64(fi.Size())/(1<<20), "MiB")
}

// TestHTMLExploreInBrowser: explore's rejected states are marked on their
// crash point, and picking one shows the checker's verdict there.
func TestHTMLExploreInBrowser(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "initial"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "initial", "config.txt"), []byte("version=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trace, _ := filepath.Abs(filepath.Join("..", "..", "fixtures", "traces", "python-noflush", "f-ttt-y-xx.strace"))
	page := filepath.Join(dir, "explore.html")
	crashsimOut(t, "explore", "--format", "html", "-o", page, "--checker", "grep -q ^version= config.txt",
		"--root", "/tmp/crashsim-fixtures/python-noflush", "--initial", filepath.Join(dir, "initial"), trace)
	b.open(t, page)
	var n int
	b.eval(t, `document.querySelectorAll("#findings .finding").length`, &n)
	if n == 0 {
		t.Fatal("explore rejected no state of the no-flush save; the page lists none")
	}
	// The rejected tree (config.txt renamed in, its data not durable) can
	// be left from the rename (line 400) to the end; explore checks a tree
	// at the last crash point that can leave it, the directory fsync at
	// line 402: one marker on that crash point, naming the rule.
	var marks []string
	b.eval(t, `[...document.querySelectorAll("#timeline .fmark")].map(m => m.textContent)`, &marks)
	if len(marks) != 1 || !strings.Contains(marks[0], "checker-failed") {
		t.Errorf("rejected-state markers: %q, want one naming checker-failed", marks)
	}
	b.click(t, `#findings .finding[data-index="0"]`)
	var line, verdict string
	b.eval(t, `document.getElementById("point").dataset.line`, &line)
	b.eval(t, `[...document.querySelectorAll("#point .rejected")].map(e => e.textContent).join("\n")`, &verdict)
	if line != "402" || !strings.Contains(verdict, "the checker rejects") {
		t.Errorf("picking the rejected state shows line %s and %q; want line 402 and the checker's verdict", line, verdict)
	}
	b.checkClean(t)
}

// TestHTMLBlindInBrowser: a recording with a blind spot says so at the top
// of the page, with its fix, instead of looking clean.
func TestHTMLBlindInBrowser(t *testing.T) {
	b := newBrowser(t)
	page := filepath.Join(t.TempDir(), "blind.html")
	trace := filepath.Join("..", "..", "fixtures", "traces", "blind-raw-args", "trace.strace")
	crashsimOut(t, "check", "--format", "html", "-o", page, "--root", "/tmp/crashsim-fixtures/blind-raw-args", trace)
	b.open(t, page)
	var blind []string
	b.eval(t, `[...document.querySelectorAll("#warnings .blind:not(.accepted)")].map(e => e.textContent)`, &blind)
	if len(blind) != 1 || !strings.Contains(blind[0], "blind-raw-args") || !strings.Contains(blind[0], "raw") {
		t.Errorf("blind spots shown: %q, want one naming blind-raw-args and its fix", blind)
	}
	var verdict string
	b.eval(t, `(document.getElementById("verdict") || {dataset: {}}).dataset.verdict || ""`, &verdict)
	if verdict != "blind" {
		t.Errorf("verdict %q, want blind: no problem found in what the trace shows is not clean", verdict)
	}
	b.checkClean(t)
}

// TestHTMLProblemCards: the page shows one card per problem, headed by
// its call site with the code around it and the bad line marked, as a
// compiler shows it; its findings are buttons in it. A bidi control in a
// path is shown escaped, as the text report shows it, never raw: the
// name below would otherwise display as "evilexe.png".
func TestHTMLProblemCards(t *testing.T) {
	b := newBrowser(t)
	dir := realPath(t, t.TempDir())
	src := filepath.Join(dir, "save.py")
	code := "import os\n\ndef save(f):\n    os.fsync(f.fileno())  # before the flush\n    f.write('x')\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	evil := dir + "/evil\u202egnp.exe"
	fields := strings.Join([]string{"fsync", src, "4", "save", evil, ""}, "\x00")
	mark := "/proc/self/crashsim-source/" + fmt.Sprintf("%x", fields)
	lines := strings.Join([]string{
		fmt.Sprintf("openat(AT_FDCWD, %s, O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3", straceQuote(evil)),
		fmt.Sprintf("openat(AT_FDCWD, %q, O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)", mark),
		"fsync(3) = 0",
		`write(3, "hi\n", 3) = 3`,
		"close(3) = 0",
	}, "\n") + "\n"
	trace := filepath.Join(dir, "t.strace")
	if err := os.WriteFile(trace, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "t.html")
	crashsimOut(t, "check", "--format", "html", "-o", page, trace)
	b.open(t, page)
	var cards []struct {
		Rule, Where, Bad, Text string
		Findings               int
	}
	b.eval(t, `[...document.querySelectorAll("#findings .problem")].map(p => ({
		Rule: p.querySelector(".phead .rule").textContent,
		Where: (p.querySelector(".where") || {}).textContent || "",
		Bad: (p.querySelector("pre.code .bad") || {}).textContent || "",
		Text: p.textContent,
		Findings: p.querySelectorAll(".finding").length}))`, &cards)
	if len(cards) != 2 {
		t.Fatalf("%d problem cards, want 2 (the sync too early, the name never synced): %+v", len(cards), cards)
	}
	c := cards[0]
	if c.Rule != "fsync-before-write" {
		c = cards[1]
	}
	if c.Rule != "fsync-before-write" || c.Where != src+":4 in save" || !strings.Contains(c.Bad, "4 | "+"    os.fsync(f.fileno())") || c.Findings != 2 {
		t.Errorf("the fsync-before-write card (%s): where %q, marked line %q, %d findings", c.Rule, c.Where, c.Bad, c.Findings)
	}
	var n struct{ Problems, Findings string }
	b.eval(t, `({Problems: document.getElementById("n-problems").dataset.n, Findings: document.getElementById("n-findings").dataset.n})`, &n)
	if n.Problems != "2" || n.Findings != "3" {
		t.Errorf("summary: %s problems, %s findings; want 2 and 3", n.Problems, n.Findings)
	}
	var raw bool
	var shown string
	b.eval(t, `document.body.innerText.includes("\u202e")`, &raw)
	b.eval(t, `document.getElementById("findings").innerText`, &shown)
	if raw || !strings.Contains(shown, `evil\u202egnp.exe`) {
		t.Errorf("the bidi control is not shown escaped (raw in the page: %v):\n%s", raw, shown)
	}
	b.checkClean(t)
}

// straceQuote spells s as strace does: bytes past ASCII as \xNN.
func straceQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// realPath is p with its symlinks resolved, as a trace names it.
func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
