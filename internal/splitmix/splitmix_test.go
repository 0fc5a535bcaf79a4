package splitmix

import "testing"

// TestMixReference checks Mix against the reference SplitMix64 generator (Vigna's
// splitmix64.c), whose k-th output from state s is Mix(s + k·0x9e3779b97f4a7c15): the
// first outputs from seed 0 and seed 1234567 are published test values.
func TestMixReference(t *testing.T) {
	const gamma = 0x9e3779b97f4a7c15
	for _, c := range []struct {
		seed uint64
		want []uint64
	}{
		{0, []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}},
		{1234567, []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423}},
	} {
		s := c.seed
		for k, want := range c.want {
			s += gamma
			if got := Mix(s); got != want {
				t.Errorf("seed %d output %d: %#x, want %#x", c.seed, k, got, want)
			}
		}
	}
}
