package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every --format is honoured by sweep and capacity, and capacity draws its chart unless
// --no-charts. M/M/1 over 30 s per run keeps each search well under a second.
func TestExploreFormats(t *testing.T) {
	t.Parallel()
	base := []string{"../../testdata/queueing/mm1.toml", "--set", `duration="30s"`, "-q", "-j", "2", "--force"}
	check := map[string]func(string) bool{
		"text": func(s string) bool {
			return strings.HasPrefix(s, "capacity of mm1") || strings.HasPrefix(s, "cluster.cores")
		},
		"markdown": func(s string) bool { return strings.Contains(s, "| variant") && strings.Contains(s, "| ---") },
		"csv":      func(s string) bool { return strings.HasPrefix(s, "point,") },
		"json": func(s string) bool {
			var v struct{ Rows []any }
			return json.Unmarshal([]byte(s), &v) == nil && len(v.Rows) > 0
		},
	}
	for _, cmd := range []string{"capacity", "sweep"} {
		for f, ok := range check {
			dir := filepath.Join(t.TempDir(), cmd+"-"+f)
			args := append([]string{cmd}, base...)
			args = append(args, "-o", dir, "-f", f)
			if cmd == "capacity" {
				args = append(args, "--slo", "requests:p99<46ms")
			} else {
				args = append(args, "--vary", "cluster.cores=1,2", "--slo", "requests:p99<46ms")
			}
			if f == "csv" {
				args = append(args, "--no-charts")
			}
			code, out, stderr := call(t, args...)
			if code != 0 || !ok(out) {
				t.Errorf("%s -f %s: exit %d, stdout not %s:\n%s\n%s", cmd, f, code, f, out, stderr)
			}
			charts, _ := filepath.Glob(filepath.Join(dir, "*.png"))
			if want := f != "csv"; (len(charts) > 0) != want {
				t.Errorf("%s -f %s: charts %v, want some: %v", cmd, f, charts, want)
			}
			if cmd == "capacity" {
				if _, err := os.Stat(filepath.Join(dir, "capacity.csv")); err != nil {
					t.Errorf("capacity -f %s: %v", f, err)
				}
			}
		}
	}
	if code, _, stderr := call(t, "capacity", "../../testdata/queueing/mm1.toml", "--slo", "requests:p99<46ms", "--require", "most"); code != 2 || !strings.Contains(stderr, "--require") {
		t.Errorf("--require most: exit %d, %s", code, stderr)
	}
}
