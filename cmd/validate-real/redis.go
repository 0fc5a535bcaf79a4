package main

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// quiet drops go-redis's own log lines (a refused dial is retried and logged there); the
// errors that matter come back from the calls and are reported with the dead server.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// redisCluster is three (or more) Redis nodes in cluster mode on loopback ports.
type redisCluster struct {
	ports  []int
	srvs   []*server
	nodes  []*redis.Client // one client a node, for INFO and CONFIG
	client *redis.ClusterClient
	cli    string
}

// startRedis starts one redis-server a port, in cluster mode, without persistence, and
// joins them with redis-cli --cluster create (masters only, slots split evenly).
func startRedis(ctx context.Context, t tools, tmp string, ports []int) (*redisCluster, error) {
	for _, p := range ports {
		if err := portFree(p); err != nil {
			return nil, fmt.Errorf("Redis: %w", err)
		}
		if err := portFree(p + 10000); err != nil { // the cluster bus
			return nil, fmt.Errorf("Redis cluster bus: %w", err)
		}
	}
	redis.SetLogger(quiet{})
	rc := &redisCluster{ports: ports, cli: t.redisCLI}
	for _, p := range ports {
		if err := rc.startNode(ctx, t, tmp, p); err != nil {
			return nil, err
		}
	}
	if err := rc.create(ctx, t); err != nil {
		return nil, err
	}
	rc.client = redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrsOf(ports), PoolSize: 128, MaxRedirects: 0})
	if err := rc.client.ForEachShard(ctx, func(ctx context.Context, c *redis.Client) error { return c.Ping(ctx).Err() }); err != nil {
		return nil, rc.failed("PING", err)
	}
	return rc, nil
}

// addrsOf is the loopback address of each port.
func addrsOf(ports []int) []string {
	addrs := make([]string, len(ports))
	for i, p := range ports {
		addrs[i] = fmt.Sprintf("127.0.0.1:%d", p)
	}
	return addrs
}

// startNode starts the redis-server of port p in its own directory under tmp, adds it and
// a client of it to the cluster, and waits for it to answer PING.
func (rc *redisCluster) startNode(ctx context.Context, t tools, tmp string, p int) error {
	dir := filepath.Join(tmp, "redis", strconv.Itoa(p))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	srv, err := start(fmt.Sprintf("redis-server :%d", p), filepath.Join(dir, "redis.log"), syscall.SIGTERM, nil, dir, t.redisServer,
		"--port", strconv.Itoa(p), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
		"--cluster-config-file", "nodes.conf", "--dir", dir, "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--protected-mode", "no", "--cluster-node-timeout", "5000")
	if err != nil {
		return err
	}
	rc.srvs = append(rc.srvs, srv)
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", p)})
	rc.nodes = append(rc.nodes, c)
	if err := waitFor(srv, 20*time.Second, func() error { return c.Ping(ctx).Err() }); err != nil {
		return fmt.Errorf("Redis did not start: %w", err)
	}
	return nil
}

// create joins the started nodes with redis-cli --cluster create and waits until every
// node says cluster_state:ok.
func (rc *redisCluster) create(ctx context.Context, t tools) error {
	args := append([]string{"--cluster", "create"}, addrsOf(rc.ports)...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if _, err := runAs(ctx, nil, time.Minute, t.redisCLI, args...); err != nil {
		if dead := anyDead(); dead != nil {
			return fmt.Errorf("Redis cluster create failed: %w", dead)
		}
		return fmt.Errorf("Redis cluster create failed: %w", err)
	}
	for i, c := range rc.nodes {
		err := waitFor(rc.srvs[i], 30*time.Second, func() error {
			info, err := c.ClusterInfo(ctx).Result()
			if err != nil {
				return err
			}
			if !strings.Contains(info, "cluster_state:ok") {
				return fmt.Errorf("cluster_state is not ok yet")
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("Redis cluster did not form: %w", err)
		}
	}
	return nil
}

func (rc *redisCluster) close() {
	if rc.client != nil {
		rc.client.Close()
	}
	for _, c := range rc.nodes {
		c.Close()
	}
}

// failed names a dead node when one explains a client's error.
func (rc *redisCluster) failed(what string, err error) error {
	time.Sleep(200 * time.Millisecond)
	for _, s := range rc.srvs {
		if dead := s.alive(); dead != nil {
			return fmt.Errorf("Redis failed during %s: %w", what, dead)
		}
	}
	return fmt.Errorf("Redis: %s: %w", what, err)
}

// slotRange is one range of CLUSTER SHARDS and the node (index in ports) that serves it.
type slotRange struct {
	First, Last int
	Node        int
}

// shards reads the cluster's own slot ranges from CLUSTER SHARDS, in slot order.
func (rc *redisCluster) shards(ctx context.Context) ([]slotRange, error) {
	sh, err := rc.nodes[0].ClusterShards(ctx).Result()
	if err != nil {
		return nil, rc.failed("CLUSTER SHARDS", err)
	}
	var out []slotRange
	for _, s := range sh {
		node := -1
		for _, n := range s.Nodes {
			if n.Role == "master" {
				node = slices.Index(rc.ports, int(n.Port))
			}
		}
		if node < 0 {
			return nil, fmt.Errorf("CLUSTER SHARDS: a shard has no master on our ports (%v)", s.Nodes)
		}
		for _, r := range s.Slots {
			out = append(out, slotRange{First: int(r.Start), Last: int(r.End), Node: node})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].First < out[j].First })
	return out, nil
}

// resetStats zeroes every node's INFO commandstats.
func (rc *redisCluster) resetStats(ctx context.Context) error {
	for _, c := range rc.nodes {
		if err := c.ConfigResetStat(ctx).Err(); err != nil {
			return rc.failed("CONFIG RESETSTAT", err)
		}
	}
	return nil
}

// commandCalls returns each node's calls of the named commands from INFO commandstats.
func (rc *redisCluster) commandCalls(ctx context.Context, cmds ...string) ([]int64, error) {
	out := make([]int64, len(rc.nodes))
	for i, c := range rc.nodes {
		info, err := c.Info(ctx, "commandstats").Result()
		if err != nil {
			return nil, rc.failed("INFO commandstats", err)
		}
		for _, line := range strings.Split(info, "\n") {
			name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
			if !ok || !slices.Contains(cmds, strings.TrimPrefix(name, "cmdstat_")) {
				continue
			}
			for _, kv := range strings.Split(rest, ",") {
				if v, ok := strings.CutPrefix(kv, "calls="); ok {
					n, err := strconv.ParseInt(v, 10, 64)
					if err != nil {
						return nil, fmt.Errorf("INFO commandstats of node %d: %q", i, line)
					}
					out[i] += n
				}
			}
		}
	}
	return out, nil
}

// cpuSeconds is the node's CPU time (user + system) from INFO cpu.
func (rc *redisCluster) cpuSeconds(ctx context.Context, node int) (float64, error) {
	info, err := rc.nodes[node].Info(ctx, "cpu").Result()
	if err != nil {
		return 0, rc.failed("INFO cpu", err)
	}
	total := 0.0
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && (k == "used_cpu_sys" || k == "used_cpu_user") {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, fmt.Errorf("INFO cpu: %q", line)
			}
			total += f
		}
	}
	return total, nil
}

// zipf draws ranks 0..n-1 with probability proportional to 1/(rank+1)^s, by inverse
// transform over the cumulative weights (math/rand's Zipf needs s > 1).
type zipf struct{ cdf []float64 }

func newZipf(n int, s float64) *zipf {
	z := &zipf{cdf: make([]float64, n)}
	sum := 0.0
	for i := range n {
		sum += math.Pow(float64(i+1), -s)
		z.cdf[i] = sum
	}
	for i := range z.cdf {
		z.cdf[i] /= sum
	}
	return z
}

func (z *zipf) draw(r *rand.Rand) int {
	i, _ := slices.BinarySearch(z.cdf, r.Float64())
	return min(i, len(z.cdf)-1)
}

// slotKey is key id's text: one key in ten (id mod 10 = 0) has a hash tag shared by the
// keys of its group of 500 tags, the rest are plain.
func slotKey(id int) string {
	if id%10 == 0 {
		return fmt.Sprintf("user:{g%d}:%d", id/10%500, id)
	}
	return fmt.Sprintf("key:%d", id)
}

// slotsRun is experiment 2's outcome.
type slotsRun struct {
	Commands  int
	Keys      int
	Tagged    int // distinct tagged keys sent
	Trace     string
	SpanS     float64
	Ranges    []slotRange
	NodeCalls []int64 // GET + SET calls per node from INFO commandstats
}

// runSlots sends n commands (90% GET, 10% SET) on keys drawn from a Zipf law (s = 0.99
// over 100,000 keys, ranks scattered over the ids) through the cluster client, in
// pipelines of 100, and writes every command to the trace as it is sent.
func (rc *redisCluster) runSlots(ctx context.Context, n int, tracePath string, seed uint64) (slotsRun, error) {
	const keys = 100_000
	run := slotsRun{Commands: n, Keys: keys, Trace: tracePath}
	if err := rc.resetStats(ctx); err != nil {
		return run, err
	}
	f, err := os.Create(tracePath)
	if err != nil {
		return run, err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "ts,op,key")
	r := rand.New(rand.NewPCG(seed, 2))
	z := newZipf(keys, 0.99)
	perm := r.Perm(keys) // rank -> key id, so the popular keys are not all tagged or all plain
	tagged := map[int]bool{}
	start := time.Now()
	const batch = 100
	for sent := 0; sent < n; {
		p := rc.client.Pipeline()
		ts := time.Since(start).Seconds()
		for i := 0; i < batch && sent < n; i, sent = i+1, sent+1 {
			id := perm[z.draw(r)]
			k := slotKey(id)
			if id%10 == 0 {
				tagged[id] = true
			}
			if r.IntN(10) == 0 {
				p.Set(ctx, k, "1", 0)
				fmt.Fprintf(w, "%.6f,set,%s\n", ts, k)
			} else {
				p.Get(ctx, k)
				fmt.Fprintf(w, "%.6f,get,%s\n", ts, k)
			}
		}
		if _, err := p.Exec(ctx); err != nil && err != redis.Nil {
			return run, rc.failed("the pipelined GET/SET", err)
		}
		run.SpanS = ts
	}
	if err := w.Flush(); err != nil {
		return run, err
	}
	run.Tagged = len(tagged)
	if run.Ranges, err = rc.shards(ctx); err != nil {
		return run, err
	}
	run.NodeCalls, err = rc.commandCalls(ctx, "get", "set")
	return run, err
}

// hotPoint is one rate of experiment 3: open-loop INCRs of one key.
type hotPoint struct {
	Rate       float64 // offered, per second
	Throughput float64 // completed in the measured span, per second
	P50Ms      float64
	MeanMs     float64
	CPU        float64 // the node's CPU seconds per second over the span
	CmdCPUUs   float64 // the node's CPU time per command beyond its idle use, microseconds
	LagMs      float64 // median wait from a request's arrival to a worker taking it up
}

// hotKey is the key of experiment 3 and the node that serves it.
const hotKey = "hot"

// idleCPU is the node's CPU seconds a second with no commands (its timers, at hz 10), so that
// a command's cost measured at low load is not charged with them.
func (rc *redisCluster) idleCPU(ctx context.Context, node int, d time.Duration) (float64, error) {
	c0, err := rc.cpuSeconds(ctx, node)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	time.Sleep(d)
	c1, err := rc.cpuSeconds(ctx, node)
	if err != nil {
		return 0, err
	}
	return (c1 - c0) / time.Since(t0).Seconds(), nil
}

// openLoop issues INCR hot at Poisson arrivals of the given rate for warm + d, each from
// a worker of a pool of 256 so that an arrival never waits for an earlier one's answer
// (unless all 256 are busy: then it waits, and its latency, measured from its arrival
// time, shows it). Requests that arrive in the span after warm count.
// idle is the node's CPU use with no commands, which the cost per command leaves out.
func (rc *redisCluster) openLoop(ctx context.Context, node int, rate float64, warm, d time.Duration, seed uint64, idle float64) (hotPoint, error) {
	pt := hotPoint{Rate: rate}
	from, to := time.Now().Add(warm), time.Now().Add(warm+d)
	pool := rc.startIncrs(ctx, 256, from, to)
	var c0 incrCounters
	r := rand.New(rand.NewPCG(seed, uint64(rate)))
	at := time.Now()
	measuring := false
	for at.Before(to) {
		at = at.Add(time.Duration(r.ExpFloat64() / rate * float64(time.Second)))
		if !measuring && !at.Before(from) {
			measuring = true
			var err error
			if c0, err = rc.incrCounters(ctx, node); err != nil {
				pool.stop()
				return pt, err
			}
		}
		if w := time.Until(at); w > 0 {
			time.Sleep(w)
		}
		pool.jobs <- at
	}
	pool.stop()
	c1, err := rc.incrCounters(ctx, node)
	if err != nil {
		return pt, err
	}
	if pool.firstErr != nil {
		return pt, rc.failed("INCR", pool.firstErr)
	}
	if len(pool.lat) == 0 {
		return pt, fmt.Errorf("Redis: no INCR completed at %.0f/s", rate)
	}
	pool.summarize(&pt, d)
	span := c1.at.Sub(c0.at).Seconds()
	pt.CPU = (c1.cpu - c0.cpu) / span
	if n := c1.calls - c0.calls; n > 0 {
		pt.CmdCPUUs = (c1.cpu - c0.cpu - idle*span) / float64(n) * 1e6
	}
	return pt, nil
}

// incrCounters are a node's CPU seconds and INCR calls, read at a time.
type incrCounters struct {
	cpu   float64
	calls int64
	at    time.Time // after both were read
}

// incrCounters reads the node's counters.
func (rc *redisCluster) incrCounters(ctx context.Context, node int) (incrCounters, error) {
	cpu, err := rc.cpuSeconds(ctx, node)
	if err != nil {
		return incrCounters{}, err
	}
	c, err := rc.commandCalls(ctx, "incr")
	if err != nil {
		return incrCounters{}, err
	}
	return incrCounters{cpu: cpu, calls: c[node], at: time.Now()}, nil
}

// incrPool is a pool of workers that INCR the hot key at each arrival time sent to jobs,
// keeping the latency (from the arrival) and the lag (from the arrival to a worker taking
// it up), in ms, of the arrivals in [from, to), and the first error.
type incrPool struct {
	jobs     chan time.Time
	wg       sync.WaitGroup
	mu       sync.Mutex
	lat, lag []float64
	firstErr error
}

// startIncrs starts n workers.
func (rc *redisCluster) startIncrs(ctx context.Context, n int, from, to time.Time) *incrPool {
	p := &incrPool{jobs: make(chan time.Time, 4096)}
	for range n {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for at := range p.jobs {
				g := time.Since(at)
				err := rc.client.Incr(ctx, hotKey).Err()
				p.record(at, g, time.Since(at), err, from, to)
			}
		}()
	}
	return p
}

// record keeps an arrival's error, if the first, and its lag and latency if it arrived in
// [from, to).
func (p *incrPool) record(at time.Time, lag, lat time.Duration, err error, from, to time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil && p.firstErr == nil {
		p.firstErr = err
	}
	if !at.Before(from) && at.Before(to) {
		p.lat = append(p.lat, float64(lat.Microseconds())/1000)
		p.lag = append(p.lag, float64(lag.Microseconds())/1000)
	}
}

// stop waits for the workers to finish the arrivals sent.
func (p *incrPool) stop() {
	close(p.jobs)
	p.wg.Wait()
}

// summarize sets pt's median lag, throughput over d, and median and mean latency, from
// the kept arrivals (at least one).
func (p *incrPool) summarize(pt *hotPoint, d time.Duration) {
	sort.Float64s(p.lat)
	sort.Float64s(p.lag)
	pt.LagMs = p.lag[len(p.lag)/2]
	pt.Throughput = float64(len(p.lat)) / d.Seconds()
	pt.P50Ms = p.lat[len(p.lat)/2]
	sum := 0.0
	for _, l := range p.lat {
		sum += l
	}
	pt.MeanMs = sum / float64(len(p.lat))
}

// closedLoop measures the node's cap: C clients INCR the hot key back to back for
// warm + d; it returns the completions a second in d and the node's CPU use.
func (rc *redisCluster) closedLoop(ctx context.Context, node, C int, warm, d time.Duration) (hotPoint, error) {
	pt := hotPoint{}
	var wg sync.WaitGroup
	counts := make([]int64, C)
	errs := make([]error, C)
	start := time.Now()
	from, to := start.Add(warm), start.Add(warm+d)
	for i := range C {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for {
				if time.Now().After(to) {
					return
				}
				if err := rc.client.Incr(ctx, hotKey).Err(); err != nil {
					errs[i] = err
					return
				}
				if t := time.Now(); t.After(from) && !t.After(to) {
					counts[i]++
				}
			}
		}(i)
	}
	time.Sleep(warm)
	cpu0, err := rc.cpuSeconds(ctx, node)
	t0 := time.Now()
	if err != nil {
		wg.Wait()
		return pt, err
	}
	wg.Wait()
	cpu1, err := rc.cpuSeconds(ctx, node)
	if err != nil {
		return pt, err
	}
	for _, e := range errs {
		if e != nil {
			return pt, rc.failed("INCR", e)
		}
	}
	var n int64
	for _, c := range counts {
		n += c
	}
	pt.Throughput = float64(n) / d.Seconds()
	pt.Rate = pt.Throughput
	pt.CPU = (cpu1 - cpu0) / time.Since(t0).Seconds()
	return pt, nil
}

// hotNode is the index of the node that serves the hot key.
func (rc *redisCluster) hotNode(ctx context.Context) (int, error) {
	slot, err := rc.nodes[0].ClusterKeySlot(ctx, hotKey).Result()
	if err != nil {
		return 0, rc.failed("CLUSTER KEYSLOT", err)
	}
	rs, err := rc.shards(ctx)
	if err != nil {
		return 0, err
	}
	for _, r := range rs {
		if int(slot) >= r.First && int(slot) <= r.Last {
			return r.Node, nil
		}
	}
	return 0, fmt.Errorf("slot %d of %q is in no range of CLUSTER SHARDS", slot, hotKey)
}
