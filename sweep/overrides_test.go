package sweep_test

import (
	"strings"
	"testing"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sweep"
)

// TestVaryBeatsVariant: a varied key reaches a variant that sets the key itself (SPEC 3.1).
// `sweep iot-timeseries --variant "(salt 4, ts), range" --vary keyspace.salt=1,4,16`
// printed identical rows labelled 1, 4, 16: the variant's salt = 4 won every time. The
// dashboard's fan-out is the bucket count, up to the 32 shards, so it tells the rows apart.
func TestVaryBeatsVariant(t *testing.T) {
	c := sweep.Config{
		Scenario:     "iot-timeseries",
		Options:      scenarios.Options{Variants: []string{"(salt 4, ts), range"}, Sets: []string{`duration="4s"`, `warmup="1s"`}},
		Axes:         []sweep.Axis{{Key: "keyspace.salt", Values: []string{"1", "4", "16"}}},
		Replications: 1,
		Parallel:     2,
	}
	if notes := strings.Join(c.Notes(), "\n"); !strings.Contains(notes, `note: --vary keyspace.salt replaces variant "(salt 4, ts), range"'s keyspace.salt = 4`) {
		t.Errorf("notes %q", notes)
	}
	rows, err := sweep.Run(c)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 4, 16}
	for i, r := range rows {
		var fan float64
		for _, s := range r.Streams {
			if s.Name == "dashboard_15m" {
				fan = s.Subrequests.Mean
			}
		}
		if fan != want[i] {
			t.Errorf("salt %s: dashboard fan-out %v, want %v (the varied value, not the variant's 4)", r.Point.Values[0], fan, want[i])
		}
	}
}

// TestVaryWithoutEffectRefused: a varied key that leaves a variant's model unchanged at two
// points is an error naming the key and the variant: vnodes matter only to ring hashing,
// and salt 0 and 1 both mean no salt.
func TestVaryWithoutEffectRefused(t *testing.T) {
	for _, tc := range []struct {
		axis    sweep.Axis
		variant string
	}{
		{sweep.Axis{Key: "keyspace.vnodes", Values: []string{"8", "16"}}, "(salt 4, ts), range"},
		{sweep.Axis{Key: "keyspace.salt", Values: []string{"0", "1"}}, "ts, range"},
	} {
		c := sweep.Config{
			Scenario:     "iot-timeseries",
			Options:      scenarios.Options{Variants: []string{tc.variant}, Sets: []string{`duration="4s"`, `warmup="1s"`}},
			Axes:         []sweep.Axis{tc.axis},
			Replications: 1, Parallel: 1,
		}
		_, err := sweep.Run(c)
		if err == nil || !strings.Contains(err.Error(), "--vary "+tc.axis.Key) || !strings.Contains(err.Error(), `"`+tc.variant+`" runs the same model`) {
			t.Errorf("%s: error %v", tc.axis.Key, err)
		}
	}
}
