package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// The Zipf draw's most popular rank must come up with probability 1 / H(n, s), where
// H(n, s) = sum of i^-s for i = 1..n. Seed 1, 200,000 draws over n = 100,000 keys at
// s = 0.99; tolerance 5 binomial standard deviations of the count.
func TestZipfTopRank(t *testing.T) {
	const n, draws, s = 100_000, 200_000, 0.99
	z := newZipf(n, s)
	r := rand.New(rand.NewPCG(1, 2))
	top := 0
	for range draws {
		if z.draw(r) == 0 {
			top++
		}
	}
	h := 0.0
	for i := 1; i <= n; i++ {
		h += math.Pow(float64(i), -s)
	}
	p := 1 / h
	want, sd := p*draws, math.Sqrt(draws*p*(1-p))
	if math.Abs(float64(top)-want) > 5*sd {
		t.Fatalf("rank 0 drawn %d times in %d, want %.0f +- %.0f (5 sd)", top, draws, want, 5*sd)
	}
}

// One key id in ten has a hash tag, and such a key's slot is its tag's.
func TestSlotKeyTags(t *testing.T) {
	tagged := 0
	for id := range 1000 {
		k := slotKey(id)
		if !strings.Contains(k, "{") {
			continue
		}
		tagged++
		tag := k[strings.IndexByte(k, '{')+1 : strings.IndexByte(k, '}')]
		if keyspace.KeySlot([]byte(k)) != keyspace.KeySlot([]byte(tag)) {
			t.Errorf("%s: slot %d, its tag %q's is %d", k, keyspace.KeySlot([]byte(k)), tag, keyspace.KeySlot([]byte(tag)))
		}
	}
	if tagged != 100 {
		t.Errorf("%d of 1,000 key ids have a hash tag, want 100", tagged)
	}
}

// The replay that experiment 2 runs, without Redis: a trace of 5,000 commands on the
// experiment's keys, four uneven slot ranges on three nodes (node 0 holds two), replayed by
// the engine under scheme = "redis_cluster"; each node's operations must equal the count
// of the trace's keys whose slot (keyspace.KeySlot) is in that node's ranges.
func TestSlotsReplayCountsPerNode(t *testing.T) {
	dir := t.TempDir()
	ranges := []slotRange{{0, 3000, 0}, {3001, 9000, 1}, {9001, 12000, 2}, {12001, 16383, 0}}
	var b strings.Builder
	b.WriteString("ts,op,key\n")
	z := newZipf(100_000, 0.99)
	r := rand.New(rand.NewPCG(3, 4))
	want := make([]int64, 3)
	for i := range 5000 {
		k := slotKey(z.draw(r))
		op := "get"
		if i%10 == 0 {
			op = "set"
		}
		fmt.Fprintf(&b, "%.6f,%s,%s\n", float64(i)/1000, op, k)
		slot := keyspace.KeySlot([]byte(k))
		for _, sr := range ranges {
			if slot >= sr.First && slot <= sr.Last {
				want[sr.Node]++
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "trace.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "slots.toml")
	if err := os.WriteFile(path, []byte(slotsScenario("trace.csv", 5, ranges, 3)), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Load(path, scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := sim.Run(compile.Model(sc.Variants[0].Spec))
	got := make([]int64, 3)
	for i, ops := range res.ShardOps {
		s := i % len(res.Shards)
		got[res.Shards[s].Node] += ops
	}
	for n := range want {
		if got[n] != want[n] {
			t.Errorf("node %d: replay %d ops, want %d (keys whose slot is in its ranges); all: %v vs %v", n, got[n], want[n], got, want)
		}
	}
}

// The generated models must be scenarios shardsim accepts.
func TestModelScenariosLoad(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"counter":       counterScenario(8, 4, 2, calibration{CostUs: 120, LockUs: 200}),
		"hot":           hotScenario(5000, 0, 20, 100),
		"cap":           hotScenario(0, 64, 20, 100),
		"open":          counterOpenScenario(150, 2, calibration{CostUs: 87, LockUs: 2416}),
		"counter-mechs": counterScenario(8, 4, 2, calibration{CostUs: 120, LockUs: 200, Grant: "random", WakeUs: 15, FlushUs: 2700, Release: "commit"}),
		"open-mechs":    counterOpenScenario(150, 2, calibration{CostUs: 87, LockUs: 2416, Grant: "random", WakeUs: 15}),
		"quota":         quotaScenario(50, 80, 90),
	} {
		path := filepath.Join(dir, name+".toml")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := scenarios.Load(path, scenarios.Options{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A server that dies is named with its pid and log; stopAll stops the rest by pid and
// leaves none running. sleep stands in for a server.
func TestServerDeathAndStop(t *testing.T) {
	dir := t.TempDir()
	a, err := start("sleeper a", filepath.Join(dir, "a.log"), syscall.SIGTERM, nil, dir, "/bin/sleep", "100")
	if err != nil {
		t.Skipf("cannot start /bin/sleep: %v", err)
	}
	b, err := start("sleeper b", filepath.Join(dir, "b.log"), syscall.SIGTERM, nil, dir, "/bin/sleep", "100")
	if err != nil {
		t.Fatal(err)
	}
	if err := anyDead(); err != nil {
		t.Fatalf("before any death: %v", err)
	}
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-a.done
	err = anyDead()
	if err == nil || !strings.Contains(err.Error(), "sleeper a") || !strings.Contains(err.Error(), fmt.Sprint(a.cmd.Process.Pid)) {
		t.Fatalf("after killing a: %v, want an error naming sleeper a and its pid", err)
	}
	stopped := stopAll()
	if len(stopped) != 2 {
		t.Errorf("stopAll: %v, want both servers", stopped)
	}
	select {
	case <-b.done:
	case <-time.After(5 * time.Second):
		t.Fatal("sleeper b still runs after stopAll")
	}
	if err := syscall.Kill(b.cmd.Process.Pid, 0); err == nil {
		t.Errorf("pid %d still exists", b.cmd.Process.Pid)
	}
	serversMu.Lock()
	servers, stopping = nil, false
	serversMu.Unlock()
}

// A busy port is refused with its number before anything starts.
func TestPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	err = portFree(port)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("port %d is already in use", port)) {
		t.Fatalf("portFree(%d) with a listener on it: %v", port, err)
	}
}

// -predict refuses a file it cannot read, one that is not JSON and one that holds no
// experiment, each with an error naming the flag, before it starts anything.
func TestRepredictRefusesBadData(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "absent.json"), "-predict: open "},
		{write("garbage.json", "nope"), "not a data file of validate-real"},
		{write("empty.json", "{}"), "holds no experiment's measurements"},
	} {
		_, err := repredict(t.Context(), config{predict: c.path, out: filepath.Join(dir, "out.md")})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.path, err, c.want)
		}
	}
}
