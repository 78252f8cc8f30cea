package treasury

import (
	"context"

	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/ratesfeed"
)

// newCollectingFeed returns a feed that appends the CUSIP of every auction
// it emits to out.
func newCollectingFeed(out *[]string) *ratesfeed.Feed {
	return ratesfeed.New("test", Publisher, func(_ context.Context, r sources.Record) error {
		if r.Side != nil {
			v, err := sidetopic.Rates.Decode(r.Side.Value)
			if err != nil {
				return err
			}
			if a := v.GetAuction(); a != nil {
				*out = append(*out, a.Cusip)
			}
		}
		return nil
	}, nil)
}
