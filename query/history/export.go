package history

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/marketintel/mi/datasets"
)

// ExportDay reads one UTC day of symbol's candles per venue of the given
// kinds, at interval or, where the day is stored only coarser, at the
// stored resolution (then Interval, RequestedInterval and Note say so). It
// returns ErrNoData when nothing matches.
func (s *Store) ExportDay(ctx context.Context, symbol, day, interval string, venueKinds []string) (datasets.ExportDay, error) {
	from, err := time.Parse(datasets.DateFormat, day)
	if err != nil {
		panic("BUG: export day " + day)
	}
	res, err := s.Candles(ctx, CandleQuery{Symbols: []string{symbol}, Interval: interval, From: from,
		To: from.Add(24 * time.Hour), PerVenue: true, VenueKinds: venueKinds})
	if err != nil {
		return datasets.ExportDay{}, err
	}
	d := datasets.ExportDay{Symbol: symbol, Date: day, Interval: interval, RequestedInterval: interval}
	if coarsest := res.Resolutions[len(res.Resolutions)-1]; coarsest != interval {
		d.Interval = coarsest
		d.Note = "the finest resolution stored for " + day + " is " + coarsest +
			" (retention: 1m is kept 7 days, 5m 30 days, 15m 180 days, then 1h); candles are " + coarsest
		// Bring every venue to the one coarsest resolution.
		if len(res.Resolutions) > 1 {
			res, err = s.Candles(ctx, CandleQuery{Symbols: []string{symbol}, Interval: coarsest, From: from,
				To: from.Add(24 * time.Hour), PerVenue: true, VenueKinds: venueKinds})
			if err != nil {
				return datasets.ExportDay{}, err
			}
		}
	}
	// The candles are ordered by venue: each venue's are one run, sliced
	// without copying.
	cs := res.Candles
	for start := 0; start < len(cs); {
		end := start + 1
		for end < len(cs) && cs[end].Venue == cs[start].Venue {
			end++
		}
		c := cs[start]
		d.Venues = append(d.Venues, datasets.VenueDay{Venue: c.Venue, VenueKind: c.VenueKind, Chain: c.Chain,
			Candles: cs[start:end:end]})
		start = end
	}
	return d, nil
}

// symbolCacheTTL is how long CachedSymbols reuses a listing.
const symbolCacheTTL = 30 * time.Second

// CachedSymbols is Symbols, reused for 30 seconds (wall clock).
func (s *Store) CachedSymbols(ctx context.Context) ([]string, error) {
	s.symMu.Lock()
	defer s.symMu.Unlock()
	if s.syms != nil && time.Since(s.symAt) < symbolCacheTTL {
		return slices.Clone(s.syms), nil
	}
	syms, err := s.Symbols(ctx)
	if err != nil {
		return nil, err
	}
	s.syms, s.symAt = syms, time.Now()
	return slices.Clone(syms), nil
}

// CachedOffered is Offered, reused for 30 seconds (wall clock) while the
// venue kinds asked for are the same: the free catalog reads it on every
// call.
func (s *Store) CachedOffered(ctx context.Context, venueKinds []string) (symbols, venues []string, err error) {
	s.symMu.Lock()
	defer s.symMu.Unlock()
	key := strings.Join(venueKinds, ",")
	if s.offSyms != nil && s.offKey == key && time.Since(s.offAt) < symbolCacheTTL {
		return slices.Clone(s.offSyms), slices.Clone(s.offVenues), nil
	}
	if symbols, venues, err = s.Offered(ctx, venueKinds); err != nil {
		return nil, nil, err
	}
	s.offSyms, s.offVenues, s.offKey, s.offAt = symbols, venues, key, time.Now()
	return slices.Clone(symbols), slices.Clone(venues), nil
}
