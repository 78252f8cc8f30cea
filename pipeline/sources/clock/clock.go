// Package clock is the time source of the live clients (pollers, rate
// limits, backoff, caches): the system clock in production and a Fake one
// in tests, so that schedules, rate limits and expiries are tested without
// sleeping and without assertions that fail under load.
//
// Operators never use it: they take time from records.
package clock

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Clock tells the time and makes timers. Implementations are safe for
// concurrent use.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that delivers the time on its channel once d
	// has elapsed (at once when d <= 0).
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer.
type Timer interface {
	// C delivers the time once, when the timer fires.
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it did.
	Stop() bool
}

// System is the system clock.
var System Clock = system{}

type system struct{}

func (system) Now() time.Time { return time.Now() }

func (system) NewTimer(d time.Duration) Timer { return sysTimer{time.NewTimer(d)} }

type sysTimer struct{ t *time.Timer }

func (t sysTimer) C() <-chan time.Time { return t.t.C }
func (t sysTimer) Stop() bool          { return t.t.Stop() }

// Or returns c, or System when c is nil.
func Or(c Clock) Clock {
	if c == nil {
		return System
	}
	return c
}

// Sleep waits for d on c, or until ctx is done (then it returns ctx.Err()).
func Sleep(ctx context.Context, c Clock, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := c.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Fake is a manual clock for tests: time moves only when Advance, AdvanceTo
// or AdvanceToNext is called, and then fires the timers that are due, in
// deadline order. Waiters and BlockUntil let a test wait until the code
// under test is parked on a timer before moving time on.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	change chan struct{} // closed and replaced whenever timers change
}

// NewFake returns a fake clock reading t.
func NewFake(t time.Time) *Fake { return &Fake{now: t, change: make(chan struct{})} }

type fakeTimer struct {
	f        *Fake
	deadline time.Time
	c        chan time.Time
}

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// NewTimer returns a timer firing when the fake time reaches now+d.
func (f *Fake) NewTimer(d time.Duration) Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{f: f, deadline: f.now.Add(d), c: make(chan time.Time, 1)}
	if d <= 0 {
		t.c <- f.now
		return t
	}
	f.timers = append(f.timers, t)
	f.notify()
	return t
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	f := t.f
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, x := range f.timers {
		if x == t {
			f.timers = append(f.timers[:i], f.timers[i+1:]...)
			f.notify()
			return true
		}
	}
	return false
}

func (f *Fake) notify() {
	close(f.change)
	f.change = make(chan struct{})
}

// Advance moves the time on by d and fires the timers that are due.
func (f *Fake) Advance(d time.Duration) { f.AdvanceTo(f.Now().Add(d)) }

// AdvanceTo moves the time to t (never backwards) and fires the timers
// whose deadline is not after t, earliest first.
func (f *Fake) AdvanceTo(t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.After(f.now) {
		f.now = t
	}
	sort.SliceStable(f.timers, func(i, j int) bool { return f.timers[i].deadline.Before(f.timers[j].deadline) })
	k := 0
	for _, x := range f.timers {
		if x.deadline.After(f.now) {
			break
		}
		x.c <- f.now
		k++
	}
	if k > 0 {
		f.timers = append(f.timers[:0], f.timers[k:]...)
		f.notify()
	}
}

// Next returns the earliest pending timer's deadline; ok is false when no
// timer is pending.
func (f *Fake) Next() (deadline time.Time, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, x := range f.timers {
		if i == 0 || x.deadline.Before(deadline) {
			deadline = x.deadline
		}
	}
	return deadline, len(f.timers) > 0
}

// AdvanceToNext moves the time to the earliest pending deadline and fires
// the timers due then; it returns that time, or false when none is pending.
func (f *Fake) AdvanceToNext() (time.Time, bool) {
	d, ok := f.Next()
	if ok {
		f.AdvanceTo(d)
	}
	return d, ok
}

// Waiters is the number of pending timers.
func (f *Fake) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timers)
}

// BlockUntil waits (in real time) until at least n timers are pending, or
// ctx is done.
func (f *Fake) BlockUntil(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		k, ch := len(f.timers), f.change
		f.mu.Unlock()
		if k >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
