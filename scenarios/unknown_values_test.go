package scenarios_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/scenarios"
)

// TestUnknownValuesListValid: every key whose value is one of a fixed set of words, given
// a word outside it (in the file and by --set), is refused with a message that lists every
// valid word, quoted; the list of generators holds the new uuidv4, uuidv7, ulid and ksuid.
// (An issue quoted `unknown generator "uuidv7": want one of ;`, an empty list.)
func TestUnknownValuesListValid(t *testing.T) {
	base := `name = "u"
duration = "10s"
[cluster]
nodes = 2
[table.fields]
id = { gen = "uuid" }
ts = { gen = "time" }
[keyspace]
scheme = "range"
shards = 4
key = ["id"]
[[streams]]
name = "w"
op = "write"
rate = 100
cost = "1ms"
`
	cases := []struct {
		set   string
		valid []string
	}{
		{`table.fields.id.gen="uuidv8"`, []string{"uniform", "zipf", "hotspot", "categorical", "snowflake", "sequence", "time", "uuid", "uuidv4", "uuidv7", "ulid", "ksuid"}},
		{`streams.w.fields={ id = { gen = "v7" } }`, []string{"uniform", "snowflake", "uuidv7", "ulid", "ksuid"}},
		{`keyspace.scheme="ranges"`, []string{"hash", "range", "directory"}},
		{`keyspace.hash="crc"`, []string{"modulo", "ring"}},
		{`keyspace.salt_mode="x"`, []string{"random", "round_robin", "hash"}},
		{`cluster.placement="x"`, []string{"round_robin", "random", "explicit"}},
		{`streams.w.op="x"`, []string{"write", "read", "scan"}},
		{`streams.w.arrival="x"`, []string{"poisson", "uniform"}},
		{`streams.w.service="x"`, []string{"exponential", "constant", "lognormal"}},
		{`keyspace.splits="x"`, []string{"history"}},
	}
	for _, c := range cases {
		_, err := scenarios.LoadBytes("u.toml", []byte(base), scenarios.Options{Sets: []string{c.set}})
		if err == nil {
			t.Errorf("--set %s: accepted", c.set)
			continue
		}
		for _, v := range c.valid {
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", v)) {
				t.Errorf("--set %s: %q does not list %q", c.set, err, v)
			}
		}
		if strings.Contains(err.Error(), "one of ;") || strings.Contains(err.Error(), "one of  (") {
			t.Errorf("--set %s: empty list in %q", c.set, err)
		}
	}
	// In the file, at its line.
	src := strings.Replace(base, `id = { gen = "uuid" }`, `id = { gen = "uuidv8" }`, 1)
	_, err := scenarios.LoadBytes("u.toml", []byte(src), scenarios.Options{})
	if want := `u.toml:6: table.fields.id.gen: unknown generator "uuidv8": want one of "uniform", "zipf", "hotspot", "categorical", "snowflake", "sequence", "time", "uuid", "uuidv4", "uuidv7", "ulid", "ksuid"`; !strings.Contains(err.Error(), want) {
		t.Errorf("got %q, want %q", err, want)
	}
}
