package sweep_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/shardsim/shardsim/runs/capacity"
	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with the file testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; if the change is intended, rerun with -update and read the diff.\ngot:\n%s", path, got)
	}
}

// The sweep of testdata/small.toml over 20 s at 1 and 2 nodes, two replications:
// sweep.json, sweep.csv and the table, byte for byte.
func TestSweepGolden(t *testing.T) {
	axes := []sweep.Axis{{Key: "cluster.nodes", Values: []string{"1", "2"}}}
	cfg := sweep.Config{
		Scenario: "../../testdata/small.toml", Options: scenarios.Options{Sets: []string{`duration="20s"`, `warmup="2s"`}},
		Axes: axes, Replications: 2, Parallel: 2,
	}
	rows, err := sweep.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sw := &sweep.Sweep{Scenario: "small", Config: cfg, Rows: rows}
	if _, err := sw.WriteFiles(dir, ""); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"sweep.json", "sweep.csv"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		golden(t, f, b)
	}
	var text bytes.Buffer
	sw.Text(&text)
	golden(t, "sweep.txt", text.Bytes())

	// A stream that completed nothing: its latencies are null, its failures all timeouts.
	cfg = sweep.Config{Scenario: "../../testdata/timeouts.toml", Replications: 1, Parallel: 1}
	rows, err = sweep.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sw = &sweep.Sweep{Scenario: "timeouts", Config: cfg, Rows: rows}
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sw.JSON()); err != nil {
		t.Fatal(err)
	}
	golden(t, "sweep-timeouts.json", js.Bytes())
	text.Reset()
	sw.Text(&text)
	golden(t, "sweep-timeouts.txt", text.Bytes())
}

// The capacity of testdata/small.toml over 20 s against put's p99 and scan's error rate:
// capacity.json, as the command writes it, and the table, byte for byte.
func TestCapacityGolden(t *testing.T) {
	var slos []sweep.SLO
	for _, s := range []string{"put:p99<20ms", "scan:errors<1%"} {
		slo, err := sweep.ParseSLO(s)
		if err != nil {
			t.Fatal(err)
		}
		slos = append(slos, slo)
	}
	c := capacity.Config{
		Config: sweep.Config{Scenario: "../../testdata/small.toml", Options: scenarios.Options{Sets: []string{`duration="20s"`, `warmup="2s"`}},
			Replications: 1, Parallel: 2},
		SLOs: slos, MaxErrors: 0.001, Tolerance: 0.01,
	}
	res, err := capacity.Run(c)
	if err != nil {
		t.Fatal(err)
	}
	cr := &capacity.Report{Scenario: "small", Config: c, Rows: res}
	b, err := json.MarshalIndent(cr.JSON(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "capacity.json", append(b, '\n'))
	var text bytes.Buffer
	cr.Text(&text)
	golden(t, "capacity.txt", text.Bytes())
}
