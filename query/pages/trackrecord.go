package pages

import (
	"encoding/json"
	"slices"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/web"
)

// trackHorizons are the horizons of the track record, in order (schema
// TrackRecord).
var trackHorizons = []string{"5m", "15m", "1h", "24h"}

type horizonStats struct {
	Samples       int64   `json:"samples"`
	HitRate       float64 `json:"hitRate"`
	AverageReturn float64 `json:"averageReturnPercent"`
}

type trackGroup struct {
	Count    int64                   `json:"count"`
	Horizons map[string]horizonStats `json:"horizons"`
}

// trackAnswer is GET /track-record (schema TrackRecord).
type trackAnswer struct {
	Window             string                  `json:"window"`
	Days               int64                   `json:"days"`
	From               string                  `json:"from"`
	To                 string                  `json:"to"`
	SignalsLogged      int64                   `json:"signalsLogged"`
	DirectionalSignals int64                   `json:"directionalSignals"`
	Horizons           map[string]horizonStats `json:"horizons"`
	BySignal           map[string]trackGroup   `json:"bySignal"`
	ByEventType        map[string]trackGroup   `json:"byEventType"`
	ByConfidence       map[string]trackGroup   `json:"byConfidence"`
	Latest             []struct {
		Symbol         string              `json:"symbol"`
		ChangedAt      string              `json:"changedAt"`
		PreviousSignal string              `json:"previousSignal"`
		Signal         string              `json:"signal"`
		EventType      string              `json:"eventType"`
		Confidence     float64             `json:"confidence"`
		Price          float64             `json:"price"`
		Outcomes       map[string]*float64 `json:"outcomes"`
	} `json:"latest"`
	GeneratedAt string `json:"generatedAt"`
	// Message is the 404's explanation.
	Message string `json:"message"`
}

// trackView is the track-record page.
type trackView struct {
	A        trackAnswer
	NoData   string
	Horizons []string
	Overall  []horizonRow
	Charts   []web.Figure
	Groups   []groupTable
	Latest   []latestRow
	// ChartHorizon is the horizon the group charts show.
	ChartHorizon string
}

type horizonRow struct {
	Horizon string
	horizonStats
}

type groupTable struct {
	Key, Title string
	Rows       []groupRow
}

type groupRow struct {
	Name  string
	Count int64
	Cells []horizonStats
}

type latestRow struct {
	Symbol, ChangedAt, Previous, Signal, EventType string
	Confidence, Price                              float64
	Outcomes                                       []*float64
}

func (p *Pages) renderTrackRecord(c fiber.Ctx, status int, body []byte) error {
	var a trackAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return err
	}
	v := trackView{A: a, Horizons: trackHorizons}
	page := web.Page{Title: "Track record", Nav: web.NavTrackRecord, Data: &v,
		Description: "How the published signals did: every logged change to BULLISH or BEARISH, scored on the candles that followed, as GET /track-record answers it."}
	if status != fiber.StatusOK {
		v.NoData = a.Message
		return p.render(c, status, "trackrecord", page)
	}
	v.Overall, v.ChartHorizon = overallRows(a.Horizons)
	v.Charts = append(v.Charts, hitRateFigure("Hit rate by horizon", "Hit rate per horizon, percent of scored signals that moved in the signal's direction.", trackHorizons, func(h string) horizonStats { return a.Horizons[h] }))
	for _, g := range []struct {
		key, title string
		m          map[string]trackGroup
	}{{"bySignal", "By signal", a.BySignal}, {"byEventType", "By event type", a.ByEventType}, {"byConfidence", "By confidence", a.ByConfidence}} {
		gt := groupTable{Key: g.key, Title: g.title}
		names := make([]string, 0, len(g.m))
		for n := range g.m {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			r := groupRow{Name: n, Count: g.m[n].Count}
			for _, h := range trackHorizons {
				r.Cells = append(r.Cells, g.m[n].Horizons[h])
			}
			gt.Rows = append(gt.Rows, r)
		}
		v.Groups = append(v.Groups, gt)
		hz := v.ChartHorizon
		v.Charts = append(v.Charts, hitRateFigure(g.title+" at "+hz, "Hit rate at "+hz+" "+lowerFirst(g.title)+".", names,
			func(n string) horizonStats { return g.m[n].Horizons[hz] }))
	}
	for _, l := range a.Latest {
		r := latestRow{Symbol: l.Symbol, ChangedAt: l.ChangedAt, Previous: l.PreviousSignal, Signal: l.Signal, EventType: l.EventType,
			Confidence: l.Confidence, Price: l.Price}
		for _, h := range trackHorizons {
			r.Outcomes = append(r.Outcomes, l.Outcomes[h])
		}
		v.Latest = append(v.Latest, r)
	}
	return p.render(c, status, "trackrecord", page)
}

// overallRows lists the horizons and picks the one the group charts show:
// the longest horizon with samples (5m when none has).
func overallRows(m map[string]horizonStats) ([]horizonRow, string) {
	var rows []horizonRow
	chart := trackHorizons[0]
	for _, h := range trackHorizons {
		rows = append(rows, horizonRow{h, m[h]})
		if m[h].Samples > 0 {
			chart = h
		}
	}
	return rows, chart
}

// hitRateFigure is a bar chart of hit rates over labels; a label without
// samples is a gap.
func hitRateFigure(label, caption string, labels []string, stats func(string) horizonStats) web.Figure {
	s := web.ChartSeries{Label: "Hit rate"}
	for _, l := range labels {
		st := stats(l)
		if st.Samples == 0 {
			s.Values = append(s.Values, nil)
			continue
		}
		hr := st.HitRate
		s.Values = append(s.Values, &hr)
	}
	return web.Figure{Label: label, Caption: caption, Spec: web.Chart{Kind: "bars", Labels: labels, Series: []web.ChartSeries{s},
		Unit: "%", Range: []float64{0, 100}, Height: 180}}
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}
