//go:build browser

package browser

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
// tooltip shown when the mouse points at a heat map and at a time chart, a drag across a
// heat map zooms the charts, and the fine-detail chart of a detail range follows a zoom,
// drives it and moves its cursor with the others' (checkFineFollows); then it saves a screenshot of the whole page beside the
// report's directory, as out/browser/NAME.png.
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
	// The variants' table, a p99 column per stream, stays inside the page's main column at
	// 1,400, 1,366 and 1,024 pixels (a common projector's width): a table wider than that
	// scrolls in its own box. No heading of any table breaks inside a word ("agr/ees",
	// "create_or/der p99"): each word of a heading fits its cell's width. The widest width
	// comes last, so the screenshot stays the 1,400-pixel page's.
	for _, width := range []int64{1024, 1366, 1400} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 1000)); err != nil {
			t.Fatal(err)
		}
		over, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => {
			const t = document.querySelector("#tables table.sortable"), m = document.querySelector("main");
			const box = t.closest(".table-scroll") || t;
			const cs = getComputedStyle(m);
			return [box.getBoundingClientRect().right, m.getBoundingClientRect().right - parseFloat(cs.paddingRight)];
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		if over[0] > over[1]+0.5 {
			t.Errorf("at %d px: the variants' table ends at x = %.0f, past the page's main column (%.0f)", width, over[0], over[1])
		}
		broken, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => {
			const bad = [];
			document.querySelectorAll("table.sortable th").forEach(th => {
				const cs = getComputedStyle(th);
				const room = th.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
				for (const w of th.textContent.replace(/[\u25B2\u25BC]/g, "").split(/\s+/)) {
					if (!w) continue;
					const s = document.createElement("span");
					s.textContent = w;
					s.style.whiteSpace = "nowrap";
					s.style.font = cs.font;
					s.style.position = "absolute";
					document.body.appendChild(s);
					const need = s.getBoundingClientRect().width;
					s.remove();
					if (need > room + 0.5) bad.push(JSON.stringify(w) + " (" + need.toFixed(0) + " px in " + room.toFixed(0) + ")");
				}
			});
			return bad;
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		if len(broken) > 0 {
			t.Errorf("at %d px: headings break inside a word: %s", width, strings.Join(broken, ", "))
		}
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
	checkFineFollows(t, ctx)
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

// checkFineFollows checks, on a report with a detail range, that pointing at the
// fine-detail chart moves the other charts' cursors to the same time, and that it follows
// the time charts' zoom and drives it: after the heat map's zoom (the shared range,
// which misses the detail range on black-friday), after a drag across the middle of the
// first time chart and after a drag across the fine chart, it shows the part of the shared
// range inside its own, or the shared range itself when they do not meet. Each chart keeps
// the x range it shows on its element (data-x-min, data-x-max).
func checkFineFollows(t *testing.T, ctx context.Context) {
	t.Helper()
	const ranges = `(() => {
		const out = {};
		document.querySelectorAll("#charts-root .chart").forEach((box) => {
			const el = box.querySelector(".chart-el"), h = box.querySelector("h3").textContent;
			const r = el.dataset.xMin === undefined ? [] : [+el.dataset.xMin, +el.dataset.xMax];
			if (h.startsWith("p99 latency in detail")) { if (!out.fine) out.fine = r; } else if (!out.shared) out.shared = r;
		});
		return out;
	})()`
	read := func() (fine, shared []float64) {
		r, err := chromedp.Run(ctx, chromedp.Evaluate[map[string][]float64](ranges))
		if err != nil {
			t.Fatal(err)
		}
		return r["fine"], r["shared"]
	}
	fine, shared := read()
	if fine == nil {
		return // no detail range
	}
	if len(fine) != 2 || len(shared) != 2 {
		t.Fatalf("the fine chart's x range %v, the first time chart's %v: want both on their elements", fine, shared)
	}
	// Its own range: the fine windows'. The reset button shows them whole (uPlot redraws,
	// and calls the hook that writes the range, once the click's task is done).
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("range-reset").click(), true`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	fine0 := fine
	own, _ := read()
	// The cursor moves with the others' on the same moment: pointing at the fine chart
	// (showing the detail range) puts the first time chart's cursor (showing the whole run)
	// at the same time, within two pixels.
	xy, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => {
		const box = [...document.querySelectorAll("#charts-root .chart")].find((b) => b.querySelector("h3").textContent.startsWith("p99 latency in detail"));
		const el = box.querySelector(".u-over");
		el.scrollIntoView({block: "center"});
		const r = el.getBoundingClientRect();
		return [r.left + r.width * 0.3, r.top + r.height * 0.5];
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
	cur, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => {
		const boxes = [...document.querySelectorAll("#charts-root .chart")];
		const at = (box) => {
			const el = box.querySelector(".chart-el"), over = box.querySelector(".u-over"), c = box.querySelector(".u-cursor-x");
			const m = /translate\(([-0-9.]+)px/.exec(c.style.transform || "");
			const w = over.getBoundingClientRect().width, lo = +el.dataset.xMin, hi = +el.dataset.xMax;
			return m ? [lo + (+m[1]) / w * (hi - lo), (hi - lo) / w] : [NaN, 0];
		};
		const fine = boxes.find((b) => b.querySelector("h3").textContent.startsWith("p99 latency in detail"));
		const other = boxes.find((b) => !b.querySelector("h3").textContent.startsWith("p99 latency in detail"));
		return [...at(fine), ...at(other)];
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if !(abs(cur[0]-cur[2]) <= 2*max(cur[1], cur[3])) {
		t.Errorf("pointing at %.0f s on the fine chart puts the first time chart's cursor at %.0f s", cur[0], cur[2])
	} else {
		t.Logf("pointing at %.0f s on the fine chart puts the first time chart's cursor at %.0f s", cur[0], cur[2])
	}
	want := func(shared []float64) []float64 {
		a, b := max(shared[0], own[0]), min(shared[1], own[1])
		if b > a {
			return []float64{a, b}
		}
		return shared
	}
	same := func(x, y []float64) bool {
		return len(x) == 2 && len(y) == 2 && abs(x[0]-y[0]) < 1e-6 && abs(x[1]-y[1]) < 1e-6
	}
	if !same(fine0, want(shared)) {
		t.Errorf("after the heat map's zoom to %v s the fine chart shows %v s, want %v s (its own range is %v s)", shared, fine0, want(shared), own)
	}
	drag := func(which string, from, to float64) {
		xy, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => {
			const boxes = [...document.querySelectorAll("#charts-root .chart")];
			const box = boxes.find((b) => b.querySelector("h3").textContent.startsWith("p99 latency in detail") === (`+"`"+which+"`"+` === "fine"));
			const el = box.querySelector(".u-over");
			el.scrollIntoView({block: "center"});
			const r = el.getBoundingClientRect();
			return [r.left + r.width * `+ftoa(from)+`, r.left + r.width * `+ftoa(to)+`, r.top + r.height * 0.5];
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx,
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy[0], xy[2]),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, xy[0], xy[2], chromedp.ButtonLeft),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, (xy[0]+xy[1])/2, xy[2], chromedp.ButtonLeft),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy[1], xy[2], chromedp.ButtonLeft),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, xy[1], xy[2], chromedp.ButtonLeft),
			chromedp.Sleep(100*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	// A drag across the right part of the first time chart, which overlaps the detail range
	// on black-friday (08:00-08:35 of 06:00-09:00) when it starts at the whole run.
	drag("shared", 0.7, 0.95)
	fine, shared = read()
	if !same(fine, want(shared)) {
		t.Errorf("after a drag across the first time chart to %v s the fine chart shows %v s, want %v s (its own range is %v s)", shared, fine, want(shared), own)
	} else {
		t.Logf("the first time chart zoomed to %v s, the fine chart shows %v s", shared, fine)
	}
	// A drag across the fine chart zooms the others to what it selected, and it follows.
	before := fine
	drag("fine", 0.2, 0.6)
	fine, shared = read()
	if !same(fine, want(shared)) || shared[0] < before[0]-1e-6 || shared[1] > before[1]+1e-6 || same(fine, before) {
		t.Errorf("after a drag across the fine chart (showing %v s), the first time chart shows %v s and the fine chart %v s; want both a part of %v s", before, shared, fine, before)
	} else {
		t.Logf("the fine chart zoomed the others to %v s", shared)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
