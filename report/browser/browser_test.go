//go:build browser

package browser

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// TestReportInBrowser loads every report.html under $SHARDSIM_BROWSER_DIR (make test-browser
// runs quickstart and black-friday there) in headless Chromium and checks, for each: nothing
// written to the console as an error or exception, no resource fetched (everything is inline),
// every chart drawn (each heat map and time chart has a canvas with painted pixels), a
// tooltip shown when the mouse points at a heat map and at a time chart; then it saves a
// screenshot of the whole page beside the report's directory, as out/browser/NAME.png.
func TestReportInBrowser(t *testing.T) {
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
	reports, _ := filepath.Glob(filepath.Join(dir, "*", "report.html"))
	if len(reports) == 0 {
		t.Fatalf("no report.html under %s: run make test-browser", dir)
	}
	exe, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium not found (make test-browser installs it): %v", err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	for _, report := range reports {
		name := filepath.Base(filepath.Dir(report))
		t.Run(name, func(t *testing.T) { checkReport(t, actx, report, filepath.Join(dir, name+".png")) })
	}
}

func checkReport(t *testing.T, actx context.Context, report, shot string) {
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	var mu sync.Mutex
	var problems []string
	messages := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				problems = append(problems, m.String())
				mu.Unlock()
			}
		}
	}()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+report)); err != nil {
		t.Fatalf("loading %s: %v", report, err)
	}
	// The browser lives as long as ctx: only the wait, on a context derived from it, has a
	// time limit.
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	err := chromedp.Do(wctx, chromedp.WaitVisible(chromedp.CSS(`#charts-root .uplot`)))
	wcancel()
	if err != nil {
		mu.Lock()
		t.Fatalf("%s: the charts did not appear (%v); console: %v", report, err, problems)
	}

	// Every chart element has a canvas with painted (not transparent, not white) pixels.
	empty, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => {
		const bad = [];
		const els = document.querySelectorAll(".chart-el");
		if (els.length === 0) bad.push("no chart element at all");
		els.forEach((el, i) => {
			const cv = el.tagName === "CANVAS" ? el : el.querySelector("canvas");
			const what = (el.getAttribute("aria-label") || (el.parentElement.querySelector("h3") || {}).textContent || "chart " + i);
			if (!cv || cv.width === 0 || cv.height === 0) { bad.push(what + ": no canvas"); return; }
			const px = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
			let painted = 0;
			for (let j = 0; j < px.length; j += 4) if (px[j + 3] > 0 && (px[j] < 235 || px[j + 1] < 235 || px[j + 2] < 235)) painted++;
			if (painted < 200) bad.push(what + ": only " + painted + " painted pixels");
		});
		return bad;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range empty {
		t.Errorf("empty chart: %s", e)
	}
	// The variants' table, a p99 column per stream, fits the page at 1,400 pixels: its
	// headings wrap rather than push it past the main column's edge.
	over, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => {
		const t = document.querySelector("#tables table.sortable"), m = document.querySelector("main");
		return [t.getBoundingClientRect().right, m.getBoundingClientRect().right];
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if over[0] > over[1] {
		t.Errorf("the variants' table ends at x = %.0f, past the page's main column (%.0f)", over[0], over[1])
	}
	fetched, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`performance.getEntriesByType("resource").map(e => e.name)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(fetched) > 0 {
		t.Errorf("the report fetched %d resources, want none: %v", len(fetched), fetched)
	}

	// Point at the middle of the first heat map, then of the first time chart: the tooltip
	// must show with text each time.
	for _, target := range []struct{ what, sel string }{
		{"heat map", `.heat canvas`},
		{"time chart", `#charts-root .u-over`},
	} {
		xy, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => {
			const el = document.querySelector(`+"`"+target.sel+"`"+`);
			el.scrollIntoView({block: "center"});
			const r = el.getBoundingClientRect();
			return [r.left + r.width * 0.55, r.top + r.height * 0.5];
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx,
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy[0]-3, xy[1]),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy[0], xy[1]),
			chromedp.Sleep(150*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const t = document.getElementById("tip"); return t.hidden ? "" : t.textContent; })()`))
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(text) == "" {
			t.Errorf("pointing at the %s shows no tooltip", target.what)
		} else {
			t.Logf("%s tooltip: %s", target.what, text)
		}
	}
	// Drag across the middle of the first heat map: every chart zooms to that time range.
	xy, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => {
		const el = document.querySelector(".heat canvas");
		el.scrollIntoView({block: "center"});
		const r = el.getBoundingClientRect();
		return [r.left + r.width * 0.4, r.left + r.width * 0.6, r.top + r.height * 0.6];
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, xy[0], xy[2], chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, (xy[0]+xy[1])/2, xy[2], chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy[1], xy[2], chromedp.ButtonLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, xy[1], xy[2], chromedp.ButtonLeft)); err != nil {
		t.Fatal(err)
	}
	zoom, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("range-label").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(zoom, "showing ") || strings.Contains(zoom, "whole") {
		t.Errorf("after a drag across a heat map the range reads %q, want a zoomed time range", zoom)
	} else {
		t.Logf("zoomed: %s", zoom)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("range-reset").click(), true`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 1, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.scrollTo(0, 0), true`)); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
	time.Sleep(200 * time.Millisecond) // let the last console messages arrive
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("console: %s", p)
	}
}
