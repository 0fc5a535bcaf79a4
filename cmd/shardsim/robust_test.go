package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/shardsim/shardsim/report"
)

func readSummary(t *testing.T, dir string) report.Summary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s report.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary.json is not valid JSON: %v", err)
	}
	return s
}

// A scenario with lambda = 2 mu and an unbounded queue finishes within a minute and
// 1 GiB, reports the overloaded variant saturated (at about 2,000 s with over 2,000,000
// waiting: the backlog grows by lambda - mu = 1,000/s), and still runs the other variant to
// the end.
func TestSaturatedScenario(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	start := time.Now()
	code, out, stderr := call(t, "run", "../../testdata/saturated.toml", "-q", "--no-charts", "-o", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if el := time.Since(start); el > time.Minute {
		t.Errorf("took %v, want under a minute", el)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapSys > 1<<30 {
		t.Errorf("heap grew to %d MiB, want under 1 GiB", ms.HeapSys>>20)
	}
	s := readSummary(t, dir)
	over, fine := s.Variants[0], s.Variants[1]
	if over.Saturated == nil {
		t.Fatalf("the overloaded variant is not reported saturated: %+v", over)
	}
	if over.Saturated.Backlog <= 2_000_000 || math.Abs(over.Saturated.AtS-2000)/2000 > 0.05 {
		t.Errorf("saturated at %v s with %d waiting; want about 2000 s and over 2,000,000", over.Saturated.AtS, over.Saturated.Backlog)
	}
	if fine.Saturated != nil || fine.ElapsedS != 3600 || fine.Streams[0].Completed < 1_700_000 {
		t.Errorf("the fine variant did not run its hour: %+v", fine)
	}
	if !strings.Contains(out, "SATURATED at") {
		t.Errorf("the text output does not say the variant saturated:\n%s", out)
	}
	// The windows after the stop have no load: no alert may say a load cleared there, and
	// the saturation's lag is in whole seconds (its moment is not a window's end).
	for _, a := range over.Alerts {
		if strings.HasSuffix(a.Kind, "_cleared") && a.AtS > over.Saturated.AtS {
			t.Errorf("alert after the run stopped at %.0f s: %+v", over.Saturated.AtS, a)
		}
		if a.Kind == "saturated" && strings.Contains(a.Detection, ".") {
			t.Errorf("saturated alert's detection %q, want a lag in whole seconds", a.Detection)
		}
	}
}

// An interrupted run (SIGINT from the test, a second into black-friday) stops cleanly,
// exits non-zero and leaves valid outputs marked partial, and no temporary files. A
// simulated minute, one window, takes black-friday about 0.1 s of CPU at -j 1, so the
// second leaves several windows written even on a loaded machine (the Parquet series below
// must hold rows), and hours of the 3 h still to run.
func TestInterruptedRunWritesPartialResults(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	// The test binary runs as shardsim (TestMain): the same command, without linking
	// another binary.
	bin := shardsimBin(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "run", "black-friday", "-j", "1", "-q", "--no-charts", "--series", "both", "-o", dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	exit, ok := err.(*exec.ExitError)
	if !ok || exit.ExitCode() != 1 {
		t.Fatalf("interrupted run: %v, want exit status 1", err)
	}
	s := readSummary(t, dir)
	if !s.Partial {
		t.Error("summary.json is not marked partial")
	}
	for _, v := range s.Variants {
		if v.ElapsedS >= 3*3600 || !v.Partial {
			t.Errorf("variant %q covers %v s, partial %v: want less than the 3 h and partial", v.Name, v.ElapsedS, v.Partial)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.Contains(string(md), "PARTIAL") {
		t.Error("report.md does not say the results are partial")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	// Each Parquet series is whole: it opens, and holds as many rows as its CSV.
	for _, name := range []string{"streams", "shards", "nodes", "skew"} {
		f, err := os.Open(filepath.Join(dir, name+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			t.Errorf("%s.parquet of the interrupted run: %v", name, err)
		} else if b, _ := os.ReadFile(filepath.Join(dir, name+".csv")); pf.NumRows() != int64(bytes.Count(b, []byte("\n"))-1) || pf.NumRows() == 0 {
			t.Errorf("%s.parquet of the interrupted run holds %d rows, its CSV %d lines", name, pf.NumRows(), bytes.Count(b, []byte("\n")))
		}
		f.Close()
	}
}

// An output directory is reused for the same scenario, refused for another one or for a
// directory that does not hold shardsim results, unless --force.
func TestOutputDirectoryReuse(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) int {
		code, _, _ := call(t, append([]string{"run", "-q", "--no-charts", "-o", dir, "--duration", "60s"}, args...)...)
		return code
	}
	if c := run("../../testdata/small.toml"); c != 0 {
		t.Fatalf("first run: exit %d", c)
	}
	if c := run("../../testdata/small.toml"); c != 0 {
		t.Errorf("same scenario again: exit %d, want 0", c)
	}
	if c := run("quickstart"); c != 2 {
		t.Errorf("another scenario into the same directory: exit %d, want 2", c)
	}
	if c := run("quickstart", "--force"); c != 0 {
		t.Errorf("another scenario with --force: exit %d, want 0", c)
	}
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644)
	if code, _, _ := call(t, "run", "../../testdata/small.toml", "-q", "-o", other); code != 2 {
		t.Errorf("a directory of other files: exit %d, want 2", code)
	}
}
