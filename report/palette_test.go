package report

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/plots"
)

// TestOnePalette: a variant has one colour in the PNG charts and in report.html. The page
// once had a palette of its own (the tour's "purple line", variant 4 in the PNG, was
// orange in the page). Checked on quickstart's three variants: each variant's p99 line
// in the PNG is drawn in palette colour i (pixels of exactly that colour), the page's
// data carries that palette and its stories wear colour i, and neither app.js nor
// style.css spells a colour list of its own.
func TestOnePalette(t *testing.T) {
	sc, runs := runShared(t, "quickstart", `duration="2m"`)
	pal := plots.Palette()

	// The PNG: every variant's colour is among its pixels.
	file := filepath.Join(t.TempDir(), "p99.png")
	if err := plots.WriteLines(file, plots.PNG, P99Data(sc, runs, 0)); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	seen := pixelColours(img)
	for i := range runs {
		if !seen[pal[i]] {
			t.Errorf("variant %d (%s): the PNG has no pixel of its palette colour %s", i, runs[i].Variant.Name, pal[i])
		}
	}

	// The page: its data's palette is the PNG's, and the stories wear it.
	var buf bytes.Buffer
	if err := HTML(&buf, sc, runs, Summarize(sc, runs), nil); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	d := htmlBlob(t, page)
	if strings.Join(d.Palette, ",") != strings.Join(pal, ",") {
		t.Errorf("the page's palette %q, the charts' %q", d.Palette, pal)
	}
	for i, run := range runs {
		if want := fmt.Sprintf(`<article class="story" style="--c: %s">`, pal[i]); !strings.Contains(page, want) {
			t.Errorf("variant %d (%s): no story with %q", i, run.Variant.Name, want)
		}
	}
	// No variants' colour list of the page's own: app.js takes D.palette, style.css names
	// no variant colours (--v0, --v1, ...).
	for _, name := range []string{"html/app.js", "html/style.css"} {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if regexp.MustCompile(`PALETTE\s*=\s*\[`).Match(src) || regexp.MustCompile(`--v\d+:`).Match(src) {
			t.Errorf("%s spells a palette of its own", name)
		}
	}
	if !strings.Contains(page, "const PALETTE = D.palette;") {
		t.Error("the page's script does not take its palette from the data")
	}
}

// pixelColours returns the opaque colours of an image's pixels as CSS hex colours.
func pixelColours(img image.Image) map[string]bool {
	out := map[string]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			if a == 0xffff {
				out[fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, bl>>8)] = true
			}
		}
	}
	return out
}
