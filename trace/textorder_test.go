package trace

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTextOrderKeepsOrder: for every pair of texts, s < t (bytes) gives Value(s) <=
// Value(t), and Float(s) <= Float(t) for texts that differ within 8 bytes of leaving the
// anchor. Texts are drawn (seed 7, 3,000 of them) from a small alphabet around a few
// shared prefixes, so that they leave the anchor at every depth, on both sides, and some
// are prefixes of others; every pair is compared.
func TestTextOrderKeepsOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	prefixes := []string{"", "2025-11-27T08:", "2025-11-27T08:00:0", "user:", "0190a5b2-3c4d-7"}
	texts := make([][]byte, 3000)
	for i := range texts {
		b := []byte(prefixes[r.IntN(len(prefixes))])
		for n := r.IntN(12); n > 0; n-- {
			b = append(b, "0159:-TZabz~\xc3"[r.IntN(13)])
		}
		if len(b) == 0 || isDecimal(b) {
			b = append(b, 'x')
		}
		texts[i] = b
	}
	for _, anchor := range [][]byte{texts[0], []byte("2025-11-27T08:00:05"), []byte("m")} {
		var o TextOrder
		o.See(anchor)
		slices.SortFunc(texts, bytes.Compare)
		prev := uint64(0)
		for i, s := range texts {
			v := o.Value(s)
			if i > 0 && v < prev {
				t.Fatalf("anchor %q: %q sorts after %q but its value %#x is below %#x", anchor, s, texts[i-1], v, prev)
			}
			prev = v
		}
		if got := o.Text(o.Value(anchor)); got != string(anchor) {
			t.Errorf("anchor %q: Text(Value) = %q", anchor, got)
		}
		for _, s := range texts {
			if len(s) <= 20 && !bytes.ContainsAny(s, "\xc3") && o.Text(o.Value(s)) != string(s) && commonPrefix(s, anchor)+textTail >= len(s) {
				t.Errorf("anchor %q: %q decodes to %q", anchor, s, o.Text(o.Value(s)))
			}
		}
	}
}

// TestTextOrderTimes: ISO-8601 times a second apart over a day get increasing values and
// non-decreasing floats (increasing from minute to minute; a float holds 53 bits of the
// 64 after the point where a time leaves the anchor), which the first 8 bytes
// ("2025-11-") could not tell apart.
func TestTextOrderTimes(t *testing.T) {
	var o TextOrder
	var pv uint64
	var pf float64
	for s := 0; s < 86400; s += 1 {
		b := []byte(fmt.Sprintf("2025-11-27T%02d:%02d:%02dZ", s/3600, s/60%60, s%60))
		v, f := o.Value(b), o.Float(b)
		if s > 0 && (v <= pv || f < pf || (s%60 == 0 && f == pf)) {
			t.Fatalf("%s: value %#x after %#x, float %g after %g", b, v, pv, f, pf)
		}
		pv, pf = v, f
	}
}

func isDecimal(b []byte) bool { _, ok := decimal(b); return ok }
