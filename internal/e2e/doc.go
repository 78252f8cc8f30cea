// Package e2e holds the end-to-end tests of the service: the whole pipeline
// on the embedded broker over real captures, a kill -9 and restart of the mi
// binary, a third-party Kafka client (kcat) reading our topics, and DuckDB
// checking our candles. It has no non-test code.
package e2e
