// Package ratesfeedtest reads the records of a rates source in tests and
// runs the faults every polled rates source must survive (Polite).
package ratesfeedtest

import (
	"context"
	"testing"
	"time"

	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// Reader reads a source's records in the background until the test ends.
type Reader struct {
	ch chan sources.Record
}

// Read starts reading src; the source is closed when the test ends.
func Read(t testing.TB, src sources.Source) *Reader {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &Reader{ch: make(chan sources.Record, 4096)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			rec, err := src.Next(ctx)
			if err != nil {
				return
			}
			r.ch <- rec
		}
	}()
	t.Cleanup(func() {
		cancel()
		_ = src.Close()
		<-done
	})
	return r
}

// Take returns the next n records, failing the test when they do not come
// within d.
func (r *Reader) Take(t testing.TB, n int, d time.Duration) []sources.Record {
	t.Helper()
	out := make([]sources.Record, 0, n)
	deadline := time.After(d)
	for len(out) < n {
		select {
		case rec := <-r.ch:
			out = append(out, rec)
		case <-deadline:
			t.Fatalf("%d of %d records within %v", len(out), n, d)
		}
	}
	return out
}

// None fails the test when a record comes within d.
func (r *Reader) None(t testing.TB, d time.Duration) {
	t.Helper()
	select {
	case rec := <-r.ch:
		t.Fatalf("unexpected record %+v", rec)
	case <-time.After(d):
	}
}

// Split decodes the rates records and returns them with the dead letters.
func Split(t testing.TB, recs []sources.Record) (rates []*schemas.RatesRecord, dead []sources.Record) {
	t.Helper()
	for _, r := range recs {
		if r.Side == nil {
			if r.Reason == "" || r.DLQ != sidetopic.Rates.DLQ() {
				t.Fatalf("neither a rates record nor a rates dead letter: %+v", r)
			}
			dead = append(dead, r)
			continue
		}
		v, err := sidetopic.Rates.Decode(r.Side.Value)
		if err != nil {
			t.Fatal(err)
		}
		if err := schemas.ValidateRates(v); err != nil {
			t.Fatalf("an invalid record was emitted: %v", err)
		}
		rates = append(rates, v)
	}
	return rates, dead
}
