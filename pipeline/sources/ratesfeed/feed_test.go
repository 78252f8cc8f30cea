package ratesfeed

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/schemas"
)

type collector struct{ recs []sources.Record }

func (c *collector) emit(_ context.Context, r sources.Record) error {
	c.recs = append(c.recs, r)
	return nil
}

func (c *collector) decoded(t *testing.T) []*schemas.RatesRecord {
	t.Helper()
	var out []*schemas.RatesRecord
	for _, r := range c.recs {
		if r.Side == nil {
			continue
		}
		if r.Side.Topic != schemas.TopicRates {
			t.Fatalf("topic %s", r.Side.Topic)
		}
		v, err := sidetopic.Rates.Decode(r.Side.Value)
		if err != nil {
			t.Fatal(err)
		}
		if string(r.Side.Key) != schemas.RatesKey(v) {
			t.Fatalf("key %s for %v", r.Side.Key, v)
		}
		out = append(out, v)
	}
	return out
}

func curve(tenYear float64) *schemas.YieldCurve {
	return &schemas.YieldCurve{Kind: schemas.CurveKind_CURVE_KIND_PAR_NOMINAL, Date: "2024-10-10",
		Points: []*schemas.CurvePoint{{Tenor: "2Y", Percent: 3.98}, {Tenor: "10Y", Percent: tenYear}}}
}

func TestObserve(t *testing.T) {
	clk := clock.NewFake(time.Date(2024, 10, 10, 22, 0, 0, 0, time.UTC))
	var c collector
	f := New("treasury:par", "U.S. Department of the Treasury", c.emit, clk)
	ctx := context.Background()
	n, err := f.Observe(ctx, "https://home.treasury.gov/x", clk.Now(), curve(4.09))
	if err != nil || n != 1 {
		t.Fatalf("%d %v", n, err)
	}
	// Read again unchanged: nothing emitted.
	clk.Advance(10 * time.Minute)
	if n, _ := f.Observe(ctx, "https://home.treasury.gov/x", clk.Now(), curve(4.09)); n != 0 {
		t.Fatalf("an unchanged curve was emitted again (%d)", n)
	}
	// Revised: emitted.
	clk.Advance(10 * time.Minute)
	if n, _ := f.Observe(ctx, "https://home.treasury.gov/x", clk.Now(), curve(4.10)); n != 1 {
		t.Fatal("a revision was not emitted")
	}
	// Invalid: dead-lettered with the reason, on the rates DLQ.
	bad := &schemas.YieldCurve{Kind: schemas.CurveKind_CURVE_KIND_PAR_NOMINAL, Date: "2024-10-11", Points: []*schemas.CurvePoint{{Tenor: "9Y", Percent: 1}}}
	if n, _ := f.Observe(ctx, "u", clk.Now(), bad); n != 0 {
		t.Fatal("an invalid curve was emitted")
	}
	recs := c.decoded(t)
	if len(recs) != 2 || recs[0].Source != "treasury:par" || recs[0].Publisher != "U.S. Department of the Treasury" ||
		recs[0].Url != "https://home.treasury.gov/x" || recs[1].ReadTimeNs != clk.Now().UnixNano() || recs[1].GetCurve().Points[1].Percent != 4.10 {
		t.Fatalf("%v", recs)
	}
	last := c.recs[len(c.recs)-1]
	if last.DLQ != "mi.rates.dlq.v1" || !strings.HasPrefix(last.Reason, "invalid rates record: unknown tenor") || len(last.Raw) == 0 {
		t.Fatalf("dead letter %+v", last)
	}
}

func TestFaults(t *testing.T) {
	clk := clock.NewFake(time.Date(2024, 10, 10, 12, 0, 0, 0, time.UTC))
	var c collector
	f := New("aave-v3", "Aave", c.emit, clk)
	ctx := context.Background()
	fail := func() {
		_ = f.Fail(ctx, "aave-v3:base", errors.New(`rpc: Post "https://base.example/v2/abcdefghij0123456789xyz": dial tcp: refused`))
	}
	fail()
	clk.Advance(5 * time.Minute)
	fail() // same streak: not reported again
	clk.Advance(time.Hour)
	fail() // an hour on: reported again, same first failure
	f.Recover("aave-v3:base")
	clk.Advance(5 * time.Minute)
	fail() // a new streak
	recs := c.decoded(t)
	if len(recs) != 3 {
		t.Fatalf("%d faults: %v", len(recs), recs)
	}
	first := time.Date(2024, 10, 10, 12, 0, 0, 0, time.UTC).UnixNano()
	if recs[0].GetFault().FirstFailureNs != first || recs[1].GetFault().FirstFailureNs != first || recs[2].GetFault().FirstFailureNs == first {
		t.Fatalf("%v", recs)
	}
	if strings.Contains(recs[0].GetFault().Reason, "abcdefghij0123456789xyz") || recs[0].GetFault().Scope != "aave-v3:base" {
		t.Fatalf("the fault shows the RPC key or lacks its scope: %v", recs[0].GetFault())
	}
}

func TestSource(t *testing.T) {
	started := make(chan struct{})
	s := NewSource("rates:test", 4, func(ctx context.Context, emit EmitFunc) error {
		close(started)
		f := New("rates:test", "p", emit, nil)
		_, err := f.Observe(ctx, "u", time.Unix(1_728_597_600, 0), curve(4.09))
		return err
	})
	select {
	case <-started:
		t.Fatal("the poller started before the first Next")
	case <-time.After(20 * time.Millisecond):
	}
	ctx := context.Background()
	r, err := s.Next(ctx)
	if err != nil || r.Side == nil {
		t.Fatalf("%v %+v", err, r)
	}
	if _, err := s.Next(ctx); err != io.EOF {
		t.Fatalf("after the poller ended: %v", err)
	}
	_ = s.Close()
}
