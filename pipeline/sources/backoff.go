package sources

import (
	"math/rand/v2"
	"time"
)

// Backoff is the retry delay of a live source after failures in a row: it
// starts at Min, doubles on every failure up to Max, and each delay is
// drawn with ±25% jitter so that clients cut off together do not reconnect
// together. Reset after a session that made progress. It is not safe for
// concurrent use.
type Backoff struct {
	Min, Max time.Duration
	cur      time.Duration
}

// Next returns the delay before the next attempt and doubles the next one.
func (b *Backoff) Next() time.Duration {
	if b.cur < b.Min {
		b.cur = b.Min
	}
	d := time.Duration(float64(b.cur) * (0.75 + 0.5*rand.Float64()))
	b.cur = min(2*b.cur, b.Max)
	return d
}

// Reset starts the next failure streak at Min again.
func (b *Backoff) Reset() { b.cur = 0 }
