package numfmt

import (
	"math"
	"testing"
)

func TestCount(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0", 7: "7", 999: "999", 1000: "1,000", 96048: "96,048", 1601625: "1,601,625",
		-1: "-1", -1000: "-1,000", -96048: "-96,048", math.MinInt64: "-9,223,372,036,854,775,808",
	} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
