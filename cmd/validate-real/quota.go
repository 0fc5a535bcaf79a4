package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// Experiment 7 runs one redis-server (not a cluster) in a CPU cgroup limited to a quarter
// of a core, pinned to the first core, and redis-benchmark pinned to the second, so that
// the clients can outrun the server: its cap is then the server's, not the machine's.

// cgroupRoots are where the cgroup hierarchies are looked for: cgroup v2's (unified,
// with the cpu controller) first, then cgroup v1's cpu controller.
var cgroupRoots = struct{ v2, v1 []string }{
	v2: []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"},
	v1: []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"},
}

// cgroup is a CPU cgroup this command made, removed by its path on every way out
// (removeCgroups).
type cgroup struct {
	Path    string
	Version int      // 1 or 2
	written []string // the files written in it, in order
}

var madeCgroups struct {
	sync.Mutex
	list []*cgroup
}

// cpuQuotaPeriodUs is the CFS period the quota is a share of.
const cpuQuotaPeriodUs = 100_000

// makeCPUCgroup makes a cgroup limited to share of one core under the first root that
// has the cpu controller: cgroup v2 (cpu.max) where its controller is enabled, else
// cgroup v1 (cpu.cfs_quota_us). It returns a note, and no cgroup, when none can be made.
func makeCPUCgroup(v2, v1 []string, name string, share float64) (*cgroup, string) {
	quota := int(share * cpuQuotaPeriodUs)
	var tried []string
	for _, root := range v2 {
		b, err := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
		if err != nil {
			continue
		}
		if !hasWord(string(b), "cpu") {
			tried = append(tried, fmt.Sprintf("%s: cgroup v2 without the cpu controller (%s)", root, strings.TrimSpace(string(b))))
			continue
		}
		cg, err := newCgroup(root, name, 2, [][2]string{{"cpu.max", fmt.Sprintf("%d %d", quota, cpuQuotaPeriodUs)}})
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", root, err))
			continue
		}
		return cg, ""
	}
	for _, root := range v1 {
		if _, err := os.Stat(filepath.Join(root, "cpu.cfs_quota_us")); err != nil {
			continue
		}
		cg, err := newCgroup(root, name, 1, [][2]string{
			{"cpu.cfs_period_us", strconv.Itoa(cpuQuotaPeriodUs)},
			{"cpu.cfs_quota_us", strconv.Itoa(quota)},
		})
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", root, err))
			continue
		}
		return cg, ""
	}
	if len(tried) == 0 {
		tried = append(tried, "no cgroup v2 with cpu.max and no cgroup v1 cpu controller is mounted")
	}
	return nil, "no writable CPU cgroup (" + strings.Join(tried, "; ") + ")"
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// newCgroup makes root/name and writes the files, in order; on an error it removes what it
// made. The cgroup is recorded for removeCgroups before anything is written in it.
func newCgroup(root, name string, version int, files [][2]string) (*cgroup, error) {
	p := filepath.Join(root, name)
	if err := os.Mkdir(p, 0o755); err != nil {
		return nil, err
	}
	cg := &cgroup{Path: p, Version: version}
	madeCgroups.Lock()
	madeCgroups.list = append(madeCgroups.list, cg)
	madeCgroups.Unlock()
	for _, f := range files {
		if err := cg.write(f[0], f[1]); err != nil {
			removeCgroups()
			return nil, err
		}
	}
	return cg, nil
}

func (cg *cgroup) write(file, value string) error {
	path := filepath.Join(cg.Path, file)
	cg.written = append(cg.written, path)
	if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
		return fmt.Errorf("writing %q to %s: %v", value, path, errors.Unwrap(err))
	}
	return nil
}

// add moves the process pid (all its threads) into the cgroup.
func (cg *cgroup) add(pid int) error {
	return cg.write("cgroup.procs", strconv.Itoa(pid))
}

// removeCgroups removes every cgroup made, by its path, newest first: once its processes
// are gone (the caller stops them first) a cgroup's directory is removed with rmdir; the
// files written in it are unlinked first, which a cgroup file system refuses harmlessly
// and an ordinary directory (the tests') needs. It returns the paths removed.
func removeCgroups() []string {
	madeCgroups.Lock()
	defer madeCgroups.Unlock()
	var out []string
	for i := len(madeCgroups.list) - 1; i >= 0; i-- {
		cg := madeCgroups.list[i]
		for _, f := range cg.written {
			_ = os.Remove(f)
		}
		var err error
		for range 50 { // the last task may take a moment to leave after its kill
			if err = syscall.Rmdir(cg.Path); err == nil || errors.Is(err, syscall.ENOENT) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err == nil {
			out = append(out, cg.Path)
		} else if !errors.Is(err, syscall.ENOENT) {
			fmt.Fprintf(os.Stderr, "validate-real: cannot remove the cgroup %s: %v\n", cg.Path, err)
		}
	}
	madeCgroups.list = nil
	return out
}

// quotaPoint is one redis-benchmark run of experiment 7.
type quotaPoint struct {
	C          int
	Requests   int
	Throughput float64 // redis-benchmark's requests a second
	MeanMs     float64
	P50Ms      float64
	P95Ms      float64
	P99Ms      float64
	CPU        float64 // the server's CPU seconds a second during the run (INFO cpu)
	CmdCPUUs   float64 // its CPU per command then
	Saturated  bool    // the server used at least 85% of its quota: the cap is the server's
	LoadBefore string
	LoadAfter  string
	PredCap    float64
	Ratio      float64
	Within     bool
	// Calibration: this point split the low rate's CPU a command into the wake-up's and
	// the command's (predict).
	Calibration bool `json:",omitempty"`
}

// quotaExp is experiment 7.
type quotaExp struct {
	Skipped    string `json:",omitempty"` // why it did not run
	Share      float64
	Cgroup     string
	Version    int
	Pinned     string // how the server and the clients were pinned
	ServerNice int    // the server's nice value
	ClientRT   string // redis-benchmark's scheduling ("chrt -f 20" or "normal")
	Port       int
	IdleCPU    float64 // the server's CPU seconds a second with no commands
	LowRate    float64
	LowRateGot float64
	LowCPUUs   float64 // CPU per command at the low rate, idle use left out
	LowLoad    [2]string
	Points     []quotaPoint
	// The model's calibration (predict): CPU a command and a wake-up, in us of a whole
	// core, split at CalC clients.
	CostUs, WakeUs float64
	CalC           int
}

// experiment7 measures Redis's cap under a CPU quota at several client counts against the
// model's cap from one constant cost per command.
// commands are the server's command line and redis-benchmark's (without its own
// arguments): the clients at real-time priority where chrt is given, so that they
// outrun the server, and each pinned to a core of its own where taskset is installed.
func (e *quotaExp) commands(t tools, chrt string) (bin string, args, bench []string) {
	bin, args = t.redisServer, []string{"--port", strconv.Itoa(e.Port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "no"}
	bench = []string{t.redisBenchmark}
	if chrt != "" {
		bench = []string{chrt, "-f", strconv.Itoa(rtPriority), t.redisBenchmark}
		e.ClientRT = fmt.Sprintf("chrt -f %d", rtPriority)
	}
	e.Pinned = "not pinned (taskset is not installed)"
	if t.taskset != "" {
		args = append([]string{"-c", "0", bin}, args...)
		bin = t.taskset
		bench = append([]string{t.taskset, "-c", "1"}, bench...)
		e.Pinned = "server on core 0, redis-benchmark on core 1 (taskset)"
	}
	return bin, args, bench
}

func experiment7(ctx context.Context, c config, t tools, chrt, tmp string, rep *report) error {
	e := &quotaExp{Share: 0.25, LowRate: 2000, Port: c.redisPort + 3, ClientRT: "normal"}
	rep.E7 = e
	Cs, span := []int{8, 50, 200}, 5.0
	if c.short {
		Cs, span = []int{50}, 1.5
	}
	if err := portFree(e.Port); err != nil {
		return fmt.Errorf("experiment 7 (Redis under a CPU quota): %w", err)
	}
	cg, note := makeCPUCgroup(cgroupRoots.v2, cgroupRoots.v1, fmt.Sprintf("shardsim-validate-%d", os.Getpid()), e.Share)
	if cg == nil {
		e.Skipped = note
		return nil
	}
	e.Cgroup, e.Version = cg.Path, cg.Version
	dir := filepath.Join(tmp, "redis-quota")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	bin, args, bench := e.commands(t, chrt)
	srv, err := start(fmt.Sprintf("redis-server :%d", e.Port), filepath.Join(dir, "redis.log"), syscall.SIGTERM, nil, dir, bin, args...)
	if err != nil {
		return err
	}
	if err := cg.add(srv.cmd.Process.Pid); err != nil {
		return fmt.Errorf("experiment 7: %v", err)
	}
	// The quota limits a normal-priority process only (not a real-time one); at nice -20 the
	// server gets its quarter of core 0 however busy the machine is.
	if err := syscall.Setpriority(syscall.PRIO_PROCESS, srv.cmd.Process.Pid, -20); err == nil {
		e.ServerNice = -20
	}
	cl := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", e.Port)})
	defer cl.Close()
	failed := func(what string, err error) error {
		time.Sleep(200 * time.Millisecond)
		if dead := srv.alive(); dead != nil {
			return fmt.Errorf("experiment 7: Redis failed during %s: %w", what, dead)
		}
		return fmt.Errorf("experiment 7: Redis: %s: %w", what, err)
	}
	if err := waitFor(srv, 20*time.Second, func() error { return cl.Ping(ctx).Err() }); err != nil {
		return fmt.Errorf("Redis did not start: %w", err)
	}
	if err := e.calibrate(ctx, cl, span); err != nil {
		return failed("the low-rate calibration", err)
	}
	for _, C := range Cs {
		pt, err := e.benchmark(ctx, cl, bench, C, span)
		if err != nil {
			return failed(fmt.Sprintf("redis-benchmark -c %d", C), err)
		}
		pt.Saturated = pt.CPU >= 0.85*e.Share
		e.Points = append(e.Points, pt)
	}
	if err := srv.stopNow(); err != nil {
		return err
	}
	removeCgroups()
	return nil
}

// redisCounters reads the server's CPU seconds (INFO cpu) and INCR calls.
func redisCounters(ctx context.Context, cl *redis.Client) (cpu float64, calls int64, err error) {
	info, err := cl.Info(ctx, "cpu", "commandstats").Result()
	if err != nil {
		return 0, 0, err
	}
	return parseRedisInfo(info)
}

// parseRedisInfo adds used_cpu_user and used_cpu_sys, and reads cmdstat_incr's calls.
func parseRedisInfo(info string) (cpu float64, calls int64, err error) {
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		switch k {
		case "used_cpu_sys", "used_cpu_user":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, 0, fmt.Errorf("INFO cpu: %q", line)
			}
			cpu += f
		case "cmdstat_incr":
			for _, kv := range strings.Split(v, ",") {
				if s, ok := strings.CutPrefix(kv, "calls="); ok {
					if calls, err = strconv.ParseInt(s, 10, 64); err != nil {
						return 0, 0, fmt.Errorf("INFO commandstats: %q", line)
					}
				}
			}
		}
	}
	return cpu, calls, nil
}

// calibrate measures the server's idle CPU, then its CPU per INCR at LowRate commands a
// second from one paced client, the idle use left out.
func (e *quotaExp) calibrate(ctx context.Context, cl *redis.Client, span float64) error {
	e.LowLoad[0] = loadAvg()
	c0, _, err := redisCounters(ctx, cl)
	if err != nil {
		return err
	}
	t0 := time.Now()
	time.Sleep(time.Second)
	c1, n1, err := redisCounters(ctx, cl)
	if err != nil {
		return err
	}
	t1 := time.Now()
	e.IdleCPU = (c1 - c0) / t1.Sub(t0).Seconds()
	d := time.Duration(span * float64(time.Second))
	gap := time.Duration(float64(time.Second) / e.LowRate)
	next := time.Now()
	end := next.Add(d)
	for next.Before(end) {
		if w := time.Until(next); w > 0 {
			time.Sleep(w)
		}
		if err := cl.Incr(ctx, "hot").Err(); err != nil {
			return err
		}
		next = next.Add(gap)
	}
	c2, n2, err := redisCounters(ctx, cl)
	if err != nil {
		return err
	}
	t2 := time.Now()
	e.LowLoad[1] = loadAvg()
	span2 := t2.Sub(t1).Seconds()
	if n2 <= n1 {
		return errors.New("no INCR counted at the low rate")
	}
	e.LowRateGot = float64(n2-n1) / span2
	e.LowCPUUs = (c2 - c1 - e.IdleCPU*span2) / float64(n2-n1) * 1e6
	if e.LowCPUUs <= 0 {
		return fmt.Errorf("the server's CPU per INCR measured %.2f us at %.0f/s", e.LowCPUUs, e.LowRateGot)
	}
	return nil
}

// benchmark runs redis-benchmark -t incr with C clients, enough requests for about span
// seconds at the rate a first short run finds.
func (e *quotaExp) benchmark(ctx context.Context, cl *redis.Client, bench []string, C int, span float64) (quotaPoint, error) {
	pt := quotaPoint{C: C}
	probe, err := runBenchmark(ctx, bench, e.Port, C, 2000)
	if err != nil {
		return pt, err
	}
	pt.Requests = max(2000, int(probe.Throughput*span))
	pt.LoadBefore = loadAvg()
	c0, n0, err := redisCounters(ctx, cl)
	if err != nil {
		return pt, err
	}
	t0 := time.Now()
	res, err := runBenchmark(ctx, bench, e.Port, C, pt.Requests)
	if err != nil {
		return pt, err
	}
	c1, n1, err := redisCounters(ctx, cl)
	if err != nil {
		return pt, err
	}
	pt.LoadAfter = loadAvg()
	pt.Throughput, pt.MeanMs, pt.P50Ms, pt.P95Ms, pt.P99Ms = res.Throughput, res.MeanMs, res.P50Ms, res.P95Ms, res.P99Ms
	pt.CPU = (c1 - c0) / time.Since(t0).Seconds()
	if n1 > n0 {
		pt.CmdCPUUs = (c1 - c0) / float64(n1-n0) * 1e6
	}
	return pt, nil
}

// benchResult is redis-benchmark's --csv line of one test.
type benchResult struct {
	Throughput, MeanMs, P50Ms, P95Ms, P99Ms float64
}

func runBenchmark(ctx context.Context, bench []string, port, C, n int) (benchResult, error) {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	args := append(bench[1:len(bench):len(bench)], "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "incr", "-c", strconv.Itoa(C), "-n", strconv.Itoa(n), "--csv")
	out, err := exec.CommandContext(cctx, bench[0], args...).CombinedOutput()
	if err != nil {
		return benchResult{}, fmt.Errorf("redis-benchmark: %v\n%s", err, tailText(string(out), 4))
	}
	return parseBenchmarkCSV(string(out))
}

// parseBenchmarkCSV reads redis-benchmark --csv: a header naming the columns ("test",
// "rps", "avg_latency_ms", "p50_latency_ms", "p95_latency_ms", "p99_latency_ms", ...) and
// the INCR test's line.
func parseBenchmarkCSV(out string) (benchResult, error) {
	var res benchResult
	recs, err := csv.NewReader(strings.NewReader(strings.TrimSpace(out))).ReadAll()
	if err != nil {
		return res, fmt.Errorf("redis-benchmark --csv: %v", err)
	}
	if len(recs) < 2 {
		return res, fmt.Errorf("redis-benchmark --csv: want a header and a line, got %d lines", len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, rec := range recs[1:] {
		if len(rec) == 0 || rec[0] != "INCR" {
			continue
		}
		for name, dst := range map[string]*float64{"rps": &res.Throughput, "avg_latency_ms": &res.MeanMs, "p50_latency_ms": &res.P50Ms, "p95_latency_ms": &res.P95Ms, "p99_latency_ms": &res.P99Ms} {
			i, ok := col[name]
			if !ok || i >= len(rec) {
				return res, fmt.Errorf("redis-benchmark --csv: no column %q", name)
			}
			if *dst, err = strconv.ParseFloat(rec[i], 64); err != nil {
				return res, fmt.Errorf("redis-benchmark --csv: %s = %q", name, rec[i])
			}
		}
		return res, nil
	}
	return res, fmt.Errorf("redis-benchmark --csv: no INCR line")
}
