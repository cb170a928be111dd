package sqlparse

import "sync"

// Cache keeps the parse results of the most recently used statements, so a
// statement that runs again costs a map lookup. It is safe for concurrent
// use: one Cache serves all connections of a connector, and parses in
// the connector's dialect. Errors are not cached.
type Cache struct {
	d    *dialect
	mu   sync.Mutex
	max  int // < 1: parse every time (a PostgreSQL cache of size 0)
	m    map[string]*entry
	head entry // sentinel: head.next is the most recently used
}

type entry struct {
	key        string
	st         Statement
	prev, next *entry
}

// NewCache returns a cache of at most size GoogleSQL statements, or nil
// (parse every time) when size < 1. A nil *Cache is valid: it parses
// GoogleSQL. It is NewDialectCache(size, GoogleSQL).
func NewCache(size int) *Cache {
	return NewDialectCache(size, GoogleSQL)
}

// NewDialectCache returns a cache of at most size statements of dialect d.
// When size < 1 it caches nothing: for GoogleSQL it is nil, as NewCache's,
// for PostgreSQL a Cache that parses every time (a nil one would parse
// GoogleSQL).
func NewDialectCache(size int, d Dialect) *Cache {
	if size < 1 {
		if d != PostgreSQL {
			return nil
		}
		return &Cache{d: d.rules()}
	}
	c := &Cache{d: d.rules(), max: size, m: make(map[string]*entry, min(size, 1024))}
	c.head.prev, c.head.next = &c.head, &c.head
	return c
}

// Dialect is the dialect c parses (GoogleSQL for a nil Cache).
func (c *Cache) Dialect() Dialect {
	if c != nil && c.d.pg {
		return PostgreSQL
	}
	return GoogleSQL
}

// Parse returns the cached result for sql, or parses and remembers it.
func (c *Cache) Parse(sql string) (Statement, error) {
	if c == nil {
		return Parse(sql)
	}
	if c.max < 1 {
		return parse(c.d, sql, true)
	}
	c.mu.Lock()
	if e, ok := c.m[sql]; ok {
		c.unlink(e)
		c.pushFront(e)
		st := e.st
		c.mu.Unlock()
		return st, nil
	}
	c.mu.Unlock()
	// Parsed outside the lock: a long statement does not hold up others.
	st, err := parse(c.d, sql, true)
	if err != nil {
		return st, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[sql]; ok {
		return st, nil // another connection added it meanwhile
	}
	e := &entry{key: sql, st: st}
	if len(c.m) >= c.max {
		old := c.head.prev
		c.unlink(old)
		delete(c.m, old.key)
	}
	c.m[sql] = e
	c.pushFront(e)
	return st, nil
}

// Len is the number of cached statements.
func (c *Cache) Len() int {
	if c == nil || c.max < 1 {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

func (c *Cache) unlink(e *entry) {
	e.prev.next, e.next.prev = e.next, e.prev
}

func (c *Cache) pushFront(e *entry) {
	e.prev, e.next = &c.head, c.head.next
	c.head.next.prev = e
	c.head.next = e
}
