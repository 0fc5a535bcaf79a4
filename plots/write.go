package plots

import (
	"bytes"
	"fmt"
	"image/png"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/shardsim/shardsim/internal/atomicfile"
)

// Format is an output file format.
type Format string

const (
	// PNG is a raster image at DPI dots per inch; its size in pixels is the chart's
	// documented size.
	PNG Format = "png"
	// SVG is a vector image; its width and height are the chart's documented pixel
	// size expressed in points (px × 72/DPI), so a browser shows it at the same size
	// as the PNG (one CSS pixel is 0.75 pt).
	SVG Format = "svg"
)

// DPI is the resolution of PNG output: sizes below are in pixels at this resolution.
const DPI = 96

// Chart sizes in pixels (PNG); SVG output has the same size in CSS pixels.
const (
	HeatWidth  = 1200 // heat chart, any number of shards and windows
	HeatHeight = 700

	BarsWidth        = 1200 // bars chart: BarsHeight(len(Panels)) high
	BarsHeaderHeight = 80   // title and colour key
	BarsPanelHeight  = 250  // one variant's panel

	LinesWidth  = 1200
	LinesHeight = 600

	CDFWidth  = 1200
	CDFHeight = 650
)

// BarsHeight is the height in pixels of a bars chart with the given number of panels.
func BarsHeight(panels int) int { return BarsHeaderHeight + panels*BarsPanelHeight }

// pxToPt converts a length in output pixels to points.
func pxToPt(px int) vg.Length { return vg.Length(float64(px) * 72 / DPI) }

// resolveFormat checks f, taking the format from the path's extension when f is empty.
func resolveFormat(path string, f Format) (Format, error) {
	if f == "" {
		f = Format(strings.TrimPrefix(filepath.Ext(path), "."))
	}
	switch Format(strings.ToLower(string(f))) {
	case PNG:
		return PNG, nil
	case SVG:
		return SVG, nil
	}
	return "", fmt.Errorf("plots: unknown format %q (want %q or %q)", f, PNG, SVG)
}

var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed}

// writeChart writes a chart whose data check accepts, drawn by fn (render); it returns
// check's error, and writes nothing, otherwise.
func writeChart(path string, f Format, wpx, hpx int, check func() error, fn func(dc draw.Canvas)) error {
	if err := check(); err != nil {
		return err
	}
	return render(path, f, wpx, hpx, fn)
}

// render draws a wpx × hpx pixel chart with fn and writes it to path atomically. fn
// draws onto a white canvas; a panic inside gonum/plot is returned as an error.
func render(path string, f Format, wpx, hpx int, fn func(dc draw.Canvas)) (err error) {
	f, err = resolveFormat(path, f)
	if err != nil {
		return err
	}
	if path == "" {
		return fmt.Errorf("plots: empty output path")
	}
	w, h := pxToPt(wpx), pxToPt(hpx)
	var buf bytes.Buffer
	err = func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("plots: drawing %s: %v", filepath.Base(path), r)
			}
		}()
		switch f {
		case PNG:
			c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI))
			fn(draw.New(c))
			// The fastest compression: a chart is flat colour and text, which it still
			// packs well, and the default level took half the time of drawing.
			err = pngEncoder.Encode(&buf, c.Image())
		default:
			c := vgsvg.New(w, h)
			dc := draw.New(c)
			dc.SetColor(colWhite)
			dc.Fill(dc.Rectangle.Path())
			fn(dc)
			_, err = c.WriteTo(&buf)
			// vgsvg labels embedded PNG images (the heat cells) image/jpg, which
			// some viewers refuse.
			fixed := bytes.ReplaceAll(buf.Bytes(), []byte(`"data:image/jpg;base64,`), []byte(`"data:image/png;base64,`))
			// Fonts are not embedded: fall back on Arial, metrically identical to
			// Liberation Sans, so that text keeps the width it was laid out with.
			fixed = bytes.ReplaceAll(fixed, []byte("font-family:Liberation Sans;"),
				[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
			buf = *bytes.NewBuffer(fixed)
		}
		return err
	}()
	if err != nil {
		return err
	}
	return atomicfile.Write(path, buf.Bytes())
}
