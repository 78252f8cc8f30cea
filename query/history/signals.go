package history

import "time"

// Signal is one stored signal document (datasets.SignalColumns).
type Signal struct {
	Time               time.Time
	Symbol             string
	ID                 string
	Price              float64
	PriceChangePercent float64
	Volume             float64
	BuyPressure        float64
	TradeCount         int64
	Momentum           float64
	Activity           float64
	Anomaly            float64
	Confidence         float64
	Signal             string
	Strength           string
	EventType          string
	VolumeMultiple     float64
	ActivityMultiple   float64
	BaselineSamples    int64
	BaselineReady      bool
	AlgorithmVersion   string
}

// Change is one logged signal change (datasets.SignalChangeColumns).
type Change struct {
	ChangedAt        time.Time
	Symbol           string
	Window           string
	AlgorithmVersion string
	PreviousSignal   string
	Signal           string
	Strength         string
	EventType        string
	DocumentID       string
	Price            float64
	Momentum         float64
	Activity         float64
	Anomaly          float64
	Confidence       float64
	BuyPressure      float64
	Volume           float64
	TradeCount       int64
	BaselineSamples  int64
}
