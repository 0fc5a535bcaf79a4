package workload

import (
	"fmt"
	"testing"
)

var sinkU uint64
var sinkI int64

func BenchmarkZipf(b *testing.B) {
	for _, c := range []struct {
		n        uint64
		s        float64
		scramble bool
	}{
		{1_000_000_000, 0.5, false},
		{1_000_000_000, 0.99, false},
		{1_000_000_000, 0.99, true},
		{1_000_000_000, 1, false},
		{1_000_000_000, 1.2, false},
		{1000, 1.2, false},
		{1_000_000_000, 3, false},
	} {
		b.Run(fmt.Sprintf("n=%d/s=%v/scramble=%v", c.n, c.s, c.scramble), func(b *testing.B) {
			r := newRand(1)
			z := NewZipf(c.n, c.s, c.scramble)
			b.ReportAllocs()
			for b.Loop() {
				sinkU += z.Next(r, 0)
			}
		})
	}
}

func BenchmarkCategorical(b *testing.B) {
	for _, count := range []int{10, 1000, 1_000_000} {
		b.Run(fmt.Sprintf("weighted/count=%d", count), func(b *testing.B) {
			w := make([]float64, count)
			for i := range w {
				w[i] = float64(i%7 + 1)
			}
			r := newRand(1)
			g := NewCategorical(count, w)
			b.ReportAllocs()
			for b.Loop() {
				sinkU += g.Next(r, 0)
			}
		})
	}
	b.Run("uniform/count=1000", func(b *testing.B) {
		r := newRand(1)
		g := NewCategorical(1000, nil)
		b.ReportAllocs()
		for b.Loop() {
			sinkU += g.Next(r, 0)
		}
	})
}

func BenchmarkPoisson(b *testing.B) {
	for _, c := range []struct {
		name string
		s    Schedule
	}{
		{"constant", Schedule{{0, 1e5}}},
		{"ramp", Schedule{{0, 1e3}, {1 << 62, 1e6}}},
		{"steps", Schedule{{0, 1e6}, {1e9, 1e6}, {1e9, 0}, {2e9, 0}, {2e9, 1e6}, {3e9, 2e6}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := newRand(1)
			a := NewPoisson(c.s)
			t := int64(0)
			b.ReportAllocs()
			for b.Loop() {
				t = a.Next(r, t)
				if t > 3e9 && len(c.s) > 2 {
					t = 0
				}
			}
			sinkI += t
		})
	}
}

func BenchmarkUniformArrivals(b *testing.B) {
	r := newRand(1)
	a := NewUniformArrivals(Schedule{{0, 1e3}, {1 << 62, 1e6}})
	t := int64(0)
	b.ReportAllocs()
	for b.Loop() {
		t = a.Next(r, t)
	}
	sinkI += t
}

func BenchmarkGenerators(b *testing.B) {
	for _, g := range []struct {
		name string
		g    Generator
	}{
		{"Uniform", NewUniform(1e9)},
		{"Hotspot", NewHotspot(1e9, 0.2, 0.8)},
		{"UUID", NewUUID()},
		{"Snowflake", NewSnowflake()},
		{"Sequence", NewSequence()},
		{"Time", NewTime()},
	} {
		b.Run(g.name, func(b *testing.B) {
			r := newRand(1)
			t := int64(0)
			b.ReportAllocs()
			for b.Loop() {
				t += 1000
				sinkU += g.g.Next(r, t)
			}
		})
	}
}
