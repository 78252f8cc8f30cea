package history

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// readSignals is the FROM clause over a bound list of signal files.
const readSignals = `read_parquet(?::VARCHAR[], hive_partitioning = true, hive_types_autocast = false, union_by_name = true)`

// SignalStats summarizes the signal documents of one symbol over a range.
type SignalStats struct {
	Symbol          string
	Documents       int64
	AverageMomentum float64
	AverageActivity float64
	AverageAnomaly  float64
	MaxAnomaly      float64
	// LatestSignal is the signal of the latest document.
	LatestSignal string
	// BullishShare and BearishShare are the percentages of documents
	// whose signal is BULLISH, BEARISH.
	BullishShare float64
	BearishShare float64
}

// SignalSummary summarizes the documents of window for symbols with a
// timestamp in [from, to), by symbol. Symbols without documents are absent.
func (s *Store) SignalSummary(ctx context.Context, window string, symbols []string, from, to time.Time) (map[string]SignalStats, error) {
	files := s.signalFiles(window, datasetsDay(from), datasetsDay(to.Add(-time.Nanosecond)))
	out := map[string]SignalStats{}
	if len(files) == 0 {
		return out, nil
	}
	rows, err := s.db.QueryContext(ctx, `
SELECT symbol, count(*), avg(momentum_score), avg(activity_score), avg(anomaly_score), max(anomaly_score),
       arg_max(signal, ts), 100 * avg((signal = 'BULLISH')::INT), 100 * avg((signal = 'BEARISH')::INT)
FROM `+readSignals+`
WHERE list_contains(?::VARCHAR[], symbol) AND ts >= ?::TIMESTAMPTZ AND ts < ?::TIMESTAMPTZ
GROUP BY symbol`, files, symbols, from.UTC(), to.UTC())
	if err != nil {
		return nil, fmt.Errorf("cannot summarize signals: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var st SignalStats
		var latest sql.NullString
		if err := rows.Scan(&st.Symbol, &st.Documents, &st.AverageMomentum, &st.AverageActivity, &st.AverageAnomaly,
			&st.MaxAnomaly, &latest, &st.BullishShare, &st.BearishShare); err != nil {
			return nil, fmt.Errorf("cannot read signal stats: %w", err)
		}
		st.LatestSignal = latest.String
		out[st.Symbol] = st
	}
	return out, rows.Err()
}
