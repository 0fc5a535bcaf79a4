package trace

import "github.com/shardsim/shardsim/internal/splitmix"

// FieldValue maps a key part to the value of a simulated field: a decimal number of at
// most 19 digits is itself (so ids keep their order under a range scheme), anything else a
// stable 64-bit hash of its bytes (FNV-1a, then SplitMix64's finalizer).
func FieldValue(b []byte) uint64 {
	if len(b) > 0 && len(b) <= 19 {
		var v uint64
		i := 0
		for ; i < len(b); i++ {
			c := b[i]
			if c < '0' || c > '9' {
				break
			}
			v = v*10 + uint64(c-'0')
		}
		if i == len(b) {
			return v
		}
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

// OrderValue maps a key part to a number that grows with it: a decimal number is itself,
// anything else its first eight bytes, big-endian (the order of the bytes).
func OrderValue(b []byte) uint64 {
	if len(b) > 0 && len(b) <= 19 {
		v, ok := parseInt(b)
		if ok && v >= 0 && b[0] != '+' && b[0] != '-' {
			return uint64(v)
		}
	}
	var v uint64
	for i := 0; i < 8; i++ {
		v <<= 8
		if i < len(b) {
			v |= uint64(b[i])
		}
	}
	return v
}
