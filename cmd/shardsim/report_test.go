package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReportLinksAndGolden runs the small scenario with charts: report.md must link only
// files that exist, every chart file must be linked, and its text is pinned by a golden file.
func TestReportLinksAndGolden(t *testing.T) {
	for _, format := range []string{"png", "svg"} {
		dir := t.TempDir()
		code, _, stderr := call(t, "run", "../../testdata/small.toml", "-q", "-o", dir, "--chart-format", format)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		md, err := os.ReadFile(filepath.Join(dir, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		links := regexp.MustCompile(`!\[[^\]]*\]\(([^)]+)\)`).FindAllStringSubmatch(string(md), -1)
		linked := map[string]bool{}
		for _, l := range links {
			linked[l[1]] = true
			if _, err := os.Stat(filepath.Join(dir, l[1])); err != nil {
				t.Errorf("report.md links %s, which does not exist", l[1])
			}
		}
		charts, _ := filepath.Glob(filepath.Join(dir, "*."+format))
		if len(charts) < 6 { // bars, 2 heats, p99 and CDF for 2 streams
			t.Errorf("%d %s charts written, want at least 6", len(charts), format)
		}
		for _, c := range charts {
			if !linked[filepath.Base(c)] {
				t.Errorf("chart %s is not shown in report.md", filepath.Base(c))
			}
		}
		if format == "png" {
			golden(t, "../../testdata/small-report.md", string(md))
		} else if !strings.Contains(string(md), ".svg)") {
			t.Error("report.md does not embed the svg charts")
		}
	}
}

// TestNoCharts: --no-charts writes the tables and report but no chart.
func TestNoCharts(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := call(t, "run", "../../testdata/small.toml", "-q", "-o", dir, "--no-charts"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if charts, _ := filepath.Glob(filepath.Join(dir, "*.png")); len(charts) != 0 {
		t.Errorf("--no-charts wrote %d charts", len(charts))
	}
	if _, err := os.Stat(filepath.Join(dir, "report.md")); err != nil {
		t.Error(err)
	}
}

// TestNoHTML: a run writes report.html and lists it in the output directory's marker; a
// second run into the same directory with --no-html leaves none behind.
func TestNoHTML(t *testing.T) {
	dir := t.TempDir()
	for _, noHTML := range []bool{false, true} {
		args := []string{"run", "../../testdata/small.toml", "-q", "-o", dir, "--no-charts"}
		if noHTML {
			args = append(args, "--no-html")
		}
		if code, _, stderr := call(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		_, err := os.Stat(filepath.Join(dir, "report.html"))
		marker, _ := os.ReadFile(filepath.Join(dir, markerFile))
		listed := strings.Contains(string(marker), "\nreport.html\n")
		if noHTML && (err == nil || listed) {
			t.Errorf("--no-html: report.html exists (%v) or is listed in %s (%v)", err == nil, markerFile, listed)
		}
		if !noHTML && (err != nil || !listed) {
			t.Errorf("run: report.html %v, listed in %s: %v", err, markerFile, listed)
		}
	}
}
