package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/shardsim/shardsim/runs/runner"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/scenarios"
)

// TestRunStreamed: `run` with the streaming threshold at 0 streams every variant of
// small.toml (2 variants, 4 shards, 8 windows), and of small-rebalance.toml (whose
// rebalance plans its moves from the shards' load so far), and must write the same files, byte for
// byte, as with the threshold that keeps them in memory, print the same summary, and
// leave no spool behind. Not parallel: it sets scenario.StreamShardCells.
func TestRunStreamed(t *testing.T) {
	for _, file := range []string{"small.toml", "small-rebalance.toml"} {
		testStreamed(t, file)
	}
}

// testStreamed runs testdata/file kept and streamed and compares what they wrote.
func testStreamed(t *testing.T, file string) {
	args := []string{"run", "../../testdata/" + file, "--duration", "40s", "--set", `window="5s"`, "--no-charts", "-q", "--force", "-o"}
	kept, streamed := t.TempDir(), t.TempDir()
	code, out1, errs := call(t, append(args, kept)...)
	if code != 0 {
		t.Fatalf("kept: exit %d: %s", code, errs)
	}
	defer func(n int64) { scenario.StreamShardCells = n; debug.SetMemoryLimit(math.MaxInt64) }(scenario.StreamShardCells)
	scenario.StreamShardCells = 0
	code, out2, errs := call(t, append(args, streamed)...)
	if code != 0 {
		t.Fatalf("streamed: exit %d: %s", code, errs)
	}
	if out1 != out2 {
		t.Error("the printed summaries differ")
	}
	if lim := debug.SetMemoryLimit(-1); lim != streamedMemoryLimit && os.Getenv("GOMEMLIMIT") == "" {
		t.Errorf("memory limit %d during a streamed run, want %d", lim, streamedMemoryLimit)
	}
	want, _ := filepath.Glob(filepath.Join(kept, "*"))
	got, _ := filepath.Glob(filepath.Join(streamed, "*"))
	if len(got) != len(want) || len(want) < 7 {
		t.Fatalf("%d files streamed, %d kept", len(got), len(want))
	}
	for _, p := range want {
		a, _ := os.ReadFile(p)
		b, _ := os.ReadFile(filepath.Join(streamed, filepath.Base(p)))
		if !bytes.Equal(a, b) {
			t.Errorf("%s: %s differs", file, filepath.Base(p))
		}
	}
	if spools, _ := filepath.Glob(filepath.Join(streamed, ".shards.spool-*")); len(spools) != 0 {
		t.Errorf("spools left behind: %v", spools)
	}
	if file != "small.toml" {
		return
	}
	// The runs did stream: their results keep no shard series.
	sc, err := scenarios.Load("../../testdata/small.toml", scenarios.Options{Sets: []string{`duration="20s"`}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	runs, _, err := runVariants(sc, describe(sc, nil), runner.Options{Parallel: 1, Every: true}, make([]int, len(sc.Variants)), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if !r.Result.Streamed || r.Result.ShardBusy != nil {
			t.Errorf("%s did not stream", r.Variant.Name)
		}
	}
	closeSinks(runs)
	if spools, _ := filepath.Glob(filepath.Join(dir, ".shards.spool-*")); len(spools) != 0 {
		t.Errorf("spools left behind: %v", spools)
	}
}
