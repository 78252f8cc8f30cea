// Package edgar is the one client of SEC EDGAR in the service: ticker to CIK
// (company_tickers.json, company_tickers_exchange.json), the submissions JSON
// with its overflow files, the XBRL companyfacts JSON, filing index pages,
// full submission text files with their SEC-HEADER, primary documents and
// the "current filings" Atom feed (browse-edgar?action=getcurrent).
//
// Every request goes through the process's polite HTTP client
// (pipeline/sources/poll) and follows the SEC's fair-access policy: a
// declared User-Agent with a contact address, at most 10 requests per
// second shared by every caller in the process (www.sec.gov and
// data.sec.gov count together), Retry-After honoured on 403, 429 and 503,
// backoff; on top, an on-disk cache with ETag / Last-Modified revalidation
// and a TTL per kind of document, stale answers while EDGAR is down, and
// one shared fetch for concurrent requests of the same URL (singleflight).
// docs/edgar.md documents the paths, the TTLs and the policy.
//
// The parsers (ParseTickers, ParseSubmissions, ParseCurrentFeed,
// ParseHeader, ParseIndex, ...) are pure functions of bytes, usable without
// a client; malformed input yields an error wrapping ErrMalformed whose
// message is the dead-letter reason. The package does no Kafka: the API
// tier uses it for on-demand reads.
package edgar
