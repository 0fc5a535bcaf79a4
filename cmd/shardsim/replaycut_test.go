package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/scenarios"
)

// replayScenario writes a scenario that replays log (named name) and returns its path.
func replayScenario(t *testing.T, name string, log []byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), log, 0o644); err != nil {
		t.Fatal(err)
	}
	toml := fmt.Sprintf(`name = "cut"
seed = 1
start = "12:00"
duration = "30s"
window = "5s"

[cluster]
nodes = 2
cores = 2
queue_limit = 2000
network = "0.5ms"

[table.fields]
key = { gen = "zipf", n = 1000, s = 1.1 }

[keyspace]
shards = 4
key = ["key"]

[[streams]]
name = "log"
trace = { path = %q, format = "csv" }
cost = "1ms"
`, name)
	path := filepath.Join(dir, "cut.toml")
	if err := os.WriteFile(path, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// replayLog is a CSV log of n records over 20 s, with the keys of the lines in empty
// left out (an empty key).
func replayLog(n int, empty map[int]bool) []byte {
	var b bytes.Buffer
	b.WriteString("ts,op,key\n")
	for i := range n {
		key := fmt.Sprintf("k%d", i%1000)
		if empty[i] {
			key = ""
		}
		op := "read"
		if i%4 == 0 {
			op = "write"
		}
		fmt.Fprintf(&b, "%.6f,%s,%s\n", 1700000000+20*float64(i)/float64(n), op, key)
	}
	return b.Bytes()
}

// A log cut short while the run reads it (after the scenario was checked, which read it
// whole) is replayed only in part: run says so on stderr, naming the stream and the log,
// rather than report a partial replay as the log's traffic.
func TestReplayLogCutDuringRun(t *testing.T) {
	full := replayLog(20000, nil)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(full)
	zw.Close()
	for _, c := range []struct {
		name      string
		log, cut  []byte
		wantWords []string
	}{
		{"log.csv.gz", gz.Bytes(), gz.Bytes()[:gz.Len()/2], []string{"log.csv.gz", "cut short", "only in part"}},
		{"log.csv", full, full[:len(full)/2], []string{"log.csv", "cut short while the run read it", "only in part"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			scn := replayScenario(t, c.name, c.log)
			// Loading reads the whole log (its rates, kept for the process), as run does
			// before the variants start; the log is cut after that.
			if _, err := scenarios.Load(scn, scenarios.Options{}); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(filepath.Dir(scn), c.name), c.cut, 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := call(t, "run", scn, "-o", filepath.Join(t.TempDir(), "out"), "--no-charts", "--no-html")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, w := range append([]string{"warning: ", `stream "log.read"`, `stream "log.write"`}, c.wantWords...) {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// An empty key is a malformed line (docs/traces.md), in a replay as in analyze: the
// replay skips it and says so, where it skipped it silently.
func TestReplayEmptyKeys(t *testing.T) {
	scn := replayScenario(t, "empty.csv", replayLog(4000, map[int]bool{7: true, 900: true}))
	code, out, stderr := call(t, "analyze", filepath.Join(filepath.Dir(scn), "empty.csv"))
	if code != 0 || !strings.Contains(out, "(2 malformed)") {
		t.Fatalf("analyze: exit %d, want 0 and 2 malformed lines: %s%s", code, out, stderr)
	}
	code, _, stderr = call(t, "run", scn, "-o", filepath.Join(t.TempDir(), "out"), "--no-charts", "--no-html")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{`warning: variant "base": empty.csv: 2 of 4,001 lines are malformed and were skipped (the first, line 9: empty key)`} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	if n := strings.Count(stderr, "malformed"); n != 1 {
		t.Errorf("the log's malformed lines told %d times, want once (for both its streams):\n%s", n, stderr)
	}
}
