package scenarios_test

import (
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// These tests run the built-in scenarios celebrity, iot-timeseries, country-codes and
// noisy-tenant at their own seeds and durations and check, in numbers, that each tells the
// story its description tells. The thresholds leave room around the values a run gives
// today (noted next to each check), so that they catch a broken story, not noise.

// otherStory holds the results of every variant of one built-in scenario.
type otherStory struct {
	t       *testing.T
	name    string
	results map[string]*sim.Result
}

// runOtherStory loads a built-in scenario by name and runs all its variants concurrently.
func runOtherStory(t *testing.T, name string, sets ...string) *otherStory {
	t.Helper()
	sc, err := scenarios.Load(name, scenarios.Options{Sets: sets})
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Variants) < 3 {
		t.Fatalf("%s has %d variants, want several", name, len(sc.Variants))
	}
	res := make([]*sim.Result, len(sc.Variants))
	var wg sync.WaitGroup
	for i, v := range sc.Variants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = sim.Run(v.Model())
		}()
	}
	wg.Wait()
	s := &otherStory{t: t, name: name, results: map[string]*sim.Result{}}
	for i, v := range sc.Variants {
		s.results[v.Name] = res[i]
	}
	return s
}

func (s *otherStory) result(variant string) *sim.Result {
	s.t.Helper()
	r, ok := s.results[variant]
	if !ok {
		s.t.Fatalf("%s: no variant %q", s.name, variant)
	}
	return r
}

func (s *otherStory) stream(variant, stream string) *sim.StreamResult {
	s.t.Helper()
	r := s.result(variant)
	for i := range r.Streams {
		if r.Streams[i].Name == stream {
			return &r.Streams[i]
		}
	}
	s.t.Fatalf("%s, %s: no stream %q", s.name, variant, stream)
	return nil
}

// loads returns every shard's load over the run (a fraction of its node's cores).
func (s *otherStory) loads(variant string) []float64 {
	r := s.result(variant)
	l := make([]float64, len(r.Shards))
	for i := range r.Shards {
		l[i] = r.Utilization(i)
	}
	return l
}

// hottest returns the shard with the highest load and that load.
func (s *otherStory) hottest(variant string) (int, float64) {
	l := s.loads(variant)
	i := 0
	for j, x := range l {
		if x > l[i] {
			i = j
		}
	}
	return i, l[i]
}

// median returns the median shard load (the mean of the middle two for an even count).
func (s *otherStory) median(variant string) float64 {
	l := slices.Clone(s.loads(variant))
	slices.Sort(l)
	n := len(l)
	if n%2 == 1 {
		return l[n/2]
	}
	return (l[n/2-1] + l[n/2]) / 2
}

// working counts the shards that served at least one request and the nodes that spent
// any CPU time.
func (s *otherStory) working(variant string) (shards, nodes int) {
	r := s.result(variant)
	for _, sh := range r.Shards {
		if sh.Ops > 0 {
			shards++
		}
	}
	for _, n := range r.Nodes {
		if n.Busy > 0 {
			nodes++
		}
	}
	return shards, nodes
}

// rows returns the rows written to each shard and their total.
func (s *otherStory) rows(variant string) ([]int64, int64) {
	r := s.result(variant)
	rows := make([]int64, len(r.Shards))
	var total int64
	for i, sh := range r.Shards {
		rows[i] = sh.Rows
		total += sh.Rows
	}
	if total == 0 {
		s.t.Fatalf("%s, %s: no rows written", s.name, variant)
	}
	return rows, total
}

// busy returns the CPU time the whole cluster spent, in seconds.
func (s *otherStory) busy(variant string) float64 {
	var b sim.Time
	for _, n := range s.result(variant).Nodes {
		b += n.Busy
	}
	return float64(b) / float64(sim.Second)
}

// fanout returns a stream's mean subrequests and mean partitions per request.
func (s *otherStory) fanout(variant, stream string) (subs, parts float64) {
	st := s.stream(variant, stream)
	if st.Offered == 0 {
		s.t.Fatalf("%s, %s: stream %s issued nothing", s.name, variant, stream)
	}
	return float64(st.Subrequests) / float64(st.Offered), float64(st.Partitions) / float64(st.Offered)
}

func (s *otherStory) p99(variant, stream string) float64 {
	return s.stream(variant, stream).QuantileMillis(0.99)
}

// celebrity: one key draws a fifth of the traffic; hashing and more shards leave it on one
// shard, a random salt spreads writes but multiplies read work.
func TestCelebrityStory(t *testing.T) {
	t.Parallel()
	s := runOtherStory(t, "celebrity")
	const (
		base    = "hash(user_id), 16 shards"
		doubled = "hash(user_id), 32 shards on 32 nodes"
		salted  = "salt 4 (random), 16 shards"
		hashed  = "salt 4 (hash of user_id), 16 shards"
	)
	for _, v := range []string{base, doubled, salted, hashed} {
		for _, st := range []string{"view_profile", "post_comment"} {
			if x := s.stream(v, st); x.Completed != x.Offered {
				t.Errorf("%s: %s completed %d of %d requests, want all", v, st, x.Completed, x.Offered)
			}
		}
	}

	// Base: the celebrity's shard near saturation, several times the median (today 90.4%
	// against 19.5%, 4.6x).
	_, hot16 := s.hottest(base)
	med16 := s.median(base)
	if hot16 < 0.85 || hot16 < 3*med16 {
		t.Errorf("%s: hottest shard %.3f, median %.3f; want >= 0.85 and >= 3x the median", base, hot16, med16)
	}

	// Twice the shards and nodes: the median shard's load falls by more than half, the hot
	// shard's by less than a fifth, so it is still >= 3x the median (today 80.4% against
	// 7.9%: 0.89 and 0.41 of the base, 10x).
	_, hot32 := s.hottest(doubled)
	med32 := s.median(doubled)
	if hot32 < 0.8*hot16 {
		t.Errorf("%s: hottest shard %.3f fell below 0.8x the 16-shard cluster's %.3f; the hot key should keep its load", doubled, hot32, hot16)
	}
	if med32 > 0.55*med16 {
		t.Errorf("%s: median shard %.3f, want at most 0.55x the 16-shard cluster's %.3f", doubled, med32, med16)
	}
	if hot32 < 3*med32 {
		t.Errorf("%s: hottest shard %.3f, median %.3f; want the hottest >= 3x the median", doubled, hot32, med32)
	}

	// Random salt: every profile read visits exactly 4 partitions (on at most 4 shards),
	// every comment 1; the cluster does more than twice the work (today 2.5x), the median
	// shard's load at least doubles (today 2.9x), the hottest shard gets no cooler (98.7%
	// against 90.4%) and the read p99 at least doubles (77 ms against 14.9 ms).
	subs, parts := s.fanout(salted, "view_profile")
	if parts != 4 || subs > 4 || subs < 3 {
		t.Errorf("%s: a profile read visits %.3f partitions on %.3f shards, want 4 partitions on 3 to 4 shards", salted, parts, subs)
	}
	if st := s.stream(salted, "view_profile"); st.MaxFanout > 4 {
		t.Errorf("%s: read fan-out up to %d shards, want at most 4", salted, st.MaxFanout)
	}
	if _, parts := s.fanout(salted, "post_comment"); parts != 1 {
		t.Errorf("%s: a comment writes %.3f partitions, want 1", salted, parts)
	}
	if b, a := s.busy(base), s.busy(salted); a < 2*b {
		t.Errorf("%s: cluster CPU %.0f s against %.0f s unsalted, want at least 2x", salted, a, b)
	}
	if m := s.median(salted); m < 2*med16 {
		t.Errorf("%s: median shard %.3f, want at least 2x the unsalted %.3f", salted, m, med16)
	}
	if _, h := s.hottest(salted); h < hot16 {
		t.Errorf("%s: hottest shard %.3f, want no cooler than unsalted (%.3f)", salted, h, hot16)
	}
	if a, b := s.p99(salted, "view_profile"), s.p99(base, "view_profile"); a < 2*b {
		t.Errorf("%s: read p99 %.1f ms, want at least 2x the unsalted %.1f ms", salted, a, b)
	}

	// Salt derived from user_id: reads visit one partition, and the celebrity stays on one
	// shard (today 86.8% against a median of 18.8%).
	if subs, parts := s.fanout(hashed, "view_profile"); subs != 1 || parts != 1 {
		t.Errorf("%s: a profile read visits %.3f partitions on %.3f shards, want 1", hashed, parts, subs)
	}
	if _, h := s.hottest(hashed); h < 3*s.median(hashed) || h < 0.8 {
		t.Errorf("%s: hottest shard %.3f, median %.3f; want >= 0.8 and >= 3x the median", hashed, h, s.median(hashed))
	}
}

// iot-timeseries: a raw time key puts every write on the last range shard; (device, day)
// spreads writes but the dashboard scatters; N salt buckets cut the hottest shard's writes
// to 1/N and cost N partitions per dashboard scan.
func TestIoTTimeseriesStory(t *testing.T) {
	t.Parallel()
	s := runOtherStory(t, "iot-timeseries")
	const (
		raw       = "ts, range"
		composite = "(device_id, day(ts)), hash"
	)
	salted := []struct {
		name string
		n    int
	}{{"(salt 4, ts), range", 4}, {"(salt 8, ts), range", 8}, {"(salt 16, ts), range", 16}}

	// Raw time key: >= 99% of new rows on one shard, the last (today all of them), which
	// runs at >= 90% (today 94.6%); the dashboard reads that shard alone.
	rows, total := s.rows(raw)
	last := len(rows) - 1
	if share := float64(rows[last]) / float64(total); share < 0.99 {
		t.Errorf("%s: the last shard holds %.4f of the new rows, want >= 0.99", raw, share)
	}
	hotRaw, loadRaw := s.hottest(raw)
	if hotRaw != last || loadRaw < 0.9 {
		t.Errorf("%s: hottest shard %d at %.3f, want the last shard (%d) at >= 0.90", raw, hotRaw, loadRaw, last)
	}
	if subs, parts := s.fanout(raw, "dashboard_15m"); subs != 1 || parts != 1 {
		t.Errorf("%s: the dashboard visits %.3f partitions on %.3f shards, want 1", raw, parts, subs)
	}

	// (device_id, day(ts)) hashed: rows within 10% of the median shard's everywhere
	// (today max/median 1.03), hottest load <= 10% (3.5%), and a dashboard that names no
	// device visits every shard, one partition each.
	rows, _ = s.rows(composite)
	sorted := slices.Clone(rows)
	slices.Sort(sorted)
	if maxMed := float64(sorted[len(sorted)-1]) / float64(sorted[len(sorted)/2]); maxMed > 1.1 {
		t.Errorf("%s: hottest shard holds %.3fx the median shard's rows, want <= 1.1", composite, maxMed)
	}
	if _, h := s.hottest(composite); h > 0.1 {
		t.Errorf("%s: hottest shard %.3f, want <= 0.10", composite, h)
	}
	if subs, parts := s.fanout(composite, "dashboard_15m"); subs != float64(len(rows)) || parts != float64(len(rows)) {
		t.Errorf("%s: the dashboard visits %.3f partitions on %.3f shards, want all %d", composite, parts, subs, len(rows))
	}

	// Salt N: exactly N shards take writes, the hottest about 1/N of them (at most 1.2/N);
	// the dashboard reads exactly N partitions; as N grows the fan-out grows and the
	// hottest shard's load falls (today 24.0%, 12.2%, 6.3%).
	prevParts, prevLoad := 0.0, loadRaw
	for _, sv := range salted {
		rows, total := s.rows(sv.name)
		writers := 0
		var top int64
		for _, r := range rows {
			if r > 0 {
				writers++
			}
			top = max(top, r)
		}
		if writers != sv.n {
			t.Errorf("%s: %d shards take writes, want %d", sv.name, writers, sv.n)
		}
		if share := float64(top) / float64(total); share > 1.2/float64(sv.n) {
			t.Errorf("%s: hottest shard holds %.4f of the rows, want <= 1.2/%d", sv.name, share, sv.n)
		}
		_, parts := s.fanout(sv.name, "dashboard_15m")
		if parts != float64(sv.n) {
			t.Errorf("%s: the dashboard reads %.3f partitions, want %d", sv.name, parts, sv.n)
		}
		if parts <= prevParts {
			t.Errorf("%s: dashboard partitions %.3f, want more than with fewer buckets (%.3f)", sv.name, parts, prevParts)
		}
		_, load := s.hottest(sv.name)
		if load >= 0.7*prevLoad {
			t.Errorf("%s: hottest shard %.3f, want below 0.7x the previous design's %.3f", sv.name, load, prevLoad)
		}
		prevParts, prevLoad = parts, load
	}
}

// country-codes: five values as the whole key keep 45 of 50 nodes idle; any key with a
// high-cardinality part uses all 50.
func TestCountryCodesStory(t *testing.T) {
	t.Parallel()
	s := runOtherStory(t, "country-codes")
	const code = "country, hash"
	spread := []string{"(country, user_id), hash", "(country, user_id), range", "user_id, hash"}

	// Country alone: at most 5 of 50 shards and nodes do any work (today exactly 5), India's
	// at >= 90% (94.3%), and the p99 is >= 3x that of every spread design (12.6 ms against
	// 2.8 ms).
	shards, nodes := s.working(code)
	if shards > 5 || nodes > 5 {
		t.Errorf("%s: %d shards and %d nodes did work, want at most 5 each", code, shards, nodes)
	}
	if r := s.result(code); len(r.Shards) != 50 || len(r.Nodes) != 50 {
		t.Fatalf("%s: %d shards on %d nodes, want 50 on 50", code, len(r.Shards), len(r.Nodes))
	}
	if _, h := s.hottest(code); h < 0.9 {
		t.Errorf("%s: hottest shard %.3f, want >= 0.90", code, h)
	}

	// Spread designs: all 50 shards and nodes work, the hottest within 25% of the median
	// (today 1.02x, 1.14x and 1.02x) and below 10% load (4.3% to 4.8%).
	for _, v := range spread {
		shards, nodes := s.working(v)
		if shards != 50 || nodes != 50 {
			t.Errorf("%s: %d shards and %d nodes did work, want all 50", v, shards, nodes)
		}
		_, h := s.hottest(v)
		if m := s.median(v); h > 1.25*m || h > 0.1 {
			t.Errorf("%s: hottest shard %.3f, median %.3f; want <= 0.10 and <= 1.25x the median", v, h, m)
		}
		for _, st := range []string{"record_event", "get_user"} {
			if a, b := s.p99(code, st), s.p99(v, st); a < 3*b {
				t.Errorf("%s: p99 %.2f ms with the country key, %.2f ms with %s; want at least 3x", st, a, b, v)
			}
		}
	}
}

// noisy-tenant: hashed by tenant, tenant 0 makes its shard hot and its neighbours' tail
// long; a directory isolates it.
func TestNoisyTenantStory(t *testing.T) {
	t.Parallel()
	s := runOtherStory(t, "noisy-tenant")
	const (
		hashTenant = "tenant_id, hash"
		ownShard   = "tenant_id, directory: own shard"
		fourShards = "(tenant_id, order_id), directory: 4 shards"
		hashOrder  = "(tenant_id, order_id), hash"
	)
	// Tenant 0's weight: 1000 of 1000 + 999.
	const share0 = 1000.0 / 1999

	// Hashed by tenant: tenant 0's shard at >= 90% (today 98.1%), >= 10x the median (15x).
	_, hot := s.hottest(hashTenant)
	if med := s.median(hashTenant); hot < 0.9 || hot < 10*med {
		t.Errorf("%s: hottest shard %.3f, median %.3f; want >= 0.90 and >= 10x the median", hashTenant, hot, med)
	}
	// The small tenants' p99 is >= 5x what it is under either directory (22.7 ms against
	// 2.4 ms), while their median is untouched (within 20%): only the neighbours suffer.
	p99Hash := s.p99(hashTenant, "small_tenant_view")
	p50Hash := s.stream(hashTenant, "small_tenant_view").QuantileMillis(0.5)
	for _, v := range []string{ownShard, fourShards} {
		if p := s.p99(v, "small_tenant_view"); p99Hash < 5*p {
			t.Errorf("small_tenant_view p99: %.2f ms hashed by tenant, %.2f ms with %s; want at least 5x", p99Hash, p, v)
		}
		if p := s.stream(v, "small_tenant_view").QuantileMillis(0.5); math.Abs(p50Hash-p) > 0.2*p {
			t.Errorf("small_tenant_view p50: %.2f ms hashed by tenant, %.2f ms with %s; want within 20%%", p50Hash, p, v)
		}
	}

	// Directory, own shard: shard 15 holds tenant 0's rows and nothing else (its share of
	// the rows within 0.01 of 1000/1999), and it is the hottest shard.
	rows, total := s.rows(ownShard)
	if sh := float64(rows[15]) / float64(total); math.Abs(sh-share0) > 0.01 {
		t.Errorf("%s: shard 15 holds %.4f of the rows, want tenant 0's %.4f", ownShard, sh, share0)
	}
	if h, _ := s.hottest(ownShard); h != 15 {
		t.Errorf("%s: hottest shard %d, want 15 (tenant 0's)", ownShard, h)
	}

	// Directory, four shards: shards 12-15 hold tenant 0's rows, about a quarter each
	// (0.10 to 0.15 of all rows), at most 0.35 load each (today 24.6%); the other twelve
	// share the rest.
	rows, total = s.rows(fourShards)
	var dedicated int64
	for i := 12; i < 16; i++ {
		dedicated += rows[i]
		if sh := float64(rows[i]) / float64(total); sh < 0.10 || sh > 0.15 {
			t.Errorf("%s: shard %d holds %.4f of the rows, want about %.4f", fourShards, i, sh, share0/4)
		}
	}
	if sh := float64(dedicated) / float64(total); math.Abs(sh-share0) > 0.01 {
		t.Errorf("%s: shards 12-15 hold %.4f of the rows, want tenant 0's %.4f", fourShards, sh, share0)
	}
	if _, h := s.hottest(fourShards); h > 0.35 {
		t.Errorf("%s: hottest shard %.3f, want <= 0.35", fourShards, h)
	}

	// Hashing (tenant_id, order_id) spreads everyone (hottest within 10% of the median)
	// but a tenant's order list then visits all 16 shards instead of one.
	if _, h := s.hottest(hashOrder); h > 1.1*s.median(hashOrder) {
		t.Errorf("%s: hottest shard %.3f, median %.3f; want within 10%%", hashOrder, h, s.median(hashOrder))
	}
	for v, want := range map[string]float64{hashTenant: 1, ownShard: 1, fourShards: 16, hashOrder: 16} {
		if subs, _ := s.fanout(v, "recent_orders"); subs != want {
			t.Errorf("%s: a tenant's order list visits %.3f shards, want %v", v, subs, want)
		}
	}
}
