package poll

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
)

// PollFunc is one cycle of a source: it reads the publisher and hands what
// it read on (to a topic, a view). It returns the publisher's time of the
// newest data read (zero when unknown or when nothing changed) and an error
// when the cycle failed and should be retried.
type PollFunc func(ctx context.Context) (dataTime time.Time, err error)

// Poller runs one source's cycle on its schedule: once at start, then at
// every slot of Schedule. A failed cycle is retried with backoff (jittered,
// doubling from MinBackoff to MaxBackoff), never later than the next slot
// unless the publisher's Retry-After asks for later. Every attempt is
// recorded in Health, which logs "source unreachable" once per outage and
// "source recovered" once at its end.
type Poller struct {
	Schedule Schedule
	Poll     PollFunc
	// Health records the attempts (sources.Registry.Register); required.
	Health *sources.Health
	// Clock times the schedule and the backoff; nil: system.
	Clock clock.Clock
	// MinBackoff and MaxBackoff bound the retry delay after failures;
	// defaults 10 s and the schedule's period capped at 15 minutes.
	MinBackoff, MaxBackoff time.Duration
	// Rand is the backoff's jitter source (see sources.Backoff); nil: random.
	Rand func() float64
	// Timeout bounds one cycle; default 2 minutes.
	Timeout time.Duration
	// MaxAge, when not 0, is the age of the last success beyond which
	// Health reports the source stale; default 3 periods for Every
	// schedules, none for Daily ones.
	MaxAge time.Duration
}

// Run polls until ctx ends, then returns ctx's error. It panics on a
// Poller without Poll or Health or with an invalid Schedule.
func (p *Poller) Run(ctx context.Context) error {
	if p.Poll == nil || p.Health == nil {
		panic("BUG: poller without Poll or Health")
	}
	if err := p.Schedule.Validate(); err != nil {
		panic("BUG: " + err.Error())
	}
	clk := clock.Or(p.Clock)
	bo := sources.Backoff{
		Min:  cmp.Or(p.MinBackoff, 10*time.Second),
		Max:  cmp.Or(p.MaxBackoff, min(p.Schedule.Period(), 15*time.Minute)),
		Rand: p.Rand,
	}
	maxAge := p.MaxAge
	if maxAge == 0 && p.Schedule.Every > 0 {
		maxAge = 3 * p.Schedule.Every
	}
	p.Health.SetMaxAge(maxAge)
	timeout := cmp.Or(p.Timeout, 2*time.Minute)
	next := clk.Now()
	for {
		if err := clock.Sleep(ctx, clk, next.Sub(clk.Now())); err != nil {
			return err
		}
		p.Health.Attempt()
		cctx, cancel := context.WithTimeout(ctx, timeout)
		dataTime, err := p.Poll(cctx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		now := clk.Now()
		if err == nil {
			p.Health.Success(dataTime)
			bo.Reset()
			next = p.Schedule.Next(now)
			continue
		}
		p.Health.Failure(err)
		next = RetryAt(now, bo.Next(), p.Schedule.Next(now), err)
	}
}

// RetryAt is when a failed attempt ending at now is tried again: after the
// backoff delay but not after the next slot, and never before the time a
// *ThrottledError in err asks for.
func RetryAt(now time.Time, delay time.Duration, slot time.Time, err error) time.Time {
	at := now.Add(delay)
	if at.After(slot) {
		at = slot
	}
	var te *ThrottledError
	if errors.As(err, &te) && te.Until.After(at) {
		at = te.Until
	}
	return at
}

// Handler uses one response of Fetch. It returns the publisher's time of
// the newest data in it (zero when unknown: Fetch then uses Last-Modified).
// An error makes the cycle fail.
type Handler func(ctx context.Context, r *Response) (dataTime time.Time, err error)

// Fetch returns the PollFunc of a single-document source: a conditional GET
// of r with c, handled by handle. A "not modified" answer is a success
// without new data and handle is not called. When handle fails, the URL's
// validators are forgotten, so the next attempt reads the document whole
// again rather than hearing "not modified".
func Fetch(c *Client, r Request, handle Handler) PollFunc {
	return func(ctx context.Context) (time.Time, error) {
		resp, err := c.Do(ctx, r)
		if err != nil {
			return time.Time{}, err
		}
		if resp.NotModified {
			return time.Time{}, nil
		}
		t, err := handle(ctx, resp)
		if err != nil {
			if r.Validators == nil {
				c.Forget(r.URL)
			}
			return time.Time{}, err
		}
		if t.IsZero() {
			t = resp.Modified
		}
		return t, nil
	}
}
