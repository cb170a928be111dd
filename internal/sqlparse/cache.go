package sqlparse

import "sync"

// Cache keeps the parse results of the most recently used statements, so a
// statement that runs again costs a map lookup. It is safe for concurrent
// use: one Cache serves all connections of a connector. Errors are not
// cached.
type Cache struct {
	mu   sync.Mutex
	max  int
	m    map[string]*entry
	head entry // sentinel: head.next is the most recently used
}

type entry struct {
	key        string
	st         Statement
	prev, next *entry
}

// NewCache returns a cache of at most size statements, or nil (parse every
// time) when size < 1. A nil *Cache is valid.
func NewCache(size int) *Cache {
	if size < 1 {
		return nil
	}
	c := &Cache{max: size, m: make(map[string]*entry, min(size, 1024))}
	c.head.prev, c.head.next = &c.head, &c.head
	return c
}

// Parse returns the cached result for sql, or parses and remembers it.
func (c *Cache) Parse(sql string) (Statement, error) {
	if c == nil {
		return Parse(sql)
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
	st, err := Parse(sql)
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
	if c == nil {
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
