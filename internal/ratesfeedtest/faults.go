package ratesfeedtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/pipeline/sources/ratesfeed"
)

// Runner returns a runner on a fake clock with generous host limits, and
// its registry.
func Runner(clk *clock.Fake) (ratesfeed.Runner, *sources.Registry) {
	cfg := sources.HTTPConfig{DefaultLimit: &sources.Limit{Rate: 1000, Burst: 1000}}
	reg := sources.NewRegistry(nil, clk)
	return ratesfeed.Runner{Client: poll.NewClient(cfg, poll.Options{Clock: clk, Hosts: poll.NewHosts(clk, cfg)}), Registry: reg, Clock: clk}, reg
}

// ChainConfig lifts a test chain entry's rate limit: the chain client's
// limiter waits on the fake clock, which only the test moves.
func ChainConfig(c sources.ChainConfig) sources.ChainConfig {
	c.Limit = &sources.Limit{Rate: 1000, Burst: 1000}
	return c
}

// Advance lets the poller reach its next sleep, then moves the clock to
// the timer it waits on, and returns that time.
func Advance(t testing.TB, clk *clock.Fake) time.Time {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatalf("the poller does not sleep: %v", err)
	}
	at, ok := clk.AdvanceToNext()
	if !ok {
		t.Fatal("no timer")
	}
	return at
}

// Settle waits until the poller sleeps: its cycle is over.
func Settle(t testing.TB, clk *clock.Fake) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatalf("the poller does not sleep: %v", err)
	}
}

// Done waits until the named source's attempt started at or after at has
// ended (a success or a failure recorded at or after it) and the poller
// sleeps again, and returns its freshness.
func Done(t testing.TB, clk *clock.Fake, reg *sources.Registry, name string, at time.Time) sources.Freshness {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		f := Health(reg, name)
		if !f.LastAttempt.Before(at) && (!f.LastSuccess.Before(at) || !f.LastErrorAt.Before(at)) && clk.Waiters() > 0 {
			return f
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the attempt of %s does not end: %+v", name, at, f)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Health returns the named source's freshness.
func Health(reg *sources.Registry, name string) sources.Freshness {
	for _, f := range reg.Snapshot() {
		if f.Name == name {
			return f
		}
	}
	return sources.Freshness{}
}

// Polite runs the faults every polled rates source must survive, after
// its first poll has been read: a poll answered 304 emits nothing; a 429
// with Retry-After fails the poll and the retry waits for it; a 200 that
// is not the document is dead-lettered with a reason starting with
// malformed; a truncated body fails the poll without a record; the next
// poll recovers. path is the document's path on srv (every URL the
// source reads must be under it for the fault to hit).
func Polite(t *testing.T, srv *pubreplay.Server, path string, rd *Reader, clk *clock.Fake, reg *sources.Registry, name string) {
	t.Helper()
	poll := func(want string) sources.Freshness {
		t.Helper()
		at := Advance(t, clk)
		f := Done(t, clk, reg, name, at)
		if f.State != want {
			t.Fatalf("%s: the poll at %s left state %s, want %s (%+v)", name, at, f.State, want, f)
		}
		return f
	}
	before := srv.Requests(path)
	poll("ok")
	poll("ok") // conditional: 304
	rd.None(t, 100*time.Millisecond)
	if srv.Requests(path) <= before {
		t.Fatalf("%s: no request to %s", name, path)
	}

	srv.Inject(path, pubreplay.Fault{Status: 429, RetryAfter: "900", Body: []byte("Too Many Requests")})
	from := clk.Now()
	if f := poll("failing"); !strings.Contains(f.LastError, "429") {
		t.Fatalf("%s: last error %q", name, f.LastError)
	}
	rd.None(t, 100*time.Millisecond)
	if at := Advance(t, clk); at.Sub(from) < 15*time.Minute {
		t.Fatalf("%s: retried %v after a 429 with Retry-After 900 s", name, at.Sub(from))
	} else if f := Done(t, clk, reg, name, at); f.State != "ok" {
		t.Fatalf("%s: not recovered after the Retry-After: %+v", name, f)
	}
	rd.None(t, 100*time.Millisecond)

	// A 200 that is not the document: dead-lettered; the document's
	// validators are forgotten, so the next request is unconditional.
	srv.Inject(path, pubreplay.Fault{Status: 200, Body: []byte("<html><body>Service Unavailable</body></html>")})
	poll("failing")
	_, dead := Split(t, rd.Take(t, 1, 10*time.Second))
	if len(dead) != 1 || !strings.HasPrefix(dead[0].Reason, "malformed") {
		t.Fatalf("%s: dead letter %+v", name, dead)
	}
	// A body cut short (the server closes the connection): a failed poll
	// without a record.
	srv.Inject(path, pubreplay.Fault{Truncate: 50})
	poll("failing")
	rd.None(t, 100*time.Millisecond)
	poll("ok") // read whole again, unchanged
	rd.None(t, 100*time.Millisecond)
	if m := srv.Misses(); len(m) != 0 {
		t.Fatalf("%s: requests no route answers: %v", name, m)
	}
}
