package cluster_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/runs/cluster"
	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/scenarios"
)

// FuzzMergeItem hands merge a point file of any content, in the place of one of a real
// sweep's two items: merge either refuses it with a *ManifestError (exit status 2) or
// merges it, and then every output of the sweep can be written; it never panics. The seeds
// are the real item, and the real item edited as a hostile or broken worker might: a run
// without streams (which once panicked), a null run, streams renamed, truncated JSON.
func FuzzMergeItem(f *testing.F) {
	c := sweep.Config{Scenario: "../../testdata/small.toml", Replications: 2, Parallel: 1,
		Options: scenarios.Options{Sets: []string{`duration="5s"`, `warmup="1s"`}, Variants: []string{"by user"}},
		Axes:    []sweep.Axis{{Key: "cluster.nodes", Values: []string{"2"}}}}
	dir := f.TempDir()
	w, err := cluster.PlanSweep(c, testVersion)
	if err != nil {
		f.Fatal(err)
	}
	if err := w.Prepare(dir); err != nil {
		f.Fatal(err)
	}
	l, p, err := w.Place(dir, cluster.Part{K: 0, N: 1, Step: 1})
	if err != nil {
		f.Fatal(err)
	}
	if _, _, err := w.RunPart(dir, w.Mine(l, p), false); err != nil {
		f.Fatal(err)
	}
	target := w.Manifest.File(dir, 1)
	real, err := os.ReadFile(target)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real)
	var item map[string]any
	if err := json.Unmarshal(real, &item); err != nil {
		f.Fatal(err)
	}
	edit := func(change func(run map[string]any)) []byte {
		var it map[string]any
		json.Unmarshal(real, &it)
		change(it["run"].(map[string]any))
		b, _ := json.Marshal(it)
		return b
	}
	f.Add(edit(func(r map[string]any) { r["Streams"] = []any{} }))
	f.Add(edit(func(r map[string]any) { r["Streams"] = nil; r["Shards"] = nil; r["Nodes"] = nil }))
	f.Add(edit(func(r map[string]any) {
		for _, s := range r["Streams"].([]any) {
			s.(map[string]any)["Name"] = "other"
		}
	}))
	f.Add(edit(func(r map[string]any) {
		r["Shard"] = map[string]any{"Index": -7}
		r["Node"] = map[string]any{"Index": 99}
	}))
	f.Add(bytes.Replace(real, []byte(`"run":{`), []byte(`"run":null,"x":{`), 1))
	f.Add(real[:len(real)/2])
	f.Add([]byte(`{}`))

	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(target, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := cluster.Merge([]string{dir})
		if err != nil {
			var me *cluster.ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("merge refused the item with %T, not a *ManifestError (exit status 2): %v", err, err)
			}
			if !strings.Contains(err.Error(), filepath.Base(target)) && !strings.Contains(err.Error(), "another build") {
				t.Errorf("the refusal does not name the file: %v", err)
			}
			return
		}
		var text, md, csv bytes.Buffer
		m.Sweep.Text(&text)
		m.Sweep.Markdown(&md)
		if err := m.Sweep.CSV(&csv); err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(m.Sweep.JSON()); err != nil {
			t.Fatal(err)
		}
	})
}
