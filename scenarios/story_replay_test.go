package scenarios_test

import (
	"testing"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestReplayDemoStory runs the built-in replay-demo, whose log (12,000 records, 8,991
// reads and 3,009 writes; see trace's TestFixtures) ships in the binary: every variant
// replays the whole log, whatever its directory; hashing the id uses every shard; keying
// on the namespace (four values for eight shards) leaves at least half the shards idle and
// queues on the rest (p99 over a second today, against tens of ms for the id).
func TestReplayDemoStory(t *testing.T) {
	t.Chdir(t.TempDir()) // the log comes from the binary, not from a path
	sc, err := scenarios.Load("replay-demo", scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p99 := map[string]float64{}
	for _, v := range sc.Variants {
		r := sim.Run(v.Model())
		if len(r.Streams) != 2 || r.Streams[0].Name != "log.read" || r.Streams[1].Name != "log.write" {
			t.Fatalf("%s: streams %+v, want log.read and log.write", v.Name, r.Streams)
		}
		if r.Streams[0].Offered != 8991 || r.Streams[1].Offered != 3009 {
			t.Errorf("%s: replayed %d reads and %d writes, the log has 8,991 and 3,009", v.Name, r.Streams[0].Offered, r.Streams[1].Offered)
		}
		idle := 0
		for _, sh := range r.Shards {
			if sh.Ops == 0 {
				idle++
			}
		}
		switch v.Name {
		case "hash(id)":
			if idle > 0 {
				t.Errorf("hash(id): %d idle shards, want none", idle)
			}
		case "hash(ns)":
			if idle < 4 {
				t.Errorf("hash(ns): %d idle shards, want at least 4 (four namespaces)", idle)
			}
		}
		p99[v.Name] = r.Streams[0].QuantileMillis(0.99)
	}
	if !(p99["hash(ns)"] > 10*p99["hash(id)"]) {
		t.Errorf("read p99: hash(ns) %.1f ms, hash(id) %.1f ms; want the namespace key ten times slower", p99["hash(ns)"], p99["hash(id)"])
	}
}
