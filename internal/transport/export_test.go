package transport

import "net/http"

// SetTokenHTTPClient makes the credentials' token requests go through c
// until the returned function restores the default.
func SetTokenHTTPClient(c *http.Client) (restore func()) {
	old := tokenHTTPClient
	tokenHTTPClient = c
	return func() { tokenHTTPClient = old }
}
