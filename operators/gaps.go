package operators

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/marketintel/mi/schemas"
)

// Gap rules.
const (
	// MaxGaps bounds the gaps one symbol keeps, and so the gaps one document
	// lists: the MaxGaps latest by end time (then by start, source, reason).
	MaxGaps = 16
	// gapHorizonNs is how long after its end a gap is kept: a document's
	// longest window (15m) as of a boundary s starts at or after s − 15m, so
	// a gap that ended before the last boundary − 15m overlaps no later
	// document.
	gapHorizonNs = 900 * nsPerSecond
	// maxGapText bounds a gap's source name and reason, in bytes.
	maxGapText = 512
)

// ErrBadGap is wrapped by the errors PushGap returns for a gap it does not
// accept.
var ErrBadGap = errors.New("invalid gap")

// PushGap records that a source could not deliver, and cannot backfill, the
// trades of symbol between g.FromNs and g.ToNs (Unix ns, inclusive). Every
// document of symbol whose window [start, s) overlaps the gap (ToNs ≥ start
// and FromNs < s) lists it in observations.quality.gaps until it ages out,
// once it ended more than 15 minutes before the last document boundary. A
// symbol keeps at most MaxGaps gaps, the latest by end time; an identical
// gap pushed again changes nothing. A symbol that has trades gets its
// documents at the next boundary, as if it had traded, so the gap shows
// without waiting for its next trade. A gap never moves a watermark, the
// document clock or any trade aggregate.
//
// It returns an error wrapping ErrBadGap, and changes nothing, when symbol
// is empty or reserved, the source or reason is empty or longer than 512
// bytes, the times are outside the accepted event times or FromNs > ToNs,
// or FromNs is more than MaxFutureSkew after the partition's newest accepted
// event time. The error text starts with "invalid gap" or "future
// timestamp". PushGap never retains g.
func (e *Engine) PushGap(symbol string, g *schemas.Gap) error {
	switch {
	case symbol == "" || strings.HasPrefix(symbol, ReservedPrefix):
		return fmt.Errorf("%w: symbol %q", ErrBadGap, symbol)
	case g.Source == "" || g.Reason == "" || len(g.Source) > maxGapText || len(g.Reason) > maxGapText:
		return fmt.Errorf("%w: source and reason must have 1 to %d bytes", ErrBadGap, maxGapText)
	case g.FromNs < schemas.MinEventTimeNs || g.ToNs >= schemas.MaxEventTimeNs || g.FromNs > g.ToNs:
		return fmt.Errorf("%w: times %d..%d", ErrBadGap, g.FromNs, g.ToNs)
	case e.hasClock && g.FromNs-e.clockNs > int64(e.cfg.MaxFutureSkew):
		return fmt.Errorf("%s: %w from %d is more than %v after the newest trade", ReasonFuture, ErrBadGap, g.FromNs, e.cfg.MaxFutureSkew)
	}
	if e.hasDocSec && g.ToNs < e.docSec*nsPerSecond-gapHorizonNs {
		return nil // overlaps no document from now on
	}
	sym := e.symbols[symbol]
	if sym == nil {
		sym = e.newSymbol(symbol)
	}
	ng := gap{fromNs: g.FromNs, toNs: g.ToNs, source: g.Source, reason: g.Reason}
	i, found := slices.BinarySearchFunc(sym.gaps, ng, compareGaps)
	if found {
		return nil
	}
	ng.source, ng.reason = strings.Clone(ng.source), strings.Clone(ng.reason)
	sym.gaps = slices.Insert(sym.gaps, i, ng)
	if len(sym.gaps) > MaxGaps {
		// Drop the one that ended first (the first in order on ties).
		oldest := 0
		for j := range sym.gaps {
			if sym.gaps[j].toNs < sym.gaps[oldest].toNs {
				oldest = j
			}
		}
		sym.gaps = slices.Delete(sym.gaps, oldest, oldest+1)
	}
	if sym.hasLast && !sym.touched {
		sym.touched = true
		e.touched = append(e.touched, sym)
	}
	e.markDirty(sym)
	return nil
}

// gap is a known gap of one symbol's trades.
type gap struct {
	fromNs, toNs   int64
	source, reason string
}

// compareGaps orders gaps by start, end, source, reason.
func compareGaps(a, b gap) int {
	if c := cmp.Compare(a.fromNs, b.fromNs); c != 0 {
		return c
	}
	if c := cmp.Compare(a.toNs, b.toNs); c != 0 {
		return c
	}
	if c := strings.Compare(a.source, b.source); c != 0 {
		return c
	}
	return strings.Compare(a.reason, b.reason)
}

// expireGaps forgets the gaps of sym that ended before the horizon of the
// boundary sec, reporting whether it forgot any.
func (sym *symbol) expireGaps(sec int64) bool {
	n := len(sym.gaps)
	horizon := sec*nsPerSecond - gapHorizonNs
	sym.gaps = slices.DeleteFunc(sym.gaps, func(g gap) bool { return g.toNs < horizon })
	return len(sym.gaps) != n
}

// fillGaps sets q.Gaps to the gaps of sym overlapping [startNs, asOfNs), in
// gap order, in the engine's reused gap structs; nil when there are none.
func (e *Engine) fillGaps(q *schemas.Quality, sym *symbol, startNs, asOfNs int64) {
	n := 0
	for _, g := range sym.gaps {
		if g.toNs < startNs || g.fromNs >= asOfNs {
			continue
		}
		x := &e.gapOut[n]
		x.Source, x.FromNs, x.ToNs, x.Reason = g.source, g.fromNs, g.toNs, g.reason
		e.gapPtrs[n] = x
		n++
	}
	if n > 0 {
		q.Gaps = e.gapPtrs[:n]
	}
}
