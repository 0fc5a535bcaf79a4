package sim

import (
	"testing"

	"github.com/shardsim/shardsim/detect"
)

// TestReplaySamplesTie: two sampled successes on two workers at the same nanosecond
// cannot be put in one engine's order, and the merge says so; on one worker they keep the
// worker's order, and in time order they are added to the per-key statistics.
func TestReplaySamplesTie(t *testing.T) {
	e := &engine{part: &partition{}, streams: []streamState{{det: &streamDetect{nf: 1, lat: detect.NewKeyStats(8)}}}}
	worker := func(w int, logs ...sampleLog) *engine {
		for i := range logs {
			logs[i].worker, logs[i].seq = w, int64(i)
		}
		return &engine{part: &partition{worker: w, logged: logs}}
	}
	if why := e.replaySamples([]*engine{worker(0, sampleLog{t: 5, key: 1}), worker(1, sampleLog{t: 5, key: 2})}); why == "" {
		t.Error("a tie between two workers was replayed")
	}
	d := e.streams[0].det
	d.lat, d.latVals, d.latShrd = detect.NewKeyStats(8), nil, nil
	if why := e.replaySamples([]*engine{
		worker(0, sampleLog{t: 5, key: 1, shard: 3}, sampleLog{t: 5, key: 2, shard: 4}),
		worker(1, sampleLog{t: 4, key: 7, shard: 9}),
	}); why != "" {
		t.Fatalf("no tie between workers, yet: %s", why)
	}
	if want := []int32{9, 3, 4}; len(d.latShrd) != 3 || d.latShrd[0] != want[0] || d.latShrd[1] != want[1] || d.latShrd[2] != want[2] {
		t.Errorf("keys added with shards %v, want %v (time order, then the worker's)", d.latShrd, want)
	}
}
