// Package poll reads public publishers politely over HTTP: Treasury, the
// NY Fed, the ECB, TreasuryDirect, exchange REST APIs, RSS and Atom feeds,
// SEC EDGAR. It has three parts:
//
//   - Client makes one request: User-Agent naming the operator and a
//     contact, gzip, a timeout, a body size limit (ErrTooLarge), conditional
//     GETs from the validators of the last complete answer per URL (a 304
//     is a Response with NotModified, never data), the per-host rate limits
//     of Hosts shared by every caller in the process, and 403/418/429/503
//     reported as *ThrottledError with the publisher's Retry-After, during
//     which further requests to that host are refused without being sent.
//   - Poller runs a source's cycle (a PollFunc; Fetch makes one for a
//     single URL) at start and then on a Schedule aligned to the clock,
//     retries failures with jittered backoff (sources.Backoff), honours
//     Retry-After, and records every attempt in a sources.Health.
//   - sources.Registry (in the parent package) collects the Health of every
//     source for /status: last attempt, last success, the publisher's time
//     of the newest data, consecutive failures, the last error redacted,
//     ages; and logs "source unreachable" once per outage and "source
//     recovered" once after it.
//
// Time comes from an injected clock.Clock, so tests drive schedules, rate
// limits and Retry-After with clock.Fake. The package does no parsing: a
// domain source parses Response.Body in its own package and hands the
// records on. Configuration: the "http" section of the sources file
// (sources.HTTPConfig, docs/sources.md).
package poll
