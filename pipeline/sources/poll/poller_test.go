package poll_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/poll"
)

func TestScheduleNext(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	f := func(s poll.Schedule, from, want time.Time) {
		t.Helper()
		if got := s.Next(from); !got.Equal(want) {
			t.Fatalf("%+v.Next(%v) = %v, want %v", s, from, got, want)
		}
	}
	utc := func(d, h, m, s int) time.Time { return time.Date(2026, 3, d, h, m, s, 0, time.UTC) }
	f(poll.Every(5*time.Minute), utc(2, 10, 2, 17), utc(2, 10, 5, 0))
	f(poll.Every(5*time.Minute), utc(2, 10, 5, 0), utc(2, 10, 10, 0)) // strictly after
	f(poll.Every(5*time.Minute), utc(2, 23, 59, 59), utc(3, 0, 0, 0))
	f(poll.Every(time.Hour), utc(2, 10, 2, 17), utc(2, 11, 0, 0))
	f(poll.Every(24*time.Hour), utc(2, 10, 2, 17), utc(3, 0, 0, 0))
	f(poll.Schedule{Every: 15 * time.Minute, Offset: 30 * time.Second}, utc(2, 10, 0, 10), utc(2, 10, 0, 30))
	f(poll.Schedule{Every: 15 * time.Minute, Offset: 30 * time.Second}, utc(2, 10, 0, 30), utc(2, 10, 15, 30))
	// Every keeps the caller's location.
	f(poll.Every(5*time.Minute), time.Date(2026, 3, 2, 5, 2, 17, 0, ny), time.Date(2026, 3, 2, 5, 5, 0, 0, ny))
	// Daily, New York time: Treasury's curve at 16:30 and 18:00 ET.
	tr := poll.Daily(ny, 16*time.Hour+30*time.Minute, 18*time.Hour)
	f(tr, time.Date(2026, 3, 2, 12, 0, 0, 0, ny), time.Date(2026, 3, 2, 16, 30, 0, 0, ny))
	f(tr, time.Date(2026, 3, 2, 16, 30, 0, 0, ny), time.Date(2026, 3, 2, 18, 0, 0, 0, ny))
	f(tr, time.Date(2026, 3, 2, 19, 0, 0, 0, ny), time.Date(2026, 3, 3, 16, 30, 0, 0, ny))
	// across the start of daylight saving time (8 March 2026): 16:30 EDT is 20:30 UTC
	f(tr, time.Date(2026, 3, 7, 23, 0, 0, 0, time.UTC), time.Date(2026, 3, 8, 20, 30, 0, 0, time.UTC))
	f(tr, time.Date(2026, 3, 6, 23, 0, 0, 0, time.UTC), time.Date(2026, 3, 7, 21, 30, 0, 0, time.UTC))
	// Weekdays: Friday evening goes to Monday.
	wd := tr
	wd.Weekdays = true
	f(wd, time.Date(2026, 3, 6, 19, 0, 0, 0, ny), time.Date(2026, 3, 9, 16, 30, 0, 0, ny))
	f(poll.Daily(nil, 0), utc(2, 0, 0, 0), utc(3, 0, 0, 0))
	if wd.Period() != 72*time.Hour || tr.Period() != 24*time.Hour || poll.Every(time.Minute).Period() != time.Minute {
		t.Fatal("Period")
	}
	for _, bad := range []poll.Schedule{{}, {Every: -1}, {Daily: []time.Duration{24 * time.Hour}}, {Daily: []time.Duration{-1}}} {
		if bad.Validate() == nil {
			t.Fatalf("%+v accepted", bad)
		}
	}
}

// run starts p and returns step, a function that waits until the poller
// is parked on its clock, moves the clock to the parked timer's deadline
// and returns that time. The attempt it releases runs after step returns:
// park waits for it to finish.
func run(t *testing.T, p *poll.Poller, fc *clock.Fake) (step func() time.Time) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run returned %v", err)
		}
	})
	return func() time.Time {
		t.Helper()
		park(t, fc)
		d, _ := fc.AdvanceToNext()
		return d
	}
}

// park waits until the poller is parked on its clock.
func park(t *testing.T, fc *clock.Fake) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := fc.BlockUntil(ctx, 1); err != nil {
		t.Fatal("poller never parked on its clock")
	}
}

// attempts records the fake time of every poll and fails those the test
// says.
type attempts struct {
	mu   sync.Mutex
	fc   *clock.Fake
	at   []time.Time
	fail func(n int) error
}

func (a *attempts) poll(ctx context.Context) (time.Time, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.at = append(a.at, a.fc.Now())
	if a.fail != nil {
		if err := a.fail(len(a.at)); err != nil {
			return time.Time{}, err
		}
	}
	return a.fc.Now().Add(-time.Hour), nil
}

func (a *attempts) times() []time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]time.Time(nil), a.at...)
}

// TestPollerAligned: a 5-minute poller started at 10:02:17 polls at once,
// then at 10:05:00, 10:10:00, ...
func TestPollerAligned(t *testing.T) {
	fc := clock.NewFake(t0)
	a := &attempts{fc: fc}
	reg := sources.NewRegistry(nil, fc)
	step := run(t, &poll.Poller{Schedule: poll.Every(5 * time.Minute), Poll: a.poll, Health: reg.Register("perps:test", "perps", ""), Clock: fc}, fc)
	for range 3 {
		step()
	}
	park(t, fc)
	want := []time.Time{t0, time.Date(2026, 3, 2, 10, 5, 0, 0, time.UTC), time.Date(2026, 3, 2, 10, 10, 0, 0, time.UTC), time.Date(2026, 3, 2, 10, 15, 0, 0, time.UTC)}
	got := a.times()
	for i, w := range want {
		if !got[i].Equal(w) {
			t.Fatalf("poll %d at %v, want %v (all %v)", i, got[i], w, got)
		}
	}
	fr := reg.Snapshot()[0]
	if fr.State != "ok" || fr.Stale || fr.MaxAge != 15*time.Minute || !fr.LastData.Equal(want[3].Add(-time.Hour)) {
		t.Fatalf("freshness %+v", fr)
	}
}

// TestPollerBackoff: with the jitter source pinned at 0 the retries of a
// failing source come 0.75 × 10 s, 20 s, 40 s, ... after each failure, cut
// at the next 5-minute slot; a success returns to the slots.
func TestPollerBackoff(t *testing.T) {
	fc := clock.NewFake(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	a := &attempts{fc: fc, fail: func(n int) error {
		if n <= 7 {
			return errors.New("connection refused")
		}
		return nil
	}}
	reg := sources.NewRegistry(nil, fc)
	step := run(t, &poll.Poller{
		Schedule: poll.Every(5 * time.Minute), Poll: a.poll, Health: reg.Register("x", "rates", ""), Clock: fc,
		MinBackoff: 10 * time.Second, MaxBackoff: 10 * time.Minute, Rand: func() float64 { return 0 },
	}, fc)
	for range 7 {
		step()
	}
	park(t, fc)
	s := func(m, sec int) time.Time { return time.Date(2026, 3, 2, 10, m, sec, 0, time.UTC) }
	want := []time.Time{
		s(0, 0), s(0, 7) /* +7.5s truncated below */, s(0, 22), s(0, 52), s(1, 52), s(3, 52),
		s(5, 0),  // +120s would be 7:52: cut at the slot
		s(10, 0), // +240s would be 11:00: cut at the slot; the 8th succeeds
	}
	want[1] = want[1].Add(500 * time.Millisecond)
	want[2], want[3], want[4], want[5] = want[1].Add(15*time.Second), want[1].Add(45*time.Second), want[1].Add(105*time.Second), want[1].Add(225*time.Second)
	got := a.times()
	for i, w := range want {
		if !got[i].Equal(w) {
			t.Fatalf("attempt %d at %v, want %v (all %v)", i, got[i].Format("15:04:05.000"), w.Format("15:04:05.000"), got)
		}
	}
	if next, _ := fc.Next(); !next.Equal(s(15, 0)) {
		t.Fatalf("after the recovery the next poll is at %v, want the 10:15 slot", next)
	}
}

// TestPollerRetryAfter: a 418 with Retry-After beyond the next slot moves
// the next attempt to the Retry-After time.
func TestPollerRetryAfter(t *testing.T) {
	fc := clock.NewFake(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	until := time.Date(2026, 3, 2, 11, 0, 0, 0, time.UTC)
	a := &attempts{fc: fc, fail: func(n int) error {
		if n == 1 {
			return fmt.Errorf("binance: %w", &poll.ThrottledError{Status: 418, Until: until})
		}
		return nil
	}}
	reg := sources.NewRegistry(nil, fc)
	step := run(t, &poll.Poller{Schedule: poll.Every(5 * time.Minute), Poll: a.poll, Health: reg.Register("b", "perps", ""), Clock: fc}, fc)
	if got := step(); !got.Equal(until) {
		t.Fatalf("after a 418 the next attempt is at %v, want %v", got, until)
	}
	f := func(now time.Time, delay time.Duration, slot time.Time, err error, want time.Time) {
		t.Helper()
		if got := poll.RetryAt(now, delay, slot, err); !got.Equal(want) {
			t.Fatalf("RetryAt = %v, want %v", got, want)
		}
	}
	n := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	f(n, time.Minute, n.Add(5*time.Minute), errors.New("x"), n.Add(time.Minute))
	f(n, 10*time.Minute, n.Add(5*time.Minute), errors.New("x"), n.Add(5*time.Minute))
	f(n, time.Minute, n.Add(5*time.Minute), &poll.ThrottledError{Status: 429, Until: n.Add(30 * time.Second)}, n.Add(time.Minute))
	f(n, time.Minute, n.Add(5*time.Minute), &poll.ThrottledError{Status: 429, Until: n.Add(9 * time.Minute)}, n.Add(9*time.Minute))
}

// TestUnreachableLoggedOnce: a source that fails six times in a row logs
// "source unreachable" once, then "source recovered" once; the freshness
// shows the streak, the redacted error and then the recovery.
func TestUnreachableLoggedOnce(t *testing.T) {
	var mu sync.Mutex
	down := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		d := down
		mu.Unlock()
		if d {
			conn, _, _ := w.(http.Hijacker).Hijack()
			_ = conn.Close() // no answer at all
			return
		}
		const lm = "Fri, 27 Feb 2026 21:00:00 GMT"
		w.Header().Set("Last-Modified", lm)
		if r.Header.Get("If-Modified-Since") == lm {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprint(w, "<feed/>")
	}))
	defer srv.Close()
	fc := clock.NewFake(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	var logs bytes.Buffer
	lmu := &lockedWriter{w: &logs}
	reg := sources.NewRegistry(slog.New(slog.NewTextHandler(lmu, nil)), fc)
	cfg := sources.HTTPConfig{DefaultLimit: &sources.Limit{}}
	c := poll.NewClient(cfg, poll.Options{Clock: fc, Hosts: poll.NewHosts(fc, cfg)})
	url := srv.URL + "/v2/abcdef0123456789abcdef0123456789/feed?apikey=s3cret&cat=crypto"
	handled := 0
	h := reg.Register("news:test", "news", url)
	step := run(t, &poll.Poller{
		Schedule: poll.Every(5 * time.Minute), Health: h, Clock: fc,
		Poll: poll.Fetch(c, poll.Request{URL: url}, func(ctx context.Context, r *poll.Response) (time.Time, error) {
			handled++
			return time.Time{}, nil
		}),
	}, fc)
	for range 5 {
		step()
	}
	park(t, fc)
	fr := h.Snapshot()
	if fr.State != "failing" || !fr.Stale || fr.ConsecutiveFailures != 6 || !fr.LastSuccess.IsZero() {
		t.Fatalf("while down: %+v", fr)
	}
	if strings.Contains(fr.LastError, "s3cret") || strings.Contains(fr.LastError, "abcdef0123456789") || strings.Contains(fr.Endpoint, "s3cret") {
		t.Fatalf("secret in freshness: %q / %q", fr.LastError, fr.Endpoint)
	}
	mu.Lock()
	down = false
	mu.Unlock()
	step()
	step()
	park(t, fc)
	fr = h.Snapshot()
	if fr.State != "ok" || fr.Stale || fr.ConsecutiveFailures != 0 || fr.LastError == "" || handled != 1 ||
		!fr.LastData.Equal(time.Date(2026, 2, 27, 21, 0, 0, 0, time.UTC)) {
		t.Fatalf("after recovery (%d handled, want 1: the second poll is a 304): %+v", handled, fr)
	}
	out := lmu.String()
	if n := strings.Count(out, "source unreachable"); n != 1 {
		t.Fatalf("%d unreachable lines:\n%s", n, out)
	}
	if n := strings.Count(out, "source recovered"); n != 1 {
		t.Fatalf("%d recovered lines:\n%s", n, out)
	}
	if strings.Contains(out, "s3cret") || strings.Contains(out, "abcdef0123456789") {
		t.Fatalf("secret logged:\n%s", out)
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

// TestFetchForgetsOnHandlerError: a document the handler rejects is read
// whole again on the next poll, not answered "not modified".
func TestFetchForgetsOnHandlerError(t *testing.T) {
	v := &versioned{etag: true, version: 1}
	srv := httptest.NewServer(v)
	defer srv.Close()
	c, _ := newClient(t, sources.HTTPConfig{})
	calls := 0
	p := poll.Fetch(c, poll.Request{URL: srv.URL}, func(ctx context.Context, r *poll.Response) (time.Time, error) {
		calls++
		if calls == 1 {
			return time.Time{}, errors.New("malformed xml")
		}
		return time.Date(2026, 2, 27, 0, 0, 0, 0, time.UTC), nil
	})
	ctx := context.Background()
	if _, err := p(ctx); err == nil {
		t.Fatal("handler error lost")
	}
	if dt, err := p(ctx); err != nil || calls != 2 || !dt.Equal(time.Date(2026, 2, 27, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("second poll: %v, %v, %d handler calls", dt, err, calls)
	}
	if dt, err := p(ctx); err != nil || calls != 2 || !dt.IsZero() {
		t.Fatalf("third poll (304): %v, %v, %d handler calls", dt, err, calls)
	}
}
