package trace

import "io"

// OpRates counts a log's reads and writes in windows of equal width: Width starts at a
// second and doubles whenever the log outgrows maxRateBins windows, so memory does not
// grow with the log.
type OpRates struct {
	Width         int64 // ns
	Reads, Writes []int64
	End           int64 // time of the last record, ns
}

// Rates reads the log through and counts its operations by window.
func Rates(rd *Reader) (*OpRates, error) {
	o := &OpRates{Width: 1e9}
	for {
		// A row's operations fall in one second of the source clock, so in one window
		// (at least a second wide, at whole seconds from the first record's).
		rec, n, err := rd.NextRow()
		if err == io.EOF {
			return o, nil
		}
		if err != nil {
			return nil, err
		}
		for rec.T/o.Width >= maxRateBins {
			o.Reads, o.Writes = halve(o.Reads), halve(o.Writes)
			o.Width *= 2
		}
		b := int(rec.T / o.Width)
		for len(o.Reads) <= b {
			o.Reads, o.Writes = append(o.Reads, 0), append(o.Writes, 0)
		}
		if rec.Op == Read {
			o.Reads[b] += n
		} else {
			o.Writes[b] += n
		}
		o.End = rec.T
	}
}

// halve merges neighbouring windows.
func halve(c []int64) []int64 {
	for i := 0; i < len(c); i += 2 {
		s := c[i]
		if i+1 < len(c) {
			s += c[i+1]
		}
		c[i/2] = s
	}
	return c[:(len(c)+1)/2]
}
