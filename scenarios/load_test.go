package scenarios_test

import (
	"fmt"
	"testing"

	"github.com/shardsim/shardsim/scenarios"
)

func TestScratch(t *testing.T) {
	for _, p := range []string{"testdata/ring_variants.toml", "testdata/salted_time.toml", "/tmp/corpus/bad_variants.toml", "/tmp/corpus/many_errors.toml", "/tmp/corpus/decode_errors.toml", "/tmp/corpus/age_order.toml"} {
		sc, err := scenarios.Load(p, scenarios.Options{})
		fmt.Println(p, err)
		if err == nil {
			for _, v := range sc.Variants {
				m := v.Model()
				fmt.Println(v.Name, v.KeyDescription(), m.ShardNode, m.Nodes)
			}
		}
	}
}
