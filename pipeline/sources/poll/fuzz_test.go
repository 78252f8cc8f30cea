package poll_test

import (
	"testing"
	"time"

	"github.com/marketintel/mi/pipeline/sources/poll"
)

// FuzzParseRetryAfter: any Retry-After value either is refused or gives a
// time between now and 7 days later.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "0", "Mon, 02 Mar 2026 10:05:00 GMT", "Monday, 02-Mar-26 10:05:00 GMT", "Mon Mar  2 10:05:00 2026", "99999999999999999999", "-1", "1e3", " 7 "} {
		f.Add(s)
	}
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		at, ok := poll.ParseRetryAfter(v, now)
		if ok && (at.Before(now) || at.After(now.Add(7*24*time.Hour))) {
			t.Fatalf("ParseRetryAfter(%q) = %v, outside [now, now+7d]", v, at)
		}
		if !ok && !at.IsZero() {
			t.Fatalf("ParseRetryAfter(%q) refused with a time %v", v, at)
		}
	})
}
