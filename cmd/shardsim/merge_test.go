package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// measured runs shardsim (the test binary, as TestMain installs it) with args in dir and
// returns its wall time and peak resident memory.
func measured(t *testing.T, dir string, args ...string) (time.Duration, int64) {
	t.Helper()
	cmd := exec.Command("shardsim", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("shardsim %q: %v\n%s", args, err, stderr.String())
	}
	wall := time.Since(start)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no resource usage on this system")
	}
	return wall, ru.Maxrss * 1024 // kilobytes on Linux
}

// Merge streams its items: merging a sweep's items takes no more than 5 times the time and
// 2 times the peak memory of one sweep process that runs them all and holds them (it
// simulates them too, so the time bound is loose; the memory bound is the point). The
// sweep: testdata/small.toml, 1 simulated second, 10 node counts x 2 variants x 20
// replications = 400 items; docs/cluster.md gives the figures at 10,000 items. The items
// spread over 20 directories merge to the same bytes, within the same bounds.
func TestMergeWithinOneSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("a time and memory ratio of whole processes: make test-long runs it (-short)")
	}
	if _, err := exec.LookPath("shardsim"); err != nil {
		t.Skip("shardsim is not installed by TestMain")
	}
	scen, err := filepath.Abs("../../testdata/small.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sweepArgs := []string{"sweep", scen, "--vary", "cluster.nodes=1,2,3,4,5,6,7,8,9,10", "-r", "20", "--duration", "1s", "-q"}
	sweepWall, sweepMem := measured(t, dir, append(sweepArgs, "-o", "whole", "--no-charts")...)
	measured(t, dir, append(sweepArgs, "-o", "parts", "--shard", "0/1")...)
	mergeWall, mergeMem := measured(t, dir, "merge", "parts", "-o", "merged", "-q", "--no-charts")
	want, err := os.ReadFile(filepath.Join(dir, "whole", "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	same := func(what, path string) {
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: sweep.json differs from the sweep run whole (%v)", what, err)
		}
	}
	same("merge of one directory", filepath.Join(dir, "merged", "sweep.json"))

	// The same items in 20 directories, each with the manifest.
	items, _ := filepath.Glob(filepath.Join(dir, "parts", "points", "*.json"))
	if len(items) != 400 {
		t.Fatalf("%d items, want 400", len(items))
	}
	manifest, _ := os.ReadFile(filepath.Join(dir, "parts", "manifest.json"))
	var dirs []string
	for k := range 20 {
		d := filepath.Join(dir, "w"+strconv.Itoa(k))
		os.MkdirAll(filepath.Join(d, "points"), 0o755)
		os.WriteFile(filepath.Join(d, "manifest.json"), manifest, 0o644)
		dirs = append(dirs, d)
	}
	for i, f := range items {
		if err := os.Rename(f, filepath.Join(dirs[i%20], "points", filepath.Base(f))); err != nil {
			t.Fatal(err)
		}
	}
	manyWall, manyMem := measured(t, dir, append(append([]string{"merge"}, dirs...), "-o", "many", "-q", "--no-charts")...)
	same("merge of 20 directories", filepath.Join(dir, "many", "sweep.json"))

	t.Logf("400 items: sweep %v, %d MB; merge of one directory %v, %d MB; of 20 directories %v, %d MB",
		sweepWall.Round(time.Millisecond), sweepMem>>20, mergeWall.Round(time.Millisecond), mergeMem>>20, manyWall.Round(time.Millisecond), manyMem>>20)
	for _, m := range []struct {
		what string
		wall time.Duration
		mem  int64
	}{{"one directory", mergeWall, mergeMem}, {"20 directories", manyWall, manyMem}} {
		if m.wall > 5*sweepWall || m.mem > 2*sweepMem {
			t.Errorf("merge of %s: %v and %s, against the sweep's %v and %s: want at most 5x the time and 2x the memory",
				m.what, m.wall, mb(m.mem), sweepWall, mb(sweepMem))
		}
	}
}

func mb(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }
