package main

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pgbench 15's closing summary of a closed-loop run.
const pgbenchOut = `pgbench (15.18 (Debian 15.18-0+deb12u1))
transaction type: /tmp/x/experiment 4-c32-b1.sql
scaling factor: 1
query mode: prepared
number of clients: 32
number of threads: 1
maximum number of tries: 1
duration: 5 s
number of transactions actually processed: 1795
number of failed transactions: 0 (0.000%)
latency average = 89.512 ms
initial connection time = 41.220 ms
tps = 357.496130 (without initial connection time)
`

func TestParsePgbench(t *testing.T) {
	s, err := parsePgbench(pgbenchOut)
	if err != nil {
		t.Fatal(err)
	}
	if s.Processed != 1795 || s.MeanMs != 89.512 || s.TPS != 357.49613 {
		t.Errorf("got %+v, want 1795 transactions, 89.512 ms, 357.49613 tps", s)
	}
	// None completed (at normal priority on a busy machine): pgbench prints no latency; the
	// point is kept and marked, not an error that ends the run.
	none := strings.Replace(strings.Replace(pgbenchOut, "processed: 1795", "processed: 0", 1), "latency average = 89.512 ms\n", "", 1)
	if _, err := parsePgbench(none); !errors.Is(err, errNoneCompleted) {
		t.Errorf("none completed: %v, want errNoneCompleted", err)
	}
	// Under -R pgbench adds the schedule lag's line; the figures are read the same.
	s, err = parsePgbench(strings.Replace(pgbenchOut, "latency average", "rate limit schedule lag: avg 1.2 (max 5.0) ms\nlatency average", 1))
	if err != nil || s.MeanMs != 89.512 {
		t.Errorf("with a schedule lag line: %+v, %v", s, err)
	}
	for name, bad := range map[string]string{
		"no tps":      strings.Replace(pgbenchOut, "tps = ", "tqs = ", 1),
		"no latency":  strings.Replace(pgbenchOut, "latency average = 89.512 ms\n", "", 1),
		"bad latency": strings.Replace(pgbenchOut, "89.512 ms", "89.512 s", 1),
	} {
		if _, err := parsePgbench(bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// A log of 100 transactions ending one every 10 ms from t = 1000 s, latencies 1..100 ms
// (the k-th ends at 1000 + k/100 s with latency k ms), plus a skipped one.
func syntheticLog() string {
	var b strings.Builder
	for k := 1; k <= 100; k++ {
		end := 1000_000_000 + k*10_000 // us
		b.WriteString(strings.Join([]string{"0", strconv.Itoa(k), strconv.Itoa(k * 1000), "0", strconv.Itoa(end / 1_000_000), strconv.Itoa(end % 1_000_000), "12"}, " "))
		b.WriteString("\n")
	}
	b.WriteString("3 101 skipped 0 1000 999999 7\n")
	return b.String()
}

func TestPgbenchLogFigures(t *testing.T) {
	txns, err := parsePgbenchLog(strings.NewReader(syntheticLog()))
	if err != nil {
		t.Fatal(err)
	}
	if len(txns) != 100 {
		t.Fatalf("%d transactions, want 100 (the skipped one left out)", len(txns))
	}
	// The run ends with its last transaction, at 1001.00 s. Over its last second all 100
	// count: p10 is the 10th smallest latency, 10 ms.
	lf, err := figuresOf(txns, 0, 1.0)
	if err != nil {
		t.Fatal(err)
	}
	if lf.Count != 100 || lf.P10 != 10 || lf.P50 != 50 || lf.P90 != 90 || lf.P99 != 99 || math.Abs(lf.MeanMs-50.5) > 1e-9 || math.Abs(lf.Throughput-100) > 1e-9 {
		t.Errorf("whole log: %+v", lf)
	}
	// A 1 s run whose first 0.505 s are left out counts the transactions that ended from
	// 1000.505 s on: k = 51..100, 50 of them over 0.495 s, whatever the first one's start
	// (a schedule that began before the clients connected).
	txns = append(txns, logTxn{EndS: 1000.001, LatMs: 900})
	lf, err = figuresOf(txns, 0.505, 1.0)
	if err != nil {
		t.Fatal(err)
	}
	if lf.Count != 50 || math.Abs(lf.Throughput-50/0.495) > 1e-9 || math.Abs(lf.MeanMs-75.5) > 1e-9 || lf.P10 != 55 {
		t.Errorf("after a 0.505 s warm-up: %+v", lf)
	}
	if _, err := figuresOf([]logTxn{{EndS: 5, LatMs: 1}}, 1, 1); err == nil || errors.Is(err, errNoneCompleted) {
		t.Error("a run all warm-up: no error")
	}
	for name, bad := range map[string]string{
		"short line":  "0 1 2000 0 1000\n",
		"bad latency": "0 1 2ms 0 1000 5\n",
		"bad time":    "0 1 2000 0 x 5\n",
	} {
		if _, err := parsePgbenchLog(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The calibration of issue 49's run: one client 2.503 ms, round trip 0.087 ms.
func TestCalibrate(t *testing.T) {
	c := calibrate(0.087, 2.503)
	if math.Abs(c.CostUs-87) > 1e-9 || math.Abs(c.LockUs-2416) > 1e-9 || c.Clamped {
		t.Errorf("got %+v, want cost 87 us, lock 2416 us", c)
	}
	if c := calibrate(0.3, 0.2); !c.Clamped || c.LockUs != 1 {
		t.Errorf("a one-client latency under the round trip: %+v, want lock clamped to 1 us", c)
	}
	if r, ok := within(115, 100, 0.15); !ok || r != 1.15 {
		t.Errorf("within(115, 100): %v %v", r, ok)
	}
	if _, ok := within(116, 100, 0.15); ok {
		t.Error("116 of 100 counted within 15%")
	}
	if _, ok := within(1, 0, 0.15); ok {
		t.Error("a zero prediction counted within")
	}
}

func TestSchedString(t *testing.T) {
	// /proc/PID/stat of a SCHED_FIFO 20 process whose name has a space and a parenthesis.
	f := make([]string, 50)
	for i := range f {
		f[i] = "0"
	}
	f[40-3], f[41-3] = "20", "1"
	stat := "123 (post gres) x) " + strings.Join(f, " ")
	if got := schedString(stat); got != "SCHED_FIFO 20" {
		t.Errorf("got %q, want SCHED_FIFO 20", got)
	}
	f[40-3], f[41-3] = "0", "0"
	if got := schedString("1 (init) " + strings.Join(f, " ")); got != "SCHED_OTHER" {
		t.Errorf("got %q, want SCHED_OTHER", got)
	}
	if got := schedString("garbage"); got != "unknown" {
		t.Errorf("got %q, want unknown", got)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The hybrid layout of this machine: cgroup v2 without the cpu controller, cgroup v1's
// cpu hierarchy beside it. The quota goes to v1; the cgroup is removed by its path.
func TestCgroupV1WhenV2LacksCPU(t *testing.T) {
	dir := t.TempDir()
	v2, v1 := filepath.Join(dir, "unified"), filepath.Join(dir, "cpu")
	write(t, filepath.Join(v2, "cgroup.controllers"), "memory pids\n")
	write(t, filepath.Join(v1, "cpu.cfs_quota_us"), "-1\n")
	cg, note := makeCPUCgroup([]string{v2}, []string{v1}, "shardsim-test", 0.25)
	if cg == nil {
		t.Fatalf("no cgroup: %s", note)
	}
	if cg.Version != 1 || cg.Path != filepath.Join(v1, "shardsim-test") {
		t.Errorf("made v%d %s, want v1 under %s", cg.Version, cg.Path, v1)
	}
	if got := read(t, filepath.Join(cg.Path, "cpu.cfs_quota_us")); got != "25000" {
		t.Errorf("cpu.cfs_quota_us = %q, want 25000", got)
	}
	if got := read(t, filepath.Join(cg.Path, "cpu.cfs_period_us")); got != "100000" {
		t.Errorf("cpu.cfs_period_us = %q, want 100000", got)
	}
	if err := cg.add(4242); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(cg.Path, "cgroup.procs")); got != "4242" {
		t.Errorf("cgroup.procs = %q", got)
	}
	removed := removeCgroups()
	if len(removed) != 1 || removed[0] != cg.Path {
		t.Errorf("removed %v, want [%s]", removed, cg.Path)
	}
	if _, err := os.Stat(cg.Path); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", cg.Path, err)
	}
	if _, err := os.Stat(v1); err != nil {
		t.Errorf("the root %s went too: %v", v1, err)
	}
}

func TestCgroupV2(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "cgroup.controllers"), "cpuset cpu io memory\n")
	cg, note := makeCPUCgroup([]string{dir}, nil, "q", 0.25)
	if cg == nil {
		t.Fatalf("no cgroup: %s", note)
	}
	if got := read(t, filepath.Join(cg.Path, "cpu.max")); cg.Version != 2 || got != "25000 100000" {
		t.Errorf("v%d cpu.max = %q, want v2 \"25000 100000\"", cg.Version, got)
	}
	removeCgroups()
	if _, err := os.Stat(cg.Path); !os.IsNotExist(err) {
		t.Errorf("%s is still there", cg.Path)
	}
}

// No CPU controller anywhere, or no writable place: no cgroup, and a note that says why.
func TestCgroupNone(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "v2", "cgroup.controllers"), "memory\n")
	if cg, note := makeCPUCgroup([]string{filepath.Join(dir, "v2")}, []string{filepath.Join(dir, "absent")}, "q", 0.25); cg != nil || !strings.Contains(note, "without the cpu controller") {
		t.Errorf("got %v, note %q", cg, note)
	}
	// The cgroup's name is taken by a file: mkdir fails, the note names the root.
	v1 := filepath.Join(dir, "v1")
	write(t, filepath.Join(v1, "cpu.cfs_quota_us"), "-1\n")
	write(t, filepath.Join(v1, "q"), "")
	cg, note := makeCPUCgroup(nil, []string{v1}, "q", 0.25)
	if cg != nil || !strings.Contains(note, v1) {
		t.Errorf("got %v, note %q", cg, note)
	}
	if len(removeCgroups()) != 0 {
		t.Error("removed a cgroup it did not make")
	}
	if cg, note := makeCPUCgroup(nil, nil, "q", 0.25); cg != nil || !strings.Contains(note, "no cgroup v2") {
		t.Errorf("nothing mounted: %v, note %q", cg, note)
	}
}

func TestParseBenchmarkCSV(t *testing.T) {
	out := `"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
"INCR","23809.52","1.980","0.152","1.887","2.743","3.063","10.383"
`
	r, err := parseBenchmarkCSV(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Throughput != 23809.52 || r.MeanMs != 1.98 || r.P50Ms != 1.887 || r.P95Ms != 2.743 || r.P99Ms != 3.063 {
		t.Errorf("got %+v", r)
	}
	for name, bad := range map[string]string{
		"no INCR":   strings.Replace(out, `"INCR"`, `"GET"`, 1),
		"no column": strings.Replace(out, `"p99_latency_ms"`, `"p98_latency_ms"`, 1),
		"bad value": strings.Replace(out, `"23809.52"`, `"fast"`, 1),
		"empty":     "",
	} {
		if _, err := parseBenchmarkCSV(bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestParseRedisInfo(t *testing.T) {
	info := "# CPU\r\nused_cpu_sys:1.500000\r\nused_cpu_user:0.250000\r\nused_cpu_sys_children:9.0\r\n# Commandstats\r\ncmdstat_incr:calls=2000,usec=300,usec_per_call=0.15\r\ncmdstat_ping:calls=7\r\n"
	cpu, calls, err := parseRedisInfo(info)
	if err != nil || cpu != 1.75 || calls != 2000 {
		t.Errorf("got %v s, %d calls, %v; want 1.75 s, 2000", cpu, calls, err)
	}
	if _, _, err := parseRedisInfo("used_cpu_sys:x\n"); err == nil {
		t.Error("a bad CPU figure: no error")
	}
}

func TestDataPath(t *testing.T) {
	for in, want := range map[string]string{
		"docs/validation.md":          "docs/validation-data.json",
		"out/validation-short.md":     "out/validation-short-data.json",
		"report":                      "report-data.json",
		"/tmp/a.b/validation.html.md": "/tmp/a.b/validation.html-data.json",
	} {
		if got := dataPath(in); got != want {
			t.Errorf("dataPath(%q) = %q, want %q", in, got, want)
		}
	}
}
