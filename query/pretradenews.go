package query

import (
	"time"

	"github.com/marketintel/mi/operators/decision"
	"github.com/marketintel/mi/operators/newsclass"
	"github.com/marketintel/mi/sinks/newsview"
)

// viewNews is the pre-trade check's news source over the news view: the
// symbol's items of the 24 hours before now, counted by sentiment and
// materiality (docs/decisions.md, check news_24h).
type viewNews struct{ v *newsview.View }

// News24h implements market.NewsSource. ok is false while the view holds
// no item at all (no news source has delivered anything on this server),
// so the check stays UNKNOWN rather than passing on silence.
func (n viewNews) News24h(symbol string, now time.Time) (decision.News, bool) {
	if n.v.Len() == 0 {
		return decision.News{}, false
	}
	var out decision.News
	for _, d := range n.v.Recent(symbol, now.Add(-24*time.Hour), now, 0) {
		material := d.Materiality >= decision.MaterialNews
		switch d.Sentiment {
		case newsclass.Positive:
			out.Positive++
			if material {
				out.MaterialPositive++
			}
		case newsclass.Negative:
			out.Negative++
			if material {
				out.MaterialNegative++
			}
		}
	}
	return out, true
}
