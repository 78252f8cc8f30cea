package sources

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	b := Backoff{Min: 100 * time.Millisecond, Max: time.Second}
	f := func(base time.Duration) {
		t.Helper()
		d := b.Next()
		if d < base*3/4 || d > base*5/4 {
			t.Fatalf("delay %v, want %v ±25%%", d, base)
		}
	}
	for _, base := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		f(base * time.Millisecond)
	}
	b.Reset()
	f(100 * time.Millisecond)
}

// TestBackoffBounds pins the jitter source at both ends of [0, 1): the
// delays are exactly 75% and just under 125% of the doubling base, and the
// base stops at Max.
func TestBackoffBounds(t *testing.T) {
	f := func(r float64, want []time.Duration) {
		t.Helper()
		b := Backoff{Min: time.Second, Max: 8 * time.Second, Rand: func() float64 { return r }}
		for i, w := range want {
			if d := b.Next(); d != w {
				t.Fatalf("r=%v: delay %d = %v, want %v", r, i, d, w)
			}
		}
	}
	ms := time.Millisecond
	f(0, []time.Duration{750 * ms, 1500 * ms, 3000 * ms, 6000 * ms, 6000 * ms})
	f(0.5, []time.Duration{1000 * ms, 2000 * ms, 4000 * ms, 8000 * ms, 8000 * ms})
	f(0.999, []time.Duration{1249500 * time.Microsecond, 2499 * ms, 4998 * ms, 9996 * ms, 9996 * ms})
}
