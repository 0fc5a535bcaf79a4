package trace

import (
	"math"
	"strings"

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
// number of at most 19 digits is itself, as in FieldValue. Any other value is placed in
// two steps. First against the anchor, the first such value of the log: the top byte of
// the code holds on which side of the anchor it sorts and where it first leaves the anchor
// (its common prefix with it, up to 127 bytes). The texts that share that top byte form a
// bucket, and the first of them in the log is the bucket's own anchor: the other 56 bits
// hold, the same way, on which side of the bucket's anchor the text sorts, how much further
// than the bucket's prefix it agrees with it (up to 31 bytes more), then the next 8
// characters after that, each a rank of 75 (byteRanks: the end of the text, each of
// + , - . / 0-9 : A-Z _ a-z, and one rank for each run of other bytes between them; after
// a byte of such a run the rest reads as a constant). So a log whose keys leave the
// anchor early (times on the other side of a year, month or day boundary from the first)
// is still told apart where its keys differ from each other. The anchor's own bucket (prefix 127 or more) keeps 8
// characters of 7 bits each after the prefix. s < t gives Value(s) <= Value(t) for every
// pair of texts; two texts of one bucket that agree with each other up to 8 characters
// past where they leave the bucket's anchor share a value (they sort together, a split
// cannot fall between them).
//
// Every reader of a log (a replay, analyze, the sample that range splits are cut from)
// passes every record's parts, in the log's order, through its TextOrder (Value or See),
// so all of them anchor on the same values and agree on every code. The zero value is ready
// to use; only the first text value of the log and the first of each bucket allocate (a
// copy of at most 165 bytes; 254 buckets at most, their table allocated with the first).
type TextOrder struct {
	anchor []byte
	set    bool
	// buckets[s][c] is the anchor of the texts that leave the anchor at byte c, below it
	// (s 0) or above it (s 1); nil until the first of them (c < textPrefixMax).
	buckets *[2][textPrefixMax][]byte
}

const (
	textPrefixMax = 127 // the longest common prefix with an anchor that the code tells apart
	textTail      = 8   // characters kept after the anchor's own prefix, 7 bits each
	innerPrefix   = 31  // how much longer a prefix shared with a bucket's anchor is told apart
	innerTail     = 8   // characters kept after a bucket anchor's prefix, a rank of 75 each
	rankBase      = 75  // byteRanks' ranks: 75^8 < 2^50
)

// See passes b through o without its code: b anchors o when it is o's first text value,
// and its bucket when it is the bucket's first.
func (o *TextOrder) See(b []byte) {
	if _, ok := decimal(b); !ok {
		o.place(b)
	}
}

// place anchors o (or b's bucket) on b if it is the first there, and returns b's side of
// the anchor (0 below, 1 above, 2 the anchor itself or a prefix of 127 bytes or more
// shared with it), its common prefix with the anchor (at most textPrefixMax) and its
// bucket's anchor (nil for side 2).
func (o *TextOrder) place(b []byte) (side, c int, ref []byte) {
	if !o.set {
		o.anchor, o.set = append([]byte(nil), b...), true
	}
	a := o.anchor
	d := commonPrefix(a, b)
	c = min(d, textPrefixMax)
	switch {
	case c == textPrefixMax || (d == len(a) && d == len(b)):
		return 2, c, nil
	case d == len(b) || (d < len(a) && b[d] < a[d]):
		side = 0
	default:
		side = 1
	}
	if o.buckets == nil {
		o.buckets = new([2][textPrefixMax][]byte)
	}
	ref = o.buckets[side][c]
	if ref == nil {
		// Past c+31+8 bytes no code reads a bucket's anchor.
		ref = append([]byte(nil), b[:min(len(b), c+innerPrefix+innerTail)]...)
		o.buckets[side][c] = ref
	}
	return side, c, ref
}

// Value returns the order-keeping number of part value b (see TextOrder).
func (o *TextOrder) Value(b []byte) uint64 {
	if v, ok := decimal(b); ok {
		return v
	}
	side, c, ref := o.place(b)
	a := o.anchor
	switch side {
	case 2:
		d := commonPrefix(a, b)
		if d == len(b) && d < len(a) || d < len(a) && d < len(b) && b[d] < a[d] { // below, past 127 bytes
			return uint64(c)<<56 | tail(b, c)
		}
		// The anchor itself, or above it past 127 bytes: leaving it earlier is larger (the
		// anchor's code is above every text below it, at or below every text above).
		return 1<<63 | tail(b, c)
	case 0:
		return uint64(c)<<56 | inner(ref, b, c)
	}
	return 1<<63 | uint64(textPrefixMax-c)<<56 | inner(ref, b, c)
}

// inner is the low 56 bits of the code of b in the bucket whose anchor is ref and whose
// texts leave the log's anchor at byte c: b's side of ref (1 bit), how far past c it
// agrees with ref (up to 31, 5 bits) and innerTail ranked characters after that (50 bits).
func inner(ref, b []byte, c int) uint64 {
	d := commonPrefix(ref, b)
	e := min(d-c, innerPrefix)
	switch {
	case d == len(ref) && d == len(b): // the bucket's anchor itself
		return 1<<55 | rankTail(b, c+innerPrefix)
	case d == len(b) || (d < len(ref) && b[d] < ref[d]): // below it: leaving it later is larger
		return uint64(e)<<50 | rankTail(b, c+e)
	}
	return 1<<55 | uint64(innerPrefix-e)<<50 | rankTail(b, c+e) // above it: leaving it earlier is larger
}

// Text returns a text that a code of o stands for: the prefix the code shares with its
// anchor (the log's, then its bucket's), then the code's characters (a range split between
// text keys is shown this way); "" before o has an anchor.
func (o *TextOrder) Text(v uint64) string {
	if !o.set {
		return ""
	}
	c := int(v >> 56 & textPrefixMax)
	side := int(v >> 63)
	if side == 1 {
		c = textPrefixMax - c
	}
	var ref []byte
	if c < textPrefixMax && o.buckets != nil {
		ref = o.buckets[side][c]
	}
	if ref == nil { // the anchor's own bucket (or one o never saw): 8 characters of 7 bits
		c = min(c, len(o.anchor))
		out := append([]byte(nil), o.anchor[:c]...)
		for i := textTail - 1; i >= 0; i-- {
			out = append(out, byte(v>>(7*i)&0x7f))
		}
		return string(trimEnd(out, c))
	}
	e := int(v >> 50 & innerPrefix)
	if v>>55&1 == 1 {
		e = innerPrefix - e
	}
	p := min(c+e, len(ref))
	out := append([]byte(nil), ref[:p]...)
	t := v & (1<<50 - 1)
	var digits [innerTail]byte
	for i := innerTail - 1; i >= 0; i-- {
		digits[i] = shownByte(int(t % rankBase))
		t /= rankBase
	}
	return string(trimEnd(append(out, digits[:]...), p))
}

// trimEnd drops the zero bytes (the end of the text) from the end of out, down to n bytes.
func trimEnd(out []byte, n int) []byte {
	for len(out) > n && out[len(out)-1] == 0 {
		out = out[:len(out)-1]
	}
	return out
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

// rankTail is innerTail characters of b from i on as a numeral of base rankBase (byteRank),
// padded with the end's rank 0: after a byte whose rank it shares with other bytes every
// digit is that rank, so that texts differing only past it tie.
func rankTail(b []byte, i int) uint64 {
	var v uint64
	fill := -1
	for j := i; j < i+innerTail; j++ {
		r := 0
		switch {
		case fill >= 0:
			r = fill
		case j < len(b):
			r = int(byteRanks[b[j]])
			if rankBytes[r] == 0 {
				fill = r
			}
		}
		v = v*rankBase + uint64(r)
	}
	return v
}

// byteRanks is each byte's digit in rankTail, in byte order: 0 is the end of the text; each
// of the bytes rankAlphabet lists has a rank of its own; each run of other bytes before,
// between and after them shares one. rankBytes is the byte that Text shows for a rank, 0
// for a shared one.
var byteRanks, rankBytes = makeRanks()

const rankAlphabet = "+,-./0123456789:ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"

func makeRanks() (ranks [256]byte, bytes [rankBase]byte) {
	r, gap := 0, false
	for c := 0; c < 256; c++ {
		if strings.IndexByte(rankAlphabet, byte(c)) >= 0 {
			r++
			ranks[c], bytes[r], gap = byte(r), byte(c), false
			continue
		}
		if !gap {
			r++
			gap = true
		}
		ranks[c] = byte(r)
	}
	if r != rankBase-1 {
		panic("trace: rankBase is not byteRanks' count")
	}
	return ranks, bytes
}

// shownByte is the byte Text shows for rank r: its own byte, or for a rank that a run of
// bytes shares the run's first.
func shownByte(r int) byte {
	if r == 0 || rankBytes[r] != 0 {
		return rankBytes[r]
	}
	for c := 0; c < 256; c++ {
		if int(byteRanks[c]) == r {
			return byte(c)
		}
	}
	return 0
}
