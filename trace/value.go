package trace

import (
	"math"

	"github.com/shardsim/shardsim/internal/splitmix"
)

// FieldValue maps a key part to the value of a simulated field: a decimal number of at
// most 19 digits is itself (so ids keep their order under a range scheme), anything else a
// stable 64-bit hash of its bytes (FNV-1a, then SplitMix64's finalizer).
func FieldValue(b []byte) uint64 {
	if v, ok := decimal(b); ok {
		return v
	}
	return HashBytes(b)
}

// HashBytes is a stable 64-bit hash of b: FNV-1a (offset basis 14695981039346656037,
// prime 1099511628211) mixed by SplitMix64's finalizer.
func HashBytes(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return splitmix.Mix(h)
}

// TextOrder maps the values of one key part of one log to numbers in the byte order of
// their text, so that a range scheme and the monotonicity check see text keys (ISO-8601
// times, ULIDs, UUIDv7) in the order they sort in (docs/keys.md, "Text keys"). A decimal
// number of at most 19 digits is itself, as in FieldValue. Any other value is placed
// against the anchor, the first such value of the log: the code holds on which side of the
// anchor it sorts, where it first differs from the anchor (its common prefix with it, up
// to 127 bytes) and its next 8 characters, 7 bits each (ASCII; from the first byte above
// 0x7f on, the largest code). So s < t gives Value(s) <= Value(t) for every pair of texts;
// two texts that agree with each other up to 8 characters past where they leave the
// anchor share a value (they sort together, a split cannot fall between them).
//
// Every reader of a log (a replay, analyze, the sample that range splits are cut from)
// passes every record's parts through its TextOrder, so all of them anchor on the same
// value and agree on every code. The zero value is ready to use; only the first text
// value allocates (the anchor's copy).
type TextOrder struct {
	anchor []byte
	set    bool
}

const (
	textPrefixMax = 127 // the longest common prefix with the anchor that the code tells apart
	textTail      = 8   // characters kept after it, 7 bits each
)

// See anchors o on b when b is o's first text value; it is Value without the code.
func (o *TextOrder) See(b []byte) {
	if !o.set {
		if _, ok := decimal(b); !ok {
			o.anchor, o.set = append([]byte(nil), b...), true
		}
	}
}

// Value returns the order-keeping number of part value b (see TextOrder).
func (o *TextOrder) Value(b []byte) uint64 {
	if v, ok := decimal(b); ok {
		return v
	}
	o.See(b)
	a := o.anchor
	d := commonPrefix(a, b)
	c := min(d, textPrefixMax)
	switch {
	case d == len(a) && d == len(b): // the anchor itself: above every text below it, at or below every text above
		return 1<<63 | tail(a, textPrefixMax)
	case d == len(b) || (d < len(a) && b[d] < a[d]): // below the anchor: leaving it later is larger
		return uint64(c)<<56 | tail(b, c)
	default: // above the anchor: leaving it earlier is larger
		return 1<<63 | uint64(textPrefixMax-c)<<56 | tail(b, c)
	}
}

// Text returns a text that a code of o stands for: the anchor's prefix, then the code's
// bytes (a range split between text keys is shown this way); "" before o has an anchor.
func (o *TextOrder) Text(v uint64) string {
	if !o.set {
		return ""
	}
	c := int(v >> 56 & textPrefixMax)
	if v>>63 == 1 {
		c = textPrefixMax - c
	}
	c = min(c, len(o.anchor))
	out := append([]byte(nil), o.anchor[:c]...)
	for i := textTail - 1; i >= 0; i-- {
		out = append(out, byte(v>>(7*i)&0x7f))
	}
	for len(out) > c && out[len(out)-1] == 0 {
		out = out[:len(out)-1]
	}
	return string(out)
}

// Float returns a number for correlating a part with time, near linear in the time that a
// time-ordered text stands for: a decimal number is itself; a text is its
// distance from the anchor, both read from where they first differ as numerals of base
// 37 whose digits are 0-9 and the letters, case folded (so hex, Crockford's base32 and
// decimal digits count up in steps of one, where their bytes jump from '9' to 'a'); any
// other byte counts as 36 (so it follows the byte order within those classes of characters,
// which is where time-ordered ids and time stamps vary). A day of ISO-8601 times that all begin "2025-11-27T" is told
// apart to the millisecond this way, which the first 8 bytes alone never do.
func (o *TextOrder) Float(b []byte) float64 {
	if v, ok := decimal(b); ok {
		return float64(v)
	}
	o.See(b)
	a := o.anchor
	d := commonPrefix(a, b)
	var x float64
	w := 1.0
	for i := d; i < d+floatDigits; i++ {
		w /= 37
		x += float64(digit37(b, i)-digit37(a, i)) * w
	}
	return x * math.Pow(37, -float64(d))
}

// floatDigits is how many characters past the anchor's prefix Float reads: 37^12 is about
// 2^62, past a float64's 53 bits.
const floatDigits = 12

// digit37 is the base-37 digit of b[i] for Float: 0-9, the letters 10-35 (case folded),
// anything else 36; -1 past the end.
func digit37(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 36
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// tail is textTail characters of b from i on, 7 bits each, padded with zeros: ASCII as it
// is; a byte from 0x80 up reads as 0x7f and so do all after it (the largest code there
// is, so that the order is kept, the texts beyond it tie).
func tail(b []byte, i int) uint64 {
	var v uint64
	sat := false
	for j := i; j < i+textTail; j++ {
		v <<= 7
		switch {
		case sat:
			v |= 0x7f
		case j < len(b) && b[j] >= 0x80:
			v |= 0x7f
			sat = true
		case j < len(b):
			v |= uint64(b[j])
		}
	}
	return v
}
