package scenario

import (
	"testing"

	"github.com/shardsim/shardsim/sim"
)

// TestClientsResolve: a bare think time is exponential; a table gives the distribution;
// load_factor scales the clients; a closed-loop stream's schedule is the rate its clients
// reach when nothing queues. (A row lock's part in the cycle is mechanisms/locks'
// TestLockKeys.)
func TestClientsResolve(t *testing.T) {
	f := minimal()
	var think Dist
	if err := think.DecodeTOML(map[string]any{"dist": "lognormal", "mean": "9ms", "cv": int64(2)}); err != nil {
		t.Fatal(err)
	}
	clients, lf := 10, 1.5
	f.LoadFactor = &lf
	rate := 5.0
	f.Streams = append(f.Streams, Stream{Name: "c", Op: OpRead, Cost: Dur("1ms"), Clients: &clients, Think: think})
	f.Streams[0].Rate = &rate
	s, probs := Resolve(&f)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	c := s.Streams[1]
	if c.Clients != 15 || c.Think != (sim.Delay{Kind: sim.Lognormal, Mean: 9 * sim.Millisecond, CV: 2}) {
		t.Errorf("clients %d, think %+v; want 15 (10 x 1.5) and a lognormal 9 ms, cv 2", c.Clients, c.Think)
	}
	if len(c.Schedule) != 1 || c.Schedule[0].Rate != 1500 {
		t.Errorf("closed-loop schedule %v, want 15 clients / 10 ms = 1,500/s", c.Schedule)
	}
	var bare Dist
	_ = bare.DecodeTOML("10ms")
	f.Streams[1].Think = bare
	s, _ = Resolve(&f)
	if k := s.Streams[1].Think.Kind; k != sim.Exponential {
		t.Errorf("a bare think time is %v, want exponential", k)
	}
}
