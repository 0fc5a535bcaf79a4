package trace

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReader: no input makes a reader panic or return a record that breaks its contract
// (times never decrease; as many parts as names; a key that is not empty).
func FuzzReader(f *testing.F) {
	f.Add(uint8(0), []byte("ts,op,key\n1,get,a:b\n0.5,set,a\n"))
	f.Add(uint8(1), []byte("5,k:1,1,1,1,get,0\n4,,,,,set,0\n6,x,1,1,1,frob,0\n"))
	f.Add(uint8(2), []byte("op_time,key,key_size,op,op_count,size,cache_hits,ttl,usecase,sub_usecase\n1,k,1,GET,3,1,1,0,1,1\n1,k,1,GET,-1,1,1,0,1,1\n"))
	f.Add(uint8(0), []byte("ts,op,a,b\n1,put,,\n"))
	f.Fuzz(func(t *testing.T, format uint8, data []byte) {
		opt := Options{Format: Format(format % 3), MaxBad: -1}
		if format&4 != 0 {
			opt.Delimiter, opt.Names = ":", []string{"x", "y"}
		}
		rd, err := NewReader(bytes.NewReader(data), opt)
		if err != nil {
			return
		}
		last := int64(0)
		for n := 0; n < 1_000_000; n++ {
			rec, err := rd.Next()
			if err == io.EOF {
				return
			}
			var be *BadError
			if errors.As(err, &be) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rec.T < last {
				t.Fatalf("time went back from %d to %d", last, rec.T)
			}
			last = rec.T
			if len(rec.Parts) != len(rd.Names()) || len(rec.Key) == 0 {
				t.Fatalf("record %+v with names %q", rec, rd.Names())
			}
		}
		// A kvcache row may stand for up to 10^9 operations: stop looking after a million.
	})
}
