package newsfeed

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"
)

// ErrBadURL is wrapped by CanonicalURL's error for a link that cannot be an
// article URL.
var ErrBadURL = errors.New("bad url")

// maxURLLen bounds an article URL; longer links are rejected.
const maxURLLen = 2048

// trackingParams are query parameters that say how a reader arrived, not
// which page they read; CanonicalURL removes them. Any parameter starting
// with "utm_" is removed as well.
var trackingParams = map[string]bool{
	"fbclid": true, "gclid": true, "dclid": true, "gclsrc": true, "msclkid": true, "yclid": true,
	"mc_cid": true, "mc_eid": true, "_ga": true, "_gl": true, "igshid": true, "ref_src": true,
	"cmpid": true, "ncid": true, "guccounter": true, "guce_referrer": true, "guce_referrer_sig": true,
	"soc_src": true, "soc_trk": true, "smid": true, "__twitter_impression": true,
}

// CanonicalURL returns the form of raw under which an article is stored and
// shown: scheme https (publishers serve the same page over both), host in
// lower case without a default port, no user info, no fragment, tracking
// parameters removed and the remaining ones sorted, no trailing slash
// except for the root path. A relative raw is resolved against base (the
// feed's own link) when base is given. Only http and https links are
// accepted.
func CanonicalURL(raw, base string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", fmt.Errorf("%w: empty", ErrBadURL)
	}
	if len(raw) > maxURLLen {
		return "", fmt.Errorf("%w: longer than %d bytes", ErrBadURL, maxURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	if !u.IsAbs() && base != "" {
		b, err := url.Parse(strings.TrimSpace(base))
		if err == nil && b.IsAbs() {
			u = b.ResolveReference(u)
		}
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return "", fmt.Errorf("%w: scheme %q is not http or https", ErrBadURL, u.Scheme)
	}
	host := strings.ToLower(u.Hostname())
	host = strings.TrimSuffix(host, ".")
	if host == "" || strings.ContainsAny(host, " \t%") {
		return "", fmt.Errorf("%w: no host", ErrBadURL)
	}
	if port := u.Port(); port != "" && port != "80" && port != "443" {
		host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]" // IPv6 literal
	}
	c := url.URL{Scheme: "https", Host: host, Path: u.Path, RawPath: u.RawPath}
	if c.Path == "" {
		c.Path = "/"
	}
	for len(c.Path) > 1 && strings.HasSuffix(c.Path, "/") {
		c.Path = strings.TrimSuffix(c.Path, "/")
		c.RawPath = strings.TrimSuffix(c.RawPath, "/")
	}
	if u.RawQuery != "" {
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			// Keep a query Go cannot split as it is: it may still be the
			// page's key.
			c.RawQuery = u.RawQuery
		} else {
			for k := range q {
				lk := strings.ToLower(k)
				if strings.HasPrefix(lk, "utm_") || trackingParams[lk] {
					delete(q, k)
				}
			}
			c.RawQuery = encodeSorted(q)
		}
	}
	out := c.String()
	if len(out) > maxURLLen {
		return "", fmt.Errorf("%w: longer than %d bytes once escaped", ErrBadURL, maxURLLen)
	}
	return out, nil
}

// encodeSorted encodes q with keys sorted and each key's values in their
// original order.
func encodeSorted(q url.Values) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range q[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(k))
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(v))
		}
	}
	return b.String()
}

// Hostname returns the host of a canonical URL without a leading "www.":
// the publisher name a news item's source field carries.
func Hostname(canonical string) string {
	u, err := url.Parse(canonical)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Hostname(), "www.")
}

// ArticleID returns the stable id of the article at a canonical URL:
// "url:" and 24 hex digits of the SHA-256 of its identity, the canonical
// URL without its scheme and without a leading "www.". Two copies of one
// article, from a re-poll or from a second feed, have the same id.
func ArticleID(canonical string) string {
	ident := strings.TrimPrefix(canonical, "https://")
	ident = strings.TrimPrefix(ident, "www.")
	h := sha256.Sum256([]byte(ident))
	return "url:" + hex.EncodeToString(h[:12])
}

// FilingID returns the stable id of the filing with an accession number.
func FilingID(accession string) string { return "sec:" + accession }
