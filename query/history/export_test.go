package history

// SetBytesPerOutcomeCandle sets the memory a backtest batch plans per
// candle and returns a function that restores it, for tests that force
// small batches.
func SetBytesPerOutcomeCandle(n int64) (restore func()) {
	old := bytesPerOutcomeCandle
	bytesPerOutcomeCandle = n
	return func() { bytesPerOutcomeCandle = old }
}
