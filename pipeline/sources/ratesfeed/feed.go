// Package ratesfeed is what every rates source shares on its way to
// mi.rates.v1: a Feed stamps observations into schemas.RatesRecord
// records (source, publisher, URL, read time), validates them
// (dead-lettering what fails, with the reason), leaves out observations it
// has already emitted with the same content (a publisher re-read without
// change), and reports a scope's read failures as RatesFault records; a
// Source runs a poller behind a sidetopic.Emitter so that `mi run` ingests
// it like any live source. The publisher packages (treasury, nyfed, ecb,
// fred, aave, tokenfunds) parse; their pollers hand what they parsed to a
// Feed.
package ratesfeed

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/schemas"
)

// FaultRepeat is how often a fault is reported again while its scope keeps
// failing, so a view rebuilt from a trimmed topic still sees it.
const FaultRepeat = time.Hour

// EmitFunc hands a record on: sidetopic.Emitter.Emit, or a test's
// collector.
type EmitFunc func(ctx context.Context, r sources.Record) error

// Feed builds and emits one source's records. It is safe for concurrent
// use (a source may read chains in parallel).
type Feed struct {
	name, publisher string
	emit            EmitFunc
	clk             clock.Clock

	mu     sync.Mutex
	seen   map[string][32]byte // RatesKey → hash of the content last emitted
	faults map[string]*streak  // scope → its current failure streak
}

type streak struct {
	first, reported time.Time
}

// New returns the feed of source name publishing publisher's figures
// (e.g. "U.S. Department of the Treasury"); clk (nil: system) tells read
// times.
func New(name, publisher string, emit EmitFunc, clk clock.Clock) *Feed {
	return &Feed{name: name, publisher: publisher, emit: emit, clk: clock.Or(clk), seen: map[string][32]byte{}, faults: map[string]*streak{}}
}

// Name is the source's name.
func (f *Feed) Name() string { return f.name }

// Now is the feed's clock.
func (f *Feed) Now() time.Time { return f.clk.Now() }

// Body is the observation of a record: *schemas.YieldCurve,
// *schemas.OvernightRate, *schemas.LendingRate, *schemas.FundSupply or
// *schemas.TreasuryAuction.
type Body = any

// Record stamps body as read from url at readAt.
func (f *Feed) Record(url string, readAt time.Time, body Body) *schemas.RatesRecord {
	r := &schemas.RatesRecord{Source: f.name, Publisher: f.publisher, Url: url, ReadTimeNs: readAt.UnixNano()}
	switch b := body.(type) {
	case *schemas.YieldCurve:
		r.Body = &schemas.RatesRecord_Curve{Curve: b}
	case *schemas.OvernightRate:
		r.Body = &schemas.RatesRecord_Overnight{Overnight: b}
	case *schemas.LendingRate:
		r.Body = &schemas.RatesRecord_Lending{Lending: b}
	case *schemas.FundSupply:
		r.Body = &schemas.RatesRecord_FundSupply{FundSupply: b}
	case *schemas.TreasuryAuction:
		r.Body = &schemas.RatesRecord_Auction{Auction: b}
	case *schemas.RatesFault:
		r.Body = &schemas.RatesRecord_Fault{Fault: b}
	default:
		panic(fmt.Sprintf("BUG: %T is not a rates body", body))
	}
	return r
}

// Observe emits the observations read from url at readAt, in order: each
// as a record, unless the feed already emitted the same content for its
// key; a record failing schemas.ValidateRates is dead-lettered with the
// reason. It returns how many records it emitted, and the first error of
// emit (ctx canceled, the emitter ended).
func (f *Feed) Observe(ctx context.Context, url string, readAt time.Time, bodies ...Body) (int, error) {
	n := 0
	for _, b := range bodies {
		r := f.Record(url, readAt, b)
		if err := schemas.ValidateRates(r); err != nil {
			raw, _ := proto.Marshal(r)
			if err := f.emit(ctx, sidetopic.Rates.Reject(raw, err.Error())); err != nil {
				return n, err
			}
			continue
		}
		key := schemas.RatesKey(r)
		h := contentHash(r)
		f.mu.Lock()
		same := f.seen[key] == h
		f.mu.Unlock()
		if same {
			continue
		}
		if err := f.emit(ctx, sidetopic.Rates.Record(r)); err != nil {
			return n, err
		}
		f.mu.Lock()
		f.seen[key] = h
		f.mu.Unlock()
		n++
	}
	return n, nil
}

// contentHash hashes a record's observation (its body), not its read time.
func contentHash(r *schemas.RatesRecord) [32]byte {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(&schemas.RatesRecord{Body: r.Body})
	if err != nil {
		panic("BUG: cannot encode a valid record: " + err.Error())
	}
	return sha256.Sum256(b)
}

// Reject dead-letters input the source could not use (a document, a row)
// with the reason (a stable phrase first).
func (f *Feed) Reject(ctx context.Context, raw []byte, reason string) error {
	const maxRaw = 64 << 10
	if len(raw) > maxRaw {
		raw = raw[:maxRaw]
	}
	return f.emit(ctx, sidetopic.Rates.Reject(raw, reason))
}

// Fail reports that scope (LendingScope, FundScope, the source's name for
// a publisher) could not be read: a RatesFault record at the first failure
// of a streak and then every FaultRepeat while it lasts. The reason is the
// error, redacted (sources.Redact).
func (f *Feed) Fail(ctx context.Context, scope string, err error) error {
	now := f.clk.Now()
	f.mu.Lock()
	s := f.faults[scope]
	report := s == nil || now.Sub(s.reported) >= FaultRepeat
	if s == nil {
		s = &streak{first: now}
		f.faults[scope] = s
	}
	if report {
		s.reported = now
	}
	first := s.first
	f.mu.Unlock()
	if !report {
		return nil
	}
	r := f.Record("", now, &schemas.RatesFault{Scope: scope, Reason: sources.Redact(err.Error()), FirstFailureNs: first.UnixNano()})
	return f.emit(ctx, sidetopic.Rates.Record(r))
}

// Recover ends scope's failure streak: the next failure is reported at
// once. (The view clears the stale mark on the next successful read.)
func (f *Feed) Recover(scope string) {
	f.mu.Lock()
	delete(f.faults, scope)
	f.mu.Unlock()
}
