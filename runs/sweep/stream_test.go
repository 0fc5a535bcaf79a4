package sweep_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/scenarios"
)

// TestSweepStreamed: a sweep whose runs stream their shard series into a digest (as every
// run above scenario.StreamShardCells does) writes the same files as one whose runs keep
// them: small.toml at 1 and 2 nodes, both variants, one replication of 10 s. Not
// parallel: it sets scenario.StreamShardCells.
func TestSweepStreamed(t *testing.T) {
	c := sweep.Config{Scenario: "../../testdata/small.toml", Options: scenarios.Options{Sets: []string{`duration="10s"`, `warmup="1s"`}},
		Axes: []sweep.Axis{{Key: "cluster.nodes", Values: []string{"1", "2"}}}, Replications: 1, Parallel: 1}
	outputs := func() map[string][]byte {
		rows, err := sweep.Run(c)
		if err != nil {
			t.Fatal(err)
		}
		sw := &sweep.Sweep{Scenario: "small", Config: c, Rows: rows}
		var csv, text, md bytes.Buffer
		if err := sw.CSV(&csv); err != nil {
			t.Fatal(err)
		}
		js, err := json.Marshal(sw.JSON())
		if err != nil {
			t.Fatal(err)
		}
		sw.Text(&text)
		sw.Markdown(&md)
		return map[string][]byte{"csv": csv.Bytes(), "json": js, "text": text.Bytes(), "markdown": md.Bytes()}
	}
	want := outputs()
	defer func(n int64) { scenario.StreamShardCells = n }(scenario.StreamShardCells)
	scenario.StreamShardCells = 0
	got := outputs()
	if len(want) < 4 {
		t.Fatalf("%d files", len(want))
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s differs when the runs stream", name)
		}
	}
}
