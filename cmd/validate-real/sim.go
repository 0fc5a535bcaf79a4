package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The predictions come from shardsim run itself (its summary JSON), so that they are the
// figures a user of the simulator would read.

type simSummary struct {
	DurationS float64 `json:"duration_s"`
	WarmupS   float64 `json:"warmup_s"`
	Variants  []struct {
		Streams []struct {
			Name      string `json:"name"`
			Completed int64  `json:"completed"`
			Latency   struct {
				Mean *float64 `json:"mean"`
				P50  *float64 `json:"p50"`
				P99  *float64 `json:"p99"`
			} `json:"latency_ms"`
		} `json:"streams"`
		Shards []struct {
			ID   int   `json:"id"`
			Node int   `json:"node"`
			Ops  int64 `json:"ops"`
		} `json:"shards"`
	} `json:"variants"`
}

// simulate writes the scenario to dir/name.toml, runs shardsim on it and reads its summary.
func simulate(ctx context.Context, bin, dir, name, scenario string) (*simSummary, error) {
	path := filepath.Join(dir, name+".toml")
	if err := os.WriteFile(path, []byte(scenario), 0o644); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", path, "-q", "--no-charts", "--no-html", "-f", "json", "-o", filepath.Join(dir, "out-"+name))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("shardsim run %s: %v\n%s", path, err, strings.TrimSpace(errb.String()))
	}
	var s simSummary
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		return nil, fmt.Errorf("shardsim run %s: reading its JSON: %v", path, err)
	}
	if len(s.Variants) != 1 || len(s.Variants[0].Streams) == 0 {
		return nil, fmt.Errorf("shardsim run %s: want one variant with streams", path)
	}
	return &s, nil
}

// rate is the completed requests a second of the stream, over the measured span.
func (s *simSummary) rate(stream int) float64 {
	return float64(s.Variants[0].Streams[stream].Completed) / (s.DurationS - s.WarmupS)
}

func (s *simSummary) mean(stream int) float64 {
	if m := s.Variants[0].Streams[stream].Latency.Mean; m != nil {
		return *m
	}
	return 0
}

func (s *simSummary) p50(stream int) float64 {
	if m := s.Variants[0].Streams[stream].Latency.P50; m != nil {
		return *m
	}
	return 0
}

func (s *simSummary) p99(stream int) float64 {
	if m := s.Variants[0].Streams[stream].Latency.P99; m != nil {
		return *m
	}
	return 0
}

// nodeOps adds the shards' ops up by node.
func (s *simSummary) nodeOps(nodes int) []int64 {
	out := make([]int64, nodes)
	for _, sh := range s.Variants[0].Shards {
		if sh.Node >= 0 && sh.Node < nodes {
			out[sh.Node] += sh.Ops
		}
	}
	return out
}

func us(d float64) string { return fmt.Sprintf("%.3fus", d) }

// oneNode is the head of a model of one server: one node with cores and the one-way
// network delay network ("0s", "40.000us"), no queue limit, 40 s simulated of which the
// first 5 s are left out.
func oneNode(name string, cores int, network string, cluster ...string) string {
	extra := ""
	for _, l := range cluster {
		extra += l + "\n"
	}
	return fmt.Sprintf(`name     = %q
seed     = 1
duration = "40s"
warmup   = "5s"
window   = "5s"

[cluster]
nodes       = 1
cores       = %d
network     = "%s"
queue_limit = 0
%s`, name, cores, network, extra)
}

// counterScenario is the model of the counters experiments: one node with the machine's
// cores, C closed-loop clients with no think time, each update holding its row's lock for
// lock and then a core for cost (constant), B salt buckets drawn at random; with the
// mechanisms the calibration turns on (a grant order, a cost per waiter woken, the
// node's commit flush).
func counterScenario(C, B, cores int, cal calibration) string {
	return oneNode("pg-counter", cores, "0s", cal.cluster()...) + fmt.Sprintf(`
[table.fields]
counter_id = { gen = "categorical", values = ["c"] }

[keyspace]
scheme    = "hash"
shards    = 1
key       = ["counter_id"]
salt      = %d
salt_mode = "random"

[[streams]]
name    = "increment"
op      = "write"
clients = %d
think   = "0s"
cost    = "%s"
service = "constant"
lock    = "%s"
%s`, B, C, us(cal.CostUs), us(cal.LockUs), cal.stream())
}

// counterOpenScenario is experiment 6's model: counterScenario on one row with Poisson
// arrivals at rate instead of closed-loop clients.
func counterOpenScenario(rate float64, cores int, cal calibration) string {
	return oneNode("pg-counter-open", cores, "0s", cal.cluster()...) + fmt.Sprintf(`
[table.fields]
counter_id = { gen = "categorical", values = ["c"] }

[keyspace]
scheme = "hash"
shards = 1
key    = ["counter_id"]

[[streams]]
name    = "increment"
op      = "write"
rate    = %.3f
arrival = "poisson"
cost    = "%s"
service = "constant"
lock    = "%s"
%s`, rate, us(cal.CostUs), us(cal.LockUs), cal.stream())
}

// cluster is the calibration's [cluster] keys: the commit flush, when it has one.
func (cal calibration) cluster() []string {
	if cal.FlushUs > 0 {
		return []string{fmt.Sprintf("commit_flush = %q", us(cal.FlushUs))}
	}
	return nil
}

// stream is the calibration's keys of the locked stream: its grant order and the cost of
// each waiter woken, when set.
func (cal calibration) stream() string {
	s := ""
	if cal.Grant != "" {
		s += fmt.Sprintf("lock_grant = %q\n", cal.Grant)
	}
	if cal.WakeUs > 0 {
		s += fmt.Sprintf("lock_wake_cost = %q\n", us(cal.WakeUs))
	}
	if cal.Release != "" {
		s += fmt.Sprintf("lock_release = %q\n", cal.Release)
	}
	return s
}

// quotaScenario is experiment 7's model: one node of one core whose event loop pays
// wakeUs once a batch and costUs a command (both already over the quota's share), C
// closed-loop clients, no network.
func quotaScenario(C int, costUs, wakeUs float64) string {
	var cluster []string
	if wakeUs > 0 {
		cluster = append(cluster, fmt.Sprintf("wakeup_cost = %q", us(wakeUs)))
	}
	return oneNode("redis-quota", 1, "0s", cluster...) + fmt.Sprintf(`
[table.fields]
key = { gen = "categorical", values = ["hot"] }

[keyspace]
scheme = "hash"
shards = 1
key    = ["key"]

[[streams]]
name    = "incr"
op      = "write"
clients = %d
think   = "0s"
cost    = "%s"
service = "constant"
`, C, us(costUs))
}

// hotScenario is experiment 3's model: the hot key's node is one core (Redis runs
// commands on one thread), Poisson arrivals at rate, a constant cost per command, and a
// one-way network delay.
// With clients > 0 the stream is that many closed-loop clients instead (the cap).
func hotScenario(rate float64, clients int, costUs, netUs float64) string {
	load := fmt.Sprintf("rate    = %.3f\narrival = \"poisson\"", rate)
	if clients > 0 {
		load = fmt.Sprintf("clients = %d\nthink   = \"0s\"", clients)
	}
	return oneNode("redis-hot-key", 1, us(netUs)) + fmt.Sprintf(`
[table.fields]
key = { gen = "categorical", values = ["hot"] }

[keyspace]
scheme = "hash"
shards = 1
key    = ["key"]

[[streams]]
name    = "incr"
op      = "write"
%s
cost    = "%s"
service = "constant"
`, load, us(costUs))
}

// slotsScenario replays experiment 2's trace under the cluster's own slot ranges, each
// range's shard on the node that serves it.
func slotsScenario(trace string, spanS float64, ranges []slotRange, nodes int) string {
	var slots, shardNodes []string
	for _, r := range ranges {
		slots = append(slots, fmt.Sprintf("[%d, %d]", r.First, r.Last))
		shardNodes = append(shardNodes, fmt.Sprint(r.Node))
	}
	return fmt.Sprintf(`name     = "redis-slots"
seed     = 1
duration = "%ds"
window   = "1s"

[cluster]
nodes       = %d
cores       = 8
network     = "0s"
queue_limit = 0
placement   = "explicit"
shard_nodes = [%s]

[table.fields]
key = { gen = "uuid" }

[keyspace]
scheme = "redis_cluster"
key    = ["key"]
slots  = [%s]

[[streams]]
name  = "log"
trace = { path = %q, format = "csv" }
cost  = "1us"
`, int(spanS)+2, nodes, strings.Join(shardNodes, ", "), strings.Join(slots, ", "), trace)
}
