package edgar

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// cacheEntry is one cached response.
type cacheEntry struct {
	URL          string    `json:"url"`
	ETag         string    `json:"etag,omitempty"`
	LastModified string    `json:"lastModified,omitempty"`
	FetchedAt    time.Time `json:"fetchedAt"` // last 200 or 304
	Size         int       `json:"size"`
	Body         []byte    `json:"-"`
}

// cache stores response bodies with their validators.
type cache interface {
	load(url string) (*cacheEntry, bool)
	store(e *cacheEntry) error
	// touch records a 304 revalidation.
	touch(url string, at time.Time) error
}

// diskCache keeps each response in <dir>/<h[:2]>/<h>.body with its metadata
// in <h>.meta (JSON), h the SHA-256 of the URL. Both are written to a
// temporary name and renamed, body first: a crash leaves either the old
// entry, or a body without matching metadata, which reads as a miss.
type diskCache struct {
	dir string
	mu  sync.Mutex // serializes writers of one process
}

func newDiskCache(dir string) (*diskCache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the EDGAR cache %s: %w", dir, err)
	}
	return &diskCache{dir: dir}, nil
}

func (c *diskCache) paths(url string) (body, meta string) {
	sum := sha256.Sum256([]byte(url))
	h := hex.EncodeToString(sum[:])
	base := filepath.Join(c.dir, h[:2], h)
	return base + ".body", base + ".meta"
}

func (c *diskCache) load(url string) (*cacheEntry, bool) {
	bp, mp := c.paths(url)
	mb, err := os.ReadFile(mp)
	if err != nil {
		return nil, false
	}
	var e cacheEntry
	if json.Unmarshal(mb, &e) != nil || e.URL != url {
		return nil, false
	}
	body, err := os.ReadFile(bp)
	if err != nil || len(body) != e.Size {
		return nil, false
	}
	e.Body = body
	return &e, true
}

func (c *diskCache) store(e *cacheEntry) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	bp, mp := c.paths(e.URL)
	if err := os.MkdirAll(filepath.Dir(bp), 0o755); err != nil {
		return fmt.Errorf("cannot cache %s: %w", e.URL, err)
	}
	e.Size = len(e.Body)
	if err := writeAtomic(bp, e.Body); err != nil {
		return fmt.Errorf("cannot cache %s: %w", e.URL, err)
	}
	mb, _ := json.Marshal(e)
	if err := writeAtomic(mp, mb); err != nil {
		return fmt.Errorf("cannot cache %s: %w", e.URL, err)
	}
	return nil
}

func (c *diskCache) touch(url string, at time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, mp := c.paths(url)
	mb, err := os.ReadFile(mp)
	if err != nil {
		return fmt.Errorf("cannot refresh the cache entry of %s: %w", url, err)
	}
	var e cacheEntry
	if err := json.Unmarshal(mb, &e); err != nil {
		return fmt.Errorf("cannot refresh the cache entry of %s: %w", url, err)
	}
	e.FetchedAt = at
	mb, _ = json.Marshal(&e)
	return writeAtomic(mp, mb)
}

func writeAtomic(path string, b []byte) error {
	tmp := fmt.Sprintf("%s.tmp%d", path, os.Getpid())
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// memCache is the cache without a directory: bodies in memory up to a byte
// budget, the oldest entries evicted first.
type memCache struct {
	mu      sync.Mutex
	budget  int
	size    int
	entries map[string]*cacheEntry
	order   []string
}

func newMemCache(budget int) *memCache {
	return &memCache{budget: budget, entries: map[string]*cacheEntry{}}
}

func (c *memCache) load(url string) (*cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[url]
	if !ok {
		return nil, false
	}
	cp := *e
	return &cp, true
}

func (c *memCache) store(e *cacheEntry) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	cp := *e
	cp.Size = len(cp.Body)
	if old, ok := c.entries[e.URL]; ok {
		c.size -= old.Size
	} else {
		c.order = append(c.order, e.URL)
	}
	c.entries[e.URL] = &cp
	c.size += cp.Size
	for c.size > c.budget && len(c.order) > 1 {
		u := c.order[0]
		c.order = c.order[1:]
		if old, ok := c.entries[u]; ok {
			c.size -= old.Size
			delete(c.entries, u)
		}
	}
	return nil
}

func (c *memCache) touch(url string, at time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[url]; ok {
		e.FetchedAt = at
	}
	return nil
}
