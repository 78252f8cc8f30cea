package replay

import (
	"context"
	"io"
	"math"
	"strings"

	"github.com/marketintel/mi/pipeline/sources"
)

// merge is a k-way merge of file sources by event time. Each file is read in
// its own order; at every step the head with the smallest event time is
// yielded, ties going to the earlier path. A rejected record has no event
// time and is yielded as soon as it is at the head of its file, so rejects
// stay beside the lines around them. Files that are not in time order
// internally come out in their own order, which is why the result is only
// "roughly" time-ordered.
type merge struct {
	name  string
	srcs  []*fileSource
	heads []sources.Record
	state []int8 // 0 = head not read, 1 = head valid, 2 = exhausted
	err   error
}

func newMerge(srcs []*fileSource) *merge {
	names := make([]string, len(srcs))
	for i, s := range srcs {
		names[i] = strings.TrimPrefix(s.name, "replay:")
	}
	return &merge{
		name:  "replay:" + strings.Join(names, ","),
		srcs:  srcs,
		heads: make([]sources.Record, len(srcs)),
		state: make([]int8, len(srcs)),
	}
}

// Name implements sources.Source.
func (m *merge) Name() string { return m.name }

// Skipped implements Skipper: the sum over the merged files.
func (m *merge) Skipped() uint64 {
	var n uint64
	for _, s := range m.srcs {
		n += s.Skipped()
	}
	return n
}

// Next implements sources.Source.
func (m *merge) Next(ctx context.Context) (sources.Record, error) {
	if m.err != nil {
		return sources.Record{}, m.err
	}
	best, bestKey := -1, int64(math.MaxInt64)
	for i, s := range m.srcs {
		if m.state[i] == 0 {
			rec, err := s.Next(ctx)
			switch {
			case err == io.EOF:
				m.state[i] = 2
				continue
			case err != nil:
				m.err = err
				return sources.Record{}, err
			}
			m.heads[i], m.state[i] = rec, 1
		}
		if m.state[i] != 1 {
			continue
		}
		key := int64(math.MinInt64)
		if t := m.heads[i].Trade; t != nil {
			key = t.EventTimeNs
		}
		if best < 0 || key < bestKey {
			best, bestKey = i, key
		}
	}
	if best < 0 {
		return sources.Record{}, io.EOF
	}
	rec := m.heads[best]
	m.heads[best], m.state[best] = sources.Record{}, 0
	return rec, nil
}

// Close implements sources.Source.
func (m *merge) Close() error {
	var first error
	for _, s := range m.srcs {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
