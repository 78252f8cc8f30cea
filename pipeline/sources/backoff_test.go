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
