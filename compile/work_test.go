package compile_test

import (
	"math"
	"testing"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/scenarios"
)

// workScenario: 4 nodes of 2 cores, 64 shards by hash of id; a write stream of 1,000/s
// at 1 ms and a scan of 2/s over every shard at 0.5 ms a partition, for 10 s.
const workScenario = `name = "work"
seed = 4
duration = "10s"
window = "1s"
[cluster]
nodes = 4
cores = 2
[table.fields]
id = { gen = "uniform", n = 100000 }
[keyspace]
scheme = "hash"
shards = 64
key = ["id"]
[[streams]]
name = "w"
op = "write"
rate = 1000
cost = "1ms"
[[streams]]
name = "all"
op = "scan"
rate = 2
cost = "0.5ms"
`

// TestEstimateWorkClosedForm: the work estimate's figures where they are known exactly.
// The writes are 1,000/s x 10 s = 10,000 requests of one subrequest each; a scan with no
// where clause visits every one of the 64 shards, so 20 scans are 1,280 subrequests. With
// replicas = 2 each write is applied by two followers too: 30,000 write subrequests. The
// cluster is offered 1,000/s x 1 ms + 2/s x 64 x 0.5 ms = 1.064 CPU seconds a second,
// which is what is in service on average (the cores, 8, are not the bound). The busiest
// node's offered load is at least the mean, 1.064/8 = 13.3%, and a hash over 64 shards of
// 100,000 keys puts no node past twice it (the sample of at most 400 writes adds a
// standard error of a few points).
func TestEstimateWorkClosedForm(t *testing.T) {
	for _, replicas := range []int{0, 2} {
		sets := []string{}
		if replicas > 0 {
			sets = append(sets, "cluster.replicas=2")
		}
		sc, err := scenarios.LoadBytes("work.toml", []byte(workScenario), scenarios.Options{Sets: sets})
		if err != nil {
			t.Fatal(err)
		}
		w := compile.EstimateWork(sc.Variants[0].Spec)
		wantW := 10_000.0 * float64(1+replicas)
		if got := w.Streams[0].Subrequests; math.Abs(got-wantW) > 1e-6*wantW {
			t.Errorf("replicas %d: write subrequests %.1f, want %.0f", replicas, got, wantW)
		}
		if f := w.Streams[1].FanOut; f != 64 {
			t.Errorf("replicas %d: a scan's fan-out %.2f, want 64", replicas, f)
		}
		if got := w.Streams[1].Subrequests; math.Abs(got-1280) > 1e-6 {
			t.Errorf("replicas %d: scan subrequests %.1f, want 1280", replicas, got)
		}
		if replicas == 0 {
			if math.Abs(w.InService-1.064) > 1e-6 {
				t.Errorf("in service %.4f, want 1.064", w.InService)
			}
			if w.PeakNodeLoad < 1.064/8-1e-9 || w.PeakNodeLoad > 2*1.064/8 {
				t.Errorf("busiest node %.4f, want between %.4f and twice it", w.PeakNodeLoad, 1.064/8)
			}
			if w.Held() != w.InService {
				t.Errorf("held %.1f: a run at 13%% load holds no backlog", w.Held())
			}
		}
	}
}
