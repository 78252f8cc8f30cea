package pipeline

import (
	"strings"
	"testing"
	"time"
)

func TestParseSourceSpec(t *testing.T) {
	f := func(in string, want SourceSpec, wantErr string) {
		t.Helper()
		got, err := ParseSourceSpec(in)
		if wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), wantErr) || !strings.Contains(err.Error(), "accepted") {
				t.Fatalf("%q: want an error containing %q and the accepted forms, got %v", in, wantErr, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if got.Kind != want.Kind || strings.Join(got.Paths, ",") != strings.Join(want.Paths, ",") || got.Seed != want.Seed ||
			!got.Start.Equal(want.Start) || got.Duration != want.Duration || got.RateScale != want.RateScale ||
			got.Events != want.Events || got.MaxSpeed != want.MaxSpeed {
			t.Fatalf("%q: got %+v, want %+v", in, got, want)
		}
	}
	f("sim", SourceSpec{Kind: "sim", Seed: 1, RateScale: 1}, "")
	f("sim:seed=7,start=2026-01-01T00:00:00Z,duration=6h,rate=0.5,events=4,speed=max",
		SourceSpec{Kind: "sim", Seed: 7, Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Duration: 6 * time.Hour, RateScale: 0.5, Events: 4, MaxSpeed: true}, "")
	f("replay:a.gz", SourceSpec{Kind: "replay", Paths: []string{"a.gz"}}, "")
	f("replay:a.gz,b.csv", SourceSpec{Kind: "replay", Paths: []string{"a.gz", "b.csv"}}, "")
	f("replay:", SourceSpec{}, "needs at least one path")
	f("live", SourceSpec{}, "cannot use source")
	f("", SourceSpec{}, "cannot use source")
	f("sim:seed", SourceSpec{}, "not key=value")
	f("sim:seed=x", SourceSpec{}, "seed=x")
	f("sim:start=yesterday", SourceSpec{}, "start=yesterday")
	f("sim:speed=2", SourceSpec{}, "speed must be max")
	f("sim:colour=red", SourceSpec{}, "unknown key")
}

func TestTransactionalID(t *testing.T) {
	if got := transactionalID("mi-ingest-", "sim:seed=1"); got != "mi-ingest-sim:seed=1" {
		t.Fatalf("short name: %s", got)
	}
	long := strings.Repeat("replay:/some/long/path.gz,", 20)
	a, b := transactionalID("mi-ingest-", long), transactionalID("mi-ingest-", long+"x")
	if len(a) > 64 || a == b || !strings.HasPrefix(a, "mi-ingest-") {
		t.Fatalf("long names must hash to short distinct ids: %s %s", a, b)
	}
}

func TestStatsReasonClasses(t *testing.T) {
	s := NewStats()
	s.Reject("replay:x", "malformed json")
	s.Reject("replay:x", "bad price: not a decimal")
	s.Reject("", "late")
	s.Trade("replay:x", 10, 20)
	s.SetState("replay:x", "finished", nil)
	src, dlq := s.Snapshot()
	if len(src) != 1 || src[0].Trades != 1 || src[0].Rejected != 2 || src[0].State != "finished" || src[0].LastEventNs != 10 {
		t.Fatalf("sources: %+v", src)
	}
	if dlq["malformed json"] != 1 || dlq["bad price"] != 1 || dlq["late"] != 1 || len(dlq) != 3 {
		t.Fatalf("dead letters by reason: %v", dlq)
	}
	if _, ok := s.Operators(); ok {
		t.Fatal("operators reported without an attached loop")
	}
}
