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
	// Rand, when set, replaces math/rand/v2's Float64 as the source of
	// jitter (a value in [0, 1)); tests inject it to pin the delays.
	Rand func() float64
	cur  time.Duration
}

// Next returns the delay before the next attempt and doubles the next one.
func (b *Backoff) Next() time.Duration {
	if b.cur < b.Min {
		b.cur = b.Min
	}
	r := rand.Float64
	if b.Rand != nil {
		r = b.Rand
	}
	d := time.Duration(float64(b.cur) * (0.75 + 0.5*r()))
	b.cur = min(2*b.cur, b.Max)
	return d
}

// Reset starts the next failure streak at Min again.
func (b *Backoff) Reset() { b.cur = 0 }
