package cex

import (
	"fmt"
	"sync/atomic"
)

// dedupe remembers the last n (market, trade id) keys.
type dedupe struct {
	seen map[string]struct{}
	ring []string
	pos  int
}

func newDedupe(n int) *dedupe {
	return &dedupe{seen: make(map[string]struct{}, n), ring: make([]string, n)}
}

// add reports whether the key is new, remembering it.
func (d *dedupe) add(market, id string) bool {
	k := market + "\x00" + id
	if _, dup := d.seen[k]; dup {
		return false
	}
	if old := d.ring[d.pos]; old != "" {
		delete(d.seen, old)
	}
	d.ring[d.pos] = k
	d.pos = (d.pos + 1) % len(d.ring)
	d.seen[k] = struct{}{}
	return true
}

// gapTracker finds missed trade ids on venues whose ids are consecutive per
// market. A jump opens a pending range of missing ids; ids arriving late
// (reordered messages, a resubscription snapshot) are taken out of it; what
// is still missing after grace further trades of the market is a gap.
type gapTracker struct {
	grace   int
	markets map[string]*marketSeq
	missed  atomic.Uint64
}

type marketSeq struct {
	hi, hiNs int64
	n        int // trades seen
	pending  []pendingGap
}

type pendingGap struct {
	from, to     int64 // missing ids, inclusive
	fromNs, toNs int64 // event times of the trades around the gap
	deadline     int
}

type gap struct {
	fromNs, toNs int64
	reason       string
}

func newGapTracker(grace int) *gapTracker {
	return &gapTracker{grace: grace, markets: map[string]*marketSeq{}}
}

// observe records trade id of market and returns the gaps confirmed now.
func (g *gapTracker) observe(market string, id, eventNs int64) []gap {
	m := g.markets[market]
	if m == nil {
		m = &marketSeq{hi: id, hiNs: eventNs}
		g.markets[market] = m
		return nil
	}
	m.n++
	switch {
	case id == m.hi+1:
		m.hi, m.hiNs = id, eventNs
	case id > m.hi+1:
		m.pending = append(m.pending, pendingGap{from: m.hi + 1, to: id - 1, fromNs: m.hiNs, toNs: eventNs, deadline: m.n + g.grace})
		m.hi, m.hiNs = id, eventNs
	default: // late: fill it in a pending range
		for i := 0; i < len(m.pending); i++ {
			p := &m.pending[i]
			if id < p.from || id > p.to {
				continue
			}
			switch {
			case p.from == p.to:
				m.pending = append(m.pending[:i], m.pending[i+1:]...)
			case id == p.from:
				p.from++
			case id == p.to:
				p.to--
			default:
				rest := *p
				rest.from = id + 1
				p.to = id - 1
				m.pending = append(m.pending, pendingGap{})
				copy(m.pending[i+2:], m.pending[i+1:])
				m.pending[i+1] = rest
			}
			break
		}
	}
	var out []gap
	for len(m.pending) > 0 && (m.pending[0].deadline <= m.n || len(m.pending) > 1024) {
		p := m.pending[0]
		m.pending = m.pending[1:]
		n := uint64(p.to - p.from + 1)
		g.missed.Add(n)
		out = append(out, gap{fromNs: p.fromNs, toNs: p.toNs,
			reason: fmt.Sprintf("missed trades: %d trade ids %d..%d of %s", n, p.from, p.to, market)})
	}
	return out
}
