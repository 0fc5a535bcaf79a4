package trace

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
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
			if len(s) <= 20 && !bytes.ContainsAny(s, "\xc3~") && o.Text(o.Value(s)) != string(s) && kept(&o, s)+textTail >= len(s) {
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

// kept is how many leading bytes of s its code keeps before its last 8 characters: its
// prefix shared with the anchor, or with its bucket's anchor (see TextOrder).
func kept(o *TextOrder, s []byte) int {
	_, c, ref := o.place(s)
	if ref == nil {
		return c
	}
	return min(commonPrefix(ref, s), c+innerPrefix)
}

func isDecimal(b []byte) bool { _, ok := decimal(b); return ok }

// TestTextOrderISOAcrossYears: ISO-8601 times a second apart from 2029-12-31T23:00:00Z to
// 2030-01-01T05:00:00Z (six hours across a year boundary, the anchor the first) and the
// same six hours running backwards from the last (the anchor in 2030) get a distinct value
// each, in their byte order, which the 8 characters after where they leave the anchor
// ("2029-12-" against "2030-01-") cannot tell apart.
func TestTextOrderISOAcrossYears(t *testing.T) {
	start := time.Date(2029, 12, 31, 23, 0, 0, 0, time.UTC)
	const n = 6 * 3600
	for _, dir := range []int{1, -1} {
		var o TextOrder
		var pv uint64
		for i := 0; i <= n; i++ {
			s := i
			if dir < 0 {
				s = n - i
			}
			b := []byte(start.Add(time.Duration(s) * time.Second).Format("2006-01-02T15:04:05Z"))
			v := o.Value(b)
			if i > 0 && (dir > 0 && v <= pv || dir < 0 && v >= pv) {
				t.Fatalf("direction %d: %s has value %#x after %#x", dir, b, v, pv)
			}
			pv = v
		}
	}
}

// TestTextOrderRandomPairs: on random ISO-8601-, ULID- and UUID-like texts (seed 11; times
// drawn over 200 years, so that they leave the anchor at every depth) Value keeps the
// order of bytes.Compare for every pair, whichever text anchors the order and whatever
// order the texts were first seen in.
func TestTextOrderRandomPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 2))
	const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	texts := make([][]byte, 1500)
	for i := range texts {
		at := time.Unix(r.Int64N(200*365*86400)+946684800, r.Int64N(1e9)).UTC()
		var b []byte
		switch r.IntN(4) {
		case 0:
			b = []byte(at.Format("2006-01-02T15:04:05.000Z"))
		case 1:
			b = []byte(at.Format("2006-01-02T15:04:05Z07:00"))[:r.IntN(21)+1]
			if isDecimal(b) {
				b = append(b, '-')
			}
		case 2:
			for range 26 {
				b = append(b, crockford[r.IntN(32)])
			}
			b = b[:10+r.IntN(17)]
		default:
			b = fmt.Appendf(nil, "%08x-%04x-7%03x", at.UnixMilli()>>16, at.UnixMilli()&0xffff, r.IntN(1<<12))
		}
		texts[i] = b
	}
	for k := range 4 {
		var o TextOrder
		r.Shuffle(len(texts), func(i, j int) { texts[i], texts[j] = texts[j], texts[i] })
		for _, s := range texts { // every bucket anchored in the shuffled order
			o.See(s)
		}
		vals := make([]uint64, len(texts))
		for i, s := range texts {
			vals[i] = o.Value(s)
		}
		for i := range texts {
			for j := range texts {
				if bytes.Compare(texts[i], texts[j]) < 0 && vals[i] > vals[j] {
					t.Fatalf("shuffle %d (anchor %q): %q < %q but %#x > %#x", k, o.anchor, texts[i], texts[j], vals[i], vals[j])
				}
			}
		}
	}
}
