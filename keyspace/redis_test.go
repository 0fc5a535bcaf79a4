package keyspace

import (
	"strings"
	"testing"
)

// CRC16-XMODEM's check value (the CRC of "123456789") is 0x31C3; Redis's own crc16.c
// quotes the same figure.
func TestCRC16CheckValue(t *testing.T) {
	if got := CRC16([]byte("123456789")); got != 0x31C3 {
		t.Fatalf("CRC16(\"123456789\") = %#04x, want 0x31c3", got)
	}
	if got := CRC16(nil); got != 0 {
		t.Fatalf("CRC16(\"\") = %#04x, want 0", got)
	}
}

// The slots below were measured with CLUSTER KEYSLOT on redis-server 7.0.15 (Debian 12's
// package) in cluster mode; they cover hash tags, empty tags, nested braces and a brace
// without its pair.
func TestKeySlotMatchesRedis(t *testing.T) {
	for _, c := range []struct {
		key  string
		slot int
	}{
		{"123456789", 12739},
		{"somekey", 11058},
		{"foo", 12182},
		{"bar", 5061},
		{"{user1000}.following", 3443},
		{"{user1000}.followers", 3443},
		{"foo{}{bar}", 8363},
		{"foo{{bar}}zap", 4015},
		{"foo{bar}{zap}", 5061},
		{"{", 4092},
		{"}{", 12793},
		{"user:12345", 1800},
		{"12345", 5228},
		{"1:2", 3802},
		{"0", 13907},
		{"key:{tag7}:99", 12502},
	} {
		if got := KeySlot([]byte(c.key)); got != c.slot {
			t.Errorf("KeySlot(%q) = %d, want %d (CLUSTER KEYSLOT)", c.key, got, c.slot)
		}
	}
}

// EvenSlots must split as redis-cli --cluster create does (for three masters it printed
// 0-5460, 5461-10922, 10923-16383), and cover every slot once for any count.
func TestEvenSlots(t *testing.T) {
	got := EvenSlots(3)
	want := []SlotRange{{0, 5460}, {5461, 10922}, {10923, 16383}}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("EvenSlots(3) = %v, want %v", got, want)
		}
	}
	for _, n := range []int{1, 2, 5, 7, 100, 16384} {
		if err := CheckSlots(EvenSlots(n)); err != nil {
			t.Errorf("EvenSlots(%d): %v", n, err)
		}
	}
}

func TestCheckSlotsRefuses(t *testing.T) {
	for _, c := range []struct {
		ranges []SlotRange
		want   string
	}{
		{[]SlotRange{{0, 100}, {100, 16383}}, "overlaps range 0 at slot 100"},
		{[]SlotRange{{0, 100}, {102, 16383}}, "slot 101 is in no range"},
		{[]SlotRange{{0, 16384}}, "0 <= first <= last <= 16383"},
		{[]SlotRange{{5, 4}, {0, 16383}}, "0 <= first <= last"},
	} {
		err := CheckSlots(c.ranges)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckSlots(%v) = %v, want an error with %q", c.ranges, err, c.want)
		}
	}
}

// A generated key's text is its parts in decimal joined by ':' (slots from CLUSTER
// KEYSLOT above); a part read from a log as text gives the slot it carries; ranges given
// out of slot order still map each slot to its own range.
func TestRedisClusterShard(t *testing.T) {
	r := NewRedisCluster([]SlotRange{{10923, 16383}, {0, 5460}, {5461, 10922}}, 0)
	k := Key{N: 1}
	k.P[0] = 12345 // slot 5228
	if s, sh := r.Slot(&k), r.Shard(&k); s != 5228 || sh != 1 {
		t.Errorf("key 12345: slot %d shard %d, want 5228 and 1", s, sh)
	}
	k = Key{N: 2}
	k.P[0], k.P[1] = 1, 2 // "1:2", slot 3802
	if s := r.Slot(&k); s != 3802 {
		t.Errorf("key (1, 2): slot %d, want 3802", s)
	}
	k.P[0] = 0
	k.N = 1 // "0", slot 13907
	if sh := r.Shard(&k); sh != 0 {
		t.Errorf("key 0: shard %d, want 0", sh)
	}
	text := NewRedisCluster(EvenSlots(3), 1)
	k = Key{N: 1}
	k.P[0] = SlotValue(KeySlot([]byte("{user1000}.following")), Hash64(7))
	if s, sh := text.Slot(&k), text.Shard(&k); s != 3443 || sh != 0 {
		t.Errorf("text key: slot %d shard %d, want 3443 and 0", s, sh)
	}
	if a, b := SlotValue(9, 1), SlotValue(9, 2); a == b {
		t.Errorf("SlotValue drops the part's own value: %#x == %#x", a, b)
	}
	if n := testing.AllocsPerRun(100, func() { r.Shard(&k) }); n != 0 {
		t.Errorf("Shard allocates %.0f times a call, want 0", n)
	}
}
