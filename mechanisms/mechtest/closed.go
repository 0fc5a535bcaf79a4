package mechtest

import (
	"fmt"
	"math"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
)

// What the mechanisms' closed-form tests share: a queueing model more than one compares
// with, and the docs' figures they check.

// Repairman is the closed machine-repairman model (M/M/1//W): w customers each spend a
// delay of mean d (any distribution: an infinite-server station) and then queue, FIFO,
// for one server with exponential service of mean h. Its stationary distribution has
// product form (BCMP), p(k queued or in service) ∝ w!/(w-k)! (h/d)^k, and it returns the
// server's throughput (1 - p(0)) / h and, by Little's law, the mean wait before service,
// w / X - d - h.
func Repairman(w int, d, h float64) (x, wait float64) {
	r, term, sum := h/d, 1.0, 1.0
	for k := 1; k <= w; k++ {
		term *= float64(w-k+1) * r
		sum += term
	}
	x = (1 - 1/sum) / h
	return x, float64(w)/x - d - h
}

// GroupInt writes n with its thousands grouped by commas, as the docs quote counts.
func GroupInt(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Grouped1 writes x with one decimal and its thousands grouped, as the docs quote rates.
func Grouped1(x float64) string {
	tenths := int64(math.Round(x * 10))
	return fmt.Sprintf("%s.%d", GroupInt(tenths/10), tenths%10)
}

// DocFigures checks the figures docs/mitigations.md quotes from a mechanism's test (owner,
// the markers' prefix) against the test's own, or rewrites them under make docs. It is
// called from a folder under mechanisms/.
func DocFigures(t *testing.T, owner string, figs map[string]string) {
	t.Helper()
	docmark.Figures(t, "../../docs/mitigations.md", owner, figs)
}
