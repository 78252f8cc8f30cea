package clock

import (
	"context"
	"testing"
	"time"
)

func TestFake(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	f := NewFake(t0)
	a, b, c := f.NewTimer(2*time.Second), f.NewTimer(time.Second), f.NewTimer(3*time.Second)
	if f.Waiters() != 3 {
		t.Fatal("waiters")
	}
	if d, _ := f.Next(); !d.Equal(t0.Add(time.Second)) {
		t.Fatalf("Next = %v", d)
	}
	if !c.Stop() || c.Stop() {
		t.Fatal("Stop")
	}
	f.Advance(2 * time.Second)
	for _, x := range []Timer{a, b} {
		select {
		case at := <-x.C():
			if !at.Equal(t0.Add(2 * time.Second)) {
				t.Fatalf("fired at %v", at)
			}
		default:
			t.Fatal("a due timer did not fire")
		}
	}
	if f.Waiters() != 0 {
		t.Fatal("fired timers still pending")
	}
	if _, ok := f.AdvanceToNext(); ok {
		t.Fatal("AdvanceToNext with no timer")
	}
	select {
	case <-f.NewTimer(0).C():
	default:
		t.Fatal("a zero timer did not fire at once")
	}
	done := make(chan error)
	go func() { done <- Sleep(context.Background(), f, time.Minute) }()
	if err := f.BlockUntil(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	f.AdvanceToNext()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { done <- Sleep(ctx, f, time.Minute) }()
	_ = f.BlockUntil(context.Background(), 1)
	cancel()
	if err := <-done; err != context.Canceled || f.Waiters() != 0 {
		t.Fatalf("cancelled Sleep: %v, %d waiters", err, f.Waiters())
	}
	now := f.Now()
	f.AdvanceTo(t0) // never backwards
	if !f.Now().Equal(now) {
		t.Fatal("AdvanceTo went back")
	}
}
