package diagnose

import (
	"fmt"
	"strings"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// hotKeys applies dominant_tenant and hot_key to each stream's hot keys.
func (f *finding) hotKeys() {
	for i := range f.HotKeys {
		hk := &f.HotKeys[i]
		st := f.stream(hk.Stream)
		if st == nil || hk.Counted <= 0 || f.locked[hk.Stream] {
			continue
		}
		verb := map[sim.Op]string{sim.Write: "writes", sim.Read: "reads", sim.Scan: "reads"}[st.Op]
		if verb == "" {
			verb = "requests"
		}
		info := f.Variant.StreamNamed(st.Name)
		dominant := f.tenants(hk, verb, info.TenantsDrawn)
		for _, k := range hk.Keys {
			// The rule judges the count the sketch guarantees (Count - Error); the message
			// cites the estimate.
			if metrics.Share(k.Count-k.Error, hk.Counted) <= max(hotKeyShare, FairBar(info.KeysDrawn)) || len(k.Values) >= 2 && dominant[k.Values[0]] {
				continue
			}
			f.hotKey(hk, k, st.Op, verb, info)
		}
	}
}

// tenant is the hot keys of a stream that share their first field's value.
type tenant struct {
	value  uint64
	name   string
	count  int64
	keys   int
	shards []int
}

// tenantsOf groups the hot keys of two or more fields by their first field's value.
func tenantsOf(keys []metrics.HotKey) []*tenant {
	var tenants []*tenant
	for _, k := range keys {
		if len(k.Values) < 2 {
			continue
		}
		var t *tenant
		for _, x := range tenants {
			if x.value == k.Values[0] {
				t = x
			}
		}
		if t == nil {
			t = &tenant{value: k.Values[0], name: firstField(k.Key, k.Values)}
			tenants = append(tenants, t)
		}
		t.count += k.Count - k.Error
		t.keys++
		t.shards = append(t.shards, k.Shard)
	}
	return tenants
}

// tenants applies dominant_tenant to a stream's tenants (of the nTenants its key's first
// field draws), and returns the first-field values it named.
func (f *finding) tenants(hk *metrics.HotKeys, verb string, nTenants uint64) map[uint64]bool {
	dominant := map[uint64]bool{}
	for _, t := range tenantsOf(hk.Keys) {
		sh := metrics.Share(t.count, hk.Counted)
		s := hottestOf(t.shards, f.loads)
		if t.keys < 2 || sh <= max(dominantShare, FairBar(nTenants)) || !f.hot(s) {
			continue
		}
		dominant[t.value] = true
		f.explained[s] = true
		ev := map[string]float64{"share": sh, "keys": float64(t.keys), "shard": float64(s), "shard_load": metrics.Util(f.loads[s]), "median_load": metrics.Util(f.med)}
		if nTenants > 0 {
			ev["tenants_drawn"] = float64(nTenants)
		}
		f.add(Diagnosis{Kind: "dominant_tenant", Subject: t.name,
			Message: fmt.Sprintf("%s takes at least %s of %s's %s (its %d hottest keys together); %s: carve it out, a directory entry giving it shards of its own",
				t.name, units.Percent(sh, 1), hk.Stream, verb, t.keys, f.shardWords(s)),
			Evidence: ev})
	}
	return dominant
}

// hotKey applies hot_key to key k of a stream of operation op, or dominant_tenant when one
// value of a low-cardinality first field (a tenant or a category list) has this much
// traffic: its rows are many, and a directory entry can give them shards of their own.
func (f *finding) hotKey(hk *metrics.HotKeys, k metrics.HotKey, op sim.Op, verb string, info metrics.StreamInfo) {
	// The key's shard now, or the one it lived on in the busiest window: a split (by load
	// or size) hands a hot key to the shard it creates, and the shard that was hot is then
	// its parent.
	s, movedTo := k.Shard, -1
	for !f.hot(s) && s >= 0 && s < len(f.Run.Shards) && f.Run.Shards[s].Parent >= 0 {
		s, movedTo = f.Run.Shards[s].Parent, k.Shard
	}
	if !f.hot(s) {
		return
	}
	f.explained[s] = true
	ev := map[string]float64{"share": k.Share, "count": float64(k.Count), "error": float64(k.Error),
		"shard": float64(s), "shard_load": metrics.Util(f.loads[s]), "median_load": metrics.Util(f.med)}
	if info.KeysDrawn > 0 {
		ev["keys_drawn"] = float64(info.KeysDrawn) // its fair share is one of them
	}
	where := f.shardWords(s)
	if movedTo >= 0 {
		where += fmt.Sprintf(" (a split has since handed the key to shard %s: a split cannot divide one key, it only moves it)", f.shardName(movedTo))
		ev["split_to"] = float64(movedTo)
	}
	large := metrics.Share(k.Count-k.Error, hk.Counted) > dominantShare
	if large && info.Tenants && len(k.Values) > 0 {
		f.add(Diagnosis{Kind: "dominant_tenant", Subject: k.Key,
			Message: fmt.Sprintf("%s takes %s of %s's %s; %s: one value this large is a tenant or a category, not an item: carve it out, a directory entry giving it shards of its own",
				k.Key, units.Percent(k.Share, 1), hk.Stream, verb, where),
			Evidence: ev})
		return
	}
	remedy := "cache it, or keep copies of it on several nodes"
	if op == sim.Write {
		remedy = "writes cannot be cached: shard its writes over several rows (salt this key, or keep N counter rows and sum them on read); if each write holds the row's lock, batch the updates too: the lock serializes them, so more cores or a split will not help"
	}
	if large {
		remedy = "one key this large cannot be spread by any key design, a directory entry or a split: " + remedy
	}
	f.add(Diagnosis{Kind: "hot_key", Subject: k.Key,
		Message:  fmt.Sprintf("%s takes %s of %s's %s; %s: %s", k.Key, units.Percent(k.Share, 1), hk.Stream, verb, where, remedy),
		Evidence: ev})
}

// hottestOf returns the shard of shards with the largest load (-1 for none).
func hottestOf(shards []int, loads []float64) int {
	best := -1
	for _, s := range shards {
		if s >= 0 && s < len(loads) && (best < 0 || loads[s] > loads[best]) {
			best = s
		}
	}
	return best
}

// firstField names a key's first field and value from its formatted name: the text up to
// the first ", " of "tenant_id=7, user_id=3" or "(tenant_id=7, user_id=3)"; the plain
// number when the key was not formatted with names.
func firstField(key string, values []uint64) string {
	k := strings.TrimPrefix(key, "(")
	if i := strings.Index(k, ", "); i > 0 && strings.Contains(k[:i], "=") {
		return k[:i]
	}
	return fmt.Sprint(values[0])
}
