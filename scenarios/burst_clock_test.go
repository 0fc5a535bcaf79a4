package scenarios_test

import (
	"math/rand/v2"
	"testing"

	"github.com/shardsim/shardsim/scenarios"
)

// Bursts follow the wall clock: with start = "09:00:30", a burst every minute begins at
// 09:01:00, 30 s after t = 0. Uniform arrivals at 1/s outside bursts and 100/s inside a 2 s
// burst put 200 arrivals in [30 s, 32 s) and only a few (uniform arrivals start at t = 0) in [0, 2 s).
func TestBurstFollowsWallClock(t *testing.T) {
	src := `
name = "burst-clock"
start = "09:00:30"
duration = "1m"
[cluster]
nodes = 1
[table.fields]
id = { gen = "uniform", n = 10 }
[keyspace]
shards = 1
key = ["id"]
[[streams]]
name = "w"
op = "write"
rate = 1
arrival = "uniform"
cost = "1ms"
burst = { every = "1m", width = "2s", factor = 100 }
`
	sc, err := scenarios.LoadBytes("burst.toml", []byte(src), scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	arr := sc.Variants[0].Model().Streams[0].Arrivals
	r := rand.New(rand.NewPCG(1, 1))
	var early, burst int
	for at := arr.Next(r, 0); at < 60e9; at = arr.Next(r, at+1) {
		switch {
		case at < 2e9:
			early++
		case at >= 30e9 && at < 32e9:
			burst++
		}
	}
	if early > 10 || burst < 195 {
		t.Errorf("%d arrivals in the first 2 s and %d in [30 s, 32 s): want about 2 and 200 (the burst at 09:01:00)", early, burst)
	}
}
