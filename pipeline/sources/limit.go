package sources

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"golang.org/x/time/rate"

	"github.com/marketintel/mi/pipeline/sources/clock"
)

// Limit is a token bucket's size: Rate requests per second on average and
// Burst at once. In configuration files it reads {"rate": 10, "burst": 1}.
// A zero Rate means no limit; Burst defaults to 1.
//
// With Burst 1, at most floor(Rate)+1 requests start within any closed one
// second window: {"rate": 9, "burst": 1} keeps to "at most 10 per second".
type Limit struct {
	Rate  float64 `json:"rate"`
	Burst int     `json:"burst,omitempty"`
}

// Validate rejects negative or non-finite rates and negative bursts.
func (l Limit) Validate() error {
	if l.Rate < 0 || math.IsNaN(l.Rate) || math.IsInf(l.Rate, 0) || l.Burst < 0 {
		return fmt.Errorf("cannot use rate limit %+v: rate must be a finite number >= 0 and burst >= 0", l)
	}
	return nil
}

// Limiter is a token bucket on an injected clock. It is safe for concurrent
// use; every caller holding the same Limiter shares its budget.
type Limiter struct {
	clk clock.Clock
	lim *rate.Limiter
}

// ErrRateLimited is returned by Wait when the caller's deadline comes
// before its turn: the request is not made.
var ErrRateLimited = errors.New("rate limit: no token before the deadline")

// NewLimiter returns a limiter for l on c (nil: the system clock).
func NewLimiter(c clock.Clock, l Limit) *Limiter {
	r := rate.Limit(l.Rate)
	if l.Rate == 0 {
		r = rate.Inf
	}
	return &Limiter{clk: clock.Or(c), lim: rate.NewLimiter(r, max(l.Burst, 1))}
}

// Wait takes one token, waiting for it on the limiter's clock. It fails at
// once with ErrRateLimited (taking nothing) when ctx's deadline comes
// before the token, and with ctx.Err() when ctx ends while waiting.
func (l *Limiter) Wait(ctx context.Context) error { return l.WaitN(ctx, 1) }

// WaitN takes n tokens (a batch of n requests) as Wait takes one; n above
// the burst is taken as the burst.
func (l *Limiter) WaitN(ctx context.Context, n int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n = min(n, l.lim.Burst())
	now := l.clk.Now()
	r := l.lim.ReserveN(now, n)
	if !r.OK() {
		panic("BUG: reservation of at most the burst refused")
	}
	d := r.DelayFrom(now)
	if d == 0 {
		return nil
	}
	// The deadline is on the system clock and the delay on the limiter's:
	// compare what is left of one with the other.
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		r.CancelAt(now)
		return fmt.Errorf("cannot wait %v for a request slot: %w", d.Round(time.Millisecond), ErrRateLimited)
	}
	if err := clock.Sleep(ctx, l.clk, d); err != nil {
		r.CancelAt(l.clk.Now())
		return err
	}
	return nil
}
