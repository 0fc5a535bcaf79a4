package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/scenario"
)

// TestSeriesFlag: --series picks the series files run writes, and a value it does not know
// is a usage error naming the flag (exit 2, no directory made); auto writes CSV for a small
// run and Parquet for one of more than scenario.ParquetShardCells shard-windows a variant
// (here 4,000 shards x 600 windows = 2.4 million), and report.md names the files written.
func TestSeriesFlag(t *testing.T) {
	small := "../../testdata/small.toml"
	series := func(dir string) (csv, parquet []string) {
		for _, name := range []string{"streams", "shards", "nodes", "skew"} {
			if _, err := os.Stat(filepath.Join(dir, name+".csv")); err == nil {
				csv = append(csv, name)
			}
			if _, err := os.Stat(filepath.Join(dir, name+".parquet")); err == nil {
				parquet = append(parquet, name)
			}
		}
		return csv, parquet
	}
	all := []string{"streams", "shards", "nodes", "skew"}
	for _, c := range []struct {
		args         []string
		csv, parquet []string
	}{
		{[]string{small}, all, nil},
		{[]string{small, "--series", "csv"}, all, nil},
		{[]string{small, "--series", "parquet"}, nil, all},
		{[]string{small, "--series", "both"}, all, all},
	} {
		dir := t.TempDir()
		code, _, stderr := call(t, append([]string{"run", "-q", "--no-charts", "--no-html", "--duration", "20s", "-o", dir}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		csv, parquet := series(dir)
		if !slices.Equal(csv, c.csv) || !slices.Equal(parquet, c.parquet) {
			t.Errorf("%v: CSV %v and Parquet %v written, want %v and %v", c.args, csv, parquet, c.csv, c.parquet)
		}
		md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
		if want := "shards.csv, nodes.csv"; c.csv == nil {
			if want = "shards.parquet, nodes.parquet"; !strings.Contains(string(md), want) {
				t.Errorf("%v: report.md does not name %s", c.args, want)
			}
		} else if !strings.Contains(string(md), want) {
			t.Errorf("%v: report.md does not name %s", c.args, want)
		}
	}

	dir := filepath.Join(t.TempDir(), "out")
	code, _, stderr := call(t, "run", "-q", "--series", "xml", "-o", dir, small)
	if code != 2 || !strings.Contains(stderr, `--series "xml"`) {
		t.Errorf("--series xml: exit %d, %q; want exit 2 naming the flag", code, stderr)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("--series xml made the output directory")
	}

	// auto above the line: shards x windows of a variant past scenario.ParquetShardCells.
	dir = t.TempDir()
	sets := []string{"--set", "keyspace.shards=4000", "--set", `window="100ms"`, "--set", "load_factor=0.05", "--variant", "0"}
	if 4000*600 <= scenario.ParquetShardCells {
		t.Fatal("the large case is not above scenario.ParquetShardCells")
	}
	code, _, stderr = call(t, append([]string{"run", "-q", "--no-charts", "--no-html", "--duration", "60s", "-o", dir, small}, sets...)...)
	if code != 0 {
		t.Fatalf("large run: exit %d: %s", code, stderr)
	}
	if csv, parquet := series(dir); csv != nil || !slices.Equal(parquet, all) {
		t.Errorf("auto above the line wrote CSV %v and Parquet %v, want Parquet only", csv, parquet)
	}
}
