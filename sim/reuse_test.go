package sim_test

import (
	"strings"
	"testing"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestModelRunsOnce: a model's generators, planners and splitter keep the state a run
// leaves, so running one model twice gave other results (iot-timeseries' p99 21 ms, then
// 2,898 ms). Run refuses the second use with a panic that names the cure, while a fresh
// model of the same variant repeats the first run exactly.
func TestModelRunsOnce(t *testing.T) {
	sc, err := scenarios.Load("iot-timeseries", scenarios.Options{Sets: []string{`duration="5s"`, `warmup="1s"`}})
	if err != nil {
		t.Fatal(err)
	}
	v := sc.Variants[0]
	m := v.Model()
	first := sim.Run(m)
	func() {
		defer func() {
			r := recover()
			if r == nil || !strings.Contains(r.(string), "build a fresh model for every run") {
				t.Errorf("second Run of one model: recovered %v, want a panic naming the cure", r)
			}
		}()
		sim.Run(m)
	}()
	again := sim.Run(v.Model())
	if a, b := first.Streams[0].QuantileMillis(0.99), again.Streams[0].QuantileMillis(0.99); a != b || first.Streams[0].Completed != again.Streams[0].Completed {
		t.Errorf("a fresh model of the same variant: p99 %v and %v, completed %d and %d", a, b, first.Streams[0].Completed, again.Streams[0].Completed)
	}
}
