// Package splitmix holds the finalizer of SplitMix64, the one 64-bit mixing function the
// key hashes, the Zipf scramble's round keys and the detection sketches share.
package splitmix

// Mix is the finalizer of SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom
// number generators", OOPSLA 2014; the constants are David Stafford's "Mix13"): a
// bijection on uint64 whose every output bit depends on every input bit. Results depend on
// it (shard placement, scrambled ids), so it must never change.
func Mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
