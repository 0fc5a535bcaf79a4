package compile

import (
	"fmt"
	"slices"
	"testing"

	"github.com/shardsim/shardsim/scenario"
)

// TestCheckLimits: a variant whose series, histograms or requests would not fit gets the
// problem at the key to change, after the problems found before; the request bound is
// left unchecked when the file has problems already (they say what to fix first).
func TestCheckLimits(t *testing.T) {
	file := func(nodes, shards, streams int, rate float64, window string) scenario.File {
		n := int64(100)
		f := scenario.File{
			Name: "limits", Duration: scenario.Dur("1h"), Window: scenario.Dur(window),
			Cluster:  scenario.Cluster{Nodes: &nodes},
			Table:    scenario.Table{Fields: map[string]scenario.Field{"id": {Gen: scenario.GenUniform, N: &n}}},
			Keyspace: scenario.Keyspace{Shards: &shards, Key: []string{"id"}},
		}
		for i := range streams {
			f.Streams = append(f.Streams, scenario.Stream{Name: fmt.Sprintf("s%d", i), Op: scenario.OpWrite, Rate: &rate, Cost: scenario.Dur("1ms")})
		}
		return f
	}
	earlier := scenario.FieldError{Key: "seed", Msg: "must not be negative (got -1)"}
	cases := []struct {
		name   string
		f      scenario.File
		before []scenario.FieldError
		want   []string
	}{
		{"fits", file(2, 4, 1, 10, "1m"), nil, nil},
		{"series past 20 million cells", file(10_000, 1, 1, 10, "1s"), nil, []string{
			"window: 3600 windows x 10001 shards and nodes need about 824 MB of time series; at most 20000000 cells (about 457 MB) are allowed: use a wider window"}},
		{"streamed shards, node series past 20 million cells", file(10_000, 1000, 1, 10, "1s"), nil, []string{
			"window: 3600 windows x 10000 nodes need about 823 MB of node time series (the shard series are streamed to shards.csv); at most 20000000 cells (about 457 MB) are allowed: use a wider window"}},
		{"stream-windows past 200,000", file(2, 4, 60, 10, "1s"), nil, []string{
			"window: 3600 windows x 60 streams keep 216000 latency histograms; at most 200000 stream-windows are allowed: use a wider window"}},
		{"requests past 10^10", file(2, 4, 1, 1e7, "1m"), nil, []string{
			"streams[0]: the streams would issue about 3.6e+10 requests in the run (this one 3.6e+10); at most 1e+10 are allowed: lower the rates, the load_factor or the duration"}},
		{"requests unchecked after other problems", file(2, 4, 1, 1e7, "1m"), []scenario.FieldError{earlier}, []string{
			"seed: must not be negative (got -1)"}},
	}
	for _, c := range cases {
		s, probs := scenario.Resolve(&c.f)
		if len(probs) > 0 {
			t.Fatalf("%s: %v", c.name, probs)
		}
		var got []string
		for _, p := range CheckLimits(s, c.before) {
			got = append(got, p.Key+": "+p.Msg)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
