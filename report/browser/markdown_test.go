//go:build browser

package browser

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestReportMarkdownInBrowser renders every report.md under $SHARDSIM_BROWSER_DIR (make
// test-browser writes quickstart, black-friday and the hostile scenario of
// testdata/hostile there) with the vendored marked (marked/README.md), in headless
// Chromium, as a reader's Markdown viewer would: the HTML it makes is put in the page. It
// checks that no script ran (the hostile scenario's values set window.__pwned from an
// <img onerror>, and its tags would add elements), that the page holds no element a value
// could have made (script, iframe, an on* attribute, a javascript: link), that nothing
// reached the console as an error, and, for the hostile report, that its tags are shown as
// text.
func TestReportMarkdownInBrowser(t *testing.T) {
	if os.Getenv("SHARDSIM_BROWSER") != "1" {
		t.Skip("set SHARDSIM_BROWSER=1 (make test-browser) to run the browser test")
	}
	dir := os.Getenv("SHARDSIM_BROWSER_DIR")
	if dir == "" {
		dir = "../../out/browser"
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	reports, _ := filepath.Glob(filepath.Join(dir, "*", "report.md"))
	if len(reports) == 0 {
		t.Fatalf("no report.md under %s: run make test-browser", dir)
	}
	marked, err := os.ReadFile("marked/marked.umd.js")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium not found (make test-browser installs it): %v", err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	for _, report := range reports {
		name := filepath.Base(filepath.Dir(report))
		t.Run(name, func(t *testing.T) {
			md, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			// json.Marshal escapes '<' as \u003c: the Markdown cannot end the script.
			text, _ := json.Marshal(string(md))
			page := "<!doctype html><meta charset=utf-8><div id=out></div><script>" + string(marked) +
				"</script><script>document.getElementById('out').innerHTML = marked.parse(" + string(text) + ");</script>"
			p := filepath.Join(t.TempDir(), "report-md.html")
			if err := os.WriteFile(p, []byte(page), 0o644); err != nil {
				t.Fatal(err)
			}
			checkMarkdownPage(t, actx, p, name == "hostile")
		})
	}
}

func checkMarkdownPage(t *testing.T, actx context.Context, page string, hostile bool) {
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	var mu sync.Mutex
	var problems []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				problems = append(problems, m.Text)
				mu.Unlock()
			}
		}
	}()
	// A dialog (alert) opened by a value's script is recorded and dismissed: left open it
	// would block the page.
	var dialogs []string
	opened := make(chan string, 64)
	if err := chromedp.Listen(ctx, func(ev any) {
		if d, ok := ev.(*cdppage.EventJavascriptDialogOpening); ok {
			select {
			case opened <- d.Message:
			default:
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	go func() {
		for m := range opened {
			mu.Lock()
			dialogs = append(dialogs, m)
			mu.Unlock()
			go chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
				_, err := cdp.Call(ctx, t, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: false})
				return err
			}))
		}
	}()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // an <img onerror> fires once the image fails to load
	type state struct {
		Pwned    bool
		Elements []string
		Text     string
		Headings int
	}
	st, err := chromedp.Run(ctx, chromedp.Evaluate[state](`(() => {
		const out = document.getElementById("out");
		const bad = [];
		for (const e of out.querySelectorAll("*")) {
			if (["SCRIPT", "IFRAME", "OBJECT", "EMBED", "STYLE", "U", "B"].includes(e.tagName)) bad.push(e.tagName);
			for (const a of e.attributes) {
				if (a.name.startsWith("on")) bad.push(e.tagName + " " + a.name);
			}
			if (e.tagName === "A" && /^\s*javascript:/i.test(e.getAttribute("href") || "")) bad.push("A javascript:");
			if (e.tagName === "IMG" && !/\.(png|svg)$/.test(e.getAttribute("src") || "")) bad.push("IMG " + e.getAttribute("src"));
		}
		return {Pwned: window.__pwned !== undefined, Elements: bad, Text: out.textContent, Headings: out.querySelectorAll("h1, h2").length};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if st.Pwned {
		t.Error("a script carried by a value ran (window.__pwned is set)")
	}
	if len(st.Elements) > 0 {
		t.Errorf("elements a value made: %v", st.Elements)
	}
	if st.Headings == 0 {
		t.Error("marked rendered no heading: the page did not render")
	}
	if hostile {
		for _, v := range []string{"<img src=x onerror=window.__pwned=2>", "<script>window.__pwned=1</script>", "@SUM(A1:A9) <b>bold</b>"} {
			if !strings.Contains(st.Text, v) {
				t.Errorf("the value %q is not shown as text", v)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dialogs) > 0 {
		t.Errorf("a value's script opened %d dialogs", len(dialogs))
	}
	for _, p := range problems {
		t.Errorf("console: %s", p)
	}
}
